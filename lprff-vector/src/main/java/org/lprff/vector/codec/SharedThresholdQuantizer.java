package org.lprff.vector.codec;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.RoundingBody;

/**
 * The deterministic quantizer family of the LP-RFF seeds: one random threshold per interval and
 * feature, shared by every row. Where {@link StochasticRounding} draws a fresh uniform for every
 * entry (row, feature), this family draws u_{i,j} once per feature i and grid interval j, so the
 * quantized feature map is a fixed function of x: the same input always gets the same codes, in
 * any row, batch or call.
 *
 * <p><b>Definition.</b> On the grid of {@code scale} (levels lo + c step, c in [0, 2^b - 1]), let t
 * = (v - lo) / step computed in double, j = clamp(floor(t), 0, 2^b - 2) the interval of v and f =
 * t - j its position in it. Then
 *
 * <pre>  Q_i(v) = lo + (j + [f > u_{i,j}]) step,   u_{i,j} = {@link #threshold}(seed, i, j).</pre>
 *
 * The threshold is {@link CounterRng#uniformDouble}(seed, {@link #FIRST_ROW} + i, j, 0), on the
 * grid k 2^-32 in [0, 1). (i, j) maps injectively to (row, column): a reserved block of counter
 * rows, one per feature, whose column is the interval. One row per feature rather than one row for
 * all: at b = 16 a feature has 65535 intervals, so packing (i, j) into the 2^31 columns of a single
 * row would cap m at 32768. The rows [Long.MIN_VALUE, Long.MIN_VALUE + 2^31) are below every
 * parameter stream of {@link RandomParameters} (rows -1 - stream >= -2^31) and every data row (>=
 * 0), so the thresholds never share a Threefry counter with projection parameters or with
 * stochastic rounding.
 *
 * <p><b>Properties.</b> Deterministic in x: Q_i(v) depends only on (seed, scale, i, v). Monotone in
 * v for each feature (two values of one interval compare with the same threshold). Unbiased over
 * the seed: P(u < f) = ceil(f 2^32) / 2^32, within 2^-32 of f, so |E_seed[Q_i(v)] - v| <= 2^-32
 * step (t in double adds a relative 2^-52, far less). Var_seed[Q_i(v)] = (v - lo')(hi' - v) for the
 * levels lo' <= v <= hi' around v, as for stochastic rounding; but the rounding errors of two
 * inputs in one interval of one feature are fully correlated, where stochastic rounding makes
 * them independent.
 *
 * <p>Values must not be NaN and must lie in [lo, hi] up to {@link StochasticRounding#RANGE_SLACK};
 * values within the slack go to the end codes. Scalar code: one Threefry block per value.
 * Immutable and thread-safe.
 */
public final class SharedThresholdQuantizer {

  private static final RoundingBody ROUNDING = VectorizationProvider.get().rounding();

  /** Counter row of feature 0's thresholds; feature i uses {@code FIRST_ROW + i}. */
  public static final long FIRST_ROW = Long.MIN_VALUE;

  private final QuantizationScale scale;
  private final long seed;

  /**
   * @param scale the grid, e.g. {@link QuantizationScale#forFeatures}
   * @param seed the seed all thresholds derive from
   */
  public SharedThresholdQuantizer(QuantizationScale scale, long seed) {
    if (scale == null) {
      throw new IllegalArgumentException("scale is null");
    }
    this.scale = scale;
    this.seed = seed;
  }

  public QuantizationScale scale() {
    return scale;
  }

  public long seed() {
    return seed;
  }

  /**
   * The featurizer's table of draws for m features at b bits (b <= 8): {@code
   * CounterRng.bits16(seed, FIRST_ROW + i, j, 0)} at index i (2^b - 1) + j, for feature i and
   * grid interval j. 4 (2^b - 1) bytes per feature.
   */
  public static int[] draws(long seed, int features, int bits) {
    QuantizationScale.checkBits(bits);
    int intervals = (1 << bits) - 1;
    long size = (long) features * intervals;
    if (features < 0 || size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("features is " + features + ": " + features + " x "
          + intervals + " shared thresholds do not fit an array");
    }
    int[] draws = new int[(int) size];
    for (int i = 0; i < features; i++) {
      CounterRng.fillBits16(seed, FIRST_ROW + i, 0, 0, draws, i * intervals, intervals);
    }
    return draws;
  }

  /**
   * u_{i,j}: the threshold of interval j of feature i, {@link CounterRng#uniformDouble}(seed,
   * {@link #FIRST_ROW} + feature, interval, 0), in [0, 1).
   *
   * @throws IllegalArgumentException if feature < 0 or interval < 0
   */
  public static double threshold(long seed, int feature, int interval) {
    if (feature < 0) {
      throw new IllegalArgumentException("feature is " + feature + ", expected >= 0");
    }
    if (interval < 0) {
      throw new IllegalArgumentException("interval is " + interval + ", expected >= 0");
    }
    return CounterRng.uniformDouble(seed, FIRST_ROW + feature, interval, 0);
  }

  /**
   * The code of {@code value} as feature {@code feature}: j + [f > u_{feature,j}].
   *
   * @throws IllegalArgumentException if feature < 0, or value is NaN or outside the scale's range
   *     beyond the slack
   */
  public int code(float value, int feature) {
    if (feature < 0) {
      throw new IllegalArgumentException("feature is " + feature + ", expected >= 0");
    }
    checkValue(value, "value");
    return codeOf(value, feature);
  }

  /**
   * out[outOff + k] = code(values[off + k], firstFeature + k) for k in [0, count).
   *
   * @throws IllegalArgumentException naming the value for bad ranges, a negative firstFeature, a
   *     feature index beyond the int range, or a value that is NaN or out of range
   */
  public void codes(float[] values, int off, int count, int firstFeature, int[] out, int outOff) {
    checkValues(values, off, count, firstFeature);
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    if (outOff < 0 || outOff + (long) count > out.length) {
      throw new IllegalArgumentException(
          "out has length " + out.length + ", cannot hold " + count + " codes from offset "
              + outOff);
    }
    for (int k = 0; k < count; k++) {
      out[outOff + k] = codeOf(values[off + k], firstFeature + k);
    }
  }

  /**
   * Writes the codes of features firstFeature .. firstFeature + count - 1 into the packed row
   * (DESIGN.md section 3) whose bytes start at {@code rowOffset}: bytes [rowOffset + firstFeature
   * b / 8, rowOffset + ceil((firstFeature + count) b / 8)), the last one zero-padded, as {@link
   * StochasticRounding#quantizeStochastic} does. firstFeature must be a multiple of 8.
   *
   * @throws IllegalArgumentException naming the value for bad ranges, firstFeature not a multiple
   *     of 8, a value that is NaN or out of range, or an output too small or read-only
   */
  public void quantize(
      float[] values, int off, int count, int firstFeature, MemorySegment out, long rowOffset) {
    checkValues(values, off, count, firstFeature);
    if (firstFeature % 8 != 0) {
      throw new IllegalArgumentException(
          "firstFeature is " + firstFeature + ", expected a multiple of 8 (byte-aligned features)");
    }
    int bits = scale.bits();
    long start =
        PackedFeatures.checkDestination(out, rowOffset, (long) firstFeature / 8 * bits, count, bits);
    int[] codes = new int[count];
    for (int k = 0; k < count; k++) {
      codes[k] = codeOf(values[off + k], firstFeature + k);
    }
    ROUNDING.packCodes(codes, 0, count, bits, out, start);
  }

  /** {@link #quantize(float[], int, int, int, MemorySegment, long)} into a heap array. */
  public void quantize(
      float[] values, int off, int count, int firstFeature, byte[] out, int rowOffset) {
    quantize(values, off, count, firstFeature, PackedFeatures.ofArray(out, "out"), rowOffset);
  }

  private int codeOf(float value, int feature) {
    int intervals = scale.maxCode(); // 2^b - 1 intervals, j in [0, 2^b - 2]
    double t = ((double) value - scale.lo()) / scale.step();
    int j = (int) Math.floor(t);
    j = Math.clamp(j, 0, intervals - 1);
    double f = t - j;
    // f <= 0 (a level, or below lo within the slack) never goes up, f >= 1 always does.
    return f > threshold(seed, feature, j) ? j + 1 : j;
  }

  private void checkValues(float[] values, int off, int count, int firstFeature) {
    if (values == null) {
      throw new IllegalArgumentException("values is null");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    if (off < 0 || off + (long) count > values.length) {
      throw new IllegalArgumentException(
          "values has length " + values.length + ", cannot read " + count + " from offset " + off);
    }
    if (firstFeature < 0) {
      throw new IllegalArgumentException("firstFeature is " + firstFeature + ", expected >= 0");
    }
    if (firstFeature + (long) count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "firstFeature " + firstFeature + " + count " + count + " exceeds " + Integer.MAX_VALUE);
    }
    for (int k = 0; k < count; k++) {
      checkValue(values[off + k], "values[" + (off + k) + "]");
    }
  }

  private void checkValue(float v, String name) {
    if (Float.isNaN(v)) {
      throw new IllegalArgumentException(name + " is NaN");
    }
    double lo = scale.lo();
    double hi = scale.hi();
    double slack = StochasticRounding.RANGE_SLACK * Math.max(Math.abs(lo), Math.abs(hi));
    if (v < lo - slack || v > hi + slack) {
      throw new IllegalArgumentException(
          name + " is " + v + ", outside the scale's range [" + lo + ", " + hi + "]");
    }
  }
}
