package org.lprff.cli.workflow;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lprff.arrow.FeatureFileBatches;
import org.lprff.arrow.FeatureFileBatches.Order;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.ModelFile;
import org.lprff.arrow.input.Standardization;
import org.lprff.cli.options.TrainingConfig;
import org.lprff.cli.output.Human;
import org.lprff.report.Json;
import org.lprff.vector.codec.LloydMaxCodebook;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.metrics.TrainingMemory;
import org.lprff.vector.train.Evaluation;
import org.lprff.vector.train.KitchenSinks;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Task;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.vector.train.TrainingResult;

/**
 * Training on feature files, shared by {@code lprff train} and {@code lprff demo}: opens the
 * files, checks that they were featurized alike and carry labels of the task, hands them to the
 * library's {@link Trainer}, scores the model on the heldout file, and turns the report into the
 * model file, the JSON summary and the one-line result.
 */
public final class Training {

  /** A completed training: the library's report, the heldout metrics and the file facts. */
  public record Outcome(
      FeaturizerSpec spec, Standardization standardization, String taskName, long heldoutRows,
      TrainingReport report, Evaluation heldout, TrainingMemory memory, boolean validationFile,
      Double alphaBound, int modelBits) {

    /** The model's metrics on the validation file, or null without one. */
    public Evaluation validation() {
      return validationFile ? report.validation() : null;
    }

    public Task task() {
      return report.task();
    }

    public Solver solver() {
      return report.solver();
    }

    public double seconds() {
      return report.seconds();
    }

    private TrainingResult result() {
      return report.result();
    }

    /** The one-line result the train and demo commands print. */
    public String summary() {
      boolean solved = solver() == Solver.CLOSED_FORM;
      boolean iterative = solver().fullBatchIterative();
      Evaluation validation = validation();
      String metric = task() == Task.REGRESSION
          ? String.format(Locale.ROOT, "heldout MSE %.6g", heldout.metric())
          : solved // least-squares scores are not probabilities: no log-loss
              ? String.format(Locale.ROOT, "heldout error rate %.4f", heldout.metric())
              : String.format(Locale.ROOT, "heldout error rate %.4f, %s %.6g",
                  heldout.metric(), hinge() ? "hinge loss" : "log-loss", heldout.meanLoss());
      if (validation != null) {
        metric = (task() == Task.REGRESSION
            ? String.format(Locale.ROOT, "validation MSE %.6g", validation.metric())
            : String.format(Locale.ROOT, "validation error rate %.4f", validation.metric()))
            + (solved || iterative ? " (chose l2); "
                : solver() == Solver.RKS ? "; " : " (early stopping); ") + metric;
      }
      if (solver() == Solver.RKS) {
        return String.format(Locale.ROOT, "%s; random kitchen sinks (%s loss, alpha bound C %s:"
            + " |w| <= C / sqrt(2 m) = %.6g, no l2), %d iterations, %d passes, stopped: %s, %s",
            metric, task().loss().name(), alphaBound, weightBound(), result().epochs(),
            report.passes(), result().message(), Human.seconds(seconds()));
      }
      String chosen = report.l2Path().size() > 1 ? ", chosen on " + report.selectedOn() : "";
      if (solved) {
        return String.format(Locale.ROOT, "%s; solved in closed form (l2 %g%s), %s", metric,
            report.l2(), chosen, Human.seconds(seconds()));
      }
      if (iterative) {
        return String.format(Locale.ROOT, "%s; %s (l2 %g%s), %d iterations, %d passes, %s",
            metric, solver() == Solver.CG ? "conjugate gradients" : "L-BFGS", report.l2(),
            chosen, result().epochs(), report.passes(), Human.seconds(seconds()));
      }
      return String.format(Locale.ROOT, "%s; lr %g%s, %d epochs, %d halvings, stopped: %s, %s",
          metric, report.learningRate(), report.probedRate() ? " (probed)" : "",
          result().epochs(), result().halvings(),
          result().stopReason().name().toLowerCase(Locale.ROOT), Human.seconds(seconds()));
    }

    public ModelFile.Model model() {
      Map<String, String> training = new LinkedHashMap<>();
      training.put("solver", solver().id);
      training.put("epochs", Integer.toString(result().epochs()));
      training.put("halvings", Integer.toString(result().halvings()));
      training.put("stop_reason", result().stopReason().name());
      training.put("best_epoch", Integer.toString(result().bestEpoch()));
      training.put("rows", Long.toString(report.trainRows()));
      training.put("heldout_metric", Double.toString(heldout.metric()));
      if (validation() != null) {
        training.put("validation_metric", Double.toString(validation().metric()));
      }
      if (report.l2Path().size() > 1) {
        // The l2 path tried, with the loss that chose among it: l2=loss;l2=loss;...
        StringBuilder path = new StringBuilder();
        report.l2Path().forEach((lambda, loss) ->
            path.append(path.isEmpty() ? "" : ";").append(lambda).append('=').append(loss));
        training.put("l2_path", path.toString());
        training.put("l2_selected_on", report.selectedOn());
      }
      if (solver().miniBatch()) {
        training.put("learning_rate", Double.toString(report.learningRate()));
      }
      if (solver() == Solver.RKS) {
        training.put("alpha_bound", Double.toString(alphaBound));
        training.put("weight_bound", Double.toString(weightBound()));
        training.put("stop_message", result().message());
      }
      if (hinge()) {
        training.put(ModelTasks.LOSS_KEY, "hinge"); // evaluate and predict read the sign
      }
      if (solver() == Solver.HALP) {
        training.put("model_bits", Integer.toString(modelBits));
      }
      return new ModelFile.Model(spec, standardization, taskName, report.classes(), report.l2(),
          report.model(), training);
    }

    /**
     * Per feature and row, what low precision adds to the Gram diagonal: the rounding variance of
     * a uniform grid's codes, or a codebook's mean squared error (Lloyd-Max is deterministic:
     * its error is a bias, not a variance, but it sits on the diagonal alike).
     */
    static double roundingVariance(FeaturizerSpec spec) {
      if (spec.isFloat()) {
        return 0.0;
      }
      return spec.quantizer().affine() ? spec.scale().cosineRoundingVariance()
          : LloydMaxCodebook.forBits(spec.bits()).meanSquaredError() * 2.0 / spec.features();
    }

    /** Whether the model was trained on the hinge loss (its scores are not logits). */
    public boolean hinge() {
      return task() == Task.BINARY_HINGE;
    }

    /** rks's bound on every weight, C / sqrt(2 m); NaN for the other solvers. */
    public double weightBound() {
      return alphaBound == null ? Double.NaN
          : KitchenSinks.weightBound(alphaBound, spec.modelFeatures());
    }

    public Map<String, Object> json() {
      Task task = task();
      Solver solver = solver();
      Map<String, Object> o = Json.object();
      o.put("task", taskName);
      o.put("classes", report.classes());
      o.put("features", spec.features());
      o.put("model_features", spec.modelFeatures());
      o.put("bits", spec.bits());
      // Per feature and row: what low precision adds to the Gram diagonal (an implicit ridge).
      o.put("rounding_variance", roundingVariance(spec));
      o.put("train_rows", report.trainRows());
      o.put("heldout_rows", heldoutRows);
      boolean probabilities = task != Task.REGRESSION && solver != Solver.CLOSED_FORM
          && !hinge();
      if (task == Task.REGRESSION) {
        o.put("heldout_mse", heldout.metric());
      } else {
        o.put("heldout_error_rate", heldout.metric());
      }
      if (hinge()) {
        o.put("heldout_hinge_loss", heldout.meanLoss());
      }
      if (solver == Solver.RKS) {
        o.put("loss", task.loss().name());
        o.put("alpha_bound", alphaBound);
        o.put("weight_bound", weightBound());
        o.put("stop_message", result().message());
      }
      if (probabilities) {
        o.put("heldout_log_loss", heldout.meanLoss());
      }
      if (task == Task.REGRESSION || probabilities) {
        o.put("heldout_loss", heldout.meanLoss());
      }
      o.put("solver", solver.id);
      o.put("l2", report.l2());
      // rks has nothing to choose: its bound is given.
      o.put(!solver.miniBatch() ? "selected_on" : "early_stopping",
          solver == Solver.RKS ? null : report.selectedOn());
      if (solver == Solver.HALP) {
        o.put("model_bits", modelBits);
      }
      Evaluation validation = validation();
      if (validation != null) {
        o.put("validation_rows", validation.rows());
        o.put(task == Task.REGRESSION ? "validation_mse" : "validation_error_rate",
            validation.metric());
        if (task == Task.REGRESSION || probabilities) {
          o.put("validation_loss", validation.meanLoss());
        }
      }
      if (report.l2Path().size() > 1) {
        List<Object> tried = new ArrayList<>();
        report.l2Path().forEach((lambda, loss) -> {
          Map<String, Object> e = Json.object();
          e.put("l2", lambda);
          e.put(report.selectedOn() + "_loss", loss);
          tried.add(e);
        });
        o.put("l2_selection", tried);
      }
      o.put("epochs", result().epochs());
      o.put("passes", report.passes());
      o.put("halvings", result().halvings());
      o.put("best_epoch", result().bestEpoch());
      o.put("stop_reason", result().stopReason().name().toLowerCase(Locale.ROOT));
      o.put("lr", solver.miniBatch() ? report.learningRate() : null);
      o.put("lr_probed", solver.miniBatch() ? report.probedRate() : null);
      o.put("final_lr", solver.miniBatch() ? result().finalLearningRate() : null);
      o.put("seconds", report.seconds());
      o.put("solver_working_bytes", report.workingBytes());
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
   * Trains on {@code trainFile}; the choice of l2 (and SGD's early stopping) uses {@code
   * validationFile} when given, else a seeded split of the training rows for the full-batch
   * solvers and the heldout file for SGD's early stopping (the LP-RFF paper's protocol); {@code
   * heldoutFile}'s metrics are reported either way. An IllegalArgumentException or
   * IllegalStateException carries the message for users.
   */
  public static Outcome run(Path trainFile, Path validationFile, Path heldoutFile,
      TrainingConfig options, PrintWriter progress) throws IOException {
    return run(trainFile, validationFile, validationFile, heldoutFile, options, progress);
  }

  /**
   * As {@link #run(Path, Path, Path, TrainingConfig, PrintWriter)}, with the closed form's refit
   * on train + {@code refitFile} (null: no refit), e.g. the validation rows at the training bits
   * while {@code validationFile} holds them at full precision, as prediction sees rows.
   */
  public static Outcome run(Path trainFile, Path validationFile, Path refitFile, Path heldoutFile,
      TrainingConfig options, PrintWriter progress) throws IOException {
    // SGD reads its shuffled mini-batches in place (blocks of a record batch in a seeded
    // order); the full-batch solvers read every row, in file order.
    Order order = options.solver().shufflesRows() ? Order.BLOCKS : Order.SEQUENTIAL;
    boolean classification = options.classification();
    try (FeatureFileBatches train = FeatureFileBatches.mapped(trainFile, order, classification)) {
      FeaturizerSpec spec = train.spec();
      TrainingRequest request = options.request(spec.modelFeatures());
      return run(train, trainFile, validationFile,
          request.solver() == Solver.CLOSED_FORM ? refitFile : null, heldoutFile, request,
          options, progress);
    }
  }

  private static Outcome run(FeatureFileBatches train, Path trainFile, Path validationFile,
      Path refitFile, Path heldoutFile, TrainingRequest request, TrainingConfig options,
      PrintWriter progress) throws IOException {
    boolean classification = options.classification();
    try (FeatureFileBatches heldout =
            FeatureFileBatches.mapped(heldoutFile, Order.SEQUENTIAL, classification);
        FeatureFileBatches validation = validationFile == null ? null
            : FeatureFileBatches.mapped(validationFile, Order.SEQUENTIAL, classification);
        FeatureFileBatches refit = refitFile == null ? null
            : FeatureFileBatches.mapped(refitFile, Order.SEQUENTIAL, classification)) {
      try {
        return run(train, trainFile, validationFile, validation, refitFile, refit, heldoutFile,
            heldout, request, options, progress);
      } catch (RuntimeException | Error e) {
        // A file truncated or rewritten under its mapping faults on the next read.
        FeatureFileBatches.throwIfChanged(e, train, heldout, validation, refit);
        throw e;
      }
    }
  }

  private static Outcome run(FeatureFileBatches train, Path trainFile, Path validationFile,
      FeatureFileBatches validation, Path refitFile, FeatureFileBatches refit, Path heldoutFile,
      FeatureFileBatches heldout, TrainingRequest request, TrainingConfig options,
      PrintWriter progress) throws IOException {
    boolean classification = options.classification();
    FeaturizerSpec spec = train.spec();
    if (options.verify()) {
      String verified = ChecksumPass.verify(train, validation, refit, heldout);
      if (progress != null) {
        println(progress, verified);
      }
    }
    checkLabels(trainFile, train.labelType(), classification);
    requireLike(heldout, heldoutFile, "heldout", spec, trainFile, classification);
    if (validation != null) {
      requireLike(validation, validationFile, "validation", spec, trainFile, classification);
    }
    if (refit != null) {
      requireLike(refit, refitFile, "refit", spec, trainFile, classification);
    }
    Trainer.Data heldoutData = new Trainer.Data("heldout", heldoutFile.toString(), heldout);
    // Without a validation file SGD stops early on the heldout file, as the paper does; the
    // full-batch solvers choose l2 on a split of the training rows and never read it.
    Trainer.Data validationData = validation != null
        ? new Trainer.Data("validation", validationFile.toString(), validation)
        : request.solver().miniBatch() ? heldoutData : null;
    Trainer.Data trainData = new Trainer.Data("train", trainFile.toString(), train);
    Trainer.Data refitData =
        refit == null ? null : new Trainer.Data("validation", refitFile.toString(), refit);
    // The heldout rows are scored rows: their labels are checked before the training.
    TrainingReport report = Trainer.run(request, trainData, validationData, refitData,
        heldoutData, progress == null ? null : line -> println(progress, line));
    if (report.diverged()) {
      String message = report.result().message();
      if (!report.solver().miniBatch()) {
        throw new IllegalStateException(
            "training diverged (" + message + "); no model was written");
      }
      double lr = report.learningRate();
      throw new IllegalStateException("training diverged (" + message + ") at --lr " + lr
          + "; try a smaller --lr, e.g. " + lr / 4 + "; no model was written");
    }
    Task task = report.task();
    Evaluation eval = Evaluation.of(report.model(), task, heldout, 1000);
    Map<String, String> meta = train.schema().metadata();
    Standardization standardization =
        meta.containsKey(Standardization.KEY_MEAN) ? Standardization.fromMap(meta) : null;
    TrainingMemory memory = TrainingMemory.forSpec(spec, options.batch(), task.outputs())
        .withModelBits(request.trainingModelBits());
    String taskName = task == Task.REGRESSION ? "regression"
        : report.classes() == 2 ? "binary" : "classification";
    return new Outcome(spec, standardization, taskName, heldout.rows(), report, eval, memory,
        validation != null, request.alphaBound(), request.trainingModelBits());
  }

  /**
   * Checks that a heldout or validation file has the training file's spec (or its
   * full-precision twin, featurize --like --bits 32) and labels that fit the task.
   */
  private static void requireLike(FeatureFileBatches other, Path file, String role,
      FeaturizerSpec spec, Path trainFile, boolean classification) {
    try {
      other.schema().requireCompatible(other.spec().bits() == 32 ? spec.withBits(32) : spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(role + " " + file + " was not featurized like "
          + trainFile + ": " + e.getMessage(), e);
    }
    checkLabels(file, other.labelType(), classification);
  }

  private static void println(PrintWriter progress, String line) {
    progress.println(line);
    progress.flush();
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
}
