package org.lprff.vector.train.minibatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Shuffle;
import org.lprff.vector.train.TrainData;
import org.lprff.vector.train.fullbatch.ClosedFormRidge;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingResult;

/**
 * Real data: diamonds (the copy shipped in lprff-cli, through lprff-test-fixtures; 43152 train,
 * 10788 heldout rows after a seeded 80/20 split, {@link Shuffle#permutation} of seed 42; 9 features
 * standardized with the training rows' mean and standard deviation; target log(price), variance
 * ~1.03).
 *
 * <p>Settings. Gaussian kernel, sigma = 2: closed-form ridge at m = 1024, lambda = 1e-6 gave
 * heldout MSE 0.0234, 0.0109, 0.0114 for sigma = 1, 2, 3 (3 = sqrt(d) is nearly as good). lambda =
 * 1e-6 (1e-5 and 1e-4 were worse for the closed form). SGD: batch 250, the paper's early stopping
 * from lr 1 (lr 2 overflows in the first epoch), at most 100 epochs, zero initial weights,
 * materialized draw-0 features held in memory (train and heldout), featurizer seed 7.
 */
class DiamondsTest {

  private static final double SIGMA = 2.0;
  private static final double LAMBDA = 1e-6;
  private static final double LEARNING_RATE = 1.0;
  private static final long SEED = 7;

  private record Outcome(double mse, int epochs, double seconds, StopReason reason) {}

  private static Outcome sgd(
      Diamonds.Split data, MiniBatchSource train, MiniBatchSource heldout, int m, long seed) {
    long start = System.nanoTime();
    TrainingResult result =
        SgdSolver.builder(Task.REGRESSION, m)
            .l2(LAMBDA)
            .seed(seed)
            .schedule(Schedule.earlyStopping(100, LEARNING_RATE))
            .build()
            .train(train, heldout);
    double seconds = (System.nanoTime() - start) / 1e9;
    assertTrue(!result.diverged(), result.message());
    Evaluation e = Evaluation.of(result.model(), Task.REGRESSION, heldout, 1000);
    assertEquals(data.heldoutRows(), e.rows());
    return new Outcome(e.metric(), result.epochs(), seconds, result.stopReason());
  }

  private static double closedForm(FeatureRows train, float[] y, MiniBatchSource heldout) {
    LinearModel model = ClosedFormRidge.fit(train, y, LAMBDA);
    return Evaluation.of(model, Task.REGRESSION, heldout, 1000).metric();
  }

  private static FeatureRows materialize(FeaturizerSpec spec, float[] x, int n) {
    return TrainData.featurize(spec, x, n);
  }

  /**
   * m = 1024: 4-bit SGD within 5% of float32 SGD, each the mean heldout MSE of the runs with
   * shuffling seeds 1 and 2; the closed form on the float32 features, the exact minimizer of the
   * same objective, no worse than either (+5% slack), and SGD within a factor 2 of it.
   *
   * <p>Why two seeds: the early-stopping point moves the heldout MSE by about +-2% from seed to
   * seed (measured 4-bit / float32 ratios 1.031, 1.013, 1.019, 1.015 for seeds 1-4, 1.048 for seed
   * 7); the mean of two runs keeps the 5% bound from hinging on one stopping point (measured
   * 1.022). Why a factor 2 and not a few percent for the closed form: the features are
   * ill-conditioned, SGD creeps toward the minimizer (fixed lr 1 for 200 epochs reaches MSE 0.0127
   * against the closed form's 0.0109) and the paper's rule (halve when an epoch gains < 1%) stops
   * it after ~23 epochs at ~0.018. Deterministic; the bounds leave room for other platforms.
   */
  @Test
  void lowPrecisionMatchesFullPrecisionAtM1024() throws Exception {
    int trainRows = (int) Math.round(0.8 * Diamonds.ROWS);
    Diamonds.Split data = Diamonds.split(
        Shuffle.permutation(Diamonds.ROWS, 42, 0, Shuffle.EPOCH_ORDER), trainRows, Diamonds.ROWS - trainRows);
    float[] trainY = Diamonds.Split.floats(data.trainY());
    float[] heldoutY = Diamonds.Split.floats(data.heldoutY());
    int m = 1024;
    int[] bits = {4, 32};
    double[] sgdMse = new double[2];
    double exact = Double.NaN;
    for (int k = 0; k < 2; k++) {
      FeaturizerSpec spec = TrainData.spec(Diamonds.D, m, bits[k], SIGMA, SEED);
      FeatureRows train = materialize(spec, data.trainX(), data.trainRows());
      FeatureRows heldout = materialize(spec, data.heldoutX(), data.heldoutRows());
      MiniBatchSource heldoutSource = InMemoryBatches.of(heldout, heldoutY).ordered();
      for (long seed = 1; seed <= 2; seed++) {
        Outcome o = sgd(data, InMemoryBatches.of(train, trainY), heldoutSource, m, seed);
        sgdMse[k] += o.mse() / 2;
        System.out.printf(
            Locale.ROOT,
            "diamonds m=%d b=%d seed %d: SGD heldout MSE %.5f (%d epochs, %s, %.1f s)%n",
            m, bits[k], seed, o.mse(), o.epochs(), o.reason(), o.seconds());
        assertEquals(StopReason.CONVERGED, o.reason());
        assertTrue(o.mse() < 0.03, "MSE " + o.mse() + " (variance of log price ~1.03)");
      }
      if (bits[k] == 32) {
        long start = System.nanoTime();
        exact = closedForm(train, trainY, heldoutSource);
        System.out.printf(
            Locale.ROOT, "diamonds m=%d b=32: closed form heldout MSE %.5f (%.1f s)%n",
            m, exact, (System.nanoTime() - start) / 1e9);
      }
    }
    System.out.printf(
        Locale.ROOT, "diamonds m=%d: mean SGD MSE 4-bit %.5f, float32 %.5f, ratio %.4f%n",
        m, sgdMse[0], sgdMse[1], sgdMse[0] / sgdMse[1]);
    assertTrue(
        sgdMse[0] <= 1.05 * sgdMse[1], "4-bit " + sgdMse[0] + " vs float32 " + sgdMse[1]);
    for (int k = 0; k < 2; k++) {
      assertTrue(exact <= 1.05 * sgdMse[k], "closed form " + exact + " vs SGD " + sgdMse[k]);
      assertTrue(sgdMse[k] <= 2 * exact, "b " + bits[k] + ": SGD " + sgdMse[k]);
    }
  }
}
