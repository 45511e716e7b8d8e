package org.lprff.cli.options;

import org.lprff.vector.train.LossKind;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.fullbatch.KitchenSinks;
import java.util.List;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The training options of {@code train} and {@code compare}: {@link SolverOptions} and the SGD
 * step ({@code --lr}, {@code --batch}) that demo fixes. The command gives its default solver and
 * rate; the checks keep each command's messages.
 */
public final class TrainingOptions extends SolverOptions {

  // No ${DEFAULT-VALUE}: train's default follows the task, which is only known at run time.
  @Option(
      names = "--lr",
      paramLabel = "X",
      description = "Initial learning rate of SGD (train and demo default: probed, one epoch"
          + " of a seeded sample of at most 8192 training rows at each of 256, 64, 16, ...,"
          + " the lowest sample loss winning; compare: 1, as features have |z|^2 ~ 1).")
  public Double lr;

  @Mixin public BatchOption batch = new BatchOption();

  @Option(
      names = "--alpha-bound",
      paramLabel = "C",
      description = "--solver rks (required there, refused elsewhere): Rahimi and Recht's bound C"
          + " of the weighted sum of random kitchen sinks, f(x) = sum_i alpha_i cos(w_i.x + b_i)"
          + " with |alpha_i| <= C / m; on lprff's features sqrt(2/m) cos(...) every weight is"
          + " bounded by C / sqrt(2 m) (each class's, for several classes), the intercept free,"
          + " no l2. Small C underfits; a C above the unconstrained weights gives the"
          + " unconstrained minimizer of the loss.")
  public Double alphaBound;

  @Option(
      names = "--loss",
      paramLabel = "NAME",
      description = "The training loss: squared (regression), logistic (two classes) or hinge"
          + " (two classes, --solver rks only; class 0 is the label -1, class 1 is +1, and the"
          + " model predicts class 1 where its score is >= 0). Default: the task's (squared;"
          + " logistic for two classes, softmax for more).")
  public String loss;

  /**
   * @param defaultSolver the command's default solver
   * @param defaultLr the command's default rate, or null for the library's probe
   */
  public TrainingOptions(Solver defaultSolver, Double defaultLr) {
    super(defaultSolver.id);
    this.lr = defaultLr;
  }

  /** Whether {@code --task} names classification (else regression). */
  public static boolean classification(String task) {
    return switch (task.toLowerCase(Locale.ROOT)) {
      case "regression" -> false;
      case "classification" -> true;
      default -> throw new UsageException(
          "--task is '" + task + "', expected regression or classification");
    };
  }

  /** Refuses {@code --classes} below 2, or given for regression. */
  public static void requireClasses(Integer classes, boolean classification) {
    if (classes != null && (!classification || classes < 2)) {
      throw new UsageException("--classes is " + classes + ", expected"
          + (classification ? " >= 2" : " only with --task classification"));
    }
  }

  /** Refuses a model path whose directory does not exist, before any work is done. */
  public static void requireDirectoryOf(Path model) {
    Path dir = model.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IllegalArgumentException("the model's directory " + dir + " does not exist");
    }
  }

  /**
   * train's check, one message naming the four values ({@code l2} is train's list). compare
   * checks with {@link #requireEach()}: the two messages are kept as the commands print them.
   */
  public void requireInRange(List<Double> l2) {
    if (epochs < 1 || batch.rows < 1
        || !l2.stream().allMatch(x -> x >= 0 && x < Double.POSITIVE_INFINITY)
        || (lr != null && !(lr > 0))) {
      throw new UsageException("--epochs " + epochs + ", --batch " + batch.rows + ", --l2 " + l2
          + ", --lr " + lr + ": expected epochs, batch >= 1, l2 >= 0, lr > 0");
    }
  }

  /** compare's checks, one value at a time; the rate must also be finite. */
  public void requireEach() {
    if (batch.rows < 1) {
      throw new UsageException("--batch is " + batch.rows + ", expected >= 1");
    }
    if (epochs < 1) {
      throw new UsageException("--epochs is " + epochs + ", expected >= 1");
    }
    if (lr != null && (!(lr > 0) || Double.isInfinite(lr))) {
      throw new UsageException("--lr is " + lr + ", expected finite and > 0");
    }
  }

  /** train's request: these options with train's own. */
  public TrainingConfig config(
      boolean classification, List<Double> l2s, String schedule, Integer classes) {
    return new TrainingConfig(classification, epochs, lr, batch.rows, l2s, schedule, seed,
        solver(), classes, alphaBound, loss(), modelBits(), halpMu());
  }

  /** The loss named by {@code --loss}, or null for the task's. */
  public LossKind loss() {
    if (loss == null) {
      return null;
    }
    LossKind named = LossKind.named(loss);
    if (named == null) {
      throw new UsageException("--loss is '" + loss + "', expected squared, logistic or hinge");
    }
    return named;
  }

  /**
   * compare's check of the solver's options before any row is read (a usage error naming the
   * value): the alpha bound and the loss against the solver and task; compare's --l2 sets the
   * kernel metrics' lambda and is not rks's.
   */
  public void requireSolverOptions(boolean classification) {
    new TrainingConfig(classification, epochs, lr, batch.rows, null, "early-stop", seed,
        solver(), null, alphaBound, loss(), modelBits(), halpMu());
  }

  /** The weight bound C / sqrt(2 m) of {@code --alpha-bound} at m features, for messages. */
  public double weightBound(int features) {
    return KitchenSinks.weightBound(alphaBound, features);
  }
}
