package org.lprff.vector.codec;

import org.lprff.vector.random.CounterRng;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.simd.spi.CosineCodes;

/**
 * {@link Quantizer#SHARED_THRESHOLD}, one feature at a time: stochastic rounding's rule with one
 * 16-bit draw per feature and grid interval, shared by every row. Where {@link Quantizer#STOCHASTIC}
 * draws afresh for every entry (row, feature, draw), this quantizer draws h_{i,j} once per feature
 * i and grid interval j, so the quantized feature map is a fixed function of x: the same input gets
 * the same codes in any row, batch, call or epoch. The codes are those the {@link
 * org.lprff.vector.featurize.Featurizer} writes for the same cosines, bit for bit.
 *
 * <p><b>Definition.</b> For the cosine c of feature i (unit scale: the feature is s c, s =
 * sqrt(2/m)) at b bits, {@link CosineCodes#sharedCode}: T = (int) fl(c H + (H + 1/2)), H = (2^b -
 * 1) 2^15, the grid position t = (c + 1)(2^b - 1) / 2 in units of 2^-16 step; j = clamp(T >> 16,
 * 0, 2^b - 2) the interval of c; code = clamp((T + h_{i,j}) >> 16, 0, 2^b - 1) with
 *
 * <pre>  h_{i,j} = {@link CounterRng#bits16}(seed, {@link #FIRST_ROW} + i, j, 0) in [0, 2^16).</pre>
 *
 * The code decodes on the grid of {@link QuantizationScale#forFeatures}(m, b): s (2 code / (2^b -
 * 1) - 1). (i, j) maps injectively to a counter (row, column): one row per feature, whose column is
 * the interval. The rows [Long.MIN_VALUE, Long.MIN_VALUE + 2^31) are below every parameter stream
 * of {@link RandomParameters} (rows -1 - stream >= -2^31) and every data row (>= 0), so the draws
 * never share a Threefry counter with projection parameters or with stochastic rounding.
 *
 * <p><b>Guarantees.</b>
 *
 * <ul>
 *   <li><b>Deterministic</b>: the code depends only on (seed, b, i, c).
 *   <li><b>Monotone</b> in c for each feature: T is monotone in c, and two cosines of one interval
 *       meet the same draw.
 *   <li><b>Unbiased over the seed</b>: h_{i,j} is uniform on [0, 2^16), so the code goes up with
 *       probability (T mod 2^16) / 2^16 and E_seed[code] = T / 2^16, within 2^-16 of t (the sum
 *       is rounded to float once, by at most 1/2, and truncated, by less than 1): the decoded
 *       value's mean over seeds is s c within 2^-16 step (plus the float grid's rounding of the
 *       levels).
 *   <li><b>Variance over the seed</b>: Var_seed = (v - lo')(hi' - v) for the value v = s c and the
 *       levels lo' <= v <= hi' around it (up to the same 2^-16 step in v), as for stochastic
 *       rounding; but the rounding errors of two inputs in one interval of one feature are fully
 *       correlated, where stochastic rounding makes them independent.
 * </ul>
 *
 * <p>b is 1, 2, 4 or 8 (the featurizer's fused codes; 16 bits would need 65,535 draws per
 * feature). Cosines must not be NaN and must lie in [-1, 1] up to {@link
 * StochasticRounding#RANGE_SLACK} (the b-bit cosine of {@link CosineCodes#cosine} may overshoot by
 * its small error); cosines beyond +-1 within the slack go to the end codes. Scalar code: one
 * Threefry block per cosine. Immutable and thread-safe.
 */
public final class SharedThresholdQuantizer {

  /** Counter row of feature 0's draws; feature i uses {@code FIRST_ROW + i}. */
  public static final long FIRST_ROW = Long.MIN_VALUE;

  private final int bits;
  private final long seed;

  /**
   * @param bits b in {1, 2, 4, 8}
   * @param seed the seed all draws derive from (the spec's)
   * @throws IllegalArgumentException if bits is not 1, 2, 4 or 8
   */
  public SharedThresholdQuantizer(int bits, long seed) {
    BitWidths.checkCodes("bits", bits, Quantizer.SHARED_THRESHOLD);
    this.bits = bits;
    this.seed = seed;
  }

  public int bits() {
    return bits;
  }

  public long seed() {
    return seed;
  }

  /**
   * The featurizer's table of draws for m features at b bits: {@link #draw}(seed, i, j) at index i
   * (2^b - 1) + j, for feature i and grid interval j. 4 (2^b - 1) bytes per feature.
   *
   * @throws IllegalArgumentException if bits is not 1, 2, 4 or 8, features is negative, or the
   *     table does not fit an array
   */
  public static int[] draws(long seed, int features, int bits) {
    BitWidths.checkCodes("bits", bits, Quantizer.SHARED_THRESHOLD);
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
   * h_{feature, interval} = {@link CounterRng#bits16}(seed, {@link #FIRST_ROW} + feature, interval,
   * 0), in [0, 2^16).
   *
   * @throws IllegalArgumentException if feature < 0 or interval < 0
   */
  public static int draw(long seed, int feature, int interval) {
    if (feature < 0) {
      throw new IllegalArgumentException("feature is " + feature + ", expected >= 0");
    }
    if (interval < 0) {
      throw new IllegalArgumentException("interval is " + interval + ", expected >= 0");
    }
    return CounterRng.bits16(seed, FIRST_ROW + feature, interval, 0);
  }

  /**
   * The code of cosine c as feature {@code feature}, in [0, 2^b - 1].
   *
   * @throws IllegalArgumentException if feature < 0, or c is NaN or outside [-1, 1] beyond the
   *     slack
   */
  public int code(float c, int feature) {
    if (feature < 0) {
      throw new IllegalArgumentException("feature is " + feature + ", expected >= 0");
    }
    checkCosine(c, "c");
    return codeOf(c, feature);
  }

  /**
   * out[outOff + k] = code(cosines[off + k], firstFeature + k) for k in [0, count).
   *
   * @throws IllegalArgumentException naming the value for bad ranges, a negative firstFeature, a
   *     feature index beyond the int range, or a cosine that is NaN or out of range
   */
  public void codes(float[] cosines, int off, int count, int firstFeature, int[] out, int outOff) {
    if (cosines == null) {
      throw new IllegalArgumentException("cosines is null");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    if (off < 0 || off + (long) count > cosines.length) {
      throw new IllegalArgumentException("cosines has length " + cosines.length + ", cannot read "
          + count + " from offset " + off);
    }
    if (firstFeature < 0) {
      throw new IllegalArgumentException("firstFeature is " + firstFeature + ", expected >= 0");
    }
    if (firstFeature + (long) count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "firstFeature " + firstFeature + " + count " + count + " exceeds " + Integer.MAX_VALUE);
    }
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    if (outOff < 0 || outOff + (long) count > out.length) {
      throw new IllegalArgumentException("out has length " + out.length + ", cannot hold " + count
          + " codes from offset " + outOff);
    }
    for (int k = 0; k < count; k++) {
      checkCosine(cosines[off + k], "cosines[" + (off + k) + "]");
    }
    for (int k = 0; k < count; k++) {
      out[outOff + k] = codeOf(cosines[off + k], firstFeature + k);
    }
  }

  private int codeOf(float c, int feature) {
    // Only the draw of c's own interval matters: sharedCode reads draws[drawOff + j].
    float scale = CosineCodes.gridScale(bits);
    int j = Math.clamp((int) Math.fma(c, scale, scale + 0.5f) >> 16, 0, (1 << bits) - 2);
    int[] draw = {draw(seed, feature, j)};
    return CosineCodes.sharedCode(c, draw, -j, bits);
  }

  private static void checkCosine(float c, String name) {
    if (!(Math.abs(c) <= 1 + StochasticRounding.RANGE_SLACK)) {
      throw new IllegalArgumentException(name + " is " + c + ", expected a cosine in [-1, 1]");
    }
  }
}
