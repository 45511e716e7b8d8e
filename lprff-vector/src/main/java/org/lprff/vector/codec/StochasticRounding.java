package org.lprff.vector.codec;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.RoundingBody;

/**
 * Quantizes features to b-bit codes and writes them straight into the packed row layout of
 * DESIGN.md section 3: feature i of a row occupies bits [i b, (i + 1) b) of the row's bit string,
 * bit k being bit (k mod 8) of byte k / 8; b = 16 is little-endian uint16; a row takes
 * ceil(m b / 8) bytes and its unused trailing bits are zero.
 *
 * <p>Stochastic rounding: with t = (v - lo) / step and u = {@link CounterRng#uniform16}(seed,
 * row, column, draw) for b <= 8 (16 random bits, in float), {@link CounterRng#uniformDouble} for
 * b = 16 (32 bits, in double), code = clamp(floor(t + u), 0, 2^b - 1). Then E[lo + code step] = v
 * (unbiased up to 2^-16 step from the finite uniforms and float arithmetic, see {@link
 * ScalarRounding}) and its variance is (v - lo') (hi' - v) for the two levels lo' <= v <= hi'
 * around v. Because u is a pure function of (seed, row, column, draw), the bytes do not depend on
 * how a row is split into calls.
 *
 * <p>Round to nearest (deterministic, biased): code = clamp(floor(t + 1/2), 0, 2^b - 1), ties up.
 *
 * <p>Each call writes the features firstColumn .. firstColumn + count - 1 of a row whose packed
 * bytes start at {@code outByteOffset}; firstColumn must be a multiple of 8 so that every bit
 * width starts on a byte. The call writes bytes [outByteOffset + firstColumn b / 8,
 * outByteOffset + ceil((firstColumn + count) b / 8)), the last one zero-padded, and nothing else.
 *
 * <p>Values must not be NaN and must lie in [lo, hi] up to a relative slack of 1e-6 of
 * max(|lo|, |hi|) (cosine features computed in float can overshoot s by an ulp); values within
 * the slack round to the end codes.
 */
public final class StochasticRounding {

  /** Relative tolerance for values just outside [lo, hi]. */
  public static final double RANGE_SLACK = 1e-6;

  static final RoundingBody BODY = VectorizationProvider.get().rounding();

  private StochasticRounding() {}

  public static void quantizeStochastic(
      float[] values, int off, int count, QuantizationScale scale,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long outByteOffset) {
    long start = validate(values, off, count, scale, firstColumn, out, outByteOffset);
    BODY.quantizeStochastic(
        values, off, count, scale.bits(), scale.lo(), scale.step(),
        seed, row, firstColumn, draw, out, start);
  }

  public static void quantizeStochastic(
      float[] values, int off, int count, QuantizationScale scale,
      long seed, long row, int firstColumn, int draw, byte[] out, int outOffset) {
    quantizeStochastic(
        values, off, count, scale, seed, row, firstColumn, draw,
        PackedFeatures.ofArray(out, "out"), outOffset);
  }

  public static void quantizeNearest(
      float[] values, int off, int count, QuantizationScale scale, int firstColumn,
      MemorySegment out, long outByteOffset) {
    long start = validate(values, off, count, scale, firstColumn, out, outByteOffset);
    BODY.quantizeNearest(values, off, count, scale.bits(), scale.lo(), scale.step(), out, start);
  }

  public static void quantizeNearest(
      float[] values, int off, int count, QuantizationScale scale, int firstColumn,
      byte[] out, int outOffset) {
    quantizeNearest(
        values, off, count, scale, firstColumn, PackedFeatures.ofArray(out, "out"), outOffset);
  }


  /** Checks everything and returns the byte offset of feature firstColumn. */
  private static long validate(
      float[] values, int off, int count, QuantizationScale scale, int firstColumn,
      MemorySegment out, long outByteOffset) {
    if (values == null) {
      throw new IllegalArgumentException("values is null");
    }
    if (scale == null) {
      throw new IllegalArgumentException("scale is null");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    if (off < 0 || off + (long) count > values.length) {
      throw new IllegalArgumentException(
          "values has length " + values.length + ", cannot read " + count + " from offset " + off);
    }
    CounterRng.checkRange(firstColumn, count);
    if (firstColumn % 8 != 0) {
      throw new IllegalArgumentException(
          "firstColumn is " + firstColumn + ", expected a multiple of 8 (byte-aligned features)");
    }
    int bits = scale.bits();
    long start = PackedFeatures.checkDestination(out, outByteOffset, (long) firstColumn / 8 * bits, count, bits);
    double lo = scale.lo();
    double hi = scale.hi();
    double slack = RANGE_SLACK * Math.max(Math.abs(lo), Math.abs(hi));
    for (int i = 0; i < count; i++) {
      float v = values[off + i];
      if (Float.isNaN(v)) {
        throw new IllegalArgumentException("values[" + (off + i) + "] is NaN");
      }
      if (v < lo - slack || v > hi + slack) {
        throw new IllegalArgumentException(
            "values[" + (off + i) + "] is " + v + ", outside the scale's range [" + lo + ", " + hi
                + "]");
      }
    }
    return start;
  }
}
