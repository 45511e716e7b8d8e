package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.StochasticRounding;
import org.lprff.vector.featurize.Featurizer;

/**
 * Issue item 6, test-time noise: a linear model w applied to quantized features has squared error
 *
 * <pre>  E[(w^T Q(z) - y)^2] = (w^T z - y)^2 + sum_i w_i^2 Var[Q(z_i)] <= (w^T z - y)^2 + ||w||^2 r^2/4</pre>
 *
 * (expectation over the rounding, for fixed z, w, y; r^2 / 4 = 2 / (m (2^b - 1)^2) = sigma~^2 in
 * the units of the scaled features). Generated: b, m, the rows (n = {@value #ROWS}, their float
 * features from {@link Featurizer}), w ~ N(0, I), and targets y = w^T z + g sqrt(V) N(0, 1) with a
 * generated g in [0, 3] so that the residual and the rounding noise are of comparable size.
 *
 * <p><b>Bound.</b> Per row j and draw, D = (w^T q - y)^2 - e^2 = 2 e X + X^2, e = w^T z - y, X =
 * sum_i w_i c_i, c_i = q_i - z_i independent, zero-mean, |c_i| <= r. When the identity holds,
 * E[D] = V = sum_i w_i^2 v_i, and Var[D] <= E[D^2] <= 8 e^2 V + 2 E[X^4] <= 8 e^2 V + 6 V^2 + 2 r^2
 * sum_i w_i^4 v_i (E X^4 <= 3 V^2 + sum_i w_i^4 E c_i^4, E c^4 <= r^2 v); |D - E D| <= 4 |e| B +
 * B^2 with B = r sum_i |w_i|. Bernstein's inequality over the n x {@value #DRAWS} independent (row,
 * draw) terms gives the deviation of the mean. The variance bound is inflated by 1% for the grid
 * bias (|E c| <= 2^-14 r), which also shifts E[D] by at most 2 |e| 2^-14 B + 2^-14 r^2 ||w||^2 +
 * (2^-14 B)^2 (added).
 *
 * <p>False failures: {@value #EXAMPLES} examples, one Bernstein event each, delta = 1e-6 /
 * {@value #EXAMPLES}.
 */
class TestTimeNoiseProperties {

  static final int ROWS = 32;
  static final int DRAWS = 4096;
  static final int EXAMPLES = 16;
  static final double DELTA = 1e-6 / EXAMPLES;
  static final double BETA = 0x1p-14;
  static final int[] BITS = {1, 2, 4, 8, 16};

  record Case(int bits, int m, int d, double sigma, double noise, long seed) {}

  @Test
  void roundingAddsTheWeightedRoundingVariancesToTheSquaredError() {
    qt().withFixedSeed(606L)
        .withExamples(EXAMPLES)
        .withShrinkCycles(2)
        .forAll(
            integers().between(0, BITS.length - 1).map(i -> BITS[i])
                .zip(Sizes.between(1, 128), integers().between(1, 6),
                    (b, m, d) -> new int[] {b, m, d})
                .zip(doubles().between(0.5, 3), doubles().between(0, 3), longs().all(),
                    (bmd, sigma, noise, seed) ->
                        new Case(bmd[0], bmd[1], bmd[2], sigma, noise, seed)))
        .checkAssert(TestTimeNoiseProperties::check);
  }

  static void check(Case c) {
    int n = ROWS;
    int m = c.m();
    int d = c.d();
    SplittableRandom random = new SplittableRandom(c.seed());
    float[][] z = SpectrumProperties.gaussianFeatures(random, n, d, m, c.sigma(), c.seed());
    double[] w = new double[m];
    double w2 = 0;
    double w1 = 0;
    for (int i = 0; i < m; i++) {
      w[i] = random.nextGaussian();
      w2 += w[i] * w[i];
      w1 += Math.abs(w[i]);
    }
    QuantizationScale scale = QuantizationScale.forFeatures(m, c.bits());
    double r = scale.step();
    double b = r * w1;

    double[] v = new double[n];
    double[] e = new double[n];
    double[] y = new double[n];
    double meanV = 0;
    double[] w4v = new double[n];
    for (int j = 0; j < n; j++) {
      double fit = 0;
      for (int i = 0; i < m; i++) {
        double vi = SpectrumProperties.variance(z[j][i], scale);
        v[j] += w[i] * w[i] * vi;
        w4v[j] += w[i] * w[i] * w[i] * w[i] * vi;
        fit += w[i] * z[j][i];
      }
      meanV += v[j] / n;
      y[j] = fit; // noise added below, once meanV is known
    }
    double sumSquaredResiduals = 0;
    for (int j = 0; j < n; j++) {
      y[j] += c.noise() * Math.sqrt(meanV) * random.nextGaussian();
      double fit = 0;
      for (int i = 0; i < m; i++) {
        fit += w[i] * z[j][i];
      }
      e[j] = fit - y[j];
      sumSquaredResiduals += e[j] * e[j];
    }

    double sumSquaredErrors = 0;
    byte[] packed = new byte[scale.rowBytes(m)];
    int[] codes = new int[m];
    for (int draw = 0; draw < DRAWS; draw++) {
      for (int j = 0; j < n; j++) {
        StochasticRounding.quantizeStochastic(z[j], 0, m, scale, c.seed(), j, 0, draw, packed, 0);
        PackedFeatures.unpackCodes(packed, 0, scale.bits(), m, codes, 0);
        double prediction = 0;
        for (int i = 0; i < m; i++) {
          prediction += w[i] * (scale.lo() + (double) codes[i] * r);
        }
        double err = prediction - y[j];
        sumSquaredErrors += err * err;
      }
    }

    double variance = 0;
    double range = 0;
    double bias = 0;
    for (int j = 0; j < n; j++) {
      variance += 8 * e[j] * e[j] * v[j] + 6 * v[j] * v[j] + 2 * r * r * w4v[j];
      range = Math.max(range, 4 * Math.abs(e[j]) * b + b * b);
      bias += 2 * Math.abs(e[j]) * BETA * b + BETA * r * r * w2 + BETA * BETA * b * b;
    }
    long terms = (long) n * DRAWS;
    double t = Bounds.bernsteinSum(1.01 * DRAWS * variance, range, DELTA) / terms + bias / n;
    double observed = sumSquaredErrors / terms;
    double expected = (sumSquaredResiduals + n * meanV) / n;
    double ceiling = sumSquaredResiduals / n + w2 * 2.0 / (m * (double) scale.maxCode() * scale.maxCode());
    String what =
        c + ": mean (w^T Q - y)^2 = " + observed + ", (w^T z - y)^2 + sum w^2 Var = " + expected
            + " (rounding part " + meanV + ") +- " + t + ", ceiling " + ceiling;
    Report.line(what);
    assertTrue(Math.abs(observed - expected) <= t, what);
    assertTrue(meanV <= w2 * r * r / 4 * (1 + 1e-9), what);
    assertTrue(observed <= ceiling * (1 + 0x1p-20) + t, what);
  }
}
