package org.lprff.vector.codec;

import java.util.Arrays;

/**
 * The Lloyd-Max codebook of b bits for a random Fourier feature's cosine (Li and Li, ICML 2021,
 * "LM-RFF"): the 2^b levels and 2^b - 1 thresholds that minimize E[(z - Q(z))^2] for z = cos(u),
 * u uniform on a period. z has the arcsine density 1 / (pi sqrt(1 - z^2)) on [-1, 1] whatever
 * the kernel and its bandwidth (w.x + a is uniform mod 2 pi because a is), so one codebook per b
 * serves every feature map; a feature sqrt(2/m) z uses the levels times sqrt(2/m).
 *
 * <p>The codebook satisfies Lloyd's two conditions: each threshold is the midpoint of its two
 * levels, and each level is the mean of z between its thresholds. Both are in closed form for the
 * arcsine law (its distribution function is 1/2 + arcsin(z) / pi, and the integral of z times its
 * density is -sqrt(1 - z^2) / pi), so the iteration runs on exact cell means, on the upper half
 * (the law is symmetric), from the law's quantiles, until no level moves by more than {@value
 * #SETTLED}.
 * Unlike stochastic rounding, Q is deterministic and biased (E[Q(z) | z] = Q(z) != z); it has the
 * smallest mean squared error of any b-bit quantizer of z. Immutable.
 */
public final class LloydMaxCodebook {

  /** The bits a codebook is computed for: 16 would be 65,536 levels, which nothing needs. */
  public static final int MAX_BITS = 8;

  private static final LloydMaxCodebook[] CACHE = new LloydMaxCodebook[MAX_BITS + 1];

  private final int bits;
  private final double[] levels;
  private final double[] thresholds;

  private LloydMaxCodebook(int bits, double[] levels, double[] thresholds) {
    this.bits = bits;
    this.levels = levels;
    this.thresholds = thresholds;
  }

  /**
   * The codebook of {@code bits} bits.
   *
   * @throws IllegalArgumentException if bits is not 1, 2, 4 or 8
   */
  public static LloydMaxCodebook forBits(int bits) {
    BitWidths.checkCodes("bits", bits, Quantizer.LLOYD_MAX);
    synchronized (CACHE) {
      if (CACHE[bits] == null) {
        CACHE[bits] = compute(bits);
      }
      return CACHE[bits];
    }
  }

  public int bits() {
    return bits;
  }

  /** The 2^b levels, ascending, in [-1, 1]; a copy. */
  public double[] levels() {
    return levels.clone();
  }

  /** The 2^b - 1 thresholds, ascending: level i for z in (t[i-1], t[i]]; a copy. */
  public double[] thresholds() {
    return thresholds.clone();
  }

  /** The level of code {@code code}. */
  public double level(int code) {
    return levels[code];
  }

  /**
   * The code of z in [-1, 1]: the number of thresholds below z (ties to the lower level).
   *
   * @throws IllegalArgumentException if z is NaN
   */
  public int code(double z) {
    if (Double.isNaN(z)) {
      throw new IllegalArgumentException("z is NaN, expected a cosine in [-1, 1]");
    }
    int found = Arrays.binarySearch(thresholds, z);
    return found >= 0 ? found : -found - 1;
  }

  /** E[(z - Q(z))^2] for z = cos(u), u uniform, in closed form. */
  public double meanSquaredError() {
    double sum = 0;
    for (int i = 0; i < levels.length; i++) {
      double lo = i == 0 ? -1 : thresholds[i - 1];
      double hi = i == levels.length - 1 ? 1 : thresholds[i];
      double c = levels[i];
      // integral of (z - c)^2 f(z) over (lo, hi]: E[z^2; cell] - 2 c E[z; cell] + c^2 P(cell)
      sum += secondMoment(lo, hi) - 2 * c * firstMoment(lo, hi) + c * c * probability(lo, hi);
    }
    return sum;
  }

  /** P(lo < z <= hi) under the arcsine law. */
  static double probability(double lo, double hi) {
    return (Math.asin(hi) - Math.asin(lo)) / Math.PI;
  }

  /** E[z; lo < z <= hi]: the integral of z f(z). */
  static double firstMoment(double lo, double hi) {
    return (Math.sqrt(1 - lo * lo) - Math.sqrt(1 - hi * hi)) / Math.PI;
  }

  /** E[z^2; lo < z <= hi]: the integral of z^2 f(z) = (asin z - z sqrt(1 - z^2)) / (2 pi). */
  static double secondMoment(double lo, double hi) {
    return (Math.asin(hi) - hi * Math.sqrt(1 - hi * hi) - Math.asin(lo)
        + lo * Math.sqrt(1 - lo * lo)) / (2 * Math.PI);
  }

  /** The mean of z over (lo, hi]: Lloyd's centroid condition. */
  static double centroid(double lo, double hi) {
    return firstMoment(lo, hi) / probability(lo, hi);
  }

  /** Lloyd's iteration stops when no level moves by more than this. */
  static final double SETTLED = 1e-13;

  private static LloydMaxCodebook compute(int bits) {
    int half = 1 << (bits - 1);
    // The upper half's levels c[0..half-1] on [0, 1]; its cell k is z = cos(theta) for theta in
    // (phi[k + 1], phi[k]], phi[0] = pi / 2 (the symmetric middle threshold z = 0) and phi[half]
    // = 0 (z = 1). theta is uniform, so a cell's mean is (sin phi[k] - sin phi[k + 1]) /
    // (phi[k] - phi[k + 1]): no 1 - z^2 to cancel near z = 1, where 8 bits' top cells are.
    double[] c = new double[half];
    for (int k = 0; k < half; k++) {
      c[k] = Math.sin(Math.PI / 2 * (k + 0.5) / half); // the law's quantiles on [0, 1]
    }
    double[] phi = new double[half + 1];
    phi[0] = Math.PI / 2;
    phi[half] = 0;
    for (int iteration = 0; ; iteration++) {
      for (int k = 1; k < half; k++) {
        phi[k] = Math.acos((c[k - 1] + c[k]) / 2);
      }
      double moved = 0;
      for (int k = 0; k < half; k++) {
        double next = (Math.sin(phi[k]) - Math.sin(phi[k + 1])) / (phi[k] - phi[k + 1]);
        moved = Math.max(moved, Math.abs(next - c[k]));
        c[k] = next;
      }
      if (moved <= SETTLED) {
        break;
      }
      if (iteration == 5_000_000) {
        throw new IllegalStateException("Lloyd's iteration for " + bits + " bits did not settle"
            + " (last move " + moved + ")");
      }
    }
    double[] levels = new double[2 * half];
    double[] thresholds = new double[2 * half - 1];
    for (int k = 0; k < half; k++) {
      levels[half + k] = c[k];
      levels[half - 1 - k] = -c[k];
    }
    thresholds[half - 1] = 0;
    for (int k = 1; k < half; k++) {
      double mid = (c[k - 1] + c[k]) / 2;
      thresholds[half - 1 + k] = mid;
      thresholds[half - 1 - k] = -mid;
    }
    return new LloydMaxCodebook(bits, levels, thresholds);
  }
}
