package org.lprff.vector.simd.spi;

/**
 * Radix-2 complex FFT steps on split arrays: real parts in {@code re[reOff, reOff + n)},
 * imaginary parts in {@code im[imOff, imOff + n)}, n a power of two.
 *
 * <p>Twiddle tables are stage-indexed (see {@code FftPlan}): the stage whose butterflies span
 * half-size h reads {@code tw[h + j] = exp(-i*pi*j/h)}, j &lt; h, so each stage's twiddles are
 * contiguous. The forward transform is decimation in frequency (natural order in, bit-reversed
 * order out) and the inverse decimation in time (bit-reversed in, natural out): a convolution
 * needs no permutation at all. Both are unnormalised. Bodies only {@code assert}.
 */
public interface FftBody extends Body {

  /** Forward DIF: X_k = sum_j x_j exp(-2 pi i jk/n), written at position bitrev(k). */
  void forwardToBitReversed(
      float[] re, int reOff, float[] im, int imOff, int n, float[] twRe, float[] twIm);

  /** Inverse DIT without 1/n: x_j = sum_k X_k exp(+2 pi i jk/n), X_k read at bitrev(k). */
  void inverseFromBitReversed(
      float[] re, int reOff, float[] im, int imOff, int n, float[] twRe, float[] twIm);

  /**
   * The spectral step of a real circulant product on a bit-reversed half-length spectrum:
   * Zy_p = A_p Z_p + B_p conj(Z_q), q = mirror(p) (see {@code CirculantPlan}).
   */
  void circulantSpectrum(
      float[] re, int reOff, float[] im, int imOff, int n, CirculantSpectrum c);

  /** re[reOff + j] = x[2j], im[imOff + j] = x[2j + 1], j &lt; n. */
  void deinterleave(float[] x, float[] re, int reOff, float[] im, int imOff, int n);

  /** out[2j] = re[reOff + j], out[2j + 1] = im[imOff + j], j &lt; n. */
  void interleave(float[] re, int reOff, float[] im, int imOff, float[] out, int n);

  /** Multiplies re[0, n) and im[0, n) by factor. */
  void scale(float[] re, float[] im, int n, float factor);

  /**
   * {@code out = circ(g) x} for one vector of length {@code s.n}: the real product on the n/2-point
   * complex FFT of x's even and odd entries, with the spectral step in bit-reversed order, so no
   * permutation is done. {@code scratch} holds n floats and aliases neither x nor out; out may be
   * x.
   */
  default void circulant(float[] x, float[] out, float[] scratch, CirculantSpectrum s) {
    if (s.n == 1) {
      out[0] = s.g0 * x[0];
      return;
    }
    int half = s.n >>> 1;
    deinterleave(x, scratch, 0, scratch, half, half);
    forwardToBitReversed(scratch, 0, scratch, half, half, s.twRe, s.twIm);
    circulantSpectrum(scratch, 0, scratch, half, half, s);
    inverseFromBitReversed(scratch, 0, scratch, half, half, s.twRe, s.twIm);
    interleave(scratch, 0, scratch, half, out, half);
  }
}
