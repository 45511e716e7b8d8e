package org.lprff.vector.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.testing.Distributions;

class KernelFunctionTest {

  private static final long SEED = 0x5EED_1234_ABCD_0042L;

  private static final double ALPHA = 1e-6;

  private static final List<KernelFunction> KERNELS = List.of(
      new KernelFunction.Gaussian(2),
      new KernelFunction.Laplacian(2),
      new KernelFunction.Matern(0.5, 2),
      new KernelFunction.Matern(1.5, 2),
      new KernelFunction.Matern(2.5, 2));

  // ---- exact values

  @Test
  void lengthScaleIsTheDistanceUnitAndCanBeReplaced() {
    List<KernelFunction> kernels = List.of(new KernelFunction.Gaussian(2),
        new KernelFunction.Laplacian(2), new KernelFunction.Matern(1.5, 2));
    float[] x = {1, 2};
    float[] y = {0, 0.5f};
    float[] x3 = {3, 6};
    float[] y3 = {0, 1.5f};
    for (KernelFunction k : kernels) {
      assertEquals(2.0, k.lengthScale(), k.name());
      KernelFunction wider = k.withLengthScale(6);
      assertEquals(6.0, wider.lengthScale(), k.name());
      assertEquals(k.name(), wider.name());
      // k_6(3x, 3y) = k_2(x, y): distances enter divided by the length scale.
      assertEquals(k.value(x, y), wider.value(x3, y3), 1e-12, k.name());
    }
    assertEquals(new KernelFunction.Matern(1.5, 6), kernels.get(2).withLengthScale(6),
        "matern keeps its nu");
  }

  @Test
  void valuesAtKnownPoints() {
    float[] x = {0.5f, -1f, 2f};
    float[] y = {1.5f, 1f, 4f}; // y - x = (1, 2, 2): ||.||_2 = 3, ||.||_1 = 5
    for (KernelFunction k : KERNELS) {
      assertEquals(1.0, k.value(x, x), "k(x, x) of " + k);
    }
    double e = 1e-15; // one exp and a few exact operations in double
    assertEquals(Math.exp(-0.5), new KernelFunction.Gaussian(3).value(x, y), e);
    assertEquals(Math.exp(-1.0), new KernelFunction.Laplacian(5).value(x, y), e);
    assertEquals(Math.exp(-1.0), new KernelFunction.Matern(0.5, 3).value(x, y), e);
    double s3 = Math.sqrt(3);
    double s5 = Math.sqrt(5);
    assertEquals((1 + s3) * Math.exp(-s3), new KernelFunction.Matern(1.5, 3).value(x, y), e);
    assertEquals(
        (1 + s5 + 5.0 / 3) * Math.exp(-s5), new KernelFunction.Matern(2.5, 3).value(x, y), e);
    // Symmetric, and the offset form reads the right slices.
    float[] xs = {9, 9, 0.5f, -1f, 2f};
    float[] ys = {1.5f, 1f, 4f, 7};
    for (KernelFunction k : KERNELS) {
      assertEquals(k.value(x, y), k.value(y, x));
      assertEquals(k.value(x, y), k.value(xs, 2, ys, 0, 3));
    }
    // Gaussian(sigma) at r = sigma is e^-1/2 whatever the dimension.
    assertEquals(Math.exp(-0.5), new KernelFunction.Gaussian(2).value(new float[9], fill(9, 2 / 3f)), 1e-7);
  }

  private static float[] fill(int d, float v) {
    float[] a = new float[d];
    Arrays.fill(a, v);
    return a;
  }

  // ---- sampled frequencies and phases

  @Test
  void frequenciesAreDeterministicAndFollowTheDocumentedStreams() {
    int d = 5;
    int m = 300;
    for (KernelFunction k : KERNELS) {
      float[] w = new float[m * d + 3];
      float[] again = new float[m * d + 3];
      k.sampleFrequencies(SEED, d, m, w);
      k.sampleFrequencies(SEED, d, m, again);
      assertArrayEquals(w, again);
      assertEquals(0f, w[m * d]); // nothing written past m * d
      k.sampleFrequencies(SEED + 1, d, m, again);
      assertFalse(Arrays.equals(w, again));
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < d; j++) {
          int idx = i * d + j;
          double expected = switch (k) {
            case KernelFunction.Gaussian g ->
                RandomParameters.normal(SEED, RandomParameters.STREAM_FREQUENCIES, idx) / g.sigma();
            case KernelFunction.Laplacian l ->
                RandomParameters.cauchy(SEED, RandomParameters.STREAM_FREQUENCIES, idx) / l.sigma();
            case KernelFunction.Matern mat ->
                RandomParameters.normal(SEED, RandomParameters.STREAM_FREQUENCIES, idx)
                    * Math.sqrt(2 * mat.nu() / RandomParameters.chiSquared(
                        SEED, RandomParameters.STREAM_CHI_SQUARED, i, (int) (2 * mat.nu())))
                    / mat.lengthScale();
          };
          assertEquals((float) expected, w[idx], k + " at " + idx);
        }
      }
    }
  }

  /**
   * N = 100,000 iid draws of one frequency coordinate (column d-1 of m = N rows; rows are
   * independent, coordinates of one Matérn row are not) against the exact marginal CDF. DKW bound
   * eps = sqrt(ln(2/alpha) / (2N)) = 0.00851 with alpha = 1e-6, rigorous, false-failure
   * probability <= 1e-6 per kernel. Rounding the draws to float moves each CDF value by at most
   * sup |x f(x)| 2^-24 < 1e-7; 1e-6 is added to the bound for it.
   */
  @Test
  void frequencyMarginalsMatchTheSpectralDensity() {
    int n = 100_000;
    int d = 3;
    double bound = Distributions.dkwBound(n, ALPHA) + 1e-6;
    for (KernelFunction k : KERNELS) {
      double[] column = coordinate(k, d, n, d - 1);
      double distance = Distributions.ksDistance(column, marginalCdf(k));
      assertTrue(distance <= bound, k + ": KS distance " + distance + " > " + bound);
    }
    // Power: sigma read as 1/sigma (frequencies 4x too spread out for sigma = 2) is rejected.
    double[] wrong = coordinate(new KernelFunction.Gaussian(0.5), d, n, 0);
    assertTrue(Distributions.ksDistance(wrong, marginalCdf(KERNELS.get(0))) > bound);
    double[] wrongNu = coordinate(new KernelFunction.Matern(0.5, 2), d, n, 0);
    assertTrue(Distributions.ksDistance(wrongNu, marginalCdf(KERNELS.get(4))) > bound);
  }

  private static double[] coordinate(KernelFunction k, int d, int m, int j) {
    float[] w = new float[m * d];
    k.sampleFrequencies(SEED, d, m, w);
    double[] c = new double[m];
    for (int i = 0; i < m; i++) {
      c[i] = w[i * d + j];
    }
    return c;
  }

  /** Gaussian: N(0, 1/sigma^2); Laplacian: Cauchy(0, 1/sigma); Matérn: t_{2 nu} / l. */
  private static DoubleUnaryOperator marginalCdf(KernelFunction k) {
    return switch (k) {
      case KernelFunction.Gaussian g -> x -> Distributions.normalCdf(x * g.sigma());
      case KernelFunction.Laplacian l -> x -> Distributions.cauchyCdf(x * l.sigma());
      case KernelFunction.Matern m ->
          x -> Distributions.studentCdf((int) (2 * m.nu()), x * m.lengthScale());
    };
  }

  /** Phases: in [0, 2 pi) and uniform (KS/DKW as above, N = 100,000, alpha = 1e-6). */
  @Test
  void phasesAreUniformOnTheCircle() {
    int n = 100_000;
    float[] a = new float[n];
    KERNELS.get(1).samplePhases(SEED, n, a);
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      assertTrue(a[i] >= 0 && a[i] < 2 * Math.PI, "phase " + a[i]);
      assertEquals(
          (float) (2 * Math.PI * RandomParameters.uniformOpen(SEED, RandomParameters.STREAM_PHASES, i)),
          a[i]);
      values[i] = a[i];
    }
    double bound = Distributions.dkwBound(n, ALPHA) + 1e-6;
    assertTrue(Distributions.ksDistance(values, x -> x / (2 * Math.PI)) <= bound);
    // The top of the uniform grid rounds to (float) 2 pi > 2 pi; it must map below 2 pi.
    assertEquals((float) (2 * Math.PI), (float) (2 * Math.PI * (1 - 0x1p-53)));
    float top = RandomParameters.phaseFromUniform(1 - 0x1p-53);
    assertTrue(top < 2 * Math.PI && top > 6.2831f, "top phase " + top);
    assertEquals((float) (2 * Math.PI * 0x1p-53), RandomParameters.phaseFromUniform(0x1p-53));
    // The same phases for every kernel: they depend on the seed only.
    float[] b = new float[n];
    KERNELS.get(4).samplePhases(SEED, n, b);
    assertArrayEquals(a, b);
  }

  // ---- Monte Carlo: E[cos(w . (x - y))] = k(x, y)

  /**
   * Hoeffding: the m = 2^18 terms cos(w_i . delta) are iid in [-1, 1], so P(|mean - E| >
   * sqrt(2 ln(2/alpha) / m)) <= alpha = 1e-6; bound 0.0105. Rounding w to float changes each
   * term by at most min(2, |w| ||delta|| 2^-23), whose mean is below 1e-5 for these kernels
   * (Cauchy tail included); 1e-5 is added. 5 kernels x 2 dimensions x 3 pairs = 30 assertions:
   * false-failure probability <= 3e-5 in all.
   */
  private static final int MC_FEATURES = 1 << 18;

  private static final double MC_BOUND =
      Math.sqrt(2 * Math.log(2 / ALPHA) / MC_FEATURES) + 1e-5;

  /** Pairs with ||x - y||_2 in {1, 2, 3} (sigma = l = 2): kernel values well inside (0, 1). */
  private static float[][] pairs(int d) {
    SplittableRandom random = new SplittableRandom(d);
    float[][] p = new float[6][d];
    for (int q = 0; q < 3; q++) {
      double norm = 0;
      float[] dir = new float[d];
      for (int j = 0; j < d; j++) {
        dir[j] = (float) random.nextGaussian();
        norm += dir[j] * dir[j];
      }
      for (int j = 0; j < d; j++) {
        p[2 * q][j] = (float) random.nextDouble(-1, 1);
        p[2 * q + 1][j] = (float) (p[2 * q][j] + (q + 1) * dir[j] / Math.sqrt(norm));
      }
    }
    return p;
  }

  private static double monteCarlo(float[] w, int d, int m, float[] x, float[] y) {
    double sum = 0;
    for (int i = 0; i < m; i++) {
      double dot = 0;
      for (int j = 0; j < d; j++) {
        dot += (double) w[i * d + j] * ((double) x[j] - y[j]);
      }
      sum += Math.cos(dot);
    }
    return sum / m;
  }

  @Test
  void featureInnerProductsEstimateTheKernel() {
    for (int d : new int[] {3, 9}) {
      float[][] p = pairs(d);
      for (KernelFunction k : KERNELS) {
        float[] w = new float[MC_FEATURES * d];
        k.sampleFrequencies(SEED, d, MC_FEATURES, w);
        for (int q = 0; q < p.length; q += 2) {
          double exact = k.value(p[q], p[q + 1]);
          double estimate = monteCarlo(w, d, MC_FEATURES, p[q], p[q + 1]);
          assertTrue(Math.abs(estimate - exact) <= MC_BOUND,
              k + " d " + d + " pair " + q / 2 + ": mean " + estimate + " vs k " + exact);
        }
      }
    }
  }

  /**
   * Power of the Monte Carlo test: sigma (or l) replaced by 1/sigma, and Gaussian frequencies
   * scaled by sigma instead of 1/sigma, must violate the bound. Each wrong kernel's value differs
   * from the right one by more than 2 * MC_BOUND (asserted), so the wrong estimate, within
   * MC_BOUND of its own expectation with probability >= 1 - 1e-6, lands outside the bound.
   */
  @Test
  void monteCarloTestCatchesTheInvertedScale() {
    int d = 3;
    float[][] p = pairs(d);
    float[] x = p[2];
    float[] y = p[3]; // ||x - y|| = 2
    for (KernelFunction k : KERNELS) {
      KernelFunction inverted = switch (k) {
        case KernelFunction.Gaussian g -> new KernelFunction.Gaussian(1 / g.sigma());
        case KernelFunction.Laplacian l -> new KernelFunction.Laplacian(1 / l.sigma());
        case KernelFunction.Matern m -> new KernelFunction.Matern(m.nu(), 1 / m.lengthScale());
      };
      double exact = k.value(x, y);
      assertTrue(Math.abs(inverted.value(x, y) - exact) > 2 * MC_BOUND, k + " vs " + inverted);
      float[] w = new float[MC_FEATURES * d];
      inverted.sampleFrequencies(SEED, d, MC_FEATURES, w);
      double estimate = monteCarlo(w, d, MC_FEATURES, x, y);
      assertTrue(Math.abs(estimate - exact) > MC_BOUND,
          "inverted " + k + " not caught: mean " + estimate + " vs k " + exact);
    }
    // The bug spelled out: Gaussian frequencies z * sigma rather than z / sigma.
    double sigma = 2;
    double[] z = new double[MC_FEATURES * d];
    RandomParameters.fillNormalDouble(SEED, RandomParameters.STREAM_FREQUENCIES, 0, z, 0, z.length);
    float[] w = new float[z.length];
    for (int i = 0; i < z.length; i++) {
      w[i] = (float) (z[i] * sigma);
    }
    double exact = new KernelFunction.Gaussian(sigma).value(x, y);
    double estimate = monteCarlo(w, d, MC_FEATURES, x, y);
    assertTrue(Math.abs(estimate - exact) > MC_BOUND, "mean " + estimate + " vs k " + exact);
  }

  /**
   * Power against a Matérn bug: one chi-squared per coordinate instead of one per feature row.
   * For nu = 1/2 each coordinate is then an independent Cauchy(0, 1/l), so the features estimate
   * the Laplacian kernel with sigma = l; where that differs from the Matérn value by more than 2 *
   * MC_BOUND (asserted), the Monte Carlo test must reject it (probability >= 1 - 1e-6).
   */
  @Test
  void monteCarloTestCatchesUnsharedChiSquared() {
    int d = 3;
    float[][] p = pairs(d);
    float[] x = p[2];
    float[] y = p[3];
    double l = 2;
    KernelFunction matern = new KernelFunction.Matern(0.5, l);
    double exact = matern.value(x, y);
    double wrongExpectation = new KernelFunction.Laplacian(l).value(x, y);
    assertTrue(Math.abs(wrongExpectation - exact) > 2 * MC_BOUND, exact + " vs " + wrongExpectation);
    double[] g = new double[MC_FEATURES * d];
    double[] c = new double[MC_FEATURES * d];
    RandomParameters.fillNormalDouble(SEED, RandomParameters.STREAM_FREQUENCIES, 0, g, 0, g.length);
    RandomParameters.fillChiSquaredDouble(
        SEED, RandomParameters.STREAM_CHI_SQUARED, 0, 1, c, 0, c.length);
    float[] w = new float[g.length];
    for (int k = 0; k < w.length; k++) {
      w[k] = (float) (g[k] * Math.sqrt(1 / c[k]) / l); // 2 nu = 1
    }
    double estimate = monteCarlo(w, d, MC_FEATURES, x, y);
    assertTrue(Math.abs(estimate - exact) > MC_BOUND, "mean " + estimate + " vs k " + exact);
  }

  // ---- parameters

  @Test
  void mapRoundTrip() {
    assertEquals(
        Map.of("kernel", "gaussian", "sigma", "2.0"), new KernelFunction.Gaussian(2).toMap());
    assertEquals(
        Map.of("kernel", "laplacian", "sigma", "0.5"), new KernelFunction.Laplacian(0.5).toMap());
    assertEquals(
        Map.of("kernel", "matern", "nu", "1.5", "length_scale", "3.0"),
        new KernelFunction.Matern(1.5, 3).toMap());
    assertEquals("kernel", new KernelFunction.Matern(1.5, 3).toMap().keySet().iterator().next());
    double awkward = 0.1 + 0.2; // not the double nearest 0.3: must survive the text form exactly
    List<KernelFunction> all = List.of(
        new KernelFunction.Gaussian(awkward), new KernelFunction.Laplacian(1e-300),
        new KernelFunction.Matern(0.5, Double.MAX_VALUE), new KernelFunction.Matern(2.5, awkward));
    for (KernelFunction k : all) {
      assertEquals(k, KernelFunction.fromMap(k.toMap()));
    }
    for (KernelFunction k : KERNELS) {
      assertEquals(k, KernelFunction.fromMap(k.toMap()));
      assertEquals(k.name(), k.toMap().get("kernel"));
    }
  }

  @Test
  void onlyTheGaussianSupportsStructuredProjections() {
    for (KernelFunction k : KERNELS) {
      assertEquals(k instanceof KernelFunction.Gaussian, k.supportsStructuredProjections(), k.name());
    }
  }

  // ---- errors


  @Test
  void errorPathsNameTheValues() {
    for (double bad : new double[] {0, -1.5, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertMessage(() -> new KernelFunction.Gaussian(bad), "sigma", String.valueOf(bad));
      assertMessage(() -> new KernelFunction.Laplacian(bad), "sigma", String.valueOf(bad));
      assertMessage(() -> new KernelFunction.Matern(1.5, bad), "length_scale", String.valueOf(bad));
    }
    assertMessage(() -> new KernelFunction.Gaussian(Double.NEGATIVE_INFINITY), "-Infinity");
    assertMessage(() -> new KernelFunction.Matern(1.0, 1), "nu is 1.0", "0.5, 1.5, 2.5");
    assertMessage(() -> new KernelFunction.Matern(Double.NaN, 1), "nu is NaN", "0.5, 1.5, 2.5");
    KernelFunction g = KERNELS.get(0);
    assertMessage(() -> g.sampleFrequencies(SEED, 0, 4, new float[10]), "d is 0");
    assertMessage(() -> g.sampleFrequencies(SEED, 3, -2, new float[10]), "m is -2");
    assertMessage(() -> g.sampleFrequencies(SEED, 3, 4, new float[11]), "length 11", "12");
    assertMessage(() -> g.sampleFrequencies(SEED, 3, 4, null), "w is null");
    assertMessage(
        () -> g.sampleFrequencies(SEED, 1 << 16, 1 << 16, new float[1]), "65536", "4294967296");
    assertMessage(() -> KERNELS.get(3).sampleFrequencies(SEED, 2, 5, new float[9]), "length 9", "10");
    assertMessage(() -> g.samplePhases(SEED, 0, new float[3]), "m is 0");
    assertMessage(() -> g.samplePhases(SEED, 4, new float[3]), "length 3", "4");
    assertMessage(() -> g.value(new float[3], new float[4]), "length 3", "length 4");
    assertMessage(() -> g.value(null, new float[4]), "x is null");
    assertMessage(() -> g.value(new float[0], new float[0]), "d is 0");
    assertMessage(() -> g.value(new float[5], 3, new float[5], 0, 3), "x has length 5", "offset 3");
    assertMessage(() -> g.value(new float[5], 0, new float[2], 0, 3), "y has length 2");
    assertMessage(() -> KernelFunction.fromMap(Map.of("sigma", "2")), "no 'kernel' key");
    assertMessage(
        () -> KernelFunction.fromMap(Map.of("kernel", "cauchy")), "'cauchy'", "gaussian, laplacian, matern");
    assertMessage(() -> KernelFunction.fromMap(Map.of("kernel", "gaussian")), "'sigma'");
    assertMessage(
        () -> KernelFunction.fromMap(Map.of("kernel", "gaussian", "sigma", "two")), "sigma", "'two'");
    assertMessage(
        () -> KernelFunction.fromMap(Map.of("kernel", "gaussian", "sigma", "2", "nu", "1.5")),
        "unexpected key 'nu'");
    assertMessage(
        () -> KernelFunction.fromMap(Map.of("kernel", "matern", "nu", "3.5", "length_scale", "1")),
        "nu is 3.5");
    assertMessage(
        () -> KernelFunction.fromMap(Map.of("kernel", "laplacian", "sigma", "-1")), "sigma is -1.0");
    assertMessage(() -> KernelFunction.fromMap(null), "parameters is null");
  }
}
