package org.lprff.vector.transform;

import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.FftBody;

/**
 * FFTs of power-of-two sizes on split float arrays, and circulant products.
 *
 * <p>Convenience entry points over {@link FftPlan} and {@link CirculantPlan}; code that
 * transforms many vectors of one size should hold the plan. Forward transforms are
 * unnormalised (X_k = sum_j x_j exp(-2 pi i jk/n)); inverses include 1/n.
 */
public final class Fft {

  static final FftBody BODY = VectorizationProvider.get().fft();

  private Fft() {}

  /** In-place forward complex FFT; re and im of equal power-of-two length in [1, 2^26]. */
  public static void forward(float[] re, float[] im) {
    FftPlan.forSize(complexLength(re, im)).forward(re, im);
  }

  /** In-place inverse complex FFT including 1/n. */
  public static void inverse(float[] re, float[] im) {
    FftPlan.forSize(complexLength(re, im)).inverse(re, im);
  }

  /** Half spectrum X_0..X_{n/2} of the real x (length n) into re, im of length n/2 + 1. */
  public static void realForward(float[] x, float[] re, float[] im) {
    if (x == null) {
      throw new IllegalArgumentException("x must not be null");
    }
    FftPlan.forSize(checkedLength("x", x.length)).realForward(x, re, im);
  }

  /** Real signal x (length n) from its half spectrum re, im (length n/2 + 1), including 1/n. */
  public static void realInverse(float[] re, float[] im, float[] x) {
    if (x == null) {
      throw new IllegalArgumentException("x must not be null");
    }
    FftPlan.forSize(checkedLength("x", x.length)).realInverse(re, im, x);
  }

  /**
   * Returns circ(g) x, where circ(g) is the circulant matrix whose first column is g:
   * out_i = sum_j g[(i - j) mod n] x_j. Builds a {@link CirculantPlan} each call; hold one to
   * multiply by the same g repeatedly.
   */
  public static float[] circulantMultiply(float[] g, float[] x) {
    CirculantPlan plan = new CirculantPlan(g);
    if (x == null) {
      throw new IllegalArgumentException("x must not be null");
    }
    float[] out = new float[x.length];
    plan.multiply(x, out);
    return out;
  }

  private static int complexLength(float[] re, float[] im) {
    if (re == null || im == null) {
      throw new IllegalArgumentException(
          "re and im must not be null (re is " + (re == null ? "null" : "non-null")
              + ", im is " + (im == null ? "null" : "non-null") + ")");
    }
    if (re.length != im.length) {
      throw new IllegalArgumentException(
          "re has length " + re.length + " but im has length " + im.length);
    }
    return checkedLength("re", re.length);
  }

  private static int checkedLength(String name, int length) {
    if (length < 1 || length > FftPlan.MAX_SIZE || Integer.bitCount(length) != 1) {
      throw new IllegalArgumentException(
          name + " has length " + length + ", expected a power of two in [1, "
              + FftPlan.MAX_SIZE + "]");
    }
    return length;
  }
}
