package org.lprff.vector.simd.panama;

import static jdk.incubator.vector.VectorOperators.XOR;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.scalar.ScalarCounterRng;
import org.lprff.vector.simd.spi.CounterRngBody;
import org.lprff.vector.simd.spi.Threefry;

/**
 * Vector API Threefry-4x32: eight or sixteen Threefry blocks at once, one per int lane.
 *
 * <p>The column-to-counter mapping of {@code CounterRng} is defined on groups of 8 blocks, so that
 * the 8 lanes of output word w are 8 consecutive columns and no shuffle is needed. One evaluation
 * runs {@link #GROUPS} consecutive groups side by side: one on 256-bit machines, two on 512-bit
 * ones (16 int lanes, blocks 8q..8q+15), which halves the Threefry work per column there. The last
 * piece writes each group's 32 words in the group's own order, so callers see consecutive groups
 * one after another whatever the width. Narrower machines use the scalar body (the facade
 * decides).
 *
 * <p>The state of a group lives in an int[32] between pieces of 4, 4 and 5 rounds, and {@link
 * #group} hands the 32 words over in an int array instead of returning four vectors. Vectors stay
 * in registers only inside one compiled method whose Vector API calls were all inlined. C2
 * refused to inline a 20-round body into its callers ("hot method too big"), and inside one
 * method it stopped inlining Vector API calls after about 12 rounds (NodeCountInliningCutoff);
 * both were seen with -XX:+PrintInlining, and every vector is then boxed on the heap (a 5x slower
 * RNG). Pieces of 8 + 5 rounds were 2.4x slower than 4 + 4 + 5 on this machine (JDK 25,
 * QuantizeBenchmark.Rng). Four 32-byte stores and loads through L1 per piece cost little next to
 * its ~40 vector operations; the first piece starts from the counter in registers, which saved
 * 10-25% of stochastic rounding's time over storing the initial state first.
 *
 * <p>Each piece must also stay compiled on its own, not inlined into {@link #group} and from
 * there into the caller's loop, whose node budget it would exhaust: a 321-bytecode version of
 * the middle piece fell under C2's FreqInlineSize (325), was inlined, and made the RNG 6x
 * slower. The pieces are 343 to 370 bytes of bytecode; CounterRngTest checks they stay above 325.
 */
public final class VectorCounterRng implements CounterRngBody {

  /** Eight lanes: what the consumers of a group's words read them with. */
  static final VectorSpecies<Integer> INTS = IntVector.SPECIES_256;
  static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_256;

  /** The Threefry lanes: 16 on 512-bit machines (two groups per evaluation), else 8. */
  static final VectorSpecies<Integer> BLOCKS =
      VectorShape.preferredBits() >= 512 ? IntVector.SPECIES_512 : IntVector.SPECIES_256;

  /** Groups of 8 blocks per evaluation of {@link #group}: 1 or 2. */
  static final int GROUPS = BLOCKS.length() / 8;

  /** Columns per group: 8 blocks x 4 output words. */
  static final int GROUP = 32;

  /** Columns per group under the half-word mapping: 8 blocks x 4 words x 2 halves. */
  static final int HALF_GROUP = 64;

  /** Columns per group under the byte mapping: 8 blocks x 4 words x 4 bytes. */
  static final int BYTE_GROUP = 128;

  /** Words one evaluation writes: GROUPS x 32. */
  static final int WORDS = GROUPS * GROUP;

  private static final IntVector LANE_INDEX = IntVector.zero(BLOCKS).addIndex(1);

  /** The lanes of the first and of the second group of a 16-lane evaluation. */
  private static final VectorMask<Integer> FIRST_GROUP = LANE_INDEX.compare(VectorOperators.LT, 8);

  private static final VectorMask<Integer> SECOND_GROUP = FIRST_GROUP.not();
  private static final int L = BLOCKS.length();

  /**
   * Key schedule of a seed: ks0, ks1 (the seed halves), ks2 = ks3 = 0 (the key's upper half is
   * zero), ks4 = 0x1BD11BDA ^ ks0 ^ ks1, stored twice in a row so that injection s reads
   * ks[s .. s + 3] (plus s on the last word) without a modulo.
   */
  static int[] keySchedule(long seed) {
    int k0 = (int) seed;
    int k1 = (int) (seed >>> 32);
    int k4 = Threefry.KS_PARITY ^ k0 ^ k1;
    return new int[] {k0, k1, 0, 0, k4, k0, k1, 0, 0, k4};
  }

  /**
   * Threefry-4x32-13 of the {@link #GROUPS} groups q, q + 1, ... of a row: output word w of block
   * 8(q + g) + j goes to out[off + 32g + 8w + j], that is, columns 32q .. 32(q + GROUPS) - 1 in
   * order ({@link #WORDS} ints). Rotation counts are literals (in the pieces) so that each rotation
   * compiles to one rotate (AVX-512) or two immediate shifts and an OR (AVX2). Between pieces the
   * state is kept word by word, x_w at out[off + L w].
   */
  static void group(int[] ks, int rowLo, int rowHi, int group, int draw, int[] out, int off) {
    firstFourRounds(ks, rowLo, rowHi, group, draw, out, off); // rounds 0..3, injection 1
    middleFourRounds(ks, 2, out, off); // rounds 4..7, injection 2
    lastFiveRounds(ks, out, off); // rounds 8..11, injection 3, round 12
  }

  /**
   * Counter plus key (counter = (block 8q + lane, row low, row high, draw)), rounds 0..3 and key
   * injection 1, into state.
   */
  private static void firstFourRounds(
      int[] ks, int rowLo, int rowHi, int group, int draw, int[] state, int off) {
    IntVector x0 = LANE_INDEX.add(group * 8 + ks[0]);
    IntVector x1 = IntVector.broadcast(BLOCKS, rowLo + ks[1]);
    IntVector x2 = IntVector.broadcast(BLOCKS, rowHi + ks[2]);
    IntVector x3 = IntVector.broadcast(BLOCKS, draw + ks[3]);
    x0 = x0.add(x1);
    x1 = rotl(x1, 10).lanewise(XOR, x0);
    x2 = x2.add(x3);
    x3 = rotl(x3, 26).lanewise(XOR, x2);
    x0 = x0.add(x3);
    x3 = rotl(x3, 11).lanewise(XOR, x0);
    x2 = x2.add(x1);
    x1 = rotl(x1, 21).lanewise(XOR, x2);
    x0 = x0.add(x1);
    x1 = rotl(x1, 13).lanewise(XOR, x0);
    x2 = x2.add(x3);
    x3 = rotl(x3, 27).lanewise(XOR, x2);
    x0 = x0.add(x3);
    x3 = rotl(x3, 23).lanewise(XOR, x0);
    x2 = x2.add(x1);
    x1 = rotl(x1, 5).lanewise(XOR, x2);
    x0 = x0.add(ks[1]);
    x1 = x1.add(ks[2]);
    x2 = x2.add(ks[3]);
    x3 = x3.add(ks[4] + 1);
    x0.intoArray(state, off);
    x1.intoArray(state, off + L);
    x2.intoArray(state, off + 2 * L);
    x3.intoArray(state, off + 3 * L);
  }

  /**
   * Rounds 4..7 (rotation constants of rounds 4..7) and key injection s = 2, in place. (s is a
   * parameter, not a literal, partly to keep this method above FreqInlineSize: see the class
   * comment.)
   */
  private static void middleFourRounds(int[] ks, int s, int[] state, int off) {
    IntVector x0 = IntVector.fromArray(BLOCKS, state, off);
    IntVector x1 = IntVector.fromArray(BLOCKS, state, off + L);
    IntVector x2 = IntVector.fromArray(BLOCKS, state, off + 2 * L);
    IntVector x3 = IntVector.fromArray(BLOCKS, state, off + 3 * L);
    x0 = x0.add(x1);
    x1 = rotl(x1, 6).lanewise(XOR, x0);
    x2 = x2.add(x3);
    x3 = rotl(x3, 20).lanewise(XOR, x2);
    x0 = x0.add(x3);
    x3 = rotl(x3, 17).lanewise(XOR, x0);
    x2 = x2.add(x1);
    x1 = rotl(x1, 11).lanewise(XOR, x2);
    x0 = x0.add(x1);
    x1 = rotl(x1, 25).lanewise(XOR, x0);
    x2 = x2.add(x3);
    x3 = rotl(x3, 10).lanewise(XOR, x2);
    x0 = x0.add(x3);
    x3 = rotl(x3, 18).lanewise(XOR, x0);
    x2 = x2.add(x1);
    x1 = rotl(x1, 20).lanewise(XOR, x2);
    x0 = x0.add(ks[s]);
    x1 = x1.add(ks[s + 1]);
    x2 = x2.add(ks[s + 2]);
    x3 = x3.add(ks[s + 3] + s);
    x0.intoArray(state, off);
    x1.intoArray(state, off + L);
    x2.intoArray(state, off + 2 * L);
    x3.intoArray(state, off + 3 * L);
  }

  /**
   * Rounds 8..11 (the rotation constants of rounds 0..3 again), key injection 3, and round 12
   * (constants by round mod 8: those of round 4, (6, 20), on the even pairing), in place.
   * Threefry-4x32-13 ends on this bare round: injection 4 would follow round 15.
   */
  private static void lastFiveRounds(int[] ks, int[] state, int off) {
    IntVector x0 = IntVector.fromArray(BLOCKS, state, off);
    IntVector x1 = IntVector.fromArray(BLOCKS, state, off + L);
    IntVector x2 = IntVector.fromArray(BLOCKS, state, off + 2 * L);
    IntVector x3 = IntVector.fromArray(BLOCKS, state, off + 3 * L);
    x0 = x0.add(x1);
    x1 = rotl(x1, 10).lanewise(XOR, x0);
    x2 = x2.add(x3);
    x3 = rotl(x3, 26).lanewise(XOR, x2);
    x0 = x0.add(x3);
    x3 = rotl(x3, 11).lanewise(XOR, x0);
    x2 = x2.add(x1);
    x1 = rotl(x1, 21).lanewise(XOR, x2);
    x0 = x0.add(x1);
    x1 = rotl(x1, 13).lanewise(XOR, x0);
    x2 = x2.add(x3);
    x3 = rotl(x3, 27).lanewise(XOR, x2);
    x0 = x0.add(x3);
    x3 = rotl(x3, 23).lanewise(XOR, x0);
    x2 = x2.add(x1);
    x1 = rotl(x1, 5).lanewise(XOR, x2);
    x0 = x0.add(ks[3]);
    x1 = x1.add(ks[4]);
    x2 = x2.add(ks[5]);
    x3 = x3.add(ks[6] + 3);
    x0 = x0.add(x1);
    x1 = rotl(x1, 6).lanewise(XOR, x0);
    x2 = x2.add(x3);
    x3 = rotl(x3, 20).lanewise(XOR, x2);
    if (GROUPS == 1) {
      x0.intoArray(state, off);
      x1.intoArray(state, off + 8);
      x2.intoArray(state, off + 16);
      x3.intoArray(state, off + 24);
    } else {
      // Lanes 8..15 are the second group: its words go 32 ints further, in its own order. Two
      // masked stores per word, written out here: a helper method taking the vector was not
      // inlined (NodeCountInliningCutoff) and boxed it, halving the generator's speed.
      x0.intoArray(state, off, FIRST_GROUP);
      x0.intoArray(state, off + 24, SECOND_GROUP);
      x1.intoArray(state, off + 8, FIRST_GROUP);
      x1.intoArray(state, off + 32, SECOND_GROUP);
      x2.intoArray(state, off + 16, FIRST_GROUP);
      x2.intoArray(state, off + 40, SECOND_GROUP);
      x3.intoArray(state, off + 24, FIRST_GROUP);
      x3.intoArray(state, off + 48, SECOND_GROUP);
    }
  }

  private static IntVector rotl(IntVector x, int n) {
    return x.lanewise(VectorOperators.ROL, n);
  }

  static FloatVector toUniform(IntVector bits) {
    return ((FloatVector) bits.lanewise(VectorOperators.LSHR, 8)
            .convertShape(VectorOperators.I2F, FLOATS, 0))
        .mul(0x1p-24f);
  }

  @Override
  public void fillBits(long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    int end = firstColumn + count;
    // Columns before the first whole group and after the last: the scalar function, which gives
    // the same bits by construction (same blocks, same words).
    int head = (int) Math.min(end, ((long) firstColumn + GROUP - 1) & -GROUP);
    int tail = Math.max(head, head + (end - head) / WORDS * WORDS);
    ScalarCounterRng scalar = new ScalarCounterRng();
    scalar.fillBits(seed, row, firstColumn, draw, out, off, head - firstColumn);
    int[] ks = keySchedule(seed);
    int rowLo = (int) row;
    int rowHi = (int) (row >>> 32);
    for (int c = head; c < tail; c += WORDS) {
      group(ks, rowLo, rowHi, c >>> 5, draw, out, off + c - firstColumn);
    }
    scalar.fillBits(seed, row, tail, draw, out, off + tail - firstColumn, end - tail);
  }

  /** (h + 0.5) * 2^-16 lane by lane for h in [0, 65535], exactly as {@code CounterRng.toUniform16}. */
  static FloatVector toUniform16(IntVector halves) {
    return ((FloatVector) halves.convertShape(VectorOperators.I2F, FLOATS, 0))
        .add(0.5f)
        .mul(0x1p-16f);
  }

  /**
   * The 16-bit draws of the 8 columns at position p (a multiple of 8 in [0, 64 GROUPS)) of the
   * columns that one {@link #group} gives under the half-word mapping: in group p / 64, half
   * (p / 32) mod 2 of the words at index p mod 32.
   */
  static IntVector halfWords(int[] group, int off, int p) {
    return IntVector.fromArray(INTS, group, off + halfWordIndex(p))
        .lanewise(VectorOperators.LSHR, halfShift(p))
        .and(0xFFFF);
  }

  /** Where the word of half-word position p is in a {@link #group}'s output. */
  private static int halfWordIndex(int p) {
    return ((p >>> 6) << 5) + (p & (GROUP - 1));
  }

  /** The shift that brings half-word position p's 16 bits down: 0 or 16. */
  private static int halfShift(int p) {
    return ((p >>> 5) & 1) << 4;
  }

  /** Per-thread room for a block's 16-bit draws (grown to the largest block seen). */
  private static final ThreadLocal<int[]> DRAWS = ThreadLocal.withInitial(() -> new int[512]);

  /**
   * {@link #fillBits16} of a block into this thread's scratch array, returned: the rounding loops
   * draw a block first and then load its draws, so that no call sits inside them (with the
   * generator's pieces called from inside the loop, C2 kept the loop's vectors in memory around
   * each call, and the draws cost twice the generator's own rate). The array is overwritten by
   * the thread's next call.
   */
  int[] drawBlock16(long seed, long row, int firstColumn, int draw, int count) {
    int[] draws = scratch(count);
    fillBits16(seed, row, firstColumn, draw, draws, 0, count);
    return draws;
  }

  /**
   * The block's 8-bit draws as the rounding's fixed-point draws ({@code Threefry.fixedPoint8}: d
   * 2^8 + 2^7) into this thread's scratch array, returned, as {@link #drawBlock16} does for the
   * 16-bit ones.
   */
  int[] drawBlock8(long seed, long row, int firstColumn, int draw, int count) {
    int[] draws = scratch(count);
    fillBytes(seed, row, firstColumn, draw, draws, 0, count, true);
    return draws;
  }

  /** This thread's scratch array, at least count long. */
  private static int[] scratch(int count) {
    int[] draws = DRAWS.get();
    if (draws.length < count) {
      draws = new int[count];
      DRAWS.set(draws);
    }
    return draws;
  }

  @Override
  public void fillBits8(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    fillBytes(seed, row, firstColumn, draw, out, off, count, false);
  }

  /** {@link #fillBits8}'s draws d, or (fixedPoint) d 2^8 + 2^7. */
  private static void fillBytes(long seed, long row, int firstColumn, int draw, int[] out,
      int off, int count, boolean fixedPoint) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    int end = firstColumn + count;
    int head = (int) Math.min(end, ((long) firstColumn + BYTE_GROUP - 1) & -BYTE_GROUP);
    int span = GROUPS * BYTE_GROUP;
    int tail = Math.max(head, head + (end - head) / span * span);
    scalarBytes(seed, row, firstColumn, draw, out, off, head - firstColumn, fixedPoint);
    int[] ks = keySchedule(seed);
    int rowLo = (int) row;
    int rowHi = (int) (row >>> 32);
    int[] words = new int[WORDS];
    int low = fixedPoint ? 8 : 0;
    int or = fixedPoint ? 0x80 : 0;
    for (int c = head; c < tail; c += span) {
      group(ks, rowLo, rowHi, c >>> 7, draw, words, 0);
      int o = off + c - firstColumn;
      for (int p = 0; p < span; p += 8) {
        // Position p: group p / 128, byte (p / 32) mod 4 of the words at index p mod 32.
        IntVector.fromArray(INTS, words, ((p >>> 7) << 5) + (p & (GROUP - 1)))
            .lanewise(VectorOperators.LSHR, (p >>> 2) & 24)
            .and(0xFF)
            .lanewise(VectorOperators.LSHL, low)
            .or(or)
            .intoArray(out, o + p);
      }
    }
    scalarBytes(seed, row, tail, draw, out, off + tail - firstColumn, end - tail, fixedPoint);
  }

  private static void scalarBytes(long seed, long row, int firstColumn, int draw, int[] out,
      int off, int count, boolean fixedPoint) {
    if (fixedPoint) {
      SCALAR.fillFixedPoint8(seed, row, firstColumn, draw, out, off, count);
    } else {
      SCALAR.fillBits8(seed, row, firstColumn, draw, out, off, count);
    }
  }

  private static final ScalarCounterRng SCALAR = new ScalarCounterRng();

  @Override
  public void fillBits16(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    int end = firstColumn + count;
    int head = (int) Math.min(end, ((long) firstColumn + HALF_GROUP - 1) & -HALF_GROUP);
    int span = GROUPS * HALF_GROUP;
    int tail = Math.max(head, head + (end - head) / span * span);
    ScalarCounterRng scalar = new ScalarCounterRng();
    scalar.fillBits16(seed, row, firstColumn, draw, out, off, head - firstColumn);
    int[] ks = keySchedule(seed);
    int rowLo = (int) row;
    int rowHi = (int) (row >>> 32);
    int[] words = new int[WORDS];
    for (int c = head; c < tail; c += span) {
      group(ks, rowLo, rowHi, c >>> 6, draw, words, 0);
      int o = off + c - firstColumn;
      for (int p = 0; p < span; p += 8) {
        halfWords(words, 0, p).intoArray(out, o + p);
      }
    }
    scalar.fillBits16(seed, row, tail, draw, out, off + tail - firstColumn, end - tail);
  }

  @Override
  public void fillUniform(
      long seed, long row, int firstColumn, int draw, float[] out, int off, int count) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    int end = firstColumn + count;
    int head = (int) Math.min(end, ((long) firstColumn + GROUP - 1) & -GROUP);
    int tail = Math.max(head, head + (end - head) / WORDS * WORDS);
    ScalarCounterRng scalar = new ScalarCounterRng();
    scalar.fillUniform(seed, row, firstColumn, draw, out, off, head - firstColumn);
    int[] ks = keySchedule(seed);
    int rowLo = (int) row;
    int rowHi = (int) (row >>> 32);
    int[] words = new int[WORDS];
    for (int c = head; c < tail; c += WORDS) {
      group(ks, rowLo, rowHi, c >>> 5, draw, words, 0);
      int o = off + c - firstColumn;
      for (int w = 0; w < WORDS; w += 8) {
        toUniform(IntVector.fromArray(INTS, words, w)).intoArray(out, o + w);
      }
    }
    scalar.fillUniform(seed, row, tail, draw, out, off + tail - firstColumn, end - tail);
  }

  @Override
  public String shape() {
    return VectorShape.describe(BLOCKS);
  }
}
