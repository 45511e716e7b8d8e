package org.lprff.arrow.model;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.lprff.arrow.ChecksumPass;
import org.lprff.arrow.FeatureFileBatches;
import org.lprff.arrow.FeatureFileBatches.Order;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.Standardization;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;

/**
 * Training on feature files, the workflow of {@code lprff train} and {@code demo}: opens the
 * files, checks their checksums, that they were featurized alike and carry labels of the task,
 * hands them to {@link Trainer}, scores the model on the heldout file when there is one, and
 * builds the {@link FittedModel} (with the training file's standardization).
 */
public final class FileTraining {

  /**
   * The feature files of one training.
   *
   * @param train the training rows
   * @param validation rows that choose l2 (and stop SGD early), or null for a seeded split of the
   *     training rows (SGD: the heldout file, the LP-RFF paper's protocol, when there is one)
   * @param refit rows the closed form adds to the training rows once l2 is chosen (e.g. the
   *     validation rows at the training bits while {@code validation} holds them at full
   *     precision), or null
   * @param heldout rows the model is scored on, never chosen on, or null
   */
  public record Files(Path train, Path validation, Path refit, Path heldout) {
    public Files {
      if (train == null) {
        throw new IllegalArgumentException("train is null");
      }
    }
  }

  /**
   * A finished training: the model, the request it was trained by, the library's report, and the
   * model's metrics on the validation file (null without one) and on the heldout file (null
   * without one).
   */
  public record Result(FittedModel model, TrainingRequest request, TrainingReport report,
      Evaluation validation, Evaluation heldout) {}

  /** Rows per batch of the evaluations. */
  private static final int EVALUATION_BATCH = 1000;

  private FileTraining() {}

  /**
   * Trains on {@code files}.
   *
   * @param request the request for m = the training file's model features (its spec fixes m)
   * @param verify check every file's record batches against their CRC32C first
   * @param progress a line per step worth telling, or null
   * @throws IllegalArgumentException if the files do not fit each other or the request (naming
   *     the file and both values)
   * @throws IllegalStateException if the training diverged (no model is made)
   */
  public static Result run(Files files, IntFunction<TrainingRequest> request, boolean verify,
      Consumer<String> progress) throws IOException {
    Path trainFile = files.train();
    // A first look at the training file's spec fixes m, and so the request and its row order.
    TrainingRequest r;
    try (FeatureFileBatches peek = FeatureFileBatches.mapped(trainFile, Order.SEQUENTIAL,
        false)) {
      r = request.apply(peek.spec().modelFeatures());
    }
    // SGD reads its shuffled mini-batches in place (blocks of a record batch in a seeded
    // order); the full-batch solvers read every row, in file order.
    Order order = r.solver().shufflesRows() ? Order.BLOCKS : Order.SEQUENTIAL;
    boolean classification = r.classification();
    Path refitFile = r.solver() == Solver.CLOSED_FORM ? files.refit() : null;
    try (FeatureFileBatches train = FeatureFileBatches.mapped(trainFile, order, classification);
        FeatureFileBatches heldout = open(files.heldout(), classification);
        FeatureFileBatches validation = open(files.validation(), classification);
        FeatureFileBatches refit = open(refitFile, classification)) {
      try {
        return run(files, refitFile, train, validation, refit, heldout, r, verify, progress);
      } catch (RuntimeException | Error e) {
        // A file truncated or rewritten under its mapping faults on the next read.
        FeatureFileBatches.throwIfChanged(e, train, heldout, validation, refit);
        throw e;
      }
    }
  }

  private static FeatureFileBatches open(Path file, boolean classification) throws IOException {
    return file == null ? null : FeatureFileBatches.mapped(file, Order.SEQUENTIAL, classification);
  }

  private static Result run(Files files, Path refitFile, FeatureFileBatches train,
      FeatureFileBatches validation, FeatureFileBatches refit, FeatureFileBatches heldout,
      TrainingRequest request, boolean verify, Consumer<String> progress) throws IOException {
    boolean classification = request.classification();
    Path trainFile = files.train();
    FeaturizerSpec spec = train.spec();
    if (verify) {
      String verified = ChecksumPass.verify(train, validation, refit, heldout);
      if (progress != null) {
        progress.accept(verified);
      }
    }
    checkLabels(trainFile, train.labelType(), classification);
    if (heldout != null) {
      requireLike(heldout, files.heldout(), "heldout", spec, trainFile, classification);
    }
    if (validation != null) {
      requireLike(validation, files.validation(), "validation", spec, trainFile,
          classification);
    }
    if (refit != null) {
      requireLike(refit, refitFile, "refit", spec, trainFile, classification);
    }
    Trainer.Data heldoutData = heldout == null ? null
        : new Trainer.Data("heldout", files.heldout().toString(), heldout);
    // Without a validation file SGD stops early on the heldout file, as the paper does (or on a
    // seeded split of the training rows without one); the full-batch solvers choose l2 on a
    // split of the training rows and never read the heldout file.
    Trainer.Data validationData = validation != null
        ? new Trainer.Data("validation", files.validation().toString(), validation)
        : request.solver().miniBatch() ? heldoutData : null;
    Trainer.Data trainData = new Trainer.Data("train", trainFile.toString(), train);
    Trainer.Data refitData =
        refit == null ? null : new Trainer.Data("validation", refitFile.toString(), refit);
    // The heldout rows are scored rows: their labels are checked before the training.
    TrainingReport report =
        Trainer.run(request, trainData, validationData, refitData, heldoutData, progress);
    FittedModel.requireConverged(report);
    Evaluation heldoutEval = heldout == null ? null
        : Evaluation.of(report.model(), report.task(), heldout, EVALUATION_BATCH);
    Map<String, String> meta = train.schema().metadata();
    Standardization standardization =
        meta.containsKey(Standardization.KEY_MEAN) ? Standardization.fromMap(meta) : null;
    Evaluation validationEval = validation != null ? report.validation() : null;
    FittedModel model = FittedModel.of(spec, standardization, request, report, validationEval,
        heldoutEval);
    return new Result(model, request, report, validationEval, heldoutEval);
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

  /** Refuses a file without labels, or with class labels for regression (naming the fix). */
  public static void checkLabels(Path file, LabelType type, boolean classification) {
    if (type == LabelType.NONE) {
      throw new IllegalArgumentException(file + " has no label column; training needs labels");
    }
    if (!classification && type == LabelType.CLASSES) {
      throw new IllegalArgumentException(file + " has Int32 class labels, but --task is"
          + " regression (which needs Float32 labels); use --task classification");
    }
  }
}
