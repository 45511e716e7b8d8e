package org.lprff.vector.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.SplittableRandom;
import org.jtransforms.fft.DoubleFFT_1D;
import org.jtransforms.fft.FloatFFT_1D;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lprff.vector.simd.spi.FftBody;
import org.lprff.vector.testing.ProviderTestBase;
import org.lprff.vector.testing.TestSizes;

/**
 * Complex and real FFTs against a direct O(n^2) DFT in double, against JTransforms, and the
 * vector body against the scalar one.
 *
 * <p>Tolerance (norm-wise, Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * Thm 24.2): a radix-2 FFT of n = 2^t points in floating point with unit roundoff u = 2^-24
 * and twiddles of error at most mu satisfies ||X^ - X||_2 <= t eta ||X||_2 / (1 - t eta),
 * eta = mu + gamma_4 (sqrt 2 + mu). Our twiddles are computed in double and rounded once to
 * float, so mu <= sqrt(2) u, and eta <= 1.42u + 4.01u * 1.42 < 7.2 u. We test
 * ||X^ - X||_2 <= C t u ||X||_2 with C = 8 (the 1/(1 - t eta) factor is below 1.0002 for
 * t <= 26); the double-precision reference contributes ~1e-13 relative, negligible. Each entry's
 * error is bounded by the same number, so the check is also an entrywise bound.
 */
class FftTest extends ProviderTestBase {

  private static final double U = 0x1p-24;
  /** Higham's constant for one radix-2 stage, rounded up: eta < 7.2u. */
  private static final double C = 8;

  private static final FftBody SCALAR = ProviderTestBase.SCALAR.fft();
  private static final FftBody VECTOR = ProviderTestBase.VECTOR.fft();

  @BeforeAll
  static void jtransformsSingleThreaded() {
    // JTransforms splits large transforms over a thread pool; one thread keeps the oracle simple.
    pl.edu.icm.jlargearrays.ConcurrencyUtils.setNumberOfThreads(1);
  }

  // ---- helpers ----------------------------------------------------------------------------

  private static float[] gaussian(SplittableRandom random, int n) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      // Box-Muller is unnecessary here: a sum of uniforms is near-Gaussian and exact in float.
      x[i] = (float) (random.nextDouble() - random.nextDouble() + random.nextDouble() - 0.5);
    }
    return x;
  }

  /** Direct DFT in double: sign -1 forward, +1 inverse (no 1/n). */
  static double[][] directDft(float[] re, float[] im, int sign) {
    int n = re.length;
    double[] cos = new double[n];
    double[] sin = new double[n];
    for (int j = 0; j < n; j++) {
      cos[j] = Math.cos(2 * Math.PI * j / n);
      sin[j] = sign * Math.sin(2 * Math.PI * j / n);
    }
    double[] outRe = new double[n];
    double[] outIm = new double[n];
    for (int k = 0; k < n; k++) {
      double sr = 0;
      double si = 0;
      for (int j = 0; j < n; j++) {
        int t = (int) ((long) j * k % n);
        sr += re[j] * cos[t] - im[j] * sin[t];
        si += re[j] * sin[t] + im[j] * cos[t];
      }
      outRe[k] = sr;
      outIm[k] = si;
    }
    return new double[][] {outRe, outIm};
  }

  private static double norm(double[] re, double[] im) {
    double s = 0;
    for (int i = 0; i < re.length; i++) {
      s += re[i] * re[i] + im[i] * im[i];
    }
    return Math.sqrt(s);
  }

  private static double errorNorm(float[] re, float[] im, double[] expRe, double[] expIm) {
    double s = 0;
    for (int i = 0; i < expRe.length; i++) {
      double dr = re[i] - expRe[i];
      double di = im[i] - expIm[i];
      s += dr * dr + di * di;
    }
    return Math.sqrt(s);
  }

  private static int log2(int n) {
    return Integer.numberOfTrailingZeros(n);
  }

  private static void assertWithin(
      String what, float[] re, float[] im, double[] expRe, double[] expIm, double constant) {
    double err = errorNorm(re, im, expRe, expIm);
    double bound = constant * U * norm(expRe, expIm);
    assertTrue(
        err <= bound,
        what + ": ||error||_2 = " + err + " exceeds " + bound + " (ratio " + err / bound + ")");
  }

  private static void forwardNatural(FftBody kernel, float[] re, float[] im) {
    FftPlan plan = FftPlan.forSize(re.length);
    kernel.forwardToBitReversed(re, 0, im, 0, re.length, plan.twRe, plan.twIm);
    FftPlan.bitReverse(re, im, re.length);
  }

  private static void inverseNaturalUnscaled(FftBody kernel, float[] re, float[] im) {
    FftPlan plan = FftPlan.forSize(re.length);
    FftPlan.bitReverse(re, im, re.length);
    kernel.inverseFromBitReversed(re, 0, im, 0, re.length, plan.twRe, plan.twIm);
  }

  /** Equal as IEEE values (0 == -0): both bodies do the same operations in the same order. */
  static void assertSameValues(String what, float[] expected, float[] actual) {
    assertEquals(expected.length, actual.length, what + " length");
    for (int i = 0; i < expected.length; i++) {
      if (!(expected[i] == actual[i])) {
        fail(what + ": index " + i + " scalar " + expected[i] + " vector " + actual[i]);
      }
    }
  }

  // ---- complex FFT vs direct DFT ------------------------------------------------------------

  @Test
  void bothBodiesMatchDirectDftForwardAndInverse() {
    SplittableRandom random = new SplittableRandom(1);
    for (int n : TestSizes.powersOfTwo(0, 10)) {
      float[] re = gaussian(random, n);
      float[] im = gaussian(random, n);
      double[][] forward = directDft(re, im, -1);
      double[][] inverse = directDft(re, im, +1);
      for (FftBody kernel : new FftBody[] {SCALAR, VECTOR}) {
        String name = kernel.getClass().getSimpleName() + " n=" + n;
        float[] r = re.clone();
        float[] i = im.clone();
        forwardNatural(kernel, r, i);
        assertWithin(name + " forward", r, i, forward[0], forward[1], C * log2(n));
        r = re.clone();
        i = im.clone();
        inverseNaturalUnscaled(kernel, r, i);
        assertWithin(name + " inverse", r, i, inverse[0], inverse[1], C * log2(n));
      }
    }
  }

  @Test
  void facadeInverseIncludesOneOverNAndRoundTrips() {
    SplittableRandom random = new SplittableRandom(2);
    for (int n : TestSizes.powersOfTwo(0, 16)) {
      float[] re = gaussian(random, n);
      float[] im = gaussian(random, n);
      float[] r = re.clone();
      float[] i = im.clone();
      Fft.forward(r, i);
      Fft.inverse(r, i);
      // Forward error C t u ||X||, then the inverse (scaled by the exact 1/n) adds C t u ||x||
      // with ||X|| = sqrt(n) ||x||: in x's units, 2 C t u ||x|| to first order.
      assertWithin("round trip n=" + n, r, i, toDouble(re), toDouble(im), 2 * C * log2(n) + 1e-9);
    }
  }

  private static double[] toDouble(float[] x) {
    double[] d = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      d[i] = x[i];
    }
    return d;
  }

  @Test
  void knownTransforms() {
    // An impulse transforms to all ones; a single complex exponential to a single bin.
    int n = 64;
    float[] re = new float[n];
    float[] im = new float[n];
    re[0] = 1;
    Fft.forward(re, im);
    for (int k = 0; k < n; k++) {
      assertEquals(1f, re[k], 0f, "impulse re " + k);
      assertEquals(0f, im[k], 0f, "impulse im " + k);
    }
    for (int j = 0; j < n; j++) {
      re[j] = (float) Math.cos(2 * Math.PI * 5 * j / n);
      im[j] = (float) Math.sin(2 * Math.PI * 5 * j / n);
    }
    Fft.forward(re, im);
    for (int k = 0; k < n; k++) {
      // Bin 5 holds n (sign -1 convention); the rest is rounding noise, C t u sqrt(n) * n.
      assertEquals(k == 5 ? n : 0, re[k], C * 6 * U * n * 8, "exponential re " + k);
      assertEquals(0, im[k], C * 6 * U * n * 8, "exponential im " + k);
    }
  }

  // ---- vector body vs scalar body ----------------------------------------------------------

  @Test
  void vectorBodyEqualsScalarBody() {
    SplittableRandom random = new SplittableRandom(3);
    for (int n : TestSizes.powersOfTwo(0, 16)) {
      float[] re = gaussian(random, n);
      float[] im = gaussian(random, n);
      FftPlan plan = FftPlan.forSize(n);
      float[] sr = re.clone();
      float[] si = im.clone();
      float[] vr = re.clone();
      float[] vi = im.clone();
      SCALAR.forwardToBitReversed(sr, 0, si, 0, n, plan.twRe, plan.twIm);
      VECTOR.forwardToBitReversed(vr, 0, vi, 0, n, plan.twRe, plan.twIm);
      assertSameValues("forward re n=" + n, sr, vr);
      assertSameValues("forward im n=" + n, si, vi);
      SCALAR.inverseFromBitReversed(sr, 0, si, 0, n, plan.twRe, plan.twIm);
      VECTOR.inverseFromBitReversed(vr, 0, vi, 0, n, plan.twRe, plan.twIm);
      assertSameValues("inverse re n=" + n, sr, vr);
      assertSameValues("inverse im n=" + n, si, vi);
      SCALAR.scale(sr, si, n, 0.25f);
      VECTOR.scale(vr, vi, n, 0.25f);
      assertSameValues("scale n=" + n, sr, vr);
    }
  }

  @Test
  void vectorBodyEqualsScalarBodyAtOffsets() {
    // Circulant products run on one buffer: re at offset 0, im at offset n.
    SplittableRandom random = new SplittableRandom(4);
    for (int n : TestSizes.powersOfTwo(0, 13)) {
      float[] buffer = gaussian(random, 2 * n + 3);
      FftPlan plan = FftPlan.forSize(n);
      float[] s = buffer.clone();
      float[] v = buffer.clone();
      SCALAR.forwardToBitReversed(s, 3, s, n + 3, n, plan.twRe, plan.twIm);
      VECTOR.forwardToBitReversed(v, 3, v, n + 3, n, plan.twRe, plan.twIm);
      assertSameValues("forward at offsets n=" + n, s, v);
      SCALAR.inverseFromBitReversed(s, 3, s, n + 3, n, plan.twRe, plan.twIm);
      VECTOR.inverseFromBitReversed(v, 3, v, n + 3, n, plan.twRe, plan.twIm);
      assertSameValues("inverse at offsets n=" + n, s, v);
    }
  }

  @Test
  void interleavingIsExactAndBodiesAgree() {
    SplittableRandom random = new SplittableRandom(5);
    for (int n : TestSizes.general()) {
      float[] x = gaussian(random, 2 * n);
      float[] scratchS = new float[2 * n + 1];
      float[] scratchV = new float[2 * n + 1];
      SCALAR.deinterleave(x, scratchS, 1, scratchS, n + 1, n);
      VECTOR.deinterleave(x, scratchV, 1, scratchV, n + 1, n);
      for (int j = 0; j < n; j++) {
        assertEquals(x[2 * j], scratchV[1 + j], "even " + j + " of n=" + n);
        assertEquals(x[2 * j + 1], scratchV[n + 1 + j], "odd " + j + " of n=" + n);
      }
      assertSameValues("deinterleave n=" + n, scratchS, scratchV);
      float[] back = new float[2 * n];
      VECTOR.interleave(scratchV, 1, scratchV, n + 1, back, n);
      assertSameValues("interleave round trip n=" + n, x, back);
    }
  }

  // ---- real FFT ----------------------------------------------------------------------------

  @Test
  void realForwardMatchesComplexFftAndDirectDft() {
    SplittableRandom random = new SplittableRandom(6);
    for (int n : TestSizes.powersOfTwo(0, 12)) {
      float[] x = gaussian(random, n);
      int bins = n / 2 + 1;
      float[] re = new float[bins];
      float[] im = new float[bins];
      Fft.realForward(x, re, im);
      assertEquals(0f, im[0], "im[0] n=" + n);
      assertEquals(0f, im[bins - 1], "im[n/2] n=" + n);

      float[] cr = x.clone();
      float[] ci = new float[n];
      Fft.forward(cr, ci);
      // Real FFT: an (n/2)-point FFT (C (t - 1) u) plus the split step, one more twiddled
      // butterfly (C u) and the even/odd separation (<= 2u, counted as another C u): C (t + 1).
      // Against the float complex FFT (C t) the bounds add: C (2t + 1).
      double[] halfRe = new double[bins];
      double[] halfIm = new double[bins];
      float[] cRe = new float[bins];
      float[] cIm = new float[bins];
      double[][] direct = directDft(x, new float[n], -1);
      double[] dRe = new double[bins];
      double[] dIm = new double[bins];
      for (int k = 0; k < bins; k++) {
        halfRe[k] = cr[k];
        halfIm[k] = ci[k];
        cRe[k] = cr[k];
        cIm[k] = ci[k];
        dRe[k] = direct[0][k];
        dIm[k] = direct[1][k];
      }
      int t = log2(n);
      // The half spectrum carries at least half of ||X||^2 (Hermitian), so bounds stated
      // against the full ||X||_2 are at most sqrt(2) times the half-spectrum norm.
      assertWithin("real vs complex n=" + n, re, im, halfRe, halfIm, Math.sqrt(2) * C * (2 * t + 1));
      assertWithin("real vs direct n=" + n, re, im, dRe, dIm, Math.sqrt(2) * C * (t + 1));
    }
  }

  @Test
  void realInverseRoundTrips() {
    SplittableRandom random = new SplittableRandom(7);
    for (int n : TestSizes.powersOfTwo(0, 16)) {
      float[] x = gaussian(random, n);
      float[] re = new float[n / 2 + 1];
      float[] im = new float[n / 2 + 1];
      FftPlan plan = FftPlan.forSize(n);
      plan.realForward(x, re, im);
      float[] reCopy = re.clone();
      float[] back = new float[n];
      plan.realInverse(re, im, back);
      assertSameValues("realInverse leaves its input unchanged", reCopy, re);
      // Two real FFTs of C (t + 1) each, in x's units.
      double err = 0;
      double norm = 0;
      for (int i = 0; i < n; i++) {
        err += (back[i] - x[i]) * (double) (back[i] - x[i]);
        norm += x[i] * (double) x[i];
      }
      double bound = 2 * C * (log2(n) + 1) * U * Math.sqrt(norm);
      assertTrue(Math.sqrt(err) <= bound, "n=" + n + " error " + Math.sqrt(err) + " > " + bound);
    }
  }

  // ---- JTransforms as an independent oracle ------------------------------------------------

  @Test
  void complexForwardMatchesJTransforms() {
    SplittableRandom random = new SplittableRandom(8);
    for (int n : TestSizes.powersOfTwo(0, 16)) {
      float[] re = gaussian(random, n);
      float[] im = gaussian(random, n);
      double[] packed = new double[2 * n];
      float[] packedF = new float[2 * n];
      for (int j = 0; j < n; j++) {
        packed[2 * j] = re[j];
        packed[2 * j + 1] = im[j];
        packedF[2 * j] = re[j];
        packedF[2 * j + 1] = im[j];
      }
      new DoubleFFT_1D(n).complexForward(packed);
      new FloatFFT_1D(n).complexForward(packedF);
      double[] expRe = new double[n];
      double[] expIm = new double[n];
      double[] floatRe = new double[n];
      double[] floatIm = new double[n];
      for (int k = 0; k < n; k++) {
        expRe[k] = packed[2 * k];
        expIm[k] = packed[2 * k + 1];
        floatRe[k] = packedF[2 * k];
        floatIm[k] = packedF[2 * k + 1];
      }
      float[] r = re.clone();
      float[] i = im.clone();
      Fft.forward(r, i);
      // Against the double oracle: our bound C t u ||X||.
      assertWithin("vs DoubleFFT_1D n=" + n, r, i, expRe, expIm, C * log2(n));
      // Against JTransforms' float transform: both errors add; we grant it the same C t u.
      assertWithin("vs FloatFFT_1D n=" + n, r, i, floatRe, floatIm, 2 * C * log2(n) + 1e-9);
    }
  }

  @Test
  void realForwardMatchesJTransforms() {
    SplittableRandom random = new SplittableRandom(9);
    for (int n : TestSizes.powersOfTwo(1, 16)) {
      float[] x = gaussian(random, n);
      double[] packed = new double[n];
      for (int j = 0; j < n; j++) {
        packed[j] = x[j];
      }
      // JTransforms packs a[0] = Re X_0, a[1] = Re X_{n/2}, a[2k] = Re X_k, a[2k+1] = Im X_k.
      new DoubleFFT_1D(n).realForward(packed);
      int bins = n / 2 + 1;
      double[] expRe = new double[bins];
      double[] expIm = new double[bins];
      expRe[0] = packed[0];
      expRe[n / 2] = packed[1];
      for (int k = 1; k < n / 2; k++) {
        expRe[k] = packed[2 * k];
        expIm[k] = packed[2 * k + 1];
      }
      float[] re = new float[bins];
      float[] im = new float[bins];
      Fft.realForward(x, re, im);
      assertWithin("real vs DoubleFFT_1D n=" + n, re, im, expRe, expIm,
          Math.sqrt(2) * C * (log2(n) + 1));
    }
  }

  // ---- plans and error paths ---------------------------------------------------------------

  @Test
  void plansAreCachedPerSize() {
    assertSame(FftPlan.forSize(256), FftPlan.forSize(256));
    assertEquals(256, FftPlan.forSize(256).size());
  }

  @Test
  void badSizesAreRejectedByValue() {
    for (int n : new int[] {0, -4, 3, 12, (1 << 26) + 1, 1 << 27}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> FftPlan.forSize(n));
      assertTrue(e.getMessage().contains("n is " + n), e.getMessage());
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Fft.forward(new float[3], new float[3]));
    assertTrue(e.getMessage().contains("length 3"), e.getMessage());
  }

  @Test
  void mismatchedAndNullArraysAreRejectedByValue() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Fft.forward(new float[8], new float[4]));
    assertTrue(e.getMessage().contains("length 8") && e.getMessage().contains("length 4"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Fft.inverse(null, new float[4]));
    assertTrue(e.getMessage().contains("re is null"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> FftPlan.forSize(8).forward(new float[8], new float[16]));
    assertTrue(e.getMessage().contains("16") && e.getMessage().contains("8"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Fft.realForward(new float[8], new float[4], new float[5]));
    assertTrue(e.getMessage().contains("re 4") && e.getMessage().contains("5 (n/2 + 1)"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Fft.realInverse(new float[5], new float[5], new float[12]));
    assertTrue(e.getMessage().contains("length 12"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Fft.realForward(new float[8], null, new float[5]));
    assertTrue(e.getMessage().contains("re is null"), e.getMessage());
  }
}
