package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.lprff.arrow.ModelFile;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.Json;
import org.lprff.cli.output.Version;
import org.lprff.cli.workflow.Training;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lprff train}: SGD (early stopping on a validation file or, without one, the heldout
 * file) or the closed form on a training feature file; final metrics on the heldout file.
 */
@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    sortOptions = false,
    description = {
      "Train a linear model on the features of a feature file by mini-batch SGD or in closed"
          + " form, with a heldout feature file (featurized --like the training file) for the"
          + " final metrics and, without --validation FILE, early stopping. Writes a"
          + " self-describing model file (.lprff) for evaluate/predict.",
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
      description = "Heldout feature file with the same spec (e.g. featurize --like, or its"
          + " full-precision twin --like --bits 32); it early-stops training unless --validation"
          + " is given.")
  Path heldout;

  @Option(names = "--validation", paramLabel = "FILE",
      description = "Validation feature file (featurized like --train): when given, early"
          + " stopping and the choice among --l2 values use it instead of --heldout, and the"
          + " closed form refits on train + validation with the chosen l2.")
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
      description = "Initial learning rate (default 1 for regression: features have |z|^2 ~ 1;"
          + " 64 for classification, whose bounded gradients cannot diverge and whose early"
          + " stopping only halves the rate).")
  Double lr;

  @Option(names = "--batch", defaultValue = "250", paramLabel = "ROWS",
      description = "Rows per SGD step (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--l2", defaultValue = "1e-6", paramLabel = "LAMBDA", split = ",",
      description = "L2 strength lambda (default ${DEFAULT-VALUE}). With --solver closed-form a"
          + " comma-separated list: each is solved from the same normal equations and the one"
          + " with the lowest heldout loss is kept.")
  List<Double> l2;

  @Option(names = "--schedule", defaultValue = "early-stop", paramLabel = "S",
      description = "early-stop (default: halve the rate when the heldout loss improves < 1%,"
          + " stop after 10 halvings), fixed, or decaying (lr / (1 + epoch)).")
  String schedule;

  @Option(names = "--solver", defaultValue = "sgd", paramLabel = "S",
      description = "sgd (default: mini-batch SGD on the packed features, the schedule above) or"
          + " closed-form (ridge's exact minimizer by the normal equations, (Zc^T Zc + l2 n I) W"
          + " = Zc^T T with centered features and an unregularized intercept: n m^2 / 2"
          + " multiply-adds on all cores and an m x m double matrix, 8 m^2 bytes; regression, or"
          + " least-squares classification with one-hot targets; ignores --epochs, --lr, --batch"
          + " and --schedule).")
  String solver;

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
    if (epochs < 1 || batch < 1 || !l2.stream().allMatch(x -> x >= 0 && x < Double.POSITIVE_INFINITY)
        || (lr != null && !(lr > 0))) {
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
    Training.Options options;
    Training.Outcome outcome;
    try {
      options = new Training.Options(classification, epochs, lr, batch, l2, schedule, seed,
          Training.Solver.parse(solver), classes);
      outcome = Training.run(train, validation, heldout, options, quiet ? null : err);
    } catch (UsageException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
    if (model != null) {
      ModelFile.write(model, outcome.model());
    }
    PrintWriter out = command.commandLine().getOut();
    if (json) {
      Map<String, Object> o = outcome.json();
      o.put("lr", options.solver() == Training.Solver.SGD ? options.learningRate() : null);
      o.put("model", model == null ? null : model.toString());
      out.println(Json.write(o));
    } else if (!quiet) {
      out.println(outcome.summary() + (model == null ? "" : "; model written to " + model));
    }
    out.flush();
    return 0;
  }

}
