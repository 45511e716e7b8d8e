package org.lprff.cli.options;

import java.util.List;

/**
 * What to train: the request the workflow's {@code Training.run} takes, as {@link
 * TrainingOptions#config} maps train's options (demo builds its fixed protocol directly). With the
 * options rather than the workflow, so that the mixins below the workflow can build it.
 *
 * @param lr the initial learning rate, or null for the task's default ({@link #learningRate()})
 * @param classes the declared number of classes (>= 2), or null to take 1 + the largest training
 *     label
 */
public record TrainingConfig(
    boolean classification, int epochs, Double lr, int batch, List<Double> l2s, String schedule,
    long seed, Solver solver, Integer classes) {

  /** Default learning rate of regression: 1 (diamonds at m up to 4096: 2 overflows). */
  static final double DEFAULT_LR_REGRESSION = 1.0;
  /**
   * Default learning rate of classification: 64. Logistic and softmax gradients are bounded
   * (|grad| <= sqrt(2) |z|, |z|^2 ~ 1), so no rate diverges, and early stopping only halves it:
   * a high start costs a few epochs, a low one stalls (the < 1% rule halves it early). On
   * Fashion-MNIST's validation split (m = 2048, scripts/results/fashion-mnist-scan.md) lr 1, 4,
   * 16, 64, 256 gave 16.1%, 13.9%, 13.8%, 12.8%, 12.8% error at sigma 5.
   */
  static final double DEFAULT_LR_CLASSIFICATION = 64.0;
  public static final double DEFAULT_L2 = 1e-6;

  /** The automatic l2 path of the iterative solvers, coarse to fine (large l2 converge fast). */
  public static final List<Double> AUTOMATIC_L2 = List.of(1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7);

  /**
   * @param l2s the l2 values given, or null for the default: 1e-6 for sgd and closed-form, the
   *     automatic path for lbfgs and cg ({@link #automaticL2()})
   */
  public TrainingConfig {
    if (solver == Solver.AUTO) {
      solver = classification ? Solver.LBFGS : Solver.CG;
    }
    if (l2s == null && (solver == Solver.SGD || solver == Solver.CLOSED_FORM)) {
      l2s = List.of(DEFAULT_L2);
    }
    l2s = l2s == null ? null : List.copyOf(l2s);
    if (l2s != null && l2s.isEmpty()) {
      throw new UsageException("--l2 needs a value");
    }
    if (solver == Solver.SGD && l2s.size() > 1) {
      throw new UsageException("--l2 has " + l2s.size() + " values " + l2s + ", but SGD takes"
          + " one (a list is for --solver lbfgs, cg or closed-form)");
    }
    if (solver == Solver.CG && classification) {
      throw new UsageException("--solver cg solves ridge regression; for --task classification"
          + " use lbfgs (logistic or softmax loss) or closed-form (least squares)");
    }
  }

  /** Whether l2 is chosen automatically (no --l2 with lbfgs or cg). */
  public boolean automaticL2() {
    return l2s == null;
  }

  /** The l2 values to try: the ones given, or {@link #AUTOMATIC_L2}. */
  public List<Double> l2Path() {
    return l2s == null ? AUTOMATIC_L2 : l2s;
  }

  public double learningRate() {
    return lr != null ? lr : classification ? DEFAULT_LR_CLASSIFICATION : DEFAULT_LR_REGRESSION;
  }
}
