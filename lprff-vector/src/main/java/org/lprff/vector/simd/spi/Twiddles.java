package org.lprff.vector.simd.spi;

/**
 * The FFT twiddles every body and plan uses: exp(-i pi j / h) for j &lt; h, computed in double
 * and rounded once to float, so that tables built anywhere agree bit for bit.
 */
public final class Twiddles {

  private Twiddles() {}

  /** Re of exp(-i pi j / h), j &lt; h. */
  public static float re(int h, int j) {
    // Exact at the quarter turn, where cos(Math.PI / 2) would leave 6e-17 instead of 0.
    return 2 * j == h ? 0f : (float) Math.cos(Math.PI * j / h);
  }

  /** Im of exp(-i pi j / h), j &lt; h. */
  public static float im(int h, int j) {
    return 2 * j == h ? -1f : (float) -Math.sin(Math.PI * j / h);
  }
}
