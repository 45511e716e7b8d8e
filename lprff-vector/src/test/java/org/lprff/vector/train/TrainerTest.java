package org.lprff.vector.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.RowFilter;
import org.lprff.vector.train.fullbatch.ClosedFormRidge;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.minibatch.LearningRateProbe;
import org.lprff.vector.train.minibatch.SgdSolver;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;

/** The training workflow: defaults per task, the l2 path, the refit, class checks, the probe. */
class TrainerTest {

  private static final int N = 1500;
  private static final int D = 4;
  private static final int M = 64;
  private static final float[] X = TrainData.gaussian(N, D, 41);
  private static final float[] T = TrainData.smoothTargets(X, N, D, 0.1, 42);
  private static final FeatureRows Z = TrainData.featurize(TrainData.spec(D, M, 4, 2.0, 9), X, N);

  private static Trainer.Data regression() {
    return new Trainer.Data("train", "", InMemoryBatches.of(Z, T).ordered());
  }

  private static Trainer.Data classes(int[] c) {
    return new Trainer.Data("train", "", InMemoryBatches.of(Z, c).ordered());
  }

  private static int[] thirds() {
    int[] c = new int[N];
    for (int r = 0; r < N; r++) {
      c[r] = T[r] < 0.8 ? 0 : T[r] < 1.6 ? 1 : 2;
    }
    return c;
  }

  /** The solver for the task and m: the closed form up to 2048 features, CG above, L-BFGS. */
  @Test
  void autoResolvesPerTaskAndFeatures() {
    assertEquals(Solver.CLOSED_FORM, TrainingRequest.regression(2048).solver());
    assertEquals(Solver.CG, TrainingRequest.regression(2049).solver());
    assertEquals(Solver.LBFGS, TrainingRequest.classification(64).solver());
    assertTrue(TrainingRequest.regression(M).automaticL2());
    assertEquals(TrainingRequest.AUTOMATIC_L2, TrainingRequest.regression(M).l2Path());
    assertEquals(List.of(TrainingRequest.DEFAULT_L2),
        TrainingRequest.regression(M).withSolver(Solver.SGD).l2Path());
  }

  /**
   * Conjugate gradients with the automatic l2: the path scored on the seeded 10% split (never
   * another source), its minimum kept, and that l2 refit on all rows to the closed form's optimum
   * there. CG stops at a relative residual of 1e-6, which leaves J above the optimum by a
   * condition-dependent amount: measured 0.2e-6 relative with the vector bodies and 1.7e-6 with
   * the scalar ones (float32 products summed in another order); bound 1e-5.
   */
  @Test
  void cgWalksThePathOnTheSplitAndRefitsOnAllRows() {
    List<String> lines = new ArrayList<>();
    TrainingReport r = Trainer.run(TrainingRequest.regression(M).withSolver(Solver.CG),
        regression(), lines::add);
    assertEquals(Solver.CG, r.solver());
    assertEquals(Trainer.VALIDATION_SPLIT, r.selectedOn());
    assertTrue(r.l2Path().size() >= 2, r.l2Path().toString());
    double best = r.l2Path().entrySet().stream().min(Map.Entry.comparingByValue()).get().getKey();
    assertEquals(best, r.l2());
    assertEquals(TrainingRequest.AUTOMATIC_L2.subList(0, r.l2Path().size()),
        List.copyOf(r.l2Path().keySet()));
    assertEquals(N, r.trainRows());
    assertNull(r.validation());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("cg: refit on all 1500 training rows")),
        lines.toString());

    double[] z = TrainData.decode(Z);
    LinearModel exact = ClosedFormRidge.fit(Z, T, r.l2());
    double optimum = TrainData.ridgeObjective(z, N, M, T, exact, r.l2());
    double got = TrainData.ridgeObjective(z, N, M, T, r.model(), r.l2());
    assertTrue(got - optimum <= 1e-5 * optimum, "J " + got + " vs optimum " + optimum);

    // The split's losses are those of models fitted on the other 90%: the path at the chosen l2
    // equals the closed form's on those rows, scored on the split, to the path's tolerance (a
    // relative residual of 1e-4; measured 0.2e-4 relative with the vector bodies, 3.4e-4 with
    // the scalar ones; bound 1e-3).
    var fit = RowFilter.withoutValidation(regression().rows().local(), 1);
    var split = RowFilter.validation(regression().rows().local(), 1);
    double splitLoss = Evaluation.of(ClosedFormRidge.fit(fit, Task.REGRESSION, r.l2()),
        Task.REGRESSION, split, 1000).meanLoss();
    assertEquals(splitLoss, r.l2Path().get(r.l2()), 1e-3 * splitLoss);
  }

  /**
   * The right l2: the path's solves stop at the path's tolerance and the path stops once the
   * split's loss rises, yet it picks the l2 a fully converged path over every value picks (each
   * value's exact optimum on the fitting rows, by the closed form, scored on the split), or one
   * whose exact split loss ties within 0.2%. Checked for CG on 4-bit and float32 features of
   * m = 256 at two noise levels (0.1 and 0.5, so that the best l2 moves), and for L-BFGS's
   * squared loss on the 4-bit ones; a path stopped after its first value fails it.
   */
  @Test
  void thePathPicksTheL2OfAFullyConvergedPath() {
    int m = 256;
    for (int bits : new int[] {4, 32}) {
      for (double noise : new double[] {0.1, 0.5}) {
        float[] t = TrainData.smoothTargets(X, N, D, noise, 43);
        FeatureRows z = TrainData.featurize(TrainData.spec(D, m, bits, 2.0, 9), X, N);
        var all = InMemoryBatches.of(z, t).ordered();
        var fit = RowFilter.withoutValidation(all, 1);
        var split = RowFilter.validation(all, 1);
        Map<Double, Double> exact = new java.util.LinkedHashMap<>();
        for (double l2 : TrainingRequest.AUTOMATIC_L2) {
          exact.put(l2, Evaluation.of(ClosedFormRidge.fit(fit, Task.REGRESSION, l2),
              Task.REGRESSION, split, 1000).meanLoss());
        }
        double best = exact.values().stream().min(Double::compare).orElseThrow();
        for (Solver solver : bits == 4 ? new Solver[] {Solver.CG, Solver.LBFGS}
            : new Solver[] {Solver.CG}) {
          TrainingReport r = Trainer.run(TrainingRequest.regression(m).withSolver(solver),
              new Trainer.Data("train", "", all), null);
          String what = solver.id + " b " + bits + " noise " + noise + ": picked " + r.l2()
              + " on " + r.l2Path() + ", exact " + exact;
          assertTrue(exact.get(r.l2()) <= 1.002 * best, what);
          assertTrue(r.l2Path().size() > 1, what);
        }
      }
    }
  }

  /** The closed form with an l2 list and no validation: chosen on the split, refit exactly. */
  @Test
  void closedFormListRefitsTheSumOfBothParts() {
    TrainingRequest request = TrainingRequest.regression(M).withSolver(Solver.CLOSED_FORM)
        .withL2(List.of(1e-7, 1e-4, 1e-1));
    TrainingReport r = Trainer.run(request, regression(), null);
    assertEquals(3, r.l2Path().size());
    assertEquals(Trainer.VALIDATION_SPLIT, r.selectedOn());
    LinearModel all = ClosedFormRidge.fit(Z, T, r.l2());
    float[] got = r.model().weightsT();
    float[] want = all.weightsT();
    for (int j = 0; j < M; j++) {
      assertEquals(want[j], got[j], 1e-4 * (1 + Math.abs(want[j])), "weight " + j);
    }
  }

  /**
   * The closed form on the leading k of m features equals the closed form on a copy of those k
   * columns: the same l2 chosen on the validation rows and the same validation MSE (up to the
   * order of the Gram's sums); at k = m, exactly {@link Trainer#run}'s.
   */
  @Test
  void closedFormOnTheLeadingFeaturesIsTheFitOnThoseColumns() {
    int n = 1200;
    int k = 24;
    float[] x = TrainData.gaussian(n, D, 51);
    float[] t = TrainData.smoothTargets(x, n, D, 0.1, 52);
    FeatureRows z = TrainData.featurize(TrainData.spec(D, M, 32, 1.0, 9), x, n);
    MemorySegment firstK = Arena.ofAuto().allocate((long) n * k * Float.BYTES, 64);
    float[] row = new float[M];
    for (int r = 0; r < n; r++) {
      z.decode(r, row, 0);
      MemorySegment.copy(row, 0, firstK, ValueLayout.JAVA_FLOAT, (long) r * k * Float.BYTES, k);
    }
    FeatureRows zk = FeatureRows.float32(firstK, 0, n, k);
    int fit = 1000;
    Trainer.Data train = new Trainer.Data("train", "",
        InMemoryBatches.of(z.slice(0, fit), Arrays.copyOf(t, fit)).ordered());
    Trainer.Data valid = new Trainer.Data("validation", "",
        InMemoryBatches.of(z.slice(fit, n - fit), Arrays.copyOfRange(t, fit, n)).ordered());
    TrainingRequest request = TrainingRequest.regression(M).withSolver(Solver.CLOSED_FORM);
    List<Trainer.Leading> leading = Trainer.closedFormLeading(request, train, valid, M, k);
    assertEquals(2, leading.size());

    TrainingReport all = Trainer.run(request, train, valid, null, null);
    assertEquals(M, leading.get(0).features());
    assertEquals(all.l2(), leading.get(0).l2());
    assertEquals(all.validation().metric(), leading.get(0).validation().metric());

    TrainingReport first = Trainer.run(TrainingRequest.regression(k)
            .withSolver(Solver.CLOSED_FORM),
        new Trainer.Data("train", "",
            InMemoryBatches.of(zk.slice(0, fit), Arrays.copyOf(t, fit)).ordered()),
        new Trainer.Data("validation", "",
            InMemoryBatches.of(zk.slice(fit, n - fit), Arrays.copyOfRange(t, fit, n)).ordered()),
        null, null);
    assertEquals(k, leading.get(1).features());
    assertEquals(first.l2(), leading.get(1).l2());
    double want = first.validation().metric();
    assertEquals(want, leading.get(1).validation().metric(), 1e-6 * want);
    assertTrue(leading.get(1).validation().metric() > 1.05 * leading.get(0).validation().metric(),
        "k = " + k + " features fit this target worse than m = " + M + ": " + leading);
    assertThrows(IllegalArgumentException.class,
        () -> Trainer.closedFormLeading(request, train, valid, M + 1));
  }

  /** A validation source chooses instead of the split, and is reported. */
  @Test
  void aValidationSourceChooses() {
    Trainer.Data validation = new Trainer.Data("validation", "v.arrow",
        RowFilter.validation(regression().rows().local(), 7));
    TrainingReport r = Trainer.run(TrainingRequest.regression(M).withSolver(Solver.LBFGS),
        regression(), validation, null, null);
    assertEquals("validation", r.selectedOn());
    assertEquals(validation.rows().rows(), r.validation().rows());
    assertEquals(N, r.trainRows());
  }

  /** Classification by default: L-BFGS, classes counted from the labels; checks name the value. */
  @Test
  void classificationDefaultsAndClassChecks() {
    int[] c = thirds();
    TrainingReport r = Trainer.run(TrainingRequest.classification(M).withL2(List.of(1e-4)),
        classes(c), null);
    assertEquals(Solver.LBFGS, r.solver());
    assertEquals(3, r.classes());
    assertEquals(Task.multiclass(3), r.task());
    assertEquals(StopReason.CONVERGED, r.result().stopReason(), r.result().message());

    IllegalArgumentException declared = assertThrows(IllegalArgumentException.class,
        () -> Trainer.run(TrainingRequest.classification(M).withClasses(2), classes(c), null));
    assertTrue(declared.getMessage().contains("declared classes 2, but train has class 2"),
        declared.getMessage());
    int[] negative = c.clone();
    negative[17] = -1;
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> Trainer.run(TrainingRequest.classification(M), classes(negative), null));
    assertTrue(bad.getMessage().contains("label of row id 17 is -1"), bad.getMessage());
    // Scored rows (a heldout set) are checked before any training: no progress line is said.
    int[] beyond = c.clone();
    beyond[3] = 5;
    List<String> said = new ArrayList<>();
    IllegalArgumentException scored = assertThrows(IllegalArgumentException.class,
        () -> Trainer.run(TrainingRequest.classification(M), classes(c), null, null,
            new Trainer.Data("heldout", "h.arrow", InMemoryBatches.of(Z, beyond).ordered()),
            said::add));
    assertTrue(scored.getMessage().contains("heldout h.arrow has class 5, but the training labels"
        + " of train are in [0, 2]"), scored.getMessage());
    assertTrue(said.isEmpty(), said.toString());
    IllegalArgumentException cg = assertThrows(IllegalArgumentException.class,
        () -> TrainingRequest.classification(M).withSolver(Solver.CG));
    assertTrue(cg.getMessage().contains("solver cg solves ridge regression"), cg.getMessage());
  }

  /** The same model, bit for bit, with the caller's thread alone and with the common pool. */
  @Test
  void bitIdenticalForAnyThreadCount() {
    for (Solver solver : new Solver[] {Solver.CG, Solver.LBFGS, Solver.CLOSED_FORM}) {
      TrainingRequest request = TrainingRequest.regression(M).withSolver(solver);
      TrainingReport one = Trainer.run(request.withExecutor(Runnable::run), regression(), null);
      TrainingReport pool = Trainer.run(request, regression(), null);
      assertArrayEquals(one.model().weightsT(), pool.model().weightsT(), solver.id);
      assertEquals(one.l2Path(), pool.l2Path(), solver.id);
    }
  }

  /**
   * SGD without a rate: the probe picks one of its candidates, the same every time, and SGD early
   * stops on the split; the probed rate trains at least as well as rates 16x off it either way.
   */
  @Test
  void sgdProbesItsRate() {
    TrainingRequest request = TrainingRequest.regression(M).withSolver(Solver.SGD);
    TrainingReport r = Trainer.run(request, regression(), null);
    assertTrue(r.probedRate());
    double rate = r.learningRate();
    double log4 = Math.log(LearningRateProbe.HIGHEST / rate) / Math.log(4);
    assertEquals(Math.rint(log4), log4, 1e-9, "rate " + rate);
    assertEquals(rate, Trainer.run(request, regression(), null).learningRate());
    assertFalse(r.diverged());
    Trainer.Data heldout = new Trainer.Data("heldout", "", RowFilter.validation(
        regression().rows().local(), 99));
    double probed = Evaluation.of(r.model(), Task.REGRESSION, heldout.rows(), 1000).meanLoss();
    for (double other : new double[] {rate / 16, rate * 16}) {
      TrainingReport o = Trainer.run(request.withSgd(TrainingRequest.DEFAULT_EPOCHS, other,
          TrainingRequest.ScheduleKind.EARLY_STOP, SgdSolver.DEFAULT_BATCH_SIZE), regression(),
          null);
      assertFalse(o.probedRate());
      double loss = o.diverged() ? Double.POSITIVE_INFINITY
          : Evaluation.of(o.model(), Task.REGRESSION, heldout.rows(), 1000).meanLoss();
      assertTrue(probed <= loss * 1.05, "probed " + rate + ": " + probed + ", " + other + ": "
          + loss);
    }
  }
}
