package org.lprff.vector.simd.scalar;

import org.lprff.vector.simd.spi.CirculantSpectrum;
import org.lprff.vector.simd.spi.FftBody;

/** The scalar reference body of {@link FftBody}: plain radix-2 loops. */
public final class ScalarFft implements FftBody {

  @Override
  public void forwardToBitReversed(
      float[] re, int reOff, float[] im, int imOff, int n, float[] twRe, float[] twIm) {
    assert Integer.bitCount(n) == 1 && twRe.length >= n && twIm.length >= n;
    for (int h = n >>> 1; h >= 1; h >>>= 1) {
      forwardStage(re, reOff, im, imOff, 0, n, h, twRe, twIm);
    }
  }

  /** One DIF stage of half-size h on blocks of [from, to): (a, c) -> (a + c, (a - c) w). */
  static void forwardStage(
      float[] re, int reOff, float[] im, int imOff, int from, int to, int h,
      float[] twRe, float[] twIm) {
    for (int b = from; b < to; b += 2 * h) {
      for (int j = 0; j < h; j++) {
        int p = b + j;
        int q = p + h;
        float ar = re[reOff + p];
        float ai = im[imOff + p];
        float cr = re[reOff + q];
        float ci = im[imOff + q];
        float dr = ar - cr;
        float di = ai - ci;
        float wr = twRe[h + j];
        float wi = twIm[h + j];
        re[reOff + p] = ar + cr;
        im[imOff + p] = ai + ci;
        re[reOff + q] = dr * wr - di * wi;
        im[imOff + q] = dr * wi + di * wr;
      }
    }
  }

  @Override
  public void inverseFromBitReversed(
      float[] re, int reOff, float[] im, int imOff, int n, float[] twRe, float[] twIm) {
    assert Integer.bitCount(n) == 1 && twRe.length >= n && twIm.length >= n;
    for (int h = 1; h < n; h <<= 1) {
      inverseStage(re, reOff, im, imOff, 0, n, h, twRe, twIm);
    }
  }

  /** One DIT stage of half-size h on blocks of [from, to): (a, c) -> (a + c conj(w), a - c conj(w)). */
  static void inverseStage(
      float[] re, int reOff, float[] im, int imOff, int from, int to, int h,
      float[] twRe, float[] twIm) {
    for (int b = from; b < to; b += 2 * h) {
      for (int j = 0; j < h; j++) {
        int p = b + j;
        int q = p + h;
        float wr = twRe[h + j];
        float wi = twIm[h + j];
        float cr = re[reOff + q];
        float ci = im[imOff + q];
        float tr = cr * wr + ci * wi;
        float ti = ci * wr - cr * wi;
        float ar = re[reOff + p];
        float ai = im[imOff + p];
        re[reOff + p] = ar + tr;
        im[imOff + p] = ai + ti;
        re[reOff + q] = ar - tr;
        im[imOff + q] = ai - ti;
      }
    }
  }

  @Override
  public void circulantSpectrum(
      float[] re, int reOff, float[] im, int imOff, int n, CirculantSpectrum c) {
    selfPaired(re, reOff, im, imOff, 0, 0, c);
    if (n >= 2) {
      selfPaired(re, reOff, im, imOff, 1, n >>> 1, c);
    }
    for (int base = 2; base < n; base <<= 1) {
      pairedBlock(re, reOff, im, imOff, base, base, base + (base >>> 1), c);
    }
  }

  /** Position p is its own partner (p = 0 holds k = 0, p = 1 holds k = n/2). */
  public static void selfPaired(
      float[] re, int reOff, float[] im, int imOff, int p, int slot, CirculantSpectrum c) {
    float zr = re[reOff + p];
    float zi = im[imOff + p];
    re[reOff + p] = c.ownARe[slot] * zr - c.ownAIm[slot] * zi + c.ownBRe[slot] * zr + c.ownBIm[slot] * zi;
    im[imOff + p] = c.ownARe[slot] * zi + c.ownAIm[slot] * zr + c.ownBIm[slot] * zr - c.ownBRe[slot] * zi;
  }

  /**
   * Positions [from, to) of the first half of the bit-reversed block [base, 2 base), each with
   * its partner q = 3 base - 1 - p in the second half.
   */
  public static void pairedBlock(
      float[] re, int reOff, float[] im, int imOff, int base, int from, int to,
      CirculantSpectrum c) {
    int half = base >>> 1;
    for (int p = from; p < to; p++) {
      int q = 3 * base - 1 - p;
      int s = p - half;
      float pr = re[reOff + p];
      float pi = im[imOff + p];
      float qr = re[reOff + q];
      float qi = im[imOff + q];
      // A Z_p + B conj(Z_q), and the partner's A' Z_q + B' conj(Z_p).
      re[reOff + p] = c.ownARe[s] * pr - c.ownAIm[s] * pi + c.ownBRe[s] * qr + c.ownBIm[s] * qi;
      im[imOff + p] = c.ownARe[s] * pi + c.ownAIm[s] * pr + c.ownBIm[s] * qr - c.ownBRe[s] * qi;
      re[reOff + q] = c.partARe[s] * qr - c.partAIm[s] * qi + c.partBRe[s] * pr + c.partBIm[s] * pi;
      im[imOff + q] = c.partARe[s] * qi + c.partAIm[s] * qr + c.partBIm[s] * pr - c.partBRe[s] * pi;
    }
  }

  @Override
  public void deinterleave(float[] x, float[] re, int reOff, float[] im, int imOff, int n) {
    for (int j = 0; j < n; j++) {
      re[reOff + j] = x[2 * j];
      im[imOff + j] = x[2 * j + 1];
    }
  }

  @Override
  public void interleave(float[] re, int reOff, float[] im, int imOff, float[] out, int n) {
    for (int j = 0; j < n; j++) {
      out[2 * j] = re[reOff + j];
      out[2 * j + 1] = im[imOff + j];
    }
  }

  @Override
  public void scale(float[] re, float[] im, int n, float factor) {
    for (int j = 0; j < n; j++) {
      re[j] *= factor;
      im[j] *= factor;
    }
  }
}
