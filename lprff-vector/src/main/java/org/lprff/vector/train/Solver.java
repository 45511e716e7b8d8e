package org.lprff.vector.train;

import org.lprff.vector.train.fullbatch.ClosedFormRidge;
import org.lprff.vector.train.fullbatch.KitchenSinks;
import org.lprff.vector.train.minibatch.HalpSolver;

/**
 * The solvers of a {@link TrainingRequest}: mini-batch SGD (the LP-RFF paper's protocol),
 * full-batch L-BFGS, ridge by preconditioned conjugate gradients, the exact ridge minimizer,
 * LM-HALP (low-precision SVRG with bit centering, {@link HalpSolver}), or
 * {@link #AUTO}: the solver that reaches the optimum of the task fastest, L-BFGS for
 * classification, and for regression the closed form up to {@value
 * ClosedFormRidge#PREFERRED_MAX_FEATURES} features, conjugate gradients above. {@link #RKS} is not a way to the same optimum but another
 * estimator: Rahimi and Recht's weighted sum of random kitchen sinks, the mean loss minimized
 * under a bound on every weight and no l2 ({@link KitchenSinks}).
 */
public enum Solver {
  SGD("sgd"), LBFGS("lbfgs"), CG("cg"), CLOSED_FORM("closed-form"), AUTO("auto"),
  RKS("rks"), HALP("halp");

  /** The solver's name in files, JSON and on the command line. */
  public final String id;

  Solver(String id) {
    this.id = id;
  }

  /** The solver of {@code name} (any case), or null. */
  public static Solver named(String name) {
    for (Solver s : values()) {
      if (s.id.equalsIgnoreCase(name)) {
        return s;
      }
    }
    return null;
  }

  /** This solver with {@link #AUTO} made concrete for the task and m. */
  public Solver resolve(boolean classification, int features) {
    return this != AUTO ? this
        : classification ? LBFGS
        : features <= ClosedFormRidge.PREFERRED_MAX_FEATURES ? CLOSED_FORM : CG;
  }

  /** Whether the solver reads mini-batches in a shuffled order (else every row, in file order). */
  public boolean shufflesRows() {
    return this == SGD || this == HALP;
  }

  /**
   * Whether the solver steps over shuffled mini-batches with a learning rate, one l2 and early
   * stopping (SGD and LM-HALP).
   */
  public boolean miniBatch() {
    return this == SGD || this == HALP;
  }

  /** Whether the solver iterates to the optimum, one pass over the rows per step. */
  public boolean fullBatchIterative() {
    return this == LBFGS || this == CG;
  }
}
