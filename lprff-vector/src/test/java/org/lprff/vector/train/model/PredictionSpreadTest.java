package org.lprff.vector.train.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.train.loss.SoftmaxLoss;
import org.lprff.vector.train.loss.Task;

/**
 * The spread of predictions over rounding draws against the formula Var = sum_i w_i^2 (z_i -
 * lo_i)(lo_i + step - z_i). The draws are pure functions of (seed, row id, feature, draw), so
 * every test is deterministic; the tolerances are those a fresh seed would pass with the stated
 * probability, so that passing says something.
 *
 * <p>Wrong implementations tried (each made {@link #theSampleVarianceMatchesTheFormula} fail):
 * the same draw for all K (T = 0), nearest rounding (T = 0), the variance without the w_i^2
 * (T / df about 9, the weights' mean square), and (for {@link #theMeanConvergesToTheFullPrecision
 * Prediction}) the same draw for all K.
 */
class PredictionSpreadTest {

  static final int D = 4;

  static FeaturizerSpec spec(int m, int bits, Quantizer q) {
    return new FeaturizerSpec(new KernelFunction.Gaussian(1.0), D, m, bits, "dense", 7, q);
  }

  /** Weights of uneven size (N(0, 1) times 1 or 6: the w_i^2 matter), bias 0.25. */
  static LinearModel model(int m, int c, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] wT = new float[m * c];
    for (int i = 0; i < wT.length; i++) {
      wT[i] = (float) (gaussian(random) * (i % 5 == 0 ? 6 : 1));
    }
    float[] bias = new float[c];
    java.util.Arrays.fill(bias, 0.25f);
    return LinearModel.of(m, c, wT, bias);
  }

  static float[] rows(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] x = new float[n * D];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) (2 * random.nextDouble() - 1);
    }
    return x;
  }

  static double gaussian(SplittableRandom random) {
    return Math.sqrt(-2 * Math.log(1 - random.nextDouble()))
        * Math.cos(2 * Math.PI * random.nextDouble());
  }

  /**
   * Pooled over R rows, T = sum_r (K - 1) s_r^2 / sigma_r^2 is chi-square with R (K - 1) degrees
   * of freedom when a row's K scores are normal (each a sum of m = 256 independent bounded
   * terms); the excess kurtosis of such a sum, O(1/m), adds kappa / K to the 2 / (K - 1) of
   * Var(s^2) / sigma^4: about 1%. With R = 200, K = 32 (df = 6200) we accept |T / df - 1| <= 6.6
   * sqrt(2 / df) = 0.119 (6 standard deviations, +10% for the kurtosis): a false failure has
   * probability about 2e-9 per bit width.
   */
  @Test
  void theSampleVarianceMatchesTheFormula() {
    int m = 256;
    int n = 200;
    int k = 32;
    for (int bits : new int[] {1, 2, 4, 8}) {
      FeaturizerSpec spec = spec(m, bits, Quantizer.STOCHASTIC);
      LinearModel model = model(m, 1, 11 + bits);
      float[] x = rows(n, 3 + bits);
      PredictionSpread spread = PredictionSpread.of(model, Task.REGRESSION, spec, k);
      PredictionSpread.Result result = spread.predict(x, n, 1000);
      double t = 0;
      for (int r = 0; r < n; r++) {
        double s = result.sd()[r];
        assertTrue(result.variance()[r] > 0, "row " + r);
        t += (k - 1) * s * s / result.variance()[r];
      }
      double df = (double) n * (k - 1);
      double ratio = t / df;
      assertTrue(Math.abs(ratio - 1) <= 6.6 * Math.sqrt(2 / df),
          "bits " + bits + ": T / df = " + ratio + ", expected 1 +- " + 6.6 * Math.sqrt(2 / df));
    }
  }

  /** The exact variance, recomputed here from the float32 features, and its bound. */
  @Test
  void theExactVarianceIsTheFormulaAndWithinTheBound() {
    int m = 200;
    int n = 150;
    for (int bits : new int[] {1, 2, 4, 8, 16}) {
      FeaturizerSpec spec = spec(m, bits, Quantizer.STOCHASTIC);
      for (int c : new int[] {1, 3}) {
        Task task = c == 1 ? Task.REGRESSION : Task.multiclass(c);
        LinearModel model = model(m, c, 5 * bits + c);
        float[] x = rows(n, bits);
        PredictionSpread.Result result = PredictionSpread.of(model, task, spec, 3).predict(x, n, 0);
        float[] z = floats(spec.withBits(32), x, n);
        QuantizationScale scale = spec.scale();
        double step = scale.step();
        for (int r = 0; r < n; r++) {
          int j = c == 1 ? 0 : result.predictedClass()[r];
          double sum = 0;
          double norm = 0;
          for (int i = 0; i < m; i++) {
            double zi = z[r * m + i];
            double u = (zi - scale.lo()) / step;
            double below = Math.min(Math.floor(Math.max(u, 0)), scale.maxCode() - 1);
            double low = scale.lo() + below * step;
            double w = model.weight(i, j);
            sum += w * w * (zi - low) * (low + step - zi);
            norm += w * w;
          }
          assertEquals(sum, result.variance()[r], 1e-6 * norm * step * step, "row " + r);
          assertEquals(norm * step * step / 4, result.varianceBound()[r],
              1e-12 * norm * step * step);
          assertTrue(result.variance()[r] <= result.varianceBound()[r],
              "bits " + bits + " row " + r + ": " + result.variance()[r] + " > "
                  + result.varianceBound()[r]);
        }
      }
    }
  }

  /**
   * The mean of K = 64 draws against the full-precision score. Bernstein: the mean's error is a
   * sum of m K independent zero-mean terms w_i (Q - z_i) / K, each at most M = max|w_i| step / K,
   * with variance sigma^2 / K in all, so P(|error| >= t) <= 2 exp(-(t^2 / 2) / (sigma^2 / K + M t
   * / 3)); we take t for 1e-12 per row (union over all rows and widths: below 1e-9), plus the
   * systematic part: the fused cosine at b's precision (1e-5 per feature) and 16-bit draws
   * (2^-16 of a step), times sum_i |w_i|.
   */
  @Test
  void theMeanConvergesToTheFullPrecisionPrediction() {
    int m = 256;
    int n = 120;
    int k = 64;
    double log = Math.log(2 / 1e-12);
    for (int bits : new int[] {1, 2, 4, 8}) {
      FeaturizerSpec spec = spec(m, bits, Quantizer.STOCHASTIC);
      LinearModel model = model(m, 1, 23 + bits);
      double step = spec.scale().step();
      double maxW = 0;
      double sumW = 0;
      for (int i = 0; i < m; i++) {
        maxW = Math.max(maxW, Math.abs(model.weight(i, 0)));
        sumW += Math.abs(model.weight(i, 0));
      }
      PredictionSpread.Result result = PredictionSpread.of(model, Task.REGRESSION, spec, k)
          .predict(rows(n, 40 + bits), n, 5);
      double bigM = maxW * step / k;
      double bias = sumW * (1e-5 + step * 0x1p-15);
      int within = 0;
      for (int r = 0; r < n; r++) {
        double v = result.variance()[r] / k;
        double t = log * bigM / 3 + Math.sqrt(Math.pow(log * bigM / 3, 2) + 2 * log * v);
        double error = Math.abs(result.mean()[r] - result.fullPrecision()[r]);
        assertTrue(error <= t + bias, "bits " + bits + " row " + r + ": |mean - fp| = " + error
            + " > " + (t + bias));
        // Chebyshev's side: at most 1/4 of the rows beyond 2 standard errors (expected ~5%).
        within += error <= 2 * Math.sqrt(v) + bias ? 1 : 0;
      }
      assertTrue(within >= 3 * n / 4, "bits " + bits + ": " + within + " of " + n);
    }
  }

  /** Draw k of row r is the featurizer's draw 1 + k of row id firstRowId + r, bit for bit. */
  @Test
  void theDrawsAreTheFeaturizersDrawsOneToK() {
    int m = 96;
    int n = 37;
    int k = 5;
    FeaturizerSpec spec = spec(m, 2, Quantizer.STOCHASTIC);
    LinearModel model = model(m, 3, 2);
    float[] x = rows(n, 9);
    float[] all = PredictionSpread.of(model, Task.multiclass(3), spec, k).scores(x, n, 77);
    Featurizer featurizer = Featurizer.of(spec);
    MemorySegment z = Arena.ofAuto().allocate((long) n * spec.rowBytes(), 64);
    float[] scores = new float[n * 3];
    for (int draw = 0; draw <= k; draw++) {
      featurizer.featurize(x, n, 77, z, 0, draw);
      model.predict(FeatureRows.of(spec, z, 0, n), scores);
      for (int r = 0; r < n; r++) {
        for (int j = 0; j < 3; j++) {
          if (draw >= PredictionSpread.FIRST_DRAW) {
            assertEquals(scores[r * 3 + j], all[(r * k + draw - 1) * 3 + j], "row " + r);
          }
        }
      }
    }
    // Draws differ: a spread of identical draws would be no spread.
    assertTrue(all[0] != all[3] || all[3] != all[6]);
  }

  /** The classification columns agree with the draws' scores. */
  @Test
  void classificationReportsTheClassItsProbabilityAndTheAgreement() {
    int m = 64;
    int n = 60;
    int k = 9;
    for (int c : new int[] {1, 4}) {
      Task task = c == 1 ? Task.BINARY : Task.multiclass(c);
      FeaturizerSpec spec = spec(m, 1, Quantizer.STOCHASTIC);
      LinearModel model = model(m, c, 31 + c);
      float[] x = rows(n, 17);
      PredictionSpread spread = PredictionSpread.of(model, task, spec, k, 0.8);
      PredictionSpread.Result result = spread.predict(x, n, 0);
      float[] all = spread.scores(x, n, 0);
      float[] fp = model.predict(FeatureRows.float32(floats(spec.withBits(32), x, n), 0, n, m));
      int disagreeing = 0;
      for (int r = 0; r < n; r++) {
        int predicted = c == 1 ? (fp[r] > 0 ? 1 : 0) : SoftmaxLoss.argmax(fp, r * c, c);
        assertEquals(predicted, result.predictedClass()[r]);
        assertEquals(PredictionSpread.probability(fp, r * c, c, predicted),
            result.probability()[r], 1e-12);
        int agree = 0;
        double p = 0;
        for (int d = 0; d < k; d++) {
          int off = (r * k + d) * c;
          int drawn = c == 1 ? (all[off] > 0 ? 1 : 0) : SoftmaxLoss.argmax(all, off, c);
          agree += drawn == predicted ? 1 : 0;
          p += PredictionSpread.probability(all, off, c, predicted);
        }
        assertEquals((double) agree / k, result.agreement()[r], 0);
        assertEquals(p / k, result.probabilityMean()[r], 1e-12);
        assertTrue(result.probabilityLo()[r] <= result.probabilityHi()[r]);
        disagreeing += agree < k ? 1 : 0;
      }
      // 1-bit features flip some classes: the column is not constant.
      assertTrue(disagreeing > 0, "c " + c);
    }
  }

  @Test
  void quantilesAreLinearBetweenOrderStatistics() {
    double[] v = {1, 2, 3, 4, 5};
    assertEquals(1, PredictionSpread.quantile(v, 0));
    assertEquals(5, PredictionSpread.quantile(v, 1));
    assertEquals(3, PredictionSpread.quantile(v, 0.5));
    assertEquals(1.1, PredictionSpread.quantile(v, 0.025), 1e-12);
    assertEquals(4.9, PredictionSpread.quantile(v, 0.975), 1e-12);
  }

  @Test
  void regressionHasNoClassColumnsAndEmptyInputsAreEmpty() {
    FeaturizerSpec spec = spec(16, 4, Quantizer.STOCHASTIC);
    PredictionSpread spread = PredictionSpread.of(model(16, 1, 1), Task.REGRESSION, spec, 2);
    PredictionSpread.Result empty = spread.predict(new float[0], 0, 0);
    assertEquals(0, empty.rows());
    assertNull(empty.predictedClass());
    assertEquals(0, spread.scores(new float[0], 0, 0).length);
  }

  @Test
  void refusesWhatHasNoSpread() {
    LinearModel model = model(64, 1, 1);
    FeaturizerSpec stochastic = spec(64, 4, Quantizer.STOCHASTIC);
    assertMessage("draws is 1", () -> PredictionSpread.of(model, Task.REGRESSION, stochastic, 1));
    assertMessage("level is 1.0",
        () -> PredictionSpread.of(model, Task.REGRESSION, stochastic, 4, 1.0));
    assertMessage("bits 32",
        () -> PredictionSpread.of(model, Task.REGRESSION, stochastic.withBits(32), 4));
    assertMessage("quantizer nearest is deterministic", () -> PredictionSpread.of(
        model, Task.REGRESSION, stochastic.withQuantizer(Quantizer.NEAREST), 4));
    assertMessage("quantizer lloyd-max is deterministic", () -> PredictionSpread.of(
        model, Task.REGRESSION, stochastic.withQuantizer(Quantizer.LLOYD_MAX), 4));
    assertMessage("once per seed", () -> PredictionSpread.of(
        model, Task.REGRESSION, stochastic.withQuantizer(Quantizer.SHARED_THRESHOLD), 4));
    assertMessage("quantizer sigma-delta:1:8 is deterministic", () -> PredictionSpread.of(
        model(8, 1, 1), Task.REGRESSION,
        stochastic.withQuantizer(Quantizer.parse("sigma-delta")), 4));
    assertMessage("the model has 1 outputs, task multiclass(3) has 3",
        () -> PredictionSpread.of(model, Task.multiclass(3), stochastic, 4));
    assertMessage("the model reads 64 features, the spec gives 32",
        () -> PredictionSpread.of(model, Task.REGRESSION, spec(32, 4, Quantizer.STOCHASTIC), 4));
    PredictionSpread spread = PredictionSpread.of(model, Task.REGRESSION, stochastic, 2);
    assertMessage("rows has 3 floats, expected n * d = 1 * 4",
        () -> spread.predict(new float[3], 1, 0));
    assertMessage("is NaN", () -> spread.predict(new float[] {0, 0, Float.NaN, 0}, 1, 0));
  }

  private static void assertMessage(String expected, Runnable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  /** n float32 feature rows of a b = 32 spec, as floats. */
  static float[] floats(FeaturizerSpec spec, float[] x, int n) {
    byte[] bytes = Featurizer.of(spec).featurize(x, n, 0);
    float[] z = new float[n * spec.features()];
    java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(z);
    return z;
  }
}
