package org.lprff.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector API stochastic rounding fused with packing: eight features at a time.
 *
 * <p>Eight lanes (256-bit ints and floats) are fixed, not derived from the preferred shape: the
 * random bits come from {@link VectorCounterRng} as 8-lane words of 8 consecutive columns, and 8
 * codes of b bits are exactly b bytes, so every store is byte-aligned for every b. The facade only
 * picks this body when the preferred vectors are at least 256 bits wide.
 *
 * <p>Arithmetic is the scalar reference's, lane by lane (same float or double operations in the
 * same order, see {@link ScalarRounding}), so the bytes are identical.
 */
final class VectorRounding implements RoundingKernel {

  private static final VectorSpecies<Integer> INTS = VectorCounterRng.INTS;
  private static final VectorSpecies<Float> FLOATS = VectorCounterRng.FLOATS;
  private static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_256;
  private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_64;
  private static final VectorSpecies<Short> SHORTS = ShortVector.SPECIES_128;
  private static final int LANES = 8;

  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
  private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);

  /** Lane i of a b-bit word moves to bit position i * b. */
  private static final IntVector SHIFT_2 = IntVector.zero(INTS).addIndex(2);
  private static final IntVector SHIFT_4 = IntVector.zero(INTS).addIndex(4);

  private static final ScalarRounding SCALAR = new ScalarRounding();

  // ---- codes of 8 features

  private static IntVector stochasticCodes(
      float[] values, int i, IntVector random, int bits, float lo, float step) {
    if (bits == 16) {
      // unsigned(bits) * 2^-32 = signed(bits ^ 2^31) * 2^-32 + 1/2, exactly, in double.
      IntVector flipped = random.lanewise(VectorOperators.XOR, 0x8000_0000);
      DoubleVector u0 = toDouble(flipped, 0).mul(0x1p-32).add(0.5);
      DoubleVector u1 = toDouble(flipped, 1).mul(0x1p-32).add(0.5);
      return codes16(values, i, lo, step, u0, u1);
    }
    FloatVector t = FloatVector.fromArray(FLOATS, values, i).sub(lo).div(step);
    return roundDown(t.add(VectorCounterRng.toUniform(random)), bits);
  }

  private static IntVector nearestCodes(float[] values, int i, int bits, float lo, float step) {
    if (bits == 16) {
      DoubleVector half = DoubleVector.broadcast(DOUBLES, 0.5);
      return codes16(values, i, lo, step, half, half);
    }
    FloatVector t = FloatVector.fromArray(FLOATS, values, i).sub(lo).div(step);
    return roundDown(t.add(0.5f), bits);
  }

  private static IntVector roundDown(FloatVector sum, int bits) {
    IntVector code = (IntVector) sum.convert(VectorOperators.F2I, 0);
    return code.max(0).min((1 << bits) - 1);
  }

  private static DoubleVector toDouble(IntVector v, int part) {
    return (DoubleVector) v.convertShape(VectorOperators.I2D, DOUBLES, part);
  }

  /** b = 16 in double: clamp, then the two 4-lane halves go to lanes 0..3 and 4..7. */
  private static IntVector codes16(
      float[] values, int i, float lo, float step, DoubleVector u0, DoubleVector u1) {
    FloatVector v = FloatVector.fromArray(FLOATS, values, i);
    DoubleVector t0 = ((DoubleVector) v.convertShape(VectorOperators.F2D, DOUBLES, 0));
    DoubleVector t1 = ((DoubleVector) v.convertShape(VectorOperators.F2D, DOUBLES, 1));
    t0 = t0.sub(lo).div(step).add(u0).max(0).min(65535);
    t1 = t1.sub(lo).div(step).add(u1).max(0).min(65535);
    IntVector c0 = (IntVector) t0.convertShape(VectorOperators.D2I, INTS, 0);
    IntVector c1 = (IntVector) t1.convertShape(VectorOperators.D2I, INTS, -1);
    return c0.or(c1);
  }

  // ---- packing of 8 codes into b bytes at byte offset o

  private static void store(IntVector codes, int bits, MemorySegment out, long o) {
    switch (bits) {
      case 1 -> out.set(ValueLayout.JAVA_BYTE, o, (byte) codes.compare(VectorOperators.NE, 0).toLong());
      case 2 ->
          out.set(SHORT_LE, o, (short) codes.lanewise(VectorOperators.LSHL, SHIFT_2)
              .reduceLanes(VectorOperators.OR));
      case 4 ->
          out.set(INT_LE, o, codes.lanewise(VectorOperators.LSHL, SHIFT_4)
              .reduceLanes(VectorOperators.OR));
      case 8 -> codes.convertShape(VectorOperators.I2B, BYTES, 0).intoMemorySegment(out, o, LE);
      case 16 -> codes.convertShape(VectorOperators.I2S, SHORTS, 0).intoMemorySegment(out, o, LE);
      default -> throw new AssertionError(bits);
    }
  }

  // ---- bodies

  @Override
  public void quantizeStochastic(
      float[] values, int off, int count, int bits, float lo, float step,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long byteOffset) {
    assert firstColumn % LANES == 0;
    VectorCounterRng.Key key = VectorCounterRng.Key.of(seed);
    int rowLo = (int) row;
    int rowHi = (int) (row >>> 32);
    int end = firstColumn + count;
    int wordEnd = firstColumn + (count & -LANES); // columns covered by whole 8-column words
    int c = firstColumn;
    long o = byteOffset; // 8 columns take exactly `bits` bytes
    // Head: the rest of a group entered in the middle (firstColumn % 32 != 0).
    if ((c & 31) != 0 && c < wordEnd) {
      VectorCounterRng.Words words = VectorCounterRng.group(key, rowLo, rowHi, c >>> 5, draw);
      for (int w = (c >>> 3) & 3; w < 4 && c < wordEnd; w++, c += LANES, o += bits) {
        store(stochasticCodes(values, off + c - firstColumn, word(words, w), bits, lo, step),
            bits, out, o);
      }
    }
    // Main loop: one Threefry evaluation (8 blocks) gives the bits of 32 columns.
    for (; c + 32 <= wordEnd; c += 32, o += 4L * bits) {
      VectorCounterRng.Words words = VectorCounterRng.group(key, rowLo, rowHi, c >>> 5, draw);
      int i = off + c - firstColumn;
      store(stochasticCodes(values, i, words.w0(), bits, lo, step), bits, out, o);
      store(stochasticCodes(values, i + 8, words.w1(), bits, lo, step), bits, out, o + bits);
      store(stochasticCodes(values, i + 16, words.w2(), bits, lo, step), bits, out, o + 2L * bits);
      store(stochasticCodes(values, i + 24, words.w3(), bits, lo, step), bits, out, o + 3L * bits);
    }
    // Whole words of a last, partial group.
    if (c < wordEnd) {
      VectorCounterRng.Words words = VectorCounterRng.group(key, rowLo, rowHi, c >>> 5, draw);
      for (int w = 0; c < wordEnd; w++, c += LANES, o += bits) {
        store(stochasticCodes(values, off + c - firstColumn, word(words, w), bits, lo, step),
            bits, out, o);
      }
    }
    // Fewer than 8 columns left: the scalar body writes them and the zero-padded last byte.
    SCALAR.quantizeStochastic(
        values, off + c - firstColumn, end - c, bits, lo, step, seed, row, c, draw, out, o);
  }

  private static IntVector word(VectorCounterRng.Words words, int w) {
    return switch (w) {
      case 0 -> words.w0();
      case 1 -> words.w1();
      case 2 -> words.w2();
      default -> words.w3();
    };
  }

  @Override
  public void quantizeNearest(
      float[] values, int off, int count, int bits, float lo, float step,
      MemorySegment out, long byteOffset) {
    int bound = count & -LANES;
    long o = byteOffset;
    for (int i = 0; i < bound; i += LANES, o += bits) {
      store(nearestCodes(values, off + i, bits, lo, step), bits, out, o);
    }
    SCALAR.quantizeNearest(values, off + bound, count - bound, bits, lo, step, out, o);
  }

  @Override
  public void packCodes(int[] codes, int off, int count, int bits, MemorySegment out, long byteOffset) {
    int bound = count & -LANES;
    long o = byteOffset;
    for (int i = 0; i < bound; i += LANES, o += bits) {
      store(IntVector.fromArray(INTS, codes, off + i), bits, out, o);
    }
    SCALAR.packCodes(codes, off + bound, count - bound, bits, out, o);
  }
}
