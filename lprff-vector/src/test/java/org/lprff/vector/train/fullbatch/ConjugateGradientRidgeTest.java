package org.lprff.vector.train.fullbatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.Partitions;
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

  /**
   * The shift pays where the sample cannot span the features: s = 128 sample rows of m = 512
   * 4-bit features, at lambda 1e-6 and 1e-7 (below the rounding's variance, the floor of A's
   * spectrum in the directions the sample misses). With the shift CG needs at most half the
   * iterations of FALKON's unshifted P (measured: 1e-6: 93 against 335; 1e-7: 107 against 648),
   * and reaches the closed form's optimum.
   */
  @Test
  void theShiftCutsIterationsWhereTheSampleCannotSpan() {
    int m = 512;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    for (double lambda : new double[] {1e-6, 1e-7}) {
      TrainingResult shifted = ConjugateGradientRidge.prepare(
              Partitions.of(InMemoryBatches.of(z, T).ordered()), 128, 3,
              SketchPreconditioner.SHIFT_DIVISOR, null)
          .solve(lambda, LinearModel.zeros(m, 1), 1e-6, 1000, null);
      TrainingResult plain = ConjugateGradientRidge.prepare(
              Partitions.of(InMemoryBatches.of(z, T).ordered()), 128, 3,
              Double.POSITIVE_INFINITY, null)
          .solve(lambda, LinearModel.zeros(m, 1), 1e-6, 1000, null);
      assertEquals(StopReason.CONVERGED, shifted.stopReason(), shifted.message());
      assertEquals(StopReason.CONVERGED, plain.stopReason(), plain.message());
      assertTrue(2 * shifted.epochs() <= plain.epochs(), "lambda " + lambda + ": shifted "
          + shifted.epochs() + " iterations, unshifted " + plain.epochs());
      // Both stop at a relative residual of 1e-6, which at these lambda leaves the objective up
      // to ~2e-5 above the closed form's optimum (measured: shifted 6e-6, unshifted 1.7e-5).
      double[] decoded = TrainData.decode(z);
      double best = TrainData.ridgeObjective(decoded, N, m, T, ClosedFormRidge.fit(z, T, lambda),
          lambda);
      for (TrainingResult r : new TrainingResult[] {shifted, plain}) {
        double got = TrainData.ridgeObjective(decoded, N, m, T, r.model(), lambda);
        assertTrue(got - best <= 3e-5 * best,
            "lambda " + lambda + ": J " + got + " vs optimum " + best);
      }
    }
  }

  /**
   * The l2 path's warm start: a solve started from the model the system's last solve returned
   * continues from its residual, so it makes one pass per iteration and none for its start, and
   * it reaches the same optimum (within the 5e-6 of {@link #reachesTheClosedFormOptimum}) as a
   * solve from zero. A model equal in value but another object starts with a residual pass;
   * zero weights need none (the residual is the right-hand side).
   */
  @Test
  void aSolveFromTheLastModelNeedsNoPassForItsResidual() {
    int m = 64;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    double[] decoded = TrainData.decode(z);
    ConjugateGradientRidge system =
        ConjugateGradientRidge.prepare(InMemoryBatches.of(z, T).ordered(), 128, 3, null);
    TrainingResult coarse = system.solve(1e-3, LinearModel.zeros(m, 1), 1e-4, 500, null);
    assertEquals(coarse.epochs(), coarse.steps(), "from zero: " + coarse.message());
    TrainingResult fine = system.solve(1e-5, coarse.model(), 1e-7, 500, null);
    assertEquals(fine.epochs(), fine.steps(), fine.message());
    LinearModel exact = ClosedFormRidge.fit(z, T, 1e-5);
    double best = TrainData.ridgeObjective(decoded, N, m, T, exact, 1e-5);
    double got = TrainData.ridgeObjective(decoded, N, m, T, fine.model(), 1e-5);
    assertTrue(got - best <= 5e-6 * best, "J " + got + " vs optimum " + best);
    LinearModel copy = LinearModel.of(m, 1, fine.model().weightsT(), fine.model().bias());
    TrainingResult again = system.solve(1e-5, copy, 1e-7, 500, null);
    assertEquals(again.epochs() + 1, again.steps(), again.message());
  }

  /**
   * A system sharing another's preconditioner (the refit on all rows after the path on 90%):
   * one preparing pass, and the optimum of its own rows.
   */
  @Test
  void aSharedPreconditionerSolvesTheOtherRows() {
    int m = 64;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    Partitions all = Partitions.of(InMemoryBatches.of(z, T).ordered());
    ConjugateGradientRidge path = ConjugateGradientRidge.prepare(
        all.withoutValidationSplit(5), 128, 3, null);
    ConjugateGradientRidge refit = ConjugateGradientRidge.prepare(all, path, null);
    assertEquals(1, refit.passes());
    assertEquals(N, refit.rows());
    assertEquals(path.sketchRows(), refit.sketchRows());
    TrainingResult result = refit.solve(1e-5, LinearModel.zeros(m, 1), 1e-7, 500, null);
    assertEquals(StopReason.CONVERGED, result.stopReason(), result.message());
    double[] decoded = TrainData.decode(z);
    double best = TrainData.ridgeObjective(
        decoded, N, m, T, ClosedFormRidge.fit(z, T, 1e-5), 1e-5);
    double got = TrainData.ridgeObjective(decoded, N, m, T, result.model(), 1e-5);
    assertTrue(got - best <= 5e-6 * best, "J " + got + " vs optimum " + best);
    IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
        () -> ConjugateGradientRidge.prepare(Partitions.of(InMemoryBatches.of(
            TrainData.featurize(TrainData.spec(D, 32, 4, 2.0, 7), X, N), T).ordered()),
            path, null));
    assertTrue(other.getMessage().startsWith("the rows have 32 features"), other.getMessage());
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
