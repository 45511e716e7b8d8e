package org.lprff.vector;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

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

    /** Word i of the 5-word schedule (ks2 = ks3 = 0 because the key's upper half is zero). */
    int at(int i) {
      return switch (i) {
        case 0 -> ks0;
        case 1 -> ks1;
        case 4 -> ks4;
        default -> 0;
      };
    }
  }

  /**
   * Threefry-4x32-20 of the 8 blocks 8q..8q+7 of a row. Written as 5 passes of 4 rounds (one
   * key injection each) so that the rotation constants repeat with period 2 passes.
   */
  static Words group(Key key, int rowLo, int rowHi, int group, int draw) {
    IntVector x0 = LANE_INDEX.add(group * 8 + key.ks0);
    IntVector x1 = IntVector.broadcast(INTS, rowLo + key.ks1);
    IntVector x2 = IntVector.broadcast(INTS, rowHi);
    IntVector x3 = IntVector.broadcast(INTS, draw);
    int[] a = ScalarCounterRng.ROTATE_A;
    int[] b = ScalarCounterRng.ROTATE_B;
    for (int s = 1; s <= 5; s++) {
      int r = ((s - 1) & 1) << 2;
      x0 = x0.add(x1);
      x1 = x1.lanewise(VectorOperators.ROL, a[r]).lanewise(VectorOperators.XOR, x0);
      x2 = x2.add(x3);
      x3 = x3.lanewise(VectorOperators.ROL, b[r]).lanewise(VectorOperators.XOR, x2);

      x0 = x0.add(x3);
      x3 = x3.lanewise(VectorOperators.ROL, a[r + 1]).lanewise(VectorOperators.XOR, x0);
      x2 = x2.add(x1);
      x1 = x1.lanewise(VectorOperators.ROL, b[r + 1]).lanewise(VectorOperators.XOR, x2);

      x0 = x0.add(x1);
      x1 = x1.lanewise(VectorOperators.ROL, a[r + 2]).lanewise(VectorOperators.XOR, x0);
      x2 = x2.add(x3);
      x3 = x3.lanewise(VectorOperators.ROL, b[r + 2]).lanewise(VectorOperators.XOR, x2);

      x0 = x0.add(x3);
      x3 = x3.lanewise(VectorOperators.ROL, a[r + 3]).lanewise(VectorOperators.XOR, x0);
      x2 = x2.add(x1);
      x1 = x1.lanewise(VectorOperators.ROL, b[r + 3]).lanewise(VectorOperators.XOR, x2);

      x0 = x0.add(key.at(s % 5));
      x1 = x1.add(key.at((s + 1) % 5));
      x2 = x2.add(key.at((s + 2) % 5));
      x3 = x3.add(key.at((s + 3) % 5) + s);
    }
    return new Words(x0, x1, x2, x3);
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
