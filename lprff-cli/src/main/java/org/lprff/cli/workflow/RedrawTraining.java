package org.lprff.cli.workflow;

import org.lprff.arrow.input.RowTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.arrow.model.FileTraining;
import org.lprff.arrow.model.FittedModel;
import org.lprff.arrow.input.Standardization;
import org.lprff.cli.options.RedrawOptions;
import org.lprff.cli.options.TrainingConfig;
import org.lprff.cli.options.UsageException;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.OnTheFlyBatches;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.Evaluation;

/**
 * {@code train --redraw}: raw rows read whole (as {@code compare} reads them, {@link
 * CompareData}), standardized with the training statistics, and trained by SGD on the library's
 * {@link OnTheFlyBatches}: every mini-batch featurized when it is needed, epoch e with rounding
 * draw e, training row i with row id i (so epoch 0's bytes are {@code featurize}'s of the same
 * file). The heldout and validation rows are featurized on the fly too, in order, at the spec's
 * {@link FeaturizerSpec#scoringSpec()} (full precision for stochastic rounding): nothing of n x
 * m is stored anywhere. The outcome is {@link Training}'s, so the model file, JSON and summary
 * line are train's, with {@code rounding_draws=epoch} among the model's training keys.
 */
public final class RedrawTraining {

  /** The model file's training key saying how the rounding was drawn. */
  public static final String KEY_DRAWS = "rounding_draws";

  private RedrawTraining() {}

  /**
   * Trains on the raw rows of {@code trainFile}; {@code validationFile} (or null) and {@code
   * heldoutFile} are raw rows with the same columns. An IllegalArgumentException carries the
   * message for users.
   */
  public static Training.Outcome run(Path trainFile, Path validationFile, Path heldoutFile,
      RedrawOptions redraw, TrainingConfig options, PrintWriter progress) throws IOException {
    if (options.solver() != Solver.SGD) {
      throw new UsageException("--redraw featurizes each SGD mini-batch when it is needed, but"
          + " --solver " + options.solver().id + " reads every row at each pass (a full-batch"
          + " solver): use --solver sgd, or featurize once (lprff featurize) and train on the"
          + " feature file");
    }
    Prepared p = prepare(trainFile, validationFile, heldoutFile, redraw,
        options.classification(), options.seed());
    FeaturizerSpec spec = p.spec();
    TrainingRequest request = options.request(spec.modelFeatures());
    OnTheFlyBatches heldoutSource = p.heldout();
    Trainer.Data heldoutData = heldoutSource == null ? null
        : new Trainer.Data("heldout", heldoutFile.toString(), heldoutSource);
    // SGD stops early on the validation rows, else on the heldout rows (the paper's protocol),
    // else on a seeded split of the training rows.
    Trainer.Data validationData = p.validation() != null
        ? new Trainer.Data("validation", validationFile.toString(), p.validation())
        : heldoutData;
    Trainer.Data trainData = new Trainer.Data("train", trainFile.toString(), p.train());
    TrainingReport report = Trainer.run(request, trainData, validationData, null, heldoutData,
        progress == null ? null : line -> {
          progress.println(line);
          progress.flush();
        });
    Evaluation heldout = heldoutSource == null ? null
        : Evaluation.of(report.model(), report.task(), heldoutSource, 1000);
    Evaluation validation = p.validation() != null ? report.validation() : null;
    // Epoch e rounded with draw e: the model says so among its training keys.
    FittedModel model = FittedModel.of(spec, p.standardization(), request, report, validation,
        heldout).withTraining(Map.of(KEY_DRAWS, "epoch"));
    return Training.outcome(
        new FileTraining.Result(model, request, report, validation, heldout));
  }

  /**
   * The rows of a --redraw training as sources: {@code train} shuffled, epoch e at draw e;
   * {@code heldout} and {@code validation} (each null without its file) in order at the scoring
   * spec.
   */
  public record Prepared(FeaturizerSpec spec, Standardization standardization,
      OnTheFlyBatches train, OnTheFlyBatches heldout, OnTheFlyBatches validation) {}

  /**
   * Reads, checks and standardizes the raw rows and builds the feature map and the sources,
   * featurizing nothing yet.
   */
  public static Prepared prepare(Path trainFile, Path validationFile, Path heldoutFile,
      RedrawOptions redraw, boolean classification, long seed) throws IOException {
    RowTable train;
    RowTable heldout = null;
    RowTable validation = null;
    String format = redraw.format == null ? "auto" : redraw.format;
    try (BufferAllocator allocator = new RootAllocator()) {
      train = CompareData.read(trainFile, format, redraw.labelColumn, null, "--idx-labels",
          allocator);
      if (heldoutFile != null) {
        heldout = CompareData.read(heldoutFile, format, redraw.labelColumn, null,
            "--idx-labels", allocator);
        CompareData.requireSameColumns(train, trainFile, heldout, heldoutFile);
      }
      if (validationFile != null) {
        validation = CompareData.read(validationFile, format, redraw.labelColumn, null,
            "--idx-labels", allocator);
        CompareData.requireSameColumns(train, trainFile, validation, validationFile);
      }
    }
    if (redraw.logLabel.enabled) {
      if (classification) {
        throw new UsageException("--log-label transforms regression labels; drop it for"
            + " --task classification");
      }
      CompareData.logLabels(train, "train");
      if (heldout != null) {
        CompareData.logLabels(heldout, "heldout");
      }
      if (validation != null) {
        CompareData.logLabels(validation, "validation");
      }
    }
    Standardization standardization = null;
    if (redraw.standardizes()) {
      standardization = CompareData.standardize(train, heldout, validation);
    }
    FeaturizerSpec spec = redraw.spec(train.d(), seed);
    if (!spec.quantizer().randomized() || spec.isFloat()) {
      throw new UsageException("--redraw draws fresh roundings each epoch, but "
          + (spec.isFloat() ? "--bits 32 rounds nothing"
              : "quantizer " + spec.quantizer().spelling() + " gives the same codes at every"
                  + " draw")
          + ": every epoch would see the same features; featurize once (lprff featurize) and"
          + " train on the feature file");
    }
    Featurizer featurizer = Featurizer.of(spec);
    Featurizer scoring = Featurizer.of(spec.scoringSpec());
    ForkJoinPool pool = ForkJoinPool.commonPool();
    OnTheFlyBatches trainSource =
        source(featurizer, train, "train", classification).withExecutor(pool);
    OnTheFlyBatches heldoutSource = heldout == null ? null
        : source(scoring, heldout, "heldout", classification).ordered().withExecutor(pool);
    OnTheFlyBatches validationSource = validation == null ? null
        : source(scoring, validation, "validation", classification).ordered()
            .withExecutor(pool);
    return new Prepared(spec, standardization, trainSource, heldoutSource, validationSource);
  }

  private static OnTheFlyBatches source(
      Featurizer featurizer, RowTable rows, String set, boolean classification) {
    if (!classification) {
      return OnTheFlyBatches.of(featurizer, rows.x(), rows.n(), rows.y());
    }
    CompareData.classes(rows, set); // class indices, or a message naming the set
    return OnTheFlyBatches.of(featurizer, rows.x(), rows.n(), rows.classes());
  }
}
