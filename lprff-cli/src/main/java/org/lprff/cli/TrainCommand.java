package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.lprff.cli.options.JsonOption;
import org.lprff.cli.options.QuietOption;
import org.lprff.cli.options.RedrawOptions;
import org.lprff.vector.train.Solver;
import org.lprff.cli.options.TrainingConfig;
import org.lprff.cli.options.TrainingOptions;
import org.lprff.cli.options.VerifyOption;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.Version;
import org.lprff.cli.workflow.RedrawTraining;
import org.lprff.cli.workflow.Training;
import org.lprff.report.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code lprff train}: the options mapped onto the library's {@link
 * org.lprff.vector.train.Trainer} (through {@link Training}), the model file written, the result
 * printed. By default the solver is auto and l2 is chosen on a split of the training rows.
 */
@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Train a linear model on a feature file",
    sortOptions = false,
    description = {
      "Train a linear model on the features of a feature file to the optimum of its"
          + " l2-penalized loss (by default: for regression in closed form up to m = 2048 and by"
          + " conjugate gradients above, for classification by L-BFGS, with l2 chosen on"
          + " --validation or a seeded split of the training rows), or by the paper's"
          + " mini-batch SGD; a heldout feature file, when given"
          + " (featurized --like the training file), gives the final metrics. Writes a"
          + " self-describing model file (.lprff) for evaluate/predict.",
      "",
      "Progress lines go to stderr. If training diverges (NaN or overflow) the command fails"
          + " (exit 1) and writes no model."
    })
final class TrainCommand implements Callable<Integer> {

  @Spec CommandSpec command;

  @Option(names = "--train", required = true, paramLabel = "FILE",
      description = "Training feature file (Arrow) with labels; with --redraw, raw rows.")
  Path train;

  @Option(names = "--heldout", paramLabel = "FILE",
      description = "Heldout feature file with the same spec (e.g. featurize --like, or its"
          + " full-precision twin --like --bits 32), for the final metrics (none without it);"
          + " only SGD without --validation reads it before (early stopping, the LP-RFF"
          + " paper's protocol).")
  Path heldout;

  @Option(names = "--validation", paramLabel = "FILE",
      description = "Validation feature file (featurized like --train): when given, the choice"
          + " of l2 and SGD's early stopping use it instead of a seeded split of the training"
          + " rows (SGD: instead of --heldout), and the closed form refits on train + validation"
          + " with the chosen l2.")
  Path validation;

  @Option(names = "--task", required = true, paramLabel = "TASK",
      description = "regression (Float32 labels) or classification (Int32 classes, or Float32"
          + " labels that are all integers; 2 classes train a logistic model, more a softmax"
          + " one).")
  String task;

  @Option(names = "--classes", paramLabel = "K",
      description = "Classification: the number of classes K >= 2 (labels in [0, K)); default"
          + " 1 + the largest training label.")
  Integer classes;

  /** The solver for the task by default; SGD's rate probed unless --lr gives it. */
  @Mixin TrainingOptions training = new TrainingOptions(Solver.AUTO, null);

  @Option(names = "--l2", paramLabel = "LAMBDA", split = ",",
      description = "L2 strength lambda, or a comma-separated list for lbfgs, cg and"
          + " closed-form: each is solved (warm-started from the previous value's model, or from"
          + " the same normal equations) and the one with the lowest loss on --validation, else"
          + " on a seeded 10%% split of the training rows, is kept and refit on every training"
          + " row; the heldout file never chooses. Default 1e-6 for sgd; for closed-form, lbfgs"
          + " and cg the path 1e-2, 1e-3, ..., 1e-7 (lbfgs and cg stop once the loss rises).")
  List<Double> l2;

  @Option(names = "--schedule", defaultValue = "early-stop", paramLabel = "S",
      description = "early-stop (default: halve the rate when the heldout loss improves < 1%%,"
          + " stop after 10 halvings), fixed, or decaying (lr / (1 + epoch)).")
  String schedule;

  @Option(names = {"--model", "-o"}, paramLabel = "FILE",
      description = "The model file to write (.lprff; replaced atomically if it exists).")
  Path model;

  /** --redraw: raw rows featurized per mini-batch, fresh rounding draws per epoch. */
  @Mixin RedrawOptions redraw = new RedrawOptions();

  @Mixin JsonOption json;

  @Mixin QuietOption quiet;

  @Mixin VerifyOption verify;

  @Override
  public Integer call() throws IOException {
    return Failures.usageErrors(command, this::train);
  }

  private int train() throws IOException {
    boolean classification = TrainingOptions.classification(task);
    redraw.requireUnusedWithoutRedraw();
    if (redraw.enabled && training.solver().equals(Solver.AUTO)) {
      training.solver = Solver.SGD.id; // the one solver that reads mini-batches
    }
    training.requireInRange(l2 == null ? List.of() : l2);
    training.requireHalpOptionsFit(training.solver());
    if (training.lr != null && !training.solver().miniBatch()) {
      // A rate given to a solver without one would be ignored silently: say so instead.
      throw new UsageException("--lr " + training.lr + " is SGD's learning rate, but --solver is "
          + training.solver + " (auto, the default, trains to the optimum without one); add"
          + " --solver sgd, or drop --lr");
    }
    TrainingOptions.requireClasses(classes, classification);
    if (model != null) {
      TrainingOptions.requireDirectoryOf(model);
    }
    PrintWriter err = command.commandLine().getErr();
    TrainingConfig options =
        training.config(classification, l2, schedule, classes).withVerify(verify.enabled());
    PrintWriter progress = quiet.enabled ? null : err;
    Training.Outcome outcome = redraw.enabled
        ? RedrawTraining.run(train, validation, heldout, redraw, options, progress)
        : Training.run(train, validation, heldout, options, progress);
    if (model != null) {
      outcome.model().save(model);
    }
    PrintWriter out = command.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> o = outcome.json();
      o.put("model", model == null ? null : model.toString());
      out.println(Json.write(o));
    } else if (!quiet.enabled) {
      out.println(outcome.summary() + (model == null ? "" : "; model written to " + model));
    }
    out.flush();
    return 0;
  }

}
