package org.lprff.vector.train.fullbatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.train.TrainData;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingResult;

class LbfgsSolverTest {

  private static final int N = 1500;
  private static final int D = 4;
  private static final float[] X = TrainData.gaussian(N, D, 31);
  private static final float[] T = TrainData.smoothTargets(X, N, D, 0.1, 32);

  /** Class k of row r: which third of the smooth target's range it falls in (3 classes). */
  private static int[] classes(int k) {
    int[] c = new int[N];
    for (int r = 0; r < N; r++) {
      c[r] = k == 2 ? (T[r] > 1.2 ? 1 : 0) : (T[r] < 0.8 ? 0 : T[r] < 1.6 ? 1 : 2);
    }
    return c;
  }

  private static LinearModel lbfgs(Task task, MiniBatchSource source, int m, double l2) {
    TrainingResult result = LbfgsSolver.builder(task, m).l2(l2).batchSize(128).build()
        .train(source);
    assertEquals(StopReason.CONVERGED, result.stopReason(), result.message());
    return result.model();
  }

  /**
   * Ridge: the closed form (exact in double, rounded to float) is the optimum; L-BFGS stops where
   * float32 weights and scores can no longer resolve a lower J, a few float32 roundings above the
   * optimum: 1e-6 relative bounds it (measured gaps: 0.8e-8 to 4.4e-8 over these six cases).
   */
  @Test
  void regressionReachesTheClosedFormOptimum() {
    double lambda = 1e-3;
    for (int bits : new int[] {2, 8, 32}) {
      for (int m : new int[] {13, 64}) {
        FeatureRows z = TrainData.featurize(TrainData.spec(D, m, bits, 2.0, 7), X, N);
        double[] decoded = TrainData.decode(z);
        LinearModel exact = ClosedFormRidge.fit(z, T, lambda);
        LinearModel model = lbfgs(Task.REGRESSION, InMemoryBatches.of(z, T).ordered(), m, lambda);
        double best = TrainData.ridgeObjective(decoded, N, m, T, exact, lambda);
        double got = TrainData.ridgeObjective(decoded, N, m, T, model, lambda);
        String what = "b " + bits + " m " + m;
        assertTrue(got - best <= 1e-6 * best, what + ": J " + got + " vs optimum " + best);
        assertEquals(exact.bias(0), model.bias(0), 1e-3 * Math.abs(exact.bias(0)), what);
      }
    }
  }

  /**
   * Logistic and softmax: no closed form, so the test checks first-order optimality: the full
   * gradient of J at the result (computed by the same pass) is below 3e-4 of its value at zero.
   * L-BFGS stops where float32 weights and scores no longer resolve a lower J; measured there:
   * 3.7e-5 (binary) and 6.1e-5 (3 classes) of the gradient at zero. A wrong gradient (e.g. one
   * missing the penalty, see the next test) would stop far from stationarity.
   */
  @Test
  void classificationReachesAStationaryPoint() {
    int m = 48;
    double lambda = 1e-3;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    for (int k : new int[] {2, 3}) {
      Task task = k == 2 ? Task.BINARY : Task.multiclass(k);
      MiniBatchSource source = InMemoryBatches.of(z, classes(k)).ordered();
      LinearModel model = lbfgs(task, source, m, lambda);
      FullBatchObjective objective =
          new FullBatchObjective(Partitions.of(source), task, m, lambda, 128, null);
      double[] g0 = new double[objective.dimension()];
      objective.valueAndGradient(new double[objective.dimension()], g0);
      double[] g = new double[objective.dimension()];
      objective.valueAndGradient(flat(model), g);
      assertTrue(maxAbs(g) <= 3e-4 * maxAbs(g0), task + ": |grad| " + maxAbs(g) + " vs "
          + maxAbs(g0) + " at zero");
    }
  }

  /**
   * The gradient stop: with gradientTolerance 1e-2, training stops as soon as the gradient's
   * largest entry is at most 1e-2 of the zero model's (asserted at the returned model, and that
   * the solve without it went on past that iteration), reporting why; from a warm start too, with
   * one more pass for the zero model's gradient.
   */
  @Test
  void theGradientStopEndsTrainingOnceTheGradientFellByItsFraction() {
    int m = 48;
    double lambda = 1e-4;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    MiniBatchSource source = InMemoryBatches.of(z, classes(3)).ordered();
    Task task = Task.multiclass(3);
    TrainingResult early = LbfgsSolver.builder(task, m).l2(lambda).batchSize(128)
        .gradientTolerance(1e-2).build().train(source);
    TrainingResult full = LbfgsSolver.builder(task, m).l2(lambda).batchSize(128).build()
        .train(source);
    assertEquals(StopReason.CONVERGED, early.stopReason(), early.message());
    assertTrue(early.message().contains("gradient's largest entry"), early.message());
    assertTrue(early.epochs() < full.epochs(), early.epochs() + " vs " + full.epochs());
    FullBatchObjective objective =
        new FullBatchObjective(Partitions.of(source), task, m, lambda, 128, null);
    double[] g0 = new double[objective.dimension()];
    objective.valueAndGradient(new double[objective.dimension()], g0);
    double[] g = new double[objective.dimension()];
    objective.valueAndGradient(flat(early.model()), g);
    assertTrue(maxAbs(g) <= 1e-2 * maxAbs(g0), maxAbs(g) + " vs " + maxAbs(g0));
    LinearModel halfway = LbfgsSolver.builder(task, m).l2(lambda).batchSize(128).maxIterations(3)
        .build().train(source).model();
    TrainingResult warm = LbfgsSolver.builder(task, m).l2(lambda).batchSize(128)
        .gradientTolerance(1e-2).build().train(source, halfway);
    assertEquals(StopReason.CONVERGED, warm.stopReason(), warm.message());
    objective.valueAndGradient(flat(warm.model()), g);
    assertTrue(maxAbs(g) <= 1e-2 * maxAbs(g0), "warm: " + maxAbs(g) + " vs " + maxAbs(g0));
    assertThrows(IllegalArgumentException.class,
        () -> LbfgsSolver.builder(task, m).gradientTolerance(1));
    assertThrows(IllegalArgumentException.class,
        () -> LbfgsSolver.builder(task, m).gradientTolerance(-1e-3));
  }

  /**
   * The monitor sees the model every {@code every} iterations, and its true ends training there,
   * saying so; a monitor that never stops changes nothing.
   */
  @Test
  void aMonitorSeesTheModelEveryFewIterationsAndCanEndTraining() {
    int m = 48;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    MiniBatchSource source = InMemoryBatches.of(z, classes(3)).ordered();
    Task task = Task.multiclass(3);
    int[] looks = {0};
    TrainingResult stopped = LbfgsSolver.builder(task, m).l2(1e-4).batchSize(128)
        .monitor(5, model -> ++looks[0] == 2).build().train(source);
    assertEquals(10, stopped.epochs(), stopped.message());
    assertEquals(2, looks[0]);
    assertTrue(stopped.message().contains("monitor after 10 iterations"), stopped.message());
    TrainingResult watched = LbfgsSolver.builder(task, m).l2(1e-4).batchSize(128)
        .monitor(5, model -> false).build().train(source);
    TrainingResult plain = LbfgsSolver.builder(task, m).l2(1e-4).batchSize(128).build()
        .train(source);
    assertEquals(plain.epochs(), watched.epochs());
    assertArrayEquals(flat(plain.model()), flat(watched.model()));
    assertThrows(IllegalArgumentException.class,
        () -> LbfgsSolver.builder(task, m).monitor(0, model -> true));
  }

  /**
   * Preconditioned by a sketch: the same optimum (ridge: the closed form's J within the 1e-6 of
   * {@link #regressionReachesTheClosedFormOptimum}; softmax: the stationarity bound of {@link
   * #classificationReachesAStationaryPoint}) in fewer iterations than without, on m = 256
   * features at lambda 1e-5, where the features' spectrum makes J ill-conditioned (measured:
   * ridge 31 against 374 iterations, 3 classes 57 against 303); at most half is asserted. A
   * preconditioner over other features is refused by name.
   */
  @Test
  void aSketchPreconditionerKeepsTheOptimumInFewerIterations() {
    int m = 256;
    double lambda = 1e-5;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    double[] decoded = TrainData.decode(z);
    for (int k : new int[] {1, 3}) {
      Task task = k == 1 ? Task.REGRESSION : Task.multiclass(k);
      MiniBatchSource source = k == 1 ? InMemoryBatches.of(z, T).ordered()
          : InMemoryBatches.of(z, classes(k)).ordered();
      SketchPreconditioner sketch =
          SketchPreconditioner.sample(Partitions.of(source), 256, 5, null);
      TrainingResult plain = LbfgsSolver.builder(task, m).l2(lambda).batchSize(128).build()
          .train(source);
      TrainingResult pre = LbfgsSolver.builder(task, m).l2(lambda).batchSize(128)
          .preconditioner(sketch).build().train(source);
      String what = task + ": preconditioned " + pre.epochs() + ", plain " + plain.epochs();
      assertEquals(StopReason.CONVERGED, pre.stopReason(), what + " " + pre.message());
      assertTrue(2 * pre.epochs() <= plain.epochs(), what);
      if (k == 1) {
        LinearModel exact = ClosedFormRidge.fit(z, T, lambda);
        double best = TrainData.ridgeObjective(decoded, N, m, T, exact, lambda);
        double got = TrainData.ridgeObjective(decoded, N, m, T, pre.model(), lambda);
        assertTrue(got - best <= 1e-6 * best, what + ": J " + got + " vs optimum " + best);
      } else {
        FullBatchObjective objective =
            new FullBatchObjective(Partitions.of(source), task, m, lambda, 128, null);
        double[] g0 = new double[objective.dimension()];
        objective.valueAndGradient(new double[objective.dimension()], g0);
        double[] g = new double[objective.dimension()];
        objective.valueAndGradient(flat(pre.model()), g);
        assertTrue(maxAbs(g) <= 3e-4 * maxAbs(g0), what + ": |grad| " + maxAbs(g) + " vs "
            + maxAbs(g0) + " at zero");
      }
    }
    SketchPreconditioner other = SketchPreconditioner.sample(Partitions.of(
        InMemoryBatches.of(TrainData.featurize(TrainData.spec(D, 32, 4, 2.0, 7), X, N), T)
            .ordered()), 16, 5, null);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LbfgsSolver.builder(Task.REGRESSION, m).preconditioner(other));
    assertTrue(e.getMessage().startsWith("the preconditioner has 32 features, the model 256"),
        e.getMessage());
  }

  /**
   * The pass's gradient against central differences of its own J, for each loss, at a random
   * point, on 12 coordinates (weights and biases). With h = 1e-3 the differences' truncation error
   * (h^2 |J'''|) and the float32 scores' rounding (~1e-7 |J| / h) are both below 1e-4; the bound
   * 1e-3 of the largest gradient entry leaves a margin. The same check fails on a gradient that
   * forgets the penalty's lambda w (shown below), so it has the power to see a wrong term.
   */
  @Test
  void gradientsMatchFiniteDifferences() {
    int m = 16;
    double lambda = 0.3;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 8, 2.0, 7), X, N);
    for (Task task : new Task[] {Task.REGRESSION, Task.BINARY, Task.multiclass(3)}) {
      MiniBatchSource source = task == Task.REGRESSION
          ? InMemoryBatches.of(z, T).ordered()
          : InMemoryBatches.of(z, classes(task.outputs() == 1 ? 2 : 3)).ordered();
      FullBatchObjective objective =
          new FullBatchObjective(Partitions.of(source), task, m, lambda, 100, null);
      int n = objective.dimension();
      SplittableRandom random = new SplittableRandom(5);
      double[] x = new double[n];
      for (int k = 0; k < n; k++) {
        x[k] = 0.5 * random.nextGaussian();
      }
      double[] g = new double[n];
      objective.valueAndGradient(x, g);
      double[] forgetful = g.clone();
      for (int k = 0; k < m * task.outputs(); k++) {
        forgetful[k] -= lambda * x[k];
      }
      double tolerance = 1e-3 * maxAbs(g);
      double worstRight = 0;
      double worstWrong = 0;
      for (int t = 0; t < 12; t++) {
        int k = t < 10 ? random.nextInt(m * task.outputs()) : n - 1 - (t - 10) % task.outputs();
        double fd = centralDifference(objective, x, k, 1e-3);
        worstRight = Math.max(worstRight, Math.abs(fd - g[k]));
        worstWrong = Math.max(worstWrong, Math.abs(fd - forgetful[k]));
      }
      assertTrue(worstRight <= tolerance, task + ": " + worstRight + " > " + tolerance);
      assertTrue(worstWrong > tolerance, task + ": the check cannot see a missing lambda w");
    }
  }

  /** The same model, bit for bit, on the calling thread alone and with 3 helper threads. */
  @Test
  void resultsAreIdenticalForAnyThreadCount() {
    int m = 32;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    List<LinearModel> models = TrainData.oneAndFourThreads(executor ->
        LbfgsSolver.builder(Task.multiclass(3), m).l2(1e-3).batchSize(1000).executor(executor)
            .build().train(InMemoryBatches.of(z, classes(3)).ordered()).model());
    assertArrayEquals(models.get(0).weightsT(), models.get(1).weightsT());
    assertArrayEquals(models.get(0).bias(), models.get(1).bias());
  }

  @Test
  void invalidLabelsAndSettingsAreRefusedByName() {
    int m = 8;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    float[] bad = T.clone();
    bad[700] = Float.NaN;
    LbfgsSolver solver = LbfgsSolver.builder(Task.REGRESSION, m).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> solver.train(InMemoryBatches.of(z, bad).ordered()));
    assertTrue(e.getMessage().contains("(row id 700) is NaN"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> LbfgsSolver.builder(Task.REGRESSION, m).l2(-1));
    assertThrows(IllegalArgumentException.class,
        () -> LbfgsSolver.builder(Task.REGRESSION, m).maxIterations(0));
    IllegalArgumentException shape = assertThrows(IllegalArgumentException.class,
        () -> LbfgsSolver.builder(Task.REGRESSION, m + 1).build()
            .train(InMemoryBatches.of(z, T).ordered()));
    assertTrue(shape.getMessage().contains("train source"), shape.getMessage());
  }

  private static double centralDifference(FullBatchObjective objective, double[] x, int k, double h) {
    double[] scratch = new double[x.length];
    double[] up = x.clone();
    double[] down = x.clone();
    up[k] += h;
    down[k] -= h;
    return (objective.valueAndGradient(up, scratch) - objective.valueAndGradient(down, scratch))
        / (2 * h);
  }

  private static double[] flat(LinearModel model) {
    float[] w = model.weightsT();
    float[] b = model.bias();
    double[] x = new double[w.length + b.length];
    for (int k = 0; k < w.length; k++) {
      x[k] = w[k];
    }
    for (int j = 0; j < b.length; j++) {
      x[w.length + j] = b[j];
    }
    return x;
  }

  private static double maxAbs(double[] a) {
    double max = 0;
    for (double v : a) {
      max = Math.max(max, Math.abs(v));
    }
    return max;
  }
}
