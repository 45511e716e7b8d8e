package org.lprff.vector.simd.panama;

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
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.simd.scalar.ScalarRounding;
import org.lprff.vector.simd.spi.RoundingBody;

/**
 * Vector API stochastic rounding fused with packing: eight features at a time.
 *
 * <p>Eight lanes (256-bit ints and floats) are fixed, not derived from the preferred shape: the
 * random bits come from {@link VectorCounterRng} as 8-lane words of 8 consecutive columns, and 8
 * codes of b bits are exactly b bytes, so every store is byte-aligned for every b. The facade only
 * picks this body when the preferred vectors are at least 256 bits wide.
 *
 * <p>Arithmetic is the scalar reference's, lane by lane (same float or double operations in the
 * same order, see {@link ScalarRounding}), so the bytes are identical. For b <= 8 one group of 8
 * Threefry blocks serves 64 features (16-bit draws, the half-word mapping of {@code CounterRng});
 * for b = 16 it serves 32 (whole 32-bit words); {@link VectorCounterRng} evaluates one or two
 * groups at a time. A call may start at any multiple of 8: the first groups are evaluated where
 * the call starts, even mid-group.
 */
public final class VectorRounding implements RoundingBody {

  private static final VectorSpecies<Integer> INTS = VectorCounterRng.INTS;
  private static final VectorSpecies<Float> FLOATS = VectorCounterRng.FLOATS;
  private static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_256;
  private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_64;
  private static final VectorSpecies<Short> SHORTS = ShortVector.SPECIES_128;
  private static final VectorSpecies<Float> HALF_FLOATS = FloatVector.SPECIES_128;
  private static final VectorSpecies<Integer> HALF_INTS = IntVector.SPECIES_128;
  private static final int LANES = 8;

  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

  /** Lane i of a b-bit word moves to bit position i * b. */
  private static final IntVector SHIFT_2 = IntVector.zero(INTS).addIndex(2);
  private static final IntVector SHIFT_4 = IntVector.zero(INTS).addIndex(4);

  private static final ScalarRounding SCALAR = new ScalarRounding();
  private static final VectorCounterRng RNG = new VectorCounterRng();

  // ---- codes of 8 features

  private static IntVector floatCodes(FloatVector t, FloatVector u, int bits) {
    IntVector code = (IntVector) t.add(u).convertShape(VectorOperators.F2I, INTS, 0);
    return code.max(0).min((1 << bits) - 1);
  }

  private static FloatVector scaled(float[] values, int i, float lo, float step) {
    return FloatVector.fromArray(FLOATS, values, i).sub(lo).div(step);
  }

  /**
   * b = 16, in double: eight features as two halves of four, each a 128-bit float or int vector
   * widened lane for lane to 256-bit doubles. The two halves of codes meet again in an 8-int
   * scratch (L1) to be narrowed and stored as one 16-byte vector. (A first version that split
   * 256-bit vectors with part numbers and stored 4-lane short vectors was ~25x slower;
   * -XX:+PrintIntrinsics reported the short-vector store as not supported.)
   */
  private static void store16(
      float[] values, int i, float lo, float step, DoubleVector u0, DoubleVector u1,
      int[] codes, MemorySegment out, long o) {
    codes16(values, i, lo, step, u0).intoArray(codes, 0);
    codes16(values, i + 4, lo, step, u1).intoArray(codes, 4);
    store(IntVector.fromArray(INTS, codes, 0), 16, out, o);
  }

  private static IntVector codes16(float[] values, int i, float lo, float step, DoubleVector u) {
    DoubleVector t = (DoubleVector) FloatVector.fromArray(HALF_FLOATS, values, i)
        .convertShape(VectorOperators.F2D, DOUBLES, 0);
    t = t.sub(lo).div(step).add(u).max(0).min(65535);
    return (IntVector) t.convertShape(VectorOperators.D2I, HALF_INTS, 0);
  }

  /** unsigned(bits) * 2^-32 = signed(bits ^ 2^31) * 2^-32 + 1/2, exactly, in double. */
  private static DoubleVector uniformDouble(int[] random, int k) {
    return ((DoubleVector) IntVector.fromArray(HALF_INTS, random, k)
            .lanewise(VectorOperators.XOR, 0x8000_0000)
            .convertShape(VectorOperators.I2D, DOUBLES, 0))
        .mul(0x1p-32)
        .add(0.5);
  }

  // ---- packing of 8 codes into b bytes at byte offset o

  private static void store(IntVector codes, int bits, MemorySegment out, long o) {
    switch (bits) {
      case 1 -> out.set(ValueLayout.JAVA_BYTE, o, (byte) codes.compare(VectorOperators.NE, 0).toLong());
      case 2 ->
          out.set(LittleEndian.SHORT, o, (short) codes.lanewise(VectorOperators.LSHL, SHIFT_2)
              .reduceLanes(VectorOperators.OR));
      case 4 ->
          out.set(LittleEndian.INT, o, codes.lanewise(VectorOperators.LSHL, SHIFT_4)
              .reduceLanes(VectorOperators.OR));
      case 8 -> codes.convertShape(VectorOperators.I2B, BYTES, 0).intoMemorySegment(out, o, LE);
      // Through bytes: C2 does not store short vectors into a byte[]-backed segment ("not
      // supported: op=store etype=short atype=byte"); reinterpretation keeps lanes in
      // little-endian memory order.
      case 16 ->
          codes.convertShape(VectorOperators.I2S, SHORTS, 0).reinterpretAsBytes()
              .intoMemorySegment(out, o, LE);
      default -> throw new AssertionError(bits);
    }
  }

  // ---- bodies

  @Override
  public void quantizeStochastic(
      float[] values, int off, int count, int bits, float lo, float step,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long byteOffset) {
    assert firstColumn % LANES == 0;
    int wordEnd = firstColumn + (count & -LANES); // columns covered by whole 8-column words
    int c = firstColumn;
    long o = byteOffset; // 8 columns take exactly `bits` bytes
    if (bits == 16) {
      GeneratorWords random = new GeneratorWords(seed, row, draw);
      int[] codes = new int[LANES]; // see store16
      for (; c < wordEnd; c += LANES, o += bits) {
        int w = random.word(c); // 32-bit words: one Threefry evaluation gives 32 columns a group
        store16(values, off + c - firstColumn, lo, step,
            uniformDouble(random.words, w), uniformDouble(random.words, w + 4), codes, out, o);
      }
    } else if (wordEnd > firstColumn) {
      // The block's 16-bit draws first, then a loop with no call in it (see drawBlock16).
      int[] draws = RNG.drawBlock16(seed, row, firstColumn, draw, wordEnd - firstColumn);
      for (; c < wordEnd; c += LANES, o += bits) {
        FloatVector u = VectorCounterRng.toUniform16(
            IntVector.fromArray(INTS, draws, c - firstColumn));
        store(floatCodes(scaled(values, off + c - firstColumn, lo, step), u, bits), bits, out, o);
      }
    }
    // Fewer than 8 columns left: the scalar body writes them and the zero-padded last byte.
    SCALAR.quantizeStochastic(values, off + c - firstColumn, firstColumn + count - c,
        bits, lo, step, seed, row, c, draw, out, o);
  }

  @Override
  public void quantizeNearest(
      float[] values, int off, int count, int bits, float lo, float step,
      MemorySegment out, long byteOffset) {
    int bound = count & -LANES;
    long o = byteOffset;
    FloatVector half = FloatVector.broadcast(FLOATS, 0.5f);
    DoubleVector halfDouble = DoubleVector.broadcast(DOUBLES, 0.5);
    int[] codes = new int[LANES]; // b = 16 only, see store16
    for (int i = 0; i < bound; i += LANES, o += bits) {
      if (bits == 16) {
        store16(values, off + i, lo, step, halfDouble, halfDouble, codes, out, o);
      } else {
        store(floatCodes(scaled(values, off + i, lo, step), half, bits), bits, out, o);
      }
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

  @Override
  public String shape() {
    return VectorShape.describe(INTS);
  }
}
