package org.lprff.cli.workflow;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.lprff.arrow.FeatureFileBatches;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.FeatureFileBatches.Order;
import org.lprff.arrow.ModelFile;
import org.lprff.arrow.input.Standardization;
import org.lprff.cli.options.Solver;
import org.lprff.cli.options.TrainingConfig;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.Json;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.metrics.TrainingMemory;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.MiniBatchSource.Batches;
import org.lprff.vector.stream.RowFilter;
import org.lprff.vector.train.ClosedFormRidge;
import org.lprff.vector.train.ConjugateGradientRidge;
import org.lprff.vector.train.EpochRecord;
import org.lprff.vector.train.Evaluation;
import org.lprff.vector.train.LbfgsTrainer;
import org.lprff.vector.train.LinearModel;
import org.lprff.vector.train.NormalEquations;
import org.lprff.vector.train.Schedule;
import org.lprff.vector.train.SgdTrainer;
import org.lprff.vector.train.Task;
import org.lprff.vector.train.TrainingResult;

/**
 * Training on two feature files (train and heldout), shared by {@code lprff train} and {@code
 * lprff demo}: checks that the files fit together and the labels fit the task, runs SGD on the
 * mapped files, and returns the result with what a model file and the JSON summary need.
 */
public final class Training {

  /** A completed training. */
  public record Outcome(
      FeaturizerSpec spec, Standardization standardization, Task task, String taskName,
      int classes, long trainRows, long heldoutRows, Solver solver, String selectedOn, double l2,
      Map<Double, Double> l2Selection, TrainingResult result, Evaluation heldout, double seconds,
      TrainingMemory memory, Evaluation validation) {

    /** The one-line result the train and demo commands print. */
    public String summary() {
      boolean solved = solver() == Solver.CLOSED_FORM;
      boolean iterative = solver() == Solver.LBFGS || solver() == Solver.CG;
      String metric = task() == Task.REGRESSION
          ? String.format(Locale.ROOT, "heldout MSE %.6g", heldout().metric())
          : solved // least-squares scores are not probabilities: no log-loss
              ? String.format(Locale.ROOT, "heldout error rate %.4f", heldout().metric())
              : String.format(Locale.ROOT, "heldout error rate %.4f, log-loss %.6g",
                  heldout().metric(), heldout().meanLoss());
      if (validation() != null) {
        metric = (task() == Task.REGRESSION
            ? String.format(Locale.ROOT, "validation MSE %.6g", validation().metric())
            : String.format(Locale.ROOT, "validation error rate %.4f", validation().metric()))
            + (solved || iterative ? " (chose l2); " : " (early stopping); ") + metric;
      }
      if (solved) {
        return String.format(Locale.ROOT, "%s; solved in closed form (l2 %g%s), %s", metric, l2(),
            l2Selection().size() > 1 ? ", chosen on " + selectedOn() : "",
            Human.seconds(seconds()));
      }
      if (iterative) {
        return String.format(Locale.ROOT, "%s; %s (l2 %g%s), %d iterations, %d passes, %s",
            metric, solver() == Solver.CG ? "conjugate gradients" : "L-BFGS", l2(),
            l2Selection().size() > 1 ? ", chosen on " + selectedOn() : "",
            result().epochs(), result().steps(), Human.seconds(seconds()));
      }
      return String.format(Locale.ROOT, "%s; %d epochs, %d halvings, stopped: %s, %s",
          metric, result().epochs(), result().halvings(),
          result().stopReason().name().toLowerCase(Locale.ROOT), Human.seconds(seconds()));
    }

    public ModelFile.Model model() {
      Map<String, String> training = new LinkedHashMap<>();
      training.put("solver", solver.cliName);
      training.put("epochs", Integer.toString(result.epochs()));
      training.put("halvings", Integer.toString(result.halvings()));
      training.put("stop_reason", result.stopReason().name());
      training.put("best_epoch", Integer.toString(result.bestEpoch()));
      training.put("rows", Long.toString(trainRows));
      training.put("heldout_metric", Double.toString(heldout.metric()));
      if (validation != null) {
        training.put("validation_metric", Double.toString(validation.metric()));
      }
      if (l2Selection.size() > 1) {
        // The l2 path tried, with the loss that chose among it: l2=loss;l2=loss;...
        StringBuilder path = new StringBuilder();
        l2Selection.forEach((lambda, loss) ->
            path.append(path.isEmpty() ? "" : ";").append(lambda).append('=').append(loss));
        training.put("l2_path", path.toString());
        training.put("l2_selected_on", selectedOn);
      }
      return new ModelFile.Model(spec, standardization, taskName, classes, l2, result.model(),
          training);
    }

    public Map<String, Object> json() {
      Map<String, Object> o = Json.object();
      o.put("task", taskName);
      o.put("classes", classes);
      o.put("features", spec.features());
      o.put("bits", spec.bits());
      // Per feature and row: what low precision adds to the Gram diagonal (an implicit ridge).
      o.put("rounding_variance", spec.isFloat() ? 0.0 : spec.scale().cosineRoundingVariance());
      o.put("train_rows", trainRows);
      o.put("heldout_rows", heldoutRows);
      boolean probabilities = task != Task.REGRESSION && solver != Solver.CLOSED_FORM;
      if (task == Task.REGRESSION) {
        o.put("heldout_mse", heldout.metric());
      } else {
        o.put("heldout_error_rate", heldout.metric());
      }
      if (probabilities) {
        o.put("heldout_log_loss", heldout.meanLoss());
      }
      if (task == Task.REGRESSION || probabilities) {
        o.put("heldout_loss", heldout.meanLoss());
      }
      o.put("solver", solver.cliName);
      o.put("l2", l2);
      if (solver != Solver.SGD) {
        o.put("selected_on", selectedOn);
      } else {
        o.put("early_stopping", selectedOn);
      }
      if (validation != null) {
        o.put("validation_rows", validation.rows());
        o.put(task == Task.REGRESSION ? "validation_mse" : "validation_error_rate",
            validation.metric());
        if (task == Task.REGRESSION || probabilities) {
          o.put("validation_loss", validation.meanLoss());
        }
      }
      if (l2Selection.size() > 1) {
        List<Object> tried = new java.util.ArrayList<>();
        l2Selection.forEach((lambda, loss) -> {
          Map<String, Object> e = Json.object();
          e.put("l2", lambda);
          e.put(selectedOn + "_loss", loss);
          tried.add(e);
        });
        o.put("l2_selection", tried);
      }
      o.put("epochs", result.epochs());
      if (solver == Solver.LBFGS || solver == Solver.CG) {
        o.put("passes", result.steps());
      }
      o.put("halvings", result.halvings());
      o.put("best_epoch", result.bestEpoch());
      o.put("stop_reason", result.stopReason().name().toLowerCase(Locale.ROOT));
      o.put("final_lr", solver == Solver.SGD ? result.finalLearningRate() : null);
      o.put("seconds", seconds);
      Map<String, Object> mem = Json.object();
      mem.put("feature_generation_bits", memory.featureGenerationBits());
      mem.put("mini_batch_bits", memory.miniBatchBits());
      mem.put("model_bits", memory.modelBits());
      mem.put("total_bits", memory.totalBits());
      o.put("training_memory", mem);
      return o;
    }
  }

  private Training() {}

  /**
   * Trains on {@code trainFile}; early stopping and the choice among several l2 values use
   * {@code validationFile} when given (then the closed form refits on train + validation with the
   * chosen l2), else {@code heldoutFile}, whose metrics are reported either way. An
   * IllegalArgumentException or IllegalStateException carries the message for users.
   */
  public static Outcome run(Path trainFile, Path validationFile, Path heldoutFile, TrainingConfig options,
      PrintWriter progress) throws IOException {
    return run(trainFile, validationFile, validationFile, heldoutFile, options, progress);
  }

  /**
   * As {@link #run(Path, Path, Path, TrainingConfig, PrintWriter)}, with the closed form's refit on train
   * + {@code refitFile} (null: no refit), e.g. the validation rows at the training bits while
   * {@code validationFile} holds them at full precision, as prediction sees rows.
   */
  public static Outcome run(Path trainFile, Path validationFile, Path refitFile, Path heldoutFile,
      TrainingConfig options, PrintWriter progress) throws IOException {
    // SGD draws rows in a shuffled order; the full-batch solvers read every row, in file order.
    Order order = options.solver() == Solver.SGD ? Order.ROWS : Order.SEQUENTIAL;
    boolean classification = options.classification();
    try (FeatureFileBatches train = FeatureFileBatches.mapped(trainFile, order, classification);
        FeatureFileBatches heldout =
            FeatureFileBatches.mapped(heldoutFile, Order.SEQUENTIAL, classification);
        FeatureFileBatches validation = validationFile == null ? null
            : FeatureFileBatches.mapped(validationFile, Order.SEQUENTIAL, classification);
        FeatureFileBatches refit =
            refitFile == null || options.solver() != Solver.CLOSED_FORM ? null
                : FeatureFileBatches.mapped(refitFile, Order.SEQUENTIAL, classification)) {
      FeaturizerSpec spec = train.spec();
      checkLabels(trainFile, train.labelType(), classification);
      requireLike(heldout, heldoutFile, "heldout", spec, trainFile, classification);
      if (validation != null) {
        requireLike(validation, validationFile, "validation", spec, trainFile, classification);
      }
      if (refit != null) {
        requireLike(refit, refitFile, "refit", spec, trainFile, classification);
      }
      int classes = 1;
      Task task = Task.REGRESSION;
      String taskName = "regression";
      if (classification) {
        int trainClasses;
        try (FeatureFileBatches scan = FeatureFileBatches.mapped(trainFile, Order.SEQUENTIAL, true)) {
          trainClasses = maxClass(scan, trainFile) + 1;
        }
        int heldoutClasses = maxClass(heldout, heldoutFile) + 1;
        int validationClasses = validation == null ? 0 : maxClass(validation, validationFile) + 1;
        if (options.classes() != null) {
          classes = options.classes();
          requireDeclared(classes, trainClasses, trainFile);
          requireDeclared(classes, heldoutClasses, heldoutFile);
          requireDeclared(classes, validationClasses, validationFile);
        } else {
          classes = Math.max(2, trainClasses);
          requireTrainingClasses(heldoutClasses, "heldout " + heldoutFile, classes, trainFile);
          requireTrainingClasses(
              validationClasses, "validation " + validationFile, classes, trainFile);
        }
        task = classes == 2 ? Task.BINARY : Task.multiclass(classes);
        taskName = classes == 2 ? "binary" : "classification";
      }
      FeatureFileBatches stopping = validation != null ? validation : heldout;
      String stoppingName = validation != null ? "validation" : "heldout";
      double lr = options.learningRate();
      Schedule schedule = switch (options.schedule().toLowerCase(Locale.ROOT)) {
        case "early-stop" -> Schedule.earlyStopping(options.epochs(), lr);
        case "fixed" -> Schedule.fixed(options.epochs(), lr);
        case "decaying" -> Schedule.decaying(options.epochs(), lr, 1.0);
        default -> throw new UsageException("--schedule is '" + options.schedule()
            + "', expected early-stop, fixed or decaying");
      };
      long start = System.nanoTime();
      Task chosen = task;
      TrainingResult result;
      double l2 = options.l2Path().get(0);
      String selectedOn = stoppingName;
      Map<Double, Double> selection = new LinkedHashMap<>();
      if (options.solver() == Solver.CLOSED_FORM) {
        Choice choice = closedForm(train, refit, task, options.l2s(), stopping, stoppingName,
            selection, progress);
        l2 = choice.l2();
        result = TrainingResult.solved(choice.model(), Double.NaN);
      } else if (options.solver() == Solver.LBFGS || options.solver() == Solver.CG) {
        String name = options.solver().cliName;
        Function<MiniBatchSource, BiFunction<Double, LinearModel, TrainingResult>> steps =
            options.solver() == Solver.LBFGS
                ? source -> lbfgsSteps(source, chosen, spec.features(), progress)
                : source -> conjugateGradientSteps(source, progress);
        LinearModel zeros = LinearModel.zeros(spec.features(), task.outputs());
        IterativeChoice choice;
        if (options.automaticL2() && validation == null) {
          // No validation file: a seeded 10% of the training rows chooses l2, the heldout never.
          selectedOn = "validation_split";
          MiniBatchSource fit = RowFilter.withoutValidation(train, options.seed());
          MiniBatchSource split = RowFilter.validation(train, options.seed());
          println(progress, name + ": choosing l2 on a seeded split of " + Human.count(split.rows())
              + " training rows, fitting on the other " + Human.count(fit.rows()));
          choice = path(name, task, zeros, options.l2Path(), true, split, selectedOn, selection,
              progress, steps.apply(fit));
          if (!choice.result().diverged()) {
            println(progress, name + ": refit on all " + Human.count(train.rows())
                + " training rows, l2 " + choice.l2());
            choice = new IterativeChoice(choice.l2(),
                steps.apply(train).apply(choice.l2(), choice.result().model()));
          }
        } else {
          choice = path(name, task, zeros, options.l2Path(), options.automaticL2(), stopping,
              stoppingName, selection, progress, steps.apply(train));
        }
        l2 = choice.l2();
        result = choice.result();
      } else {
        result = SgdTrainer.builder(task, spec.features())
            .batchSize(options.batch())
            .l2(l2)
            .seed(options.seed())
            .schedule(schedule)
            .listener(progress == null ? r -> {}
                : r -> printEpoch(progress, r, chosen, stoppingName))
            .build()
            .train(train, stopping);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      if (result.diverged()) {
        if (options.solver() != Solver.SGD) {
          throw new IllegalStateException(
              "training diverged (" + result.message() + "); no model was written");
        }
        throw new IllegalStateException("training diverged (" + result.message() + ") at --lr "
            + lr + "; try a smaller --lr, e.g. " + lr / 4 + "; no model was written");
      }
      Evaluation eval = Evaluation.of(result.model(), task, heldout, 1000);
      Evaluation validationEval =
          validation == null ? null : Evaluation.of(result.model(), task, validation, 1000);
      Map<String, String> meta = train.schema().metadata();
      Standardization standardization =
          meta.containsKey(Standardization.KEY_MEAN) ? Standardization.fromMap(meta) : null;
      TrainingMemory memory = TrainingMemory.forProjection(spec.projection(), spec.inputDim(),
          spec.features(), spec.bits(), options.batch(), task.outputs());
      long trainRows = train.rows() + (refit != null ? refit.rows() : 0);
      return new Outcome(spec, standardization, task, taskName, classes, trainRows,
          heldout.rows(), options.solver(), selectedOn, l2, selection, result, eval, seconds, memory,
          validationEval);
    }
  }

  /**
   * The closed form: the normal equations of the training rows, solved for each l2 (the best on
   * {@code stopping} kept), then, with {@code refit} rows, solved again on both row sets.
   */
  private static Choice closedForm(FeatureFileBatches train, FeatureFileBatches refit, Task task,
      List<Double> l2s, FeatureFileBatches stopping, String stoppingName, Map<Double, Double> selection,
      PrintWriter progress) {
    NormalEquations sums = ClosedFormRidge.accumulate(train, task, ForkJoinPool.commonPool(),
        gramProgress(progress, "train", train.rows()));
    Choice choice = choose(sums, task, l2s, stopping, stoppingName, selection, progress);
    if (choice.model() == null) {
      throw new IllegalArgumentException("no --l2 value gave a solvable system " + l2s
          + "; the last: " + choice.failure().getMessage(), choice.failure());
    }
    if (refit == null) {
      return choice;
    }
    // The validation rows only chose l2: the final model learns from them too.
    NormalEquations more = ClosedFormRidge.accumulate(refit, task, ForkJoinPool.commonPool(),
        gramProgress(progress, "validation", refit.rows()));
    println(progress, "closed form: refit on train + validation, l2 " + choice.l2());
    return new Choice(choice.l2(), sums.plus(more).solve(choice.l2()), null);
  }

  /** L-BFGS on {@code source} for one l2 from a start, its iterations on the progress stream. */
  private static BiFunction<Double, LinearModel, TrainingResult> lbfgsSteps(
      MiniBatchSource source, Task task, int features, PrintWriter progress) {
    return (lambda, start) -> LbfgsTrainer.builder(task, features).l2(lambda)
        .listener(progress == null ? r -> {} : r -> println(progress, String.format(Locale.ROOT,
            "lbfgs: l2 %s, iteration %3d, objective %.10g, step %.3g, %.2f s", lambda, r.epoch(),
            r.trainLoss(), r.learningRate(), r.seconds())))
        .build()
        .train(source, start);
  }

  /**
   * Ridge by conjugate gradients on {@code source} for one l2 from a start, after one preparing
   * pass (means, Z^T t, the preconditioner's sketch) that every l2 shares.
   */
  private static BiFunction<Double, LinearModel, TrainingResult> conjugateGradientSteps(
      MiniBatchSource source, PrintWriter progress) {
    ConjugateGradientRidge system = ConjugateGradientRidge.prepare(source,
        ConjugateGradientRidge.DEFAULT_SKETCH_ROWS, 0, ForkJoinPool.commonPool());
    println(progress, "cg: " + Human.count(system.rows()) + " rows, preconditioner from a "
        + Human.count(system.sketchRows()) + "-row sketch");
    return (lambda, start) -> system.solve(lambda, start, ConjugateGradientRidge.DEFAULT_TOLERANCE,
        ConjugateGradientRidge.DEFAULT_MAX_ITERATIONS,
        progress == null ? r -> {} : r -> println(progress, String.format(Locale.ROOT,
            "cg: l2 %s, iteration %3d, relative residual %.3g, %.2f s", lambda, r.epoch(),
            r.trainLoss(), r.seconds())));
  }

  /**
   * An iterative solver for each l2 in the order given, each started from the previous one's
   * model (a warm start: neighbouring l2 have neighbouring optima); with several, the one with
   * the lowest loss on {@code stopping} is kept. A diverged solve ends the path; so does, with
   * {@code stopPastMinimum} (the automatic path, coarse to fine), a loss above the best so far:
   * the validation loss of ridge-like paths rises on both sides of one minimum, and the finest
   * l2 are the slowest to solve.
   */
  private static IterativeChoice path(String name, Task task, LinearModel zeros, List<Double> l2s,
      boolean stopPastMinimum, MiniBatchSource stopping, String stoppingName,
      Map<Double, Double> selection, PrintWriter progress,
      BiFunction<Double, LinearModel, TrainingResult> solve) {
    IterativeChoice best = null;
    LinearModel start = zeros;
    for (double lambda : l2s) {
      TrainingResult result = solve.apply(lambda, start);
      if (result.diverged() || l2s.size() == 1) {
        return new IterativeChoice(lambda, result);
      }
      start = result.model();
      double loss = Evaluation.of(result.model(), task, stopping, 1000).meanLoss();
      selection.put(lambda, loss);
      println(progress, String.format(Locale.ROOT, "%s: l2 %s, %s loss %.6g (%s)", name, lambda,
          stoppingName, loss, result.message()));
      if (best == null || loss < selection.get(best.l2())) {
        best = new IterativeChoice(lambda, result);
      } else if (stopPastMinimum) {
        println(progress, name + ": " + stoppingName + " loss rose past l2 " + best.l2()
            + "; the path stops there");
        break;
      }
    }
    return best;
  }

  /** The l2 an iterative solver kept and its result. */
  private record IterativeChoice(double l2, TrainingResult result) {}

  /** The l2 chosen (or the only one), its model, or no model and the last failure. */
  private record Choice(double l2, LinearModel model, IllegalArgumentException failure) {}

  /**
   * Solves for each l2; with several, keeps the one with the lowest loss on {@code stopping}
   * (recorded in {@code selection}); an l2 whose system is not positive definite is skipped.
   */
  private static Choice choose(NormalEquations sums, Task task, List<Double> l2s,
      FeatureFileBatches stopping, String stoppingName, Map<Double, Double> selection,
      PrintWriter progress) {
    Choice best = new Choice(l2s.get(0), null, null);
    IllegalArgumentException failure = null;
    for (double lambda : l2s) {
      println(progress, "closed form: Cholesky solve of the " + Human.count(sums.features())
          + " x " + Human.count(sums.features()) + " system, l2 " + lambda);
      LinearModel model;
      try {
        model = sums.solve(lambda);
      } catch (IllegalArgumentException e) {
        failure = e;
        println(progress, "closed form: l2 " + lambda + " skipped: " + e.getMessage());
        continue;
      }
      if (l2s.size() == 1) {
        return new Choice(lambda, model, null);
      }
      double loss = Evaluation.of(model, task, stopping, 1000).meanLoss();
      selection.put(lambda, loss);
      println(progress, String.format(Locale.ROOT, "closed form: l2 %g, %s loss %.6g", lambda,
          stoppingName, loss));
      if (best.model() == null || loss < selection.get(best.l2())) {
        best = new Choice(lambda, model, null);
      }
    }
    return best.model() != null ? best : new Choice(best.l2(), null, failure);
  }

  /** Refuses classes of another file that the training labels (1 + their largest) lack. */
  private static void requireTrainingClasses(int seen, String what, int classes, Path trainFile) {
    if (seen > classes) {
      throw new IllegalArgumentException(what + " has class " + (seen - 1)
          + ", but the training labels of " + trainFile + " are in [0, " + (classes - 1) + "]");
    }
  }

  /** Refuses labels outside the declared {@code --classes} (seen: 1 + the largest label). */
  private static void requireDeclared(int classes, int seen, Path file) {
    if (seen > classes) {
      throw new IllegalArgumentException("--classes is " + classes + ", but " + file
          + " has class " + (seen - 1) + " (labels must be in [0, " + (classes - 1) + "])");
    }
  }

  /**
   * Checks that a heldout or validation file has the training file's spec (or its
   * full-precision twin, featurize --like --bits 32) and labels that fit the task.
   */
  private static void requireLike(FeatureFileBatches other, Path file, String role, FeaturizerSpec spec,
      Path trainFile, boolean classification) {
    try {
      other.schema().requireCompatible(other.spec().bits() == 32 ? spec.withBits(32) : spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(role + " " + file + " was not featurized like "
          + trainFile + ": " + e.getMessage(), e);
    }
    checkLabels(file, other.labelType(), classification);
  }

  private static void println(PrintWriter progress, String line) {
    if (progress != null) {
      progress.println(line);
      progress.flush();
    }
  }

  private static void checkLabels(Path file, LabelType type, boolean classification) {
    if (type == LabelType.NONE) {
      throw new IllegalArgumentException(file + " has no label column; training needs labels");
    }
    if (!classification && type == LabelType.CLASSES) {
      throw new IllegalArgumentException(file + " has Int32 class labels, but --task is"
          + " regression (which needs Float32 labels); use --task classification");
    }
  }

  /** The largest class index, checking every label is an integer >= 0 (message names row, value). */
  private static int maxClass(FeatureFileBatches source, Path file) {
    int max = -1;
    long row = 0;
    try (Batches it = source.epoch(0, 1000, 0)) {
      while (it.hasNext()) {
        MiniBatch b = it.next();
        for (int i = 0; i < b.rows(); i++, row++) {
          int c = b.classes()[i];
          if (c < 0) {
            throw new IllegalArgumentException(file + ": label of row "
                + (b.rowIds() != null ? "id " + b.rowIds()[i] : row) + " is " + c
                + ", expected a class index >= 0");
          }
          max = Math.max(max, c);
        }
      }
    }
    return max;
  }

  /** Progress of the Gram matrix: a line per 10% of the rows. */
  private static LongConsumer gramProgress(PrintWriter err, String rowsName, long rows) {
    if (err == null) {
      return done -> {};
    }
    long start = System.nanoTime();
    long[] nextTenth = {1};
    return done -> {
      if (done * 10 >= nextTenth[0] * rows) {
        nextTenth[0] = done * 10 / rows + 1;
        println(err, String.format(Locale.ROOT, "closed form: Z^T Z over %s of %s %s rows, %s",
            Human.count(done), Human.count(rows), rowsName,
            Human.seconds((System.nanoTime() - start) / 1e9)));
      }
    };
  }

  /** One epoch's line; {@code stopping} names the file early stopping reads (heldout/validation). */
  static void printEpoch(PrintWriter err, EpochRecord r, Task task, String stopping) {
    err.println(String.format(Locale.ROOT,
        "epoch %3d  train loss %.6g  %s loss %.6g  %s %s %.6g  lr %.4g  %.2f s%s",
        r.epoch(), r.trainLoss(), stopping, r.heldoutLoss(), stopping,
        task == Task.REGRESSION ? "MSE" : "error",
        r.heldoutMetric(), r.learningRate(), r.seconds(),
        r.halved() ? "  (halved)" : r.improved() ? "" : "  (reverted)"));
    err.flush();
  }

}
