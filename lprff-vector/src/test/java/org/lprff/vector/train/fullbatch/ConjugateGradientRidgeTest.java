package org.lprff.vector.train.fullbatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.train.TrainData;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingResult;

class ConjugateGradientRidgeTest {

  private static final int N = 1500;
  private static final int D = 4;
  private static final float[] X = TrainData.gaussian(N, D, 31);
  private static final float[] T = TrainData.smoothTargets(X, N, D, 0.1, 32);

  private static TrainingResult solve(FeatureRows z, int sketch, double lambda, double tolerance) {
    ConjugateGradientRidge system =
        ConjugateGradientRidge.prepare(InMemoryBatches.of(z, T).ordered(), sketch, 3, null);
    return system.solve(lambda, LinearModel.zeros(z.features(), 1), tolerance, 500, null);
  }

  /**
   * The closed form is the optimum of the same objective; CG to a relative residual of 1e-7 is
   * within 5e-6 of its J, for packed and float rows, m not a multiple of any tile, and a lambda
   * small enough (1e-5) that the system is ill-conditioned. The bound is the float32 products'
   * floor, not CG's: A v is computed with float32 weights and scores (error ~1e-7 of sum |z_i
   * v_i|), which the condition number amplifies. Measured gaps: 4e-11 to 7e-9 at lambda 1e-3, and
   * up to 1.25e-6 at lambda 1e-5, m = 64.
   */
  @Test
  void reachesTheClosedFormOptimum() {
    for (double lambda : new double[] {1e-3, 1e-5}) {
      for (int bits : new int[] {2, 8, 32}) {
        for (int m : new int[] {13, 64}) {
          FeatureRows z = TrainData.featurize(TrainData.spec(D, m, bits, 2.0, 7), X, N);
          double[] decoded = TrainData.decode(z);
          LinearModel exact = ClosedFormRidge.fit(z, T, lambda);
          TrainingResult result = solve(z, 256, lambda, 1e-7);
          String what = "lambda " + lambda + " b " + bits + " m " + m;
          assertEquals(StopReason.CONVERGED, result.stopReason(), what + ": " + result.message());
          double best = TrainData.ridgeObjective(decoded, N, m, T, exact, lambda);
          double got = TrainData.ridgeObjective(decoded, N, m, T, result.model(), lambda);
          assertTrue(got - best <= 5e-6 * best, what + ": J " + got + " vs optimum " + best);
        }
      }
    }
  }

  /**
   * The sketch preconditioner pays: at lambda 1e-6 on m = 256 features (condition number of A
   * above 1e5), CG with a 512-row sketch converges in at most a third of the iterations of CG
   * with a 1-row sketch (which preconditions with nearly lambda I, i.e. plain CG). Measured: 32
   * against 467.
   */
  @Test
  void theSketchPreconditionerCutsIterations() {
    int m = 256;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    TrainingResult sketched = solve(z, 512, 1e-6, 1e-6);
    TrainingResult plain = solve(z, 1, 1e-6, 1e-6);
    assertEquals(StopReason.CONVERGED, sketched.stopReason(), sketched.message());
    assertTrue(3 * sketched.epochs() <= plain.epochs(),
        "sketched " + sketched.epochs() + " iterations, plain " + plain.epochs() + " ("
            + plain.message() + ")");
  }

  /** The same weights, bit for bit, on the calling thread alone and with 3 helper threads. */
  @Test
  void resultsAreIdenticalForAnyThreadCount() {
    int m = 64;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    List<float[]> weights = TrainData.oneAndFourThreads(executor ->
        ConjugateGradientRidge.prepare(InMemoryBatches.of(z, T).ordered(), 128, 3, executor)
            .solve(1e-4, LinearModel.zeros(m, 1), 1e-7, 500, null).model().weightsT());
    assertArrayEquals(weights.get(0), weights.get(1));
  }

  @Test
  void warmStartsAndDeterminism() {
    int m = 64;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    ConjugateGradientRidge system =
        ConjugateGradientRidge.prepare(InMemoryBatches.of(z, T).ordered(), 128, 3, null);
    TrainingResult cold = system.solve(1e-4, LinearModel.zeros(m, 1), 1e-7, 500, null);
    TrainingResult again = system.solve(1e-4, LinearModel.zeros(m, 1), 1e-7, 500, null);
    assertArrayEquals(cold.model().weightsT(), again.model().weightsT());
    // Started at the (float32-rounded) solution of a neighbouring lambda, CG needs fewer
    // iterations than from zero (measured 18 against 23: CG's rate is set by the conditioning, so
    // a warm start saves only the first digits).
    TrainingResult warm = system.solve(2e-4, cold.model(), 1e-6, 500, null);
    TrainingResult fresh = system.solve(2e-4, LinearModel.zeros(m, 1), 1e-6, 500, null);
    assertTrue(warm.epochs() < fresh.epochs(), warm.message() + " vs " + fresh.message());
  }

  @Test
  void badArgumentsAreRefusedByName() {
    FeatureRows z = TrainData.featurize(TrainData.spec(D, 8, 4, 2.0, 7), X, N);
    ConjugateGradientRidge system =
        ConjugateGradientRidge.prepare(InMemoryBatches.of(z, T).ordered(), 16, 3, null);
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> system.solve(0, LinearModel.zeros(8, 1), 1e-6, 10, null));
    assertTrue(zero.getMessage().startsWith("lambda is 0.0"), zero.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> system.solve(1e-3, LinearModel.zeros(9, 1), 1e-6, 10, null));
    float[] bad = T.clone();
    bad[3] = Float.POSITIVE_INFINITY;
    IllegalArgumentException label = assertThrows(IllegalArgumentException.class,
        () -> ConjugateGradientRidge.prepare(InMemoryBatches.of(z, bad).ordered(), 16, 3, null));
    assertTrue(label.getMessage().contains("(row id 3) is Infinity"), label.getMessage());
  }
}
