package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.lprff.arrow.ArrowBatches;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.MiniBatchSource.Order;
import org.lprff.arrow.ModelFile;
import org.lprff.arrow.input.Standardization;
import org.lprff.vector.FeaturizerSpec;
import org.lprff.vector.metrics.TrainingMemory;
import org.lprff.vector.train.Evaluation;
import org.lprff.vector.train.EpochRecord;
import org.lprff.vector.train.MiniBatch;
import org.lprff.vector.train.MiniBatchSource.Batches;
import org.lprff.vector.train.Schedule;
import org.lprff.vector.train.SgdTrainer;
import org.lprff.vector.train.Task;
import org.lprff.vector.train.TrainingResult;

/**
 * Training on two feature files (train and heldout), shared by {@code lprff train} and {@code
 * lprff demo}: checks that the files fit together and the labels fit the task, runs SGD on the
 * mapped files, and returns the result with what a model file and the JSON summary need.
 */
final class Training {

  /** Default learning rate of regression: 1 (diamonds at m up to 4096: 2 overflows). */
  static final double DEFAULT_LR_REGRESSION = 1.0;
  /** Default learning rate of classification: 1 (logistic/softmax curvature <= squared loss's). */
  static final double DEFAULT_LR_CLASSIFICATION = 1.0;
  static final double DEFAULT_L2 = 1e-6;

  /**
   * What to train.
   *
   * @param classes the declared number of classes (>= 2), or null to take 1 + the largest
   *     training label
   */
  record Options(
      boolean classification, int epochs, Double lr, int batch, double l2, String schedule,
      long seed, Integer classes) {

    Options(boolean classification, int epochs, Double lr, int batch, double l2, String schedule,
        long seed) {
      this(classification, epochs, lr, batch, l2, schedule, seed, null);
    }

    double learningRate() {
      return lr != null ? lr : classification ? DEFAULT_LR_CLASSIFICATION : DEFAULT_LR_REGRESSION;
    }
  }

  /**
   * A completed training.
   *
   * @param validation the early-stopping file's evaluation of the final model when it is a
   *     separate {@code --validation} file, else null (then the heldout file stopped training)
   */
  record Outcome(
      FeaturizerSpec spec, Standardization standardization, Task task, String taskName,
      int classes, long trainRows, long heldoutRows, TrainingResult result, Evaluation heldout,
      double seconds, TrainingMemory memory, Evaluation validation) {

    ModelFile.Model model(double l2) {
      Map<String, String> training = new LinkedHashMap<>();
      training.put("epochs", Integer.toString(result.epochs()));
      training.put("halvings", Integer.toString(result.halvings()));
      training.put("stop_reason", result.stopReason().name());
      training.put("best_epoch", Integer.toString(result.bestEpoch()));
      training.put("rows", Long.toString(trainRows));
      training.put("heldout_metric", Double.toString(heldout.metric()));
      if (validation != null) {
        training.put("validation_metric", Double.toString(validation.metric()));
      }
      return new ModelFile.Model(spec, standardization, taskName, classes, l2, result.model(),
          training);
    }

    Map<String, Object> json() {
      Map<String, Object> o = Json.object();
      o.put("task", taskName);
      o.put("classes", classes);
      o.put("features", spec.features());
      o.put("bits", spec.bits());
      o.put("train_rows", trainRows);
      o.put("heldout_rows", heldoutRows);
      if (task == Task.REGRESSION) {
        o.put("heldout_mse", heldout.metric());
      } else {
        o.put("heldout_error_rate", heldout.metric());
        o.put("heldout_log_loss", heldout.meanLoss());
      }
      o.put("heldout_loss", heldout.meanLoss());
      o.put("early_stopping", validation == null ? "heldout" : "validation");
      if (validation != null) {
        o.put("validation_rows", validation.rows());
        o.put(task == Task.REGRESSION ? "validation_mse" : "validation_error_rate",
            validation.metric());
        o.put("validation_loss", validation.meanLoss());
      }
      o.put("epochs", result.epochs());
      o.put("halvings", result.halvings());
      o.put("best_epoch", result.bestEpoch());
      o.put("stop_reason", result.stopReason().name().toLowerCase(Locale.ROOT));
      o.put("final_lr", result.finalLearningRate());
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

  /** Trains; an IllegalArgumentException or IllegalStateException carries the message for users. */
  static Outcome run(Path trainFile, Path heldoutFile, Options options, PrintWriter progress)
      throws IOException {
    return run(trainFile, null, heldoutFile, options, progress);
  }

  /**
   * Trains, early-stopping on {@code validationFile} (featurized like the training file) when it
   * is not null, so that the heldout file is only evaluated at the end; else on the heldout file.
   */
  static Outcome run(Path trainFile, Path validationFile, Path heldoutFile, Options options,
      PrintWriter progress) throws IOException {
    try (ArrowBatches train = ArrowBatches.open(trainFile, Order.ROWS, options.classification());
        ArrowBatches heldout =
            ArrowBatches.open(heldoutFile, Order.SEQUENTIAL, options.classification());
        ArrowBatches validation = validationFile == null ? null
            : ArrowBatches.open(validationFile, Order.SEQUENTIAL, options.classification())) {
      FeaturizerSpec spec = train.spec();
      requireLike(heldout, "heldout", heldoutFile, spec, trainFile);
      checkLabels(trainFile, train.labelType(), options.classification());
      checkLabels(heldoutFile, heldout.labelType(), options.classification());
      if (validation != null) {
        requireLike(validation, "validation", validationFile, spec, trainFile);
        checkLabels(validationFile, validation.labelType(), options.classification());
      }
      ArrowBatches stopping = validation != null ? validation : heldout;
      String stopName = validation != null ? "validation" : "heldout";
      int classes = 1;
      Task task = Task.REGRESSION;
      String taskName = "regression";
      if (options.classification()) {
        int trainClasses;
        try (ArrowBatches scan = ArrowBatches.open(trainFile, Order.SEQUENTIAL, true)) {
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
      TrainingResult result = SgdTrainer.builder(task, spec.features())
          .batchSize(options.batch())
          .l2(options.l2())
          .seed(options.seed())
          .schedule(schedule)
          .listener(progress == null ? r -> {} : r -> printEpoch(progress, r, chosen, stopName))
          .build()
          .train(train, stopping);
      double seconds = (System.nanoTime() - start) / 1e9;
      if (result.diverged()) {
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
      return new Outcome(spec, standardization, task, taskName, classes, train.rows(),
          heldout.rows(), result, eval, seconds, memory, validationEval);
    }
  }

  private static void requireLike(
      ArrowBatches file, String role, Path path, FeaturizerSpec spec, Path trainFile) {
    try {
      file.schema().requireCompatible(spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(role + " " + path + " was not featurized like "
          + trainFile + ": " + e.getMessage(), e);
    }
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
  private static int maxClass(ArrowBatches source, Path file) {
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
