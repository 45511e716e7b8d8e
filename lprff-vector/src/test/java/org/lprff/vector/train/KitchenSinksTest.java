package org.lprff.vector.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;

/**
 * {@link KitchenSinks} on 1500 rows of 32 8-bit features: the bound, the unconstrained limit, the
 * hinge's certificate, determinism, and the request's checks. The constrained optima themselves
 * are held against exact references in property-tests ({@code KitchenSinksProperties}).
 */
class KitchenSinksTest {

  private static final int N = 1500;
  private static final int D = 4;
  private static final int M = 32;
  private static final float[] X = TrainData.gaussian(N, D, 31);
  private static final float[] T = TrainData.smoothTargets(X, N, D, 0.1, 32);
  private static final FeatureRows Z = TrainData.featurize(TrainData.spec(D, M, 8, 2.0, 7), X, N);
  private static final MiniBatchSource TARGETS = InMemoryBatches.of(Z, T).ordered();
  private static final MiniBatchSource CLASSES = InMemoryBatches.of(Z, twoClasses()).ordered();

  private static int[] twoClasses() {
    int[] c = new int[N];
    for (int r = 0; r < N; r++) {
      c[r] = T[r] > 1.2 ? 1 : 0;
    }
    return c;
  }

  private static KitchenSinks.Builder builder(Task task, double c) {
    return KitchenSinks.builder(task, M).alphaBound(c).batchSize(256);
  }

  private static double maxWeight(LinearModel model) {
    double max = 0;
    for (float w : model.weightsT()) {
      max = Math.max(max, Math.abs(w));
    }
    return max;
  }

  /**
   * For a small C every loss leans on the bound: no weight beyond C / sqrt(2 m), the largest at
   * it exactly (the float below it), and the model stops converged.
   */
  @Test
  void everyWeightIsWithinTheBoundAndTheBoundIsReached() {
    double c = 0.5;
    double bound = KitchenSinks.weightBound(c, M);
    assertEquals(0.0625, bound, 1e-15); // 0.5 / sqrt(64)
    for (Task task : List.of(Task.REGRESSION, Task.BINARY, Task.BINARY_HINGE)) {
      KitchenSinks solver = builder(task, c).build();
      TrainingResult r = solver.train(Partitions.of(task.usesClasses() ? CLASSES : TARGETS));
      assertEquals(StopReason.CONVERGED, r.stopReason(), task + ": " + r.message());
      assertTrue(maxWeight(r.model()) <= bound, task + ": " + maxWeight(r.model()));
      assertEquals(solver.bound(), maxWeight(r.model()), 0.0, task + ": the bound is active");
    }
  }

  /**
   * For a C far above the unconstrained weights the constraint is slack: the squared loss's
   * optimum is least squares with a free intercept, the closed form at l2 = 0. Measured: 3.4e-7
   * relative above it, stopped after 3601 iterations where the float32 products' rounding hides
   * further descent (the gradient mapping at 4.8e-7 of its start); the bound 1e-6.
   */
  @Test
  void aLooseBoundGivesTheUnconstrainedLeastSquares() {
    TrainingResult r = builder(Task.REGRESSION, 1e4).maxIterations(20_000).tolerance(1e-7)
        .build().train(Partitions.of(TARGETS));
    LinearModel exact = ClosedFormRidge.fit(Z, T, 0);
    double[] z = TrainData.decode(Z);
    double best = TrainData.ridgeObjective(z, N, M, T, exact, 0);
    double got = TrainData.ridgeObjective(z, N, M, T, r.model(), 0);
    assertTrue(maxWeight(exact) < KitchenSinks.weightBound(1e4, M), "the bound is slack");
    assertTrue(Math.abs(got - best) <= 1e-6 * best, "J " + got + " vs least squares " + best
        + ": " + r.message());
  }

  /**
   * The hinge's certificate: the reported mean hinge loss is the model's (by {@link
   * Evaluation}), the dual bound below it, and the solve stops on the gap or at the float32
   * floor, saying which.
   */
  @Test
  void theHingeCertificateBoundsTheModelsLoss() {
    for (double c : new double[] {0.5, 5}) {
      KitchenSinks.Solution s = builder(Task.BINARY_HINGE, c).maxIterations(5000).build()
          .solve(Partitions.of(CLASSES), LinearModel.zeros(M, 1));
      Evaluation e = Evaluation.of(s.result().model(), Task.BINARY_HINGE, CLASSES, 500);
      assertEquals(e.meanLoss(), s.hinge(), 1e-6, "C " + c);
      assertTrue(s.dualBound() <= s.hinge() && s.gap() >= 0, "C " + c + ": " + s);
      assertEquals(StopReason.CONVERGED, s.result().stopReason(), s.result().message());
      assertTrue(s.gap() <= KitchenSinks.DEFAULT_GAP_TOLERANCE * s.hinge()
          || s.result().message().contains("resolution"), s.result().message());
    }
  }

  /** Each pass's sums are added in a fixed order: one thread or four give the same model. */
  @Test
  void theModelDoesNotDependOnTheThreads() {
    for (Task task : List.of(Task.REGRESSION, Task.BINARY_HINGE)) {
      List<LinearModel> models = TrainData.oneAndFourThreads(pool -> builder(task, 3)
          .executor(pool).maxIterations(200).build()
          .train(Partitions.of(task.usesClasses() ? CLASSES : TARGETS)).model());
      assertEquals(models.get(0), models.get(1), task.toString());
    }
  }

  @Test
  void trainerRunsRksWithNoL2AndReportsIt() {
    TrainingRequest request = TrainingRequest.classification(M).withKitchenSinks(2.0,
        LossKind.HINGE);
    TrainingReport report = Trainer.run(request, new Trainer.Data("train", "", CLASSES), null);
    assertEquals(Solver.RKS, report.solver());
    assertEquals(Task.BINARY_HINGE, report.task());
    assertEquals(0.0, report.l2());
    assertTrue(report.l2Path().isEmpty());
    assertTrue(maxWeight(report.model()) <= KitchenSinks.weightBound(2.0, M));
    assertTrue(report.workingBytes() > 0);
    // Three classes: the hinge is binary, and the message names the classes.
    int[] three = new int[N];
    for (int r = 0; r < N; r++) {
      three[r] = r % 3;
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Trainer.run(
        request, new Trainer.Data("train", "", InMemoryBatches.of(Z, three).ordered()), null));
    assertTrue(e.getMessage().contains("loss is hinge") && e.getMessage().contains("3 classes"),
        e.getMessage());
    // Softmax, the default loss of three classes, takes the bound on every weight of each class.
    TrainingReport softmax = Trainer.run(TrainingRequest.classification(M).withKitchenSinks(1.0,
        null), new Trainer.Data("train", "", InMemoryBatches.of(Z, three).ordered()), null);
    assertEquals(3, softmax.model().outputs());
    assertTrue(maxWeight(softmax.model()) <= KitchenSinks.weightBound(1.0, M));
  }

  @Test
  void requestsNameWhatRksNeedsAndRefuses() {
    TrainingRequest regression = TrainingRequest.regression(M);
    refused(() -> regression.withSolver(Solver.RKS), "solver rks needs alpha-bound C > 0");
    refused(() -> regression.withKitchenSinks(1.0, null).withL2(List.of(1e-3)),
        "l2 is [0.001], but solver rks has no l2");
    refused(() -> regression.withKitchenSinks(0.0, null), "alpha-bound is 0.0, expected finite");
    refused(() -> regression.withKitchenSinks(Double.NaN, null), "alpha-bound is NaN");
    refused(() -> regression.withKitchenSinks(Double.POSITIVE_INFINITY, null),
        "alpha-bound is Infinity");
    refused(() -> regression.withKitchenSinks(1.0, LossKind.HINGE),
        "loss is hinge, but the task is regression");
    refused(() -> TrainingRequest.classification(M).withKitchenSinks(1.0, LossKind.SQUARED),
        "loss is squared, but the task is classification");
    TrainingRequest lbfgs = TrainingRequest.classification(M).withSolver(Solver.LBFGS);
    refused(() -> new TrainingRequest(true, null, M, Solver.LBFGS, null, 1, null,
        TrainingRequest.ScheduleKind.EARLY_STOP, 10, 1, ForkJoinPool.commonPool(), 2.0, null,
        8, 1, 1),
        "alpha-bound is 2.0, but solver lbfgs does not bound the weights");
    refused(() -> new TrainingRequest(true, null, M, Solver.LBFGS, null, 1, null,
        TrainingRequest.ScheduleKind.EARLY_STOP, 10, 1, ForkJoinPool.commonPool(), null,
        LossKind.HINGE, 8, 1, 1), "loss is hinge, which solver lbfgs cannot minimize");
    assertEquals(Solver.LBFGS, lbfgs.solver());
    refused(() -> KitchenSinks.builder(Task.REGRESSION, M).build(), "rks needs an alpha bound");
  }

  private static void refused(Executable build, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::execute);
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  /** A tiny stand-in for JUnit's Executable without its checked exception. */
  @FunctionalInterface
  private interface Executable {
    void execute();
  }
}
