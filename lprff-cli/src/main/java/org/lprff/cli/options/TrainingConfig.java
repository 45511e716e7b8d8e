package org.lprff.cli.options;

import java.util.List;
import java.util.concurrent.ForkJoinPool;
import org.lprff.vector.train.LossKind;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.vector.train.TrainingRequest.ScheduleKind;
import org.lprff.vector.train.minibatch.HalpSolver;

/**
 * What to train, as the options say it, checked with the options' messages (a usage error, exit
 * 2, before any file is read); {@link #request} maps it onto the library's {@link
 * TrainingRequest} once the training file gives m. {@link TrainingOptions#config} builds it from
 * train's options; demo builds its fixed protocol directly.
 *
 * @param lr the initial learning rate of SGD, or null for the library's probe
 * @param l2s the l2 values given, or null for the solver's default (the automatic path of lbfgs
 *     and cg)
 * @param classes the declared number of classes (>= 2), or null to take 1 + the largest training
 *     label
 * @param alphaBound rks's bound C ({@code --alpha-bound}), or null
 * @param loss the loss ({@code --loss}), or null for the task's
 * @param modelBits the model bits of {@code --solver halp} (8 or 16)
 * @param halpMu mu of {@code --solver halp}
 * @param verify check the feature files' checksums before training (unless {@code --no-verify})
 */
public record TrainingConfig(
    boolean classification, int epochs, Double lr, int batch, List<Double> l2s, String schedule,
    long seed, Solver solver, Integer classes, Double alphaBound, LossKind loss, int modelBits,
    double halpMu, boolean verify) {

  public TrainingConfig {
    l2s = l2s == null ? null : List.copyOf(l2s);
    if (ScheduleKind.named(schedule) == null) {
      throw new UsageException(
          "--schedule is '" + schedule + "', expected early-stop, fixed or decaying");
    }
    try { // the library's checks of the solver and l2, before any file is read
      request(classification, epochs, lr, batch, l2s, schedule, seed, solver, classes, 1,
          alphaBound, loss, modelBits, halpMu);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--" + e.getMessage()); // "solver ...", "l2 ...": the options
    }
  }

  /** A configuration that verifies the files' checksums. */
  public TrainingConfig(boolean classification, int epochs, Double lr, int batch,
      List<Double> l2s, String schedule, long seed, Solver solver, Integer classes,
      Double alphaBound, LossKind loss, int modelBits, double halpMu) {
    this(classification, epochs, lr, batch, l2s, schedule, seed, solver, classes, alphaBound,
        loss, modelBits, halpMu, true);
  }

  /** This configuration with the checksum pass on or off. */
  public TrainingConfig withVerify(boolean on) {
    return new TrainingConfig(classification, epochs, lr, batch, l2s, schedule, seed, solver,
        classes, alphaBound, loss, modelBits, halpMu, on);
  }

  /**
   * A configuration with the task's loss, no alpha bound and LM-HALP's defaults (every solver but
   * rks).
   */
  public TrainingConfig(boolean classification, int epochs, Double lr, int batch,
      List<Double> l2s, String schedule, long seed, Solver solver, Integer classes) {
    this(classification, epochs, lr, batch, l2s, schedule, seed, solver, classes, null, null,
        HalpSolver.DEFAULT_MODEL_BITS, HalpSolver.DEFAULT_MU);
  }

  /** The library's request for m = {@code features} ({@link Solver#AUTO} resolved), on the common pool. */
  public TrainingRequest request(int features) {
    return request(classification, epochs, lr, batch, l2s, schedule, seed, solver, classes,
        features, alphaBound, loss, modelBits, halpMu);
  }

  private static TrainingRequest request(boolean classification, int epochs, Double lr,
      int batch, List<Double> l2s, String schedule, long seed, Solver solver, Integer classes,
      int features, Double alphaBound, LossKind loss, int modelBits, double halpMu) {
    return new TrainingRequest(classification, classes, features, solver, l2s, epochs, lr,
        ScheduleKind.named(schedule), batch, seed, ForkJoinPool.commonPool(), alphaBound, loss,
        modelBits, halpMu, HalpSolver.DEFAULT_ANCHOR_EPOCHS);
  }
}
