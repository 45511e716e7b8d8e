package org.lprff.vector.transform;

import java.util.concurrent.ConcurrentHashMap;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.FftBody;
import org.lprff.vector.simd.spi.Twiddles;

/**
 * An immutable, thread-safe plan for FFTs of one power-of-two size n: the complex FFT of n
 * points on split arrays and the real FFT of n points (through an n/2-point complex FFT).
 *
 * <p>Twiddles are computed in double and stored as float, stage by stage: the stage whose
 * butterflies span half-size h reads {@code exp(-i*pi*j/h)}, j &lt; h, at index h + j, so every
 * stage's twiddles are contiguous (one vector load per butterfly group) and the table of size n
 * holds the tables of every smaller size as its prefix. No bit-reversal table is kept: the
 * natural-order transforms permute with {@link Integer#reverse}, and circulant products need
 * no permutation at all.
 *
 * <p>Sign convention: forward X_k = sum_j x_j exp(-2 pi i jk/n), unnormalised; inverse
 * includes the factor 1/n, so inverse(forward(x)) = x up to rounding.
 *
 * <p>Natural-order methods that need scratch ({@link #realInverse}) use a thread-confined
 * buffer; the plan itself holds no mutable state.
 */
public final class FftPlan {

  private static final FftBody FFT = VectorizationProvider.get().fft();

  /** Largest supported size, 2^26. */
  public static final int MAX_SIZE = 1 << 26;

  /** Plans up to this size are cached; larger ones are built per call (keep them yourself). */
  private static final int MAX_CACHED_SIZE = 1 << 20;

  private static final ConcurrentHashMap<Integer, FftPlan> CACHE = new ConcurrentHashMap<>();

  private final int n;
  public final float[] twRe;
  public final float[] twIm;

  private FftPlan(int n) {
    this.n = n;
    int length = Math.max(n, 2);
    this.twRe = new float[length];
    this.twIm = new float[length];
    for (int h = 1; h < length; h <<= 1) {
      for (int j = 0; j < h; j++) {
        twRe[h + j] = Twiddles.re(h, j);
        twIm[h + j] = Twiddles.im(h, j);
      }
    }
  }

  /**
   * The plan for size n, a power of two in [1, 2^26]; cached for n up to 2^20.
   *
   * @throws IllegalArgumentException naming n when it is not such a power of two
   */
  public static FftPlan forSize(int n) {
    checkSize("n", n);
    return n <= MAX_CACHED_SIZE ? CACHE.computeIfAbsent(n, FftPlan::new) : new FftPlan(n);
  }

  /** The transform size n. */
  public int size() {
    return n;
  }


  static void checkSize(String name, int n) {
    if (n < 1 || n > MAX_SIZE || Integer.bitCount(n) != 1) {
      throw new IllegalArgumentException(
          name + " is " + n + ", expected a power of two in [1, " + MAX_SIZE + "]");
    }
  }

  /**
   * In-place forward complex FFT of re[0, n) + i im[0, n), natural order in and out.
   *
   * @throws IllegalArgumentException naming the lengths when re or im is null or not of length n
   */
  public void forward(float[] re, float[] im) {
    checkComplex(re, im);
    FFT.forwardToBitReversed(re, 0, im, 0, n, twRe, twIm);
    bitReverse(re, im, n);
  }

  /** In-place inverse complex FFT including 1/n, natural order in and out. */
  public void inverse(float[] re, float[] im) {
    checkComplex(re, im);
    bitReverse(re, im, n);
    FFT.inverseFromBitReversed(re, 0, im, 0, n, twRe, twIm);
    FFT.scale(re, im, n, 1.0f / n);
  }

  /**
   * Real forward FFT: x has length n; writes the half spectrum X_0..X_{n/2} into re and im, both
   * of length n/2 + 1 (im[0] and im[n/2] are 0). Uses an n/2-point complex FFT of
   * z_j = x_{2j} + i x_{2j+1} and one split step.
   */
  public void realForward(float[] x, float[] re, float[] im) {
    checkReal(x, re, im);
    if (n == 1) {
      re[0] = x[0];
      im[0] = 0f;
      return;
    }
    int half = n >>> 1;
    FFT.deinterleave(x, re, 0, im, 0, half);
    FFT.forwardToBitReversed(re, 0, im, 0, half, twRe, twIm);
    bitReverse(re, im, half);
    // The split step: with E = spectrum of the evens, O = of the odds (both Hermitian),
    // E_k = (Z_k + conj Z_{N-k})/2, O_k = -i (Z_k - conj Z_{N-k})/2, X_k = E_k + W^k O_k and
    // X_{N-k} = conj(E_k - W^k O_k), W = exp(-2 pi i / n) = tw[N + k].
    float z0r = re[0];
    float z0i = im[0];
    re[0] = z0r + z0i;
    im[0] = 0f;
    re[half] = z0r - z0i;
    im[half] = 0f;
    for (int k = 1, m = half - 1; k <= m; k++, m--) {
      float ar = re[k];
      float ai = im[k];
      float br = re[m];
      float bi = im[m];
      float er = 0.5f * (ar + br);
      float ei = 0.5f * (ai - bi);
      float or = 0.5f * (ai + bi);
      float oi = -0.5f * (ar - br);
      float wr = twRe[half + k];
      float wi = twIm[half + k];
      float tr = or * wr - oi * wi;
      float ti = or * wi + oi * wr;
      re[k] = er + tr;
      im[k] = ei + ti;
      re[m] = er - tr;
      im[m] = -(ei - ti);
    }
  }

  /**
   * Real inverse FFT including 1/n: from the half spectrum re, im (length n/2 + 1, Hermitian
   * symmetry assumed; im[0] and im[n/2] are ignored) writes the real signal x of length n. The
   * inputs are left unchanged; scratch is thread-confined.
   */
  public void realInverse(float[] re, float[] im, float[] x) {
    checkReal(x, re, im);
    if (n == 1) {
      x[0] = re[0];
      return;
    }
    int half = n >>> 1;
    float[] scratch = FftScratch.get(n);
    // Z_k = E_k + i O_k, E_k = (X_k + conj X_{N-k})/2, O_k = (X_k - conj X_{N-k}) conj(W^k)/2,
    // Z_{N-k} = conj(E_k) + i conj(O_k); the 1/N of the inverse is folded into the 1/2.
    float s = 1.0f / n;
    scratch[0] = s * (re[0] + re[half]);
    scratch[half] = s * (re[0] - re[half]);
    for (int k = 1, m = half - 1; k <= m; k++, m--) {
      float ar = re[k];
      float ai = im[k];
      float br = re[m];
      float bi = -im[m];
      float er = s * (ar + br);
      float ei = s * (ai + bi);
      float dr = s * (ar - br);
      float di = s * (ai - bi);
      float wr = twRe[half + k];
      float wi = -twIm[half + k];
      float or = dr * wr - di * wi;
      float oi = dr * wi + di * wr;
      // Z_k = E + i O; Z_{N-k} = conj(E) + i conj(O).
      scratch[k] = er - oi;
      scratch[half + k] = ei + or;
      scratch[m] = er + oi;
      scratch[half + m] = -ei + or;
    }
    bitReverse(scratch, 0, scratch, half, half);
    FFT.inverseFromBitReversed(scratch, 0, scratch, half, half, twRe, twIm);
    FFT.interleave(scratch, 0, scratch, half, x, half);
  }

  private void checkComplex(float[] re, float[] im) {
    if (re == null || im == null) {
      throw new IllegalArgumentException(
          "re and im must not be null (re is " + (re == null ? "null" : "non-null")
              + ", im is " + (im == null ? "null" : "non-null") + ")");
    }
    if (re.length != n || im.length != n) {
      throw new IllegalArgumentException(
          "re has length " + re.length + " and im has length " + im.length
              + ", expected both " + n + " (plan size)");
    }
  }

  private void checkReal(float[] x, float[] re, float[] im) {
    if (x == null || re == null || im == null) {
      throw new IllegalArgumentException(
          "x, re and im must not be null (x is " + (x == null ? "null" : "non-null")
              + ", re is " + (re == null ? "null" : "non-null")
              + ", im is " + (im == null ? "null" : "non-null") + ")");
    }
    int bins = n / 2 + 1;
    if (x.length != n || re.length != bins || im.length != bins) {
      throw new IllegalArgumentException(
          "x has length " + x.length + ", re " + re.length + ", im " + im.length
              + "; expected x " + n + " and re, im " + bins + " (n/2 + 1) for plan size " + n);
    }
  }

  public static void bitReverse(float[] re, float[] im, int n) {
    bitReverse(re, 0, im, 0, n);
  }

  /** Swaps positions p and bitrev(p) of re and im; an involution. */
  public static void bitReverse(float[] re, int reOff, float[] im, int imOff, int n) {
    if (n <= 2) {
      return;
    }
    // q = bitrev(p) by a reversed-carry increment (amortised O(1); Integer.reverse is not an
    // intrinsic on AVX2 and dominated the permutation).
    int q = 0;
    for (int p = 1; p < n - 1; p++) {
      int bit = n >>> 1;
      while ((q & bit) != 0) {
        q ^= bit;
        bit >>>= 1;
      }
      q |= bit;
      if (p < q) {
        float t = re[reOff + p];
        re[reOff + p] = re[reOff + q];
        re[reOff + q] = t;
        t = im[imOff + p];
        im[imOff + p] = im[imOff + q];
        im[imOff + q] = t;
      }
    }
  }
}
