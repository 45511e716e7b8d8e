package org.lprff.cli.options;

import org.lprff.vector.train.Solver;
import org.lprff.vector.train.minibatch.HalpSolver;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of every command that trains ({@code train}, {@code demo}, {@code compare}): the
 * solver, the SGD epochs and the seed, declared once. The default solver is the command's (sgd,
 * closed-form or demo's both): picocli shows and restores the value the command constructs this
 * with, so one declaration serves the three defaults.
 */
public class SolverOptions {

  /** demo's {@code --solver both}: each configuration by SGD and in closed form. */
  static final String BOTH = "both";

  @Option(
      names = "--solver",
      paramLabel = "NAME",
      description = "auto (regression: closed-form up to m = 2048, cg above; classification:"
          + " lbfgs), sgd (the LP-RFF"
          + " paper's mini-batch SGD, early stopping by default; only SGD reads --epochs and"
          + " --lr), lbfgs (full-batch L-BFGS to the optimum of the l2-penalized"
          + " loss, squared, logistic or softmax: one pass over the file per evaluation, no"
          + " learning rate), cg (regression: ridge by conjugate gradients preconditioned with a"
          + " seeded 2048-row sketch, one pass per iteration, to a relative residual of 1e-6),"
          + " or closed-form (ridge's exact"
          + " minimizer by the normal"
          + " equations, (Zc^T Zc + l2 n I) W = Zc^T T with centered features and an"
          + " unregularized intercept: n m^2 / 2 multiply-adds on all cores and an m x m double"
          + " matrix, 8 m^2 bytes; regression, or least-squares classification with one-hot"
          + " targets), rks (train, compare: Rahimi and Recht's weighted sum of random kitchen"
          + " sinks, the mean loss with every weight bounded by --alpha-bound, no l2: for"
          + " regression up to m = 2048 the box-constrained least squares on the normal"
          + " equations, one pass and projected Newton in memory (8 m^2 bytes, as closed-form),"
          + " else accelerated projected gradients, one pass per gradient; --loss hinge for a"
          + " hinge-loss classifier), or halp"
          + " (LM-HALP: SVRG with bit centering, the model offset and gradient differences at"
          + " --model-bits bits, the full gradient at twice that, re-centered every epoch; SGD's"
          + " learning rate, probe and early stopping); demo also takes both"
          + " (default ${DEFAULT-VALUE}).")
  public String solver;

  @Mixin public ModelBitsOption modelBits = new ModelBitsOption();

  // No defaultValue: a value given to another solver is refused rather than ignored.
  @Option(
      names = "--halp-mu",
      paramLabel = "X",
      description = "The initial mu of --solver halp: the model offset's grid spans ||full"
          + " gradient|| / mu around the anchor, mu adapting per output at each re-centering"
          + " (default 1).")
  public Double halpMu;

  /** --model-bits, checked (8 or 16), or the default. */
  public int modelBits() {
    return modelBits.halp();
  }

  /** --halp-mu, checked (finite, > 0), or the default. */
  public double halpMu() {
    if (halpMu != null && (!(halpMu > 0) || halpMu.isInfinite())) {
      throw new UsageException("--halp-mu is " + halpMu + ", expected finite and > 0");
    }
    return halpMu == null ? HalpSolver.DEFAULT_MU : halpMu;
  }

  /** Refuses --model-bits or --halp-mu given to a solver other than halp. */
  public void requireHalpOptionsFit(Solver solver) {
    if ((modelBits.bits != null || halpMu != null) && solver != Solver.HALP) {
      throw new UsageException((modelBits.bits != null ? "--model-bits " + modelBits.bits
          : "--halp-mu " + halpMu) + " is --solver halp's, but --solver is " + solver.id
          + "; add --solver halp, or drop it");
    }
  }

  @Option(
      names = "--epochs",
      defaultValue = "100",
      paramLabel = "N",
      description = "SGD epochs at most, per trained model (default ${DEFAULT-VALUE}).")
  public int epochs;

  @Option(
      names = "--seed",
      defaultValue = "1",
      paramLabel = "N",
      description = "Seed of every random choice the command makes, among the data split, the"
          + " feature map, the Nyström landmarks, the kernel subsample and the SGD shuffling"
          + " (default ${DEFAULT-VALUE}).")
  public long seed;

  /** @param defaultSolver the command's {@code --solver} default: a solver's name, or both */
  public SolverOptions(String defaultSolver) {
    this.solver = defaultSolver;
  }

  /** The one solver named (train, compare). */
  public Solver solver() {
    Solver named = Solver.named(solver);
    if (named == null) {
      throw new UsageException(
          "--solver is '" + solver + "', expected sgd, lbfgs, cg, closed-form, rks, halp or"
              + " auto");
    }
    return named;
  }

  /** demo's solvers: both for {@code both}, else the one named. */
  public List<Solver> solvers() {
    if (solver.equalsIgnoreCase(BOTH)) {
      return List.of(Solver.SGD, Solver.CLOSED_FORM);
    }
    Solver named = Solver.named(solver);
    if (named == null) {
      throw new UsageException("--solver is '" + solver + "', expected both, sgd, lbfgs, cg,"
          + " closed-form, halp or auto");
    }
    if (named == Solver.RKS) {
      throw new UsageException("--solver rks takes --alpha-bound, which demo does not: use"
          + " lprff train or compare");
    }
    return List.of(named);
  }
}
