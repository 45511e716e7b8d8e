package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.lprff.arrow.ModelFile;
import org.lprff.vector.train.Task;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lprff train}: SGD on a training feature file, early stopping on a validation file (or,
 * without one, the heldout file), final metrics on the heldout file.
 */
@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    sortOptions = false,
    description = {
      "Train a linear model on the features of a feature file by mini-batch SGD, with a heldout"
          + " feature file (featurized --like the training file) for early stopping and the"
          + " final metrics (with --validation FILE, early stopping uses that file and the"
          + " heldout file is only scored at the end). Writes a self-describing model file (.lprff) for evaluate/predict.",
      "",
      "A progress line per epoch goes to stderr. If training diverges (NaN or overflow) the"
          + " command fails (exit 1) and writes no model."
    })
final class TrainCommand implements Callable<Integer> {

  @Spec CommandSpec command;

  @Option(names = "--train", required = true, paramLabel = "FILE",
      description = "Training feature file (Arrow) with labels.")
  Path train;

  @Option(names = "--heldout", required = true, paramLabel = "FILE",
      description = "Heldout feature file with the same spec (e.g. featurize --like); it"
          + " early-stops training unless --validation is given.")
  Path heldout;

  @Option(names = "--validation", paramLabel = "FILE",
      description = "Validation feature file with the same spec: early stopping (and the choice"
          + " of the best weights) uses it, and --heldout is only evaluated at the end.")
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

  @Option(names = "--epochs", defaultValue = "100", paramLabel = "N",
      description = "Epochs at most (default ${DEFAULT-VALUE}).")
  int epochs;

  @Option(names = "--lr", paramLabel = "X",
      description = "Initial learning rate (default 1.0 for both tasks; features are scaled so"
          + " that |z|^2 ~ 1).")
  Double lr;

  @Option(names = "--batch", defaultValue = "250", paramLabel = "ROWS",
      description = "Rows per SGD step (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--l2", defaultValue = "1e-6", paramLabel = "LAMBDA",
      description = "L2 strength lambda (default ${DEFAULT-VALUE}).")
  double l2;

  @Option(names = "--schedule", defaultValue = "early-stop", paramLabel = "S",
      description = "early-stop (default: halve the rate when the heldout loss improves < 1%,"
          + " stop after 10 halvings), fixed, or decaying (lr / (1 + epoch)).")
  String schedule;

  @Option(names = "--seed", defaultValue = "1", paramLabel = "S",
      description = "Seed of the shuffling (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = {"--model", "-o"}, paramLabel = "FILE",
      description = "The model file to write (.lprff; replaced atomically if it exists).")
  Path model;

  @Option(names = "--json", description = "Print the final metrics as one JSON object (last"
      + " line of stdout).")
  boolean json;

  @Option(names = {"--quiet", "-q"}, description = "No progress lines.")
  boolean quiet;

  @Override
  public Integer call() throws IOException {
    boolean classification = switch (task.toLowerCase(Locale.ROOT)) {
      case "regression" -> false;
      case "classification" -> true;
      default -> throw new ParameterException(command.commandLine(),
          "--task is '" + task + "', expected regression or classification");
    };
    if (epochs < 1 || batch < 1 || !(l2 >= 0) || (lr != null && !(lr > 0))) {
      throw new ParameterException(command.commandLine(), "--epochs " + epochs + ", --batch "
          + batch + ", --l2 " + l2 + ", --lr " + lr + ": expected epochs, batch >= 1, l2 >= 0,"
          + " lr > 0");
    }
    if (classes != null && (!classification || classes < 2)) {
      throw new ParameterException(command.commandLine(), "--classes is " + classes + ", expected"
          + (classification ? " >= 2" : " only with --task classification"));
    }
    if (model != null) {
      Path dir = model.toAbsolutePath().getParent();
      if (dir == null || !Files.isDirectory(dir)) {
        throw new IllegalArgumentException("the model's directory " + dir + " does not exist");
      }
    }
    PrintWriter err = command.commandLine().getErr();
    Training.Options options =
        new Training.Options(classification, epochs, lr, batch, l2, schedule, seed, classes);
    Training.Outcome outcome;
    try {
      outcome = Training.run(train, validation, heldout, options, quiet ? null : err);
    } catch (UsageException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
    if (model != null) {
      ModelFile.write(model, outcome.model(l2));
    }
    PrintWriter out = command.commandLine().getOut();
    if (json) {
      Map<String, Object> o = outcome.json();
      o.put("lr", options.learningRate());
      o.put("l2", l2);
      o.put("model", model == null ? null : model.toString());
      out.println(Json.write(o));
    } else if (!quiet) {
      out.println(summary(outcome) + (model == null ? "" : "; model written to " + model));
    }
    out.flush();
    return 0;
  }

  static String summary(Training.Outcome o) {
    String metric = o.task() == Task.REGRESSION
        ? String.format(Locale.ROOT, "heldout MSE %.6g", o.heldout().metric())
        : String.format(Locale.ROOT, "heldout error rate %.4f, log-loss %.6g",
            o.heldout().metric(), o.heldout().meanLoss());
    if (o.validation() != null) {
      metric = (o.task() == Task.REGRESSION
          ? String.format(Locale.ROOT, "validation MSE %.6g", o.validation().metric())
          : String.format(Locale.ROOT, "validation error rate %.4f", o.validation().metric()))
          + " (early stopping); " + metric;
    }
    return String.format(Locale.ROOT, "%s; %d epochs, %d halvings, stopped: %s, %s",
        metric, o.result().epochs(), o.result().halvings(),
        o.result().stopReason().name().toLowerCase(Locale.ROOT), Format.seconds(o.seconds()));
  }
}
