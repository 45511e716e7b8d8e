package org.lprff.vector;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import static jdk.incubator.vector.VectorOperators.XOR;

/**
 * Vector API Threefry-4x32: eight Threefry blocks at once, one per int lane.
 *
 * <p>The species is fixed at 256 bits (8 int lanes) rather than derived from {@link VectorShape}:
 * the column-to-counter mapping of {@link CounterRng} is defined on groups of 8 blocks, so that
 * the 8 lanes of output word w are 8 consecutive columns and no shuffle is needed. Wider machines
 * still run 256-bit vectors; narrower ones use the scalar body (the facade decides).
 */
final class VectorCounterRng implements CounterRngKernel {

  static final VectorSpecies<Integer> INTS = IntVector.SPECIES_256;
  static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_256;

  /** Columns per group: 8 blocks x 4 output words. */
  static final int GROUP = 32;

  private static final IntVector LANE_INDEX = IntVector.zero(INTS).addIndex(1);

  /** The four output words of the 8 blocks of one group: word w covers columns 32q+8w..+7. */
  record Words(IntVector w0, IntVector w1, IntVector w2, IntVector w3) {}

  /**
   * Key schedule of a seed for {@link #group}: ks0, ks1 (seed halves; ks2 = ks3 = 0) and ks4.
   * Kept as a tiny value so that callers compute it once per row.
   */
  record Key(int ks0, int ks1, int ks4) {
    static Key of(long seed) {
      int k0 = (int) seed;
      int k1 = (int) (seed >>> 32);
      return new Key(k0, k1, ScalarCounterRng.KS_PARITY ^ k0 ^ k1);
    }
  }

  /**
   * Threefry-4x32-20 of the 8 blocks 8q..8q+7 of a row. Fully unrolled so that every rotation
   * count is a compile-time constant (two immediate shifts and an OR on AVX2) and the vectors
   * stay in registers; the rounds and constants are those of {@link ScalarCounterRng}.
   */
  static Words group(Key key, int rowLo, int rowHi, int group, int draw) {
    IntVector x0 = LANE_INDEX.add(group * 8 + key.ks0);
    IntVector x1 = IntVector.broadcast(INTS, rowLo + key.ks1);
    IntVector x2 = IntVector.broadcast(INTS, rowHi);
    IntVector x3 = IntVector.broadcast(INTS, draw);
    // rounds 0..3, then key injection 1
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
    x0 = x0.add(key.ks1);
    x3 = x3.add(key.ks4 + 1);
    // rounds 4..7, then key injection 2
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
    x2 = x2.add(key.ks4);
    x3 = x3.add(key.ks0 + 2);
    // rounds 8..11, then key injection 3
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
    x1 = x1.add(key.ks4);
    x2 = x2.add(key.ks0);
    x3 = x3.add(key.ks1 + 3);
    // rounds 12..15, then key injection 4
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
    x0 = x0.add(key.ks4);
    x1 = x1.add(key.ks0);
    x2 = x2.add(key.ks1);
    x3 = x3.add(4);
    // rounds 16..19, then key injection 5
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
    x0 = x0.add(key.ks0);
    x1 = x1.add(key.ks1);
    x3 = x3.add(5);
    return new Words(x0, x1, x2, x3);
  }

  private static IntVector rotl(IntVector x, int n) {
    return x.lanewise(VectorOperators.ROL, n);
  }

  static FloatVector toUniform(IntVector bits) {
    return ((FloatVector) bits.lanewise(VectorOperators.LSHR, 8).convert(VectorOperators.I2F, 0))
        .mul(0x1p-24f);
  }

  @Override
  public void fillBits(long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    int end = firstColumn + count;
    // Columns before the first whole group and after the last: the scalar function, which gives
    // the same bits by construction (same blocks, same words).
    int head = (int) Math.min(end, ((long) firstColumn + GROUP - 1) & -GROUP);
    int tail = Math.max(head, end & -GROUP);
    ScalarCounterRng scalar = new ScalarCounterRng();
    scalar.fillBits(seed, row, firstColumn, draw, out, off, head - firstColumn);
    Key key = Key.of(seed);
    int rowLo = (int) row;
    int rowHi = (int) (row >>> 32);
    for (int c = head; c < tail; c += GROUP) {
      Words words = group(key, rowLo, rowHi, c >>> 5, draw);
      int o = off + c - firstColumn;
      words.w0.intoArray(out, o);
      words.w1.intoArray(out, o + 8);
      words.w2.intoArray(out, o + 16);
      words.w3.intoArray(out, o + 24);
    }
    scalar.fillBits(seed, row, tail, draw, out, off + tail - firstColumn, end - tail);
  }

  @Override
  public void fillUniform(
      long seed, long row, int firstColumn, int draw, float[] out, int off, int count) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    int end = firstColumn + count;
    int head = (int) Math.min(end, ((long) firstColumn + GROUP - 1) & -GROUP);
    int tail = Math.max(head, end & -GROUP);
    ScalarCounterRng scalar = new ScalarCounterRng();
    scalar.fillUniform(seed, row, firstColumn, draw, out, off, head - firstColumn);
    Key key = Key.of(seed);
    int rowLo = (int) row;
    int rowHi = (int) (row >>> 32);
    for (int c = head; c < tail; c += GROUP) {
      Words words = group(key, rowLo, rowHi, c >>> 5, draw);
      int o = off + c - firstColumn;
      toUniform(words.w0).intoArray(out, o);
      toUniform(words.w1).intoArray(out, o + 8);
      toUniform(words.w2).intoArray(out, o + 16);
      toUniform(words.w3).intoArray(out, o + 24);
    }
    scalar.fillUniform(seed, row, tail, draw, out, off + tail - firstColumn, end - tail);
  }
}
