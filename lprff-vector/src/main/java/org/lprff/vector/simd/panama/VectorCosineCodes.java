package org.lprff.vector.simd.panama;

import static org.lprff.vector.simd.spi.CosineCodes.A0;
import static org.lprff.vector.simd.spi.CosineCodes.A1;
import static org.lprff.vector.simd.spi.CosineCodes.A2;
import static org.lprff.vector.simd.spi.CosineCodes.A3;
import static org.lprff.vector.simd.spi.CosineCodes.B0;
import static org.lprff.vector.simd.spi.CosineCodes.B1;
import static org.lprff.vector.simd.spi.CosineCodes.B2;
import static org.lprff.vector.simd.spi.CosineCodes.B3;
import static org.lprff.vector.simd.spi.CosineCodes.B4;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.simd.scalar.ScalarCosineCodes;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;

/**
 * Vector body of {@link CosineCodes}: cosine, rounding and packing of a whole register of
 * features in one pass, on the preferred species (8 or 16 lanes), with no float array between
 * the steps. Per register: the argument (a load and an add), the reduced cosine (two FMAs of
 * reduction, a multiply, three or four Horner FMAs, a sign), the grid position (one FMA and a
 * convert), the draw (its 16 bits from the generator's words), the code (an add, a shift, a
 * clamp), and the packed store. The draws come from {@link VectorCounterRng} one or two groups
 * at a time, read straight from its words: 8 or 16 lanes at a multiple of 8 or 16 within a group
 * are consecutive words of one half, so no shuffle is needed.
 *
 * <p>Lane for lane the float operations are {@link CosineCodes}'s, so the bytes equal the scalar
 * body's. Columns before the first multiple of the lane count and the last partial register take
 * the scalar body.
 */
public final class VectorCosineCodes implements CosineCodesBody {

  private static final VectorSpecies<Float> FLOATS = VectorShape.FLOAT;
  private static final VectorSpecies<Integer> INTS =
      FLOATS.length() == 16 ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
  private static final int LANES = FLOATS.length();

  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  private static final IntVector SHIFT_2 = IntVector.zero(INTS).addIndex(2);
  private static final IntVector SHIFT_4 = IntVector.zero(INTS).addIndex(4);
  private static final IntVector NEAREST = IntVector.broadcast(INTS, CosineCodes.NEAREST_DRAW);

  private static final ScalarCosineCodes SCALAR = new ScalarCosineCodes();

  @Override
  public boolean quantize(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, boolean stochastic,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long byteOffset) {
    assert bits >= 1 && bits <= CosineCodes.MAX_BITS && firstColumn % 8 == 0 && count >= 0;
    // Whole registers start on a multiple of LANES, where a register's draws are one run of words.
    int head = Math.min(count, (-firstColumn) & (LANES - 1));
    int bound = head + (count - head) / LANES * LANES;
    boolean sawNaN = SCALAR.quantize(
        t, tOff, a, aOff, head, bits, stochastic, seed, row, firstColumn, draw, out, byteOffset);

    GeneratorWords random = new GeneratorWords(seed, row, draw);
    float scale = CosineCodes.gridScale(bits);
    float offset = scale + 0.5f;
    int maxCode = (1 << bits) - 1;
    FloatVector nanProbe = FloatVector.zero(FLOATS);
    long o = byteOffset + (long) head / 8 * bits;
    for (int i = head; i < bound; i += LANES, o += LANES / 8 * bits) {
      FloatVector x = FloatVector.fromArray(FLOATS, t, tOff + i)
          .add(FloatVector.fromArray(FLOATS, a, aOff + i));
      FloatVector c = cosine(x, bits);
      nanProbe = nanProbe.add(c);
      IntVector grid = (IntVector) c.fma(scale, offset).convertShape(VectorOperators.F2I, INTS, 0);
      IntVector h;
      if (stochastic) {
        int p = random.half(firstColumn + i);
        h = IntVector.fromArray(INTS, random.words, VectorCounterRng.halfWordIndex(p))
            .lanewise(VectorOperators.LSHR, VectorCounterRng.halfShift(p))
            .and(0xFFFF);
      } else {
        h = NEAREST;
      }
      IntVector codes = grid.add(h).lanewise(VectorOperators.ASHR, 16).max(0).min(maxCode);
      store(codes, bits, out, o);
    }
    sawNaN |= Float.isNaN(nanProbe.reduceLanes(VectorOperators.ADD));
    sawNaN |= SCALAR.quantize(t, tOff + bound, a, aOff + bound, count - bound, bits, stochastic,
        seed, row, firstColumn + bound, draw, out, o);
    return sawNaN;
  }

  /** {@link CosineCodes#cosine} lane by lane. */
  static FloatVector cosine(FloatVector x, int bits) {
    FloatVector shifted = x.fma(CosineCodes.ONE_OVER_PI, CosineCodes.ROUNDING_MAGIC);
    FloatVector k = shifted.sub(CosineCodes.ROUNDING_MAGIC);
    FloatVector r = k.lanewise(VectorOperators.FMA, -CosineCodes.PI1, x);
    r = k.lanewise(VectorOperators.FMA, -CosineCodes.PI2, r);
    FloatVector z = r.mul(r);
    FloatVector p = bits <= 4
        ? z.fma(A3, A2).lanewise(VectorOperators.FMA, z, A1).lanewise(VectorOperators.FMA, z, A0)
        : z.fma(B4, B3).lanewise(VectorOperators.FMA, z, B2).lanewise(VectorOperators.FMA, z, B1)
            .lanewise(VectorOperators.FMA, z, B0);
    IntVector sign = shifted.reinterpretAsInts().lanewise(VectorOperators.LSHL, 31);
    FloatVector c = p.reinterpretAsInts().lanewise(VectorOperators.XOR, sign).reinterpretAsFloats();
    // |x| beyond the limit, or NaN: the double cosine (a never-taken branch for feature maps).
    VectorMask<Float> outside =
        x.abs().compare(VectorOperators.LE, CosineCodes.POLYNOMIAL_LIMIT).not();
    if (outside.anyTrue()) {
      float[] lanes = x.toArray();
      for (int j = 0; j < lanes.length; j++) {
        lanes[j] = CosineCodes.cosine(lanes[j], bits);
      }
      c = c.blend(FloatVector.fromArray(FLOATS, lanes, 0), outside);
    }
    return c;
  }

  /** LANES codes of b bits: exactly LANES b / 8 bytes at o, lane i at bits [i b, (i + 1) b). */
  private static void store(IntVector codes, int bits, MemorySegment out, long o) {
    switch (bits) {
      case 1 -> {
        long mask = codes.compare(VectorOperators.NE, 0).toLong();
        if (LANES == 16) {
          out.set(LittleEndian.SHORT, o, (short) mask);
        } else {
          out.set(ValueLayout.JAVA_BYTE, o, (byte) mask);
        }
      }
      case 2 -> {
        int word = codes.lanewise(VectorOperators.LSHL, SHIFT_2)
            .reduceLanes(VectorOperators.OR);
        if (LANES == 16) {
          out.set(LittleEndian.INT, o, word);
        } else {
          out.set(LittleEndian.SHORT, o, (short) word);
        }
      }
      case 4 -> {
        if (LANES == 16) {
          // Lane pairs as longs (c0 | c1 << 32): folding c1 down next to c0 makes byte k, and the
          // narrowing keeps each long's low byte.
          LongVector pairs = codes.reinterpretAsLongs();
          pairs.or(pairs.lanewise(VectorOperators.LSHR, 28))
              .convertShape(VectorOperators.L2B, ByteVector.SPECIES_64, 0)
              .reinterpretAsBytes()
              .intoMemorySegment(out, o, LE);
        } else {
          out.set(LittleEndian.INT, o, codes.lanewise(VectorOperators.LSHL, SHIFT_4)
              .reduceLanes(VectorOperators.OR));
        }
      }
      case 8 -> codes.convertShape(VectorOperators.I2B,
              LANES == 16 ? ByteVector.SPECIES_128 : ByteVector.SPECIES_64, 0)
          .reinterpretAsBytes().intoMemorySegment(out, o, LE);
      default -> throw new AssertionError(bits);
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(FLOATS) + "; draws " + VectorShape.describe(VectorCounterRng.BLOCKS);
  }
  @Override
  public boolean quantizeShared(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int[] draws, int drawOff,
      MemorySegment out, long byteOffset) {
    return SCALAR.quantizeShared(t, tOff, a, aOff, count, bits, draws, drawOff, out, byteOffset);
  }

  @Override
  public boolean quantizeThresholds(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, float[] thresholds,
      MemorySegment out, long byteOffset) {
    return SCALAR.quantizeThresholds(t, tOff, a, aOff, count, bits, thresholds, out, byteOffset);
  }

  @Override
  public boolean quantizeSigmaDelta(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int order, int block,
      MemorySegment out, long byteOffset) {
    return SCALAR.quantizeSigmaDelta(t, tOff, a, aOff, count, bits, order, block, out,
        byteOffset);
  }
}
