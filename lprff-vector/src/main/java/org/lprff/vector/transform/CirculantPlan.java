package org.lprff.vector.transform;

import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.CirculantSpectrum;
import org.lprff.vector.simd.spi.FftBody;

/**
 * Immutable, thread-safe plan for y = circ(g) x, where circ(g) is the circulant matrix whose
 * FIRST COLUMN is g: y_i = sum_j g[(i - j) mod n] x_j, n a power of two in [1, 2^26].
 *
 * <p>Both g and x are real, so the product runs on an n/2-point complex FFT of
 * z_j = x_{2j} + i x_{2j+1}. The forward transform leaves its spectrum in bit-reversed order;
 * the spectral step multiplies it in that order, and the inverse transform takes it back to
 * natural order, so no permutation is done at all. In bit-reversed order the Hermitian
 * partners k and n/2 - k sit mirrored inside each block [2^m, 2^(m+1)): position p pairs with
 * 3*2^m - 1 - p. For each position the plan precomputes (in double, from the spectrum G of g)
 * two complex coefficients with Zy_k = A_k Z_k + B_k conj(Z_{N-k}):
 * A_k = (S_k - D_k sin t)/N, B_k = i D_k cos t/N, S_k = (G_k + G_{k+N})/2,
 * D_k = (G_k - G_{k+N})/2, t = 2 pi k/n, N = n/2; the 1/N of the inverse is folded in.
 *
 * <p>Scratch: {@link #multiply(float[], float[], float[])} takes the caller's (length
 * {@link #scratchLength()}); {@link #multiply(float[], float[])} uses a thread-confined buffer.
 */
public final class CirculantPlan {

  private static final VectorizationProvider PROVIDER = VectorizationProvider.get();

  private final int n;
  private final CirculantSpectrum spectrum;

  /**
   * Plans circ(g) for g of power-of-two length in [1, 2^26] with finite entries; g is copied.
   *
   * @throws IllegalArgumentException naming the length, or the index and value of a non-finite
   *     entry
   */
  public CirculantPlan(float[] g) {
    if (g == null) {
      throw new IllegalArgumentException("g must not be null");
    }
    n = g.length;
    if (n < 1 || n > FftPlan.MAX_SIZE || Integer.bitCount(n) != 1) {
      throw new IllegalArgumentException(
          "g has length " + n + ", expected a power of two in [1, " + FftPlan.MAX_SIZE + "]");
    }
    for (int i = 0; i < n; i++) {
      if (!Float.isFinite(g[i])) {
        throw new IllegalArgumentException("g[" + i + "] is " + g[i] + ", expected a finite value");
      }
    }
    spectrum = spectrum(g);
  }

  /** The size n of g and of the vectors multiplied. */
  public int size() {
    return n;
  }

  /** What the bodies read: twiddles and spectral coefficients (for tests of this package). */
  CirculantSpectrum spectrum() {
    return spectrum;
  }

  /** Length of the scratch buffer {@link #multiply(float[], float[], float[])} needs: n. */
  public int scratchLength() {
    return n;
  }

  /**
   * out = circ(g) x using a thread-confined scratch buffer; x and out may be the same array.
   *
   * @throws IllegalArgumentException naming the lengths when x or out is null or not of length n
   */
  public void multiply(float[] x, float[] out) {
    check(x, out);
    run(x, out, n == 1 ? null : FftScratch.get(n));
  }

  /**
   * out = circ(g) x with the caller's scratch (length at least {@link #scratchLength()}, not
   * aliasing x or out); x and out may be the same array.
   */
  public void multiply(float[] x, float[] out, float[] scratch) {
    check(x, out);
    if (scratch == null || scratch.length < n) {
      throw new IllegalArgumentException(
          "scratch has length " + (scratch == null ? "null" : scratch.length)
              + ", expected at least " + n);
    }
    run(x, out, scratch);
  }

  private void check(float[] x, float[] out) {
    if (x == null || out == null) {
      throw new IllegalArgumentException(
          "x and out must not be null (x is " + (x == null ? "null" : "non-null")
              + ", out is " + (out == null ? "null" : "non-null") + ")");
    }
    if (x.length != n || out.length != n) {
      throw new IllegalArgumentException(
          "x has length " + x.length + " and out has length " + out.length
              + ", expected both " + n + " (length of g)");
    }
  }

  private void run(float[] x, float[] out, float[] scratch) {
    PROVIDER.fft().circulant(x, out, scratch, spectrum);
  }

  /**
   * As {@link #multiply(float[], float[], float[])} on a given body, for tests that compare (and
   * jmh, through a class of this package on its class path); not API.
   */
  void multiplyWith(FftBody body, float[] x, float[] out, float[] scratch) {
    body.circulant(x, out, scratch, spectrum);
  }

  /**
   * {@code out = circ(g) x} for each of the {@code width} interleaved vectors of x (element i of
   * vector c at {@code [i width + c]}), bit for bit as {@link #multiply} computes each one;
   * scratch holds n width floats; out may be x. For the structured projections, which validate.
   */
  public void multiplyInterleaved(float[] x, float[] scratch, float[] out, int width) {
    PROVIDER.interleaved().circulant(x, spectrum, scratch, out, width);
  }

  private static CirculantSpectrum spectrum(float[] g) {
    int n = g.length;
    if (n == 1) {
      return new CirculantSpectrum(1, g[0], null, null);
    }
    FftPlan fft = FftPlan.forSize(n);
    int half = n >>> 1;
    double[] gRe = new double[n];
    double[] gIm = new double[n];
    for (int i = 0; i < n; i++) {
      gRe[i] = g[i];
    }
    doubleFft(gRe, gIm);
    CirculantSpectrum c = new CirculantSpectrum(n, g[0], fft.twRe, fft.twIm);
    int bits = Integer.numberOfTrailingZeros(half);
    for (int p = 0; p < half; p++) {
      int k = bits == 0 ? 0 : Integer.reverse(p) >>> (32 - bits);
      double sRe = 0.5 * (gRe[k] + gRe[k + half]);
      double sIm = 0.5 * (gIm[k] + gIm[k + half]);
      double dRe = 0.5 * (gRe[k] - gRe[k + half]);
      double dIm = 0.5 * (gIm[k] - gIm[k + half]);
      double angle = 2 * Math.PI * k / n;
      double sin = Math.sin(angle);
      double cos = Math.cos(angle);
      float aRe = (float) ((sRe - dRe * sin) / half);
      float aIm = (float) ((sIm - dIm * sin) / half);
      float bRe = (float) (-dIm * cos / half);
      float bIm = (float) (dRe * cos / half);
      if (p <= 1) {
        int slot = p == 0 ? 0 : half / 2;
        set(c.ownARe, c.ownAIm, c.ownBRe, c.ownBIm, slot, aRe, aIm, bRe, bIm);
        continue;
      }
      int base = Integer.highestOneBit(p);
      int firstHalfPosition = p < base + base / 2 ? p : 3 * base - 1 - p;
      int slot = firstHalfPosition - base / 2;
      if (p == firstHalfPosition) {
        set(c.ownARe, c.ownAIm, c.ownBRe, c.ownBIm, slot, aRe, aIm, bRe, bIm);
      } else {
        set(c.partARe, c.partAIm, c.partBRe, c.partBIm, slot, aRe, aIm, bRe, bIm);
      }
    }
    return c;
  }

  private static void set(
      float[] aRe, float[] aIm, float[] bRe, float[] bIm, int slot,
      float ar, float ai, float br, float bi) {
    aRe[slot] = ar;
    aIm[slot] = ai;
    bRe[slot] = br;
    bIm[slot] = bi;
  }

  /** In-place forward FFT in double, natural order, for the one-time spectrum of g. */
  private static void doubleFft(double[] re, double[] im) {
    int n = re.length;
    int shift = 32 - Integer.numberOfTrailingZeros(n);
    for (int p = 1; p < n; p++) {
      int q = Integer.reverse(p) >>> shift;
      if (p < q) {
        double t = re[p];
        re[p] = re[q];
        re[q] = t;
        t = im[p];
        im[p] = im[q];
        im[q] = t;
      }
    }
    // One table of exp(-2 pi i j/n), j < n/2; the stage of half-size h reads it at stride n/(2h).
    int quarter = n >>> 1;
    double[] cos = new double[quarter];
    double[] sin = new double[quarter];
    for (int j = 0; j < quarter; j++) {
      cos[j] = Math.cos(2 * Math.PI * j / n);
      sin[j] = -Math.sin(2 * Math.PI * j / n);
    }
    for (int h = 1; h < n; h <<= 1) {
      int stride = n / (2 * h);
      for (int b = 0; b < n; b += 2 * h) {
        for (int j = 0; j < h; j++) {
          int p = b + j;
          int q = p + h;
          double wr = cos[j * stride];
          double wi = sin[j * stride];
          double tr = re[q] * wr - im[q] * wi;
          double ti = re[q] * wi + im[q] * wr;
          re[q] = re[p] - tr;
          im[q] = im[p] - ti;
          re[p] += tr;
          im[p] += ti;
        }
      }
    }
  }
}
