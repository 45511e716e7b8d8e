package org.lprff.cli.options;

/**
 * The solvers {@code --solver} names: mini-batch SGD, full-batch L-BFGS, ridge by
 * preconditioned conjugate gradients, the exact ridge minimizer, or auto (the optimum's solver
 * for the task: cg for regression, lbfgs for classification; resolved in {@link
 * TrainingConfig}). It lives with the options (not with the workflow that runs it) so that the option
 * mixins can parse it.
 */
public enum Solver {
  SGD("sgd"), LBFGS("lbfgs"), CG("cg"), CLOSED_FORM("closed-form"), AUTO("auto");

  public final String cliName;

  Solver(String cliName) {
    this.cliName = cliName;
  }

  /** The solver of {@code name} (any case), or null. */
  static Solver named(String name) {
    for (Solver s : values()) {
      if (s.cliName.equalsIgnoreCase(name)) {
        return s;
      }
    }
    return null;
  }

  public static Solver parse(String name) {
    Solver solver = named(name);
    if (solver == null) {
      throw new UsageException("--solver is '" + name + "', expected sgd, lbfgs, cg, closed-form or auto");
    }
    return solver;
  }
}
