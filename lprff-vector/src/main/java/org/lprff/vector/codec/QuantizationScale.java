package org.lprff.vector.codec;

import org.lprff.vector.layout.PackedLayout;

/**
 * The grid of a b-bit quantizer: 2^b levels value(code) = lo + code * step, code in [0, 2^b - 1].
 *
 * <p>For m random Fourier features, {@link #forFeatures} uses s = sqrt(2/m), lo = -s and step =
 * 2s / (2^b - 1), so the levels span [-s, s] (DESIGN.md sections 1 and 3). Immutable.
 *
 * @param bits bits per feature: 1, 2, 4, 8 or 16
 * @param lo value of code 0
 * @param step distance between neighbouring levels, > 0
 */
public record QuantizationScale(int bits, float lo, float step) {

  public QuantizationScale {
    BitWidths.checkCodes("bits", bits);
    if (!(step > 0) || Float.isInfinite(step)) {
      throw new IllegalArgumentException("step is " + step + ", expected a finite value > 0");
    }
    if (!Float.isFinite(lo)) {
      throw new IllegalArgumentException("lo is " + lo + ", expected a finite value");
    }
  }

  /** The LP-RFF scale for m features at b bits: lo = -sqrt(2/m), step = 2 sqrt(2/m)/(2^b - 1). */
  public static QuantizationScale forFeatures(int features, int bits) {
    if (features < 1) {
      throw new IllegalArgumentException("features is " + features + ", expected >= 1");
    }
    BitWidths.checkCodes("bits", bits);
    double s = Math.sqrt(2.0 / features);
    return new QuantizationScale(bits, (float) -s, (float) (2 * s / ((1 << bits) - 1)));
  }

  public static QuantizationScale of(int bits, float lo, float step) {
    return new QuantizationScale(bits, lo, step);
  }

  /** Number of levels, 2^bits. */
  public int levels() {
    return 1 << bits;
  }

  /** Largest code, 2^bits - 1. */
  public int maxCode() {
    return (1 << bits) - 1;
  }

  /** Value of the largest code, lo + (2^b - 1) step, computed in double. */
  public double hi() {
    return lo + (double) maxCode() * step;
  }

  /**
   * The value a code stands for, lo + code * step, rounded once ({@code fma}): the same float
   * every unpacking and product kernel decodes.
   */
  public float value(int code) {
    return Math.fma((float) code, step, lo);
  }

  /**
   * The mean variance stochastic rounding adds to a cosine feature: E over a uniform phase theta
   * of Var[Q(v)] = E[(v - lo_k)(lo_k + step - v)] for v = c + r cos(theta), the cosine spanning
   * the grid [lo, hi] (c its middle, r its half-width), lo_k the level below v. Random Fourier
   * features have exactly this phase distribution (b ~ U[0, 2 pi)), so a Gram matrix of n
   * quantized rows carries about n times this on its diagonal beyond the full-precision one:
   * the implicit ridge of low precision. r^2 / 2 at 1 bit (Var = r^2 - v^2), about step^2 / 6
   * for many levels (0.93 of it at 4 bits, 0.98 at 8: the cosine's density piles up in the outer
   * cells). Computed by the midpoint rule on [0, pi] (the integrand is even) with at least 64
   * phases per level, so every cell is resolved.
   */
  public double cosineRoundingVariance() {
    int points = 1 << Math.max(16, bits + 6);
    double hi = hi();
    double center = (lo + hi) / 2;
    double radius = (hi - lo) / 2;
    double sum = 0;
    for (int k = 0; k < points; k++) {
      double v = center + radius * Math.cos(Math.PI * (k + 0.5) / points);
      double f = Math.min(Math.max((v - lo) / step, 0), maxCode());
      double below = Math.min(Math.floor(f), maxCode() - 1);
      double frac = f - below;
      sum += frac * (1 - frac);
    }
    return (double) step * step * sum / points;
  }

  /** Bytes of a packed row of m features: ceil(m * bits / 8). */
  public int rowBytes(int features) {
    if (features < 0) {
      throw new IllegalArgumentException("features is " + features + ", expected >= 0");
    }
    long bytes = PackedLayout.rowBytes(features, bits);
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          features + " features at " + bits + " bits need " + bytes + " bytes, more than an int");
    }
    return (int) bytes;
  }
}
