package org.lprff.cli.workflow;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lprff.arrow.model.FileTraining;
import org.lprff.arrow.model.FittedModel;
import org.lprff.cli.options.TrainingConfig;
import org.lprff.cli.output.Human;
import org.lprff.report.Json;
import org.lprff.vector.codec.LloydMaxCodebook;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.metrics.TrainingMemory;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.fullbatch.KitchenSinks;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.vector.train.model.TrainingResult;

/**
 * Training on feature files as {@code lprff train} and {@code lprff demo} say it: the library's
 * {@link FileTraining} does the work (files, checks, training, the model); this class turns its
 * result into the JSON summary and the one-line result.
 */
public final class Training {

  /**
   * A completed training: the library's result (model, report, validation and heldout metrics),
   * the training memory of its configuration and the heldout rows (0 without a heldout set).
   */
  public record Outcome(FileTraining.Result result, TrainingMemory memory) {

    public FittedModel model() {
      return result.model();
    }

    public FeaturizerSpec spec() {
      return model().spec();
    }

    public TrainingReport report() {
      return result.report();
    }

    /** The model's metrics on the heldout set, or null without one. */
    public Evaluation heldout() {
      return result.heldout();
    }

    /** The model's metrics on the validation file, or null without one. */
    public Evaluation validation() {
      return result.validation();
    }

    public Task task() {
      return report().task();
    }

    public Solver solver() {
      return report().solver();
    }

    public double seconds() {
      return report().seconds();
    }

    private TrainingResult solve() {
      return report().result();
    }

    private Double alphaBound() {
      return result.request().alphaBound();
    }

    /** The one-line result the train and demo commands print. */
    public String summary() {
      boolean solved = solver() == Solver.CLOSED_FORM;
      boolean iterative = solver().fullBatchIterative();
      Evaluation validation = validation();
      Evaluation heldout = heldout();
      String metric = heldout == null ? "no heldout set"
          : task() == Task.REGRESSION
              ? String.format(Locale.ROOT, "heldout MSE %.6g", heldout.metric())
              : solved // least-squares scores are not probabilities: no log-loss
                  ? String.format(Locale.ROOT, "heldout error rate %.4f", heldout.metric())
                  : String.format(Locale.ROOT, "heldout error rate %.4f, %s %.6g",
                      heldout.metric(), hinge() ? "hinge loss" : "log-loss",
                      heldout.meanLoss());
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
            metric, task().loss().name(), alphaBound(), weightBound(), solve().epochs(),
            report().passes(), solve().message(), Human.seconds(seconds()));
      }
      TrainingReport report = report();
      String chosen = report.l2Path().size() > 1 ? ", chosen on " + report.selectedOn() : "";
      if (solved) {
        return String.format(Locale.ROOT, "%s; solved in closed form (l2 %g%s), %s", metric,
            report.l2(), chosen, Human.seconds(seconds()));
      }
      if (iterative) {
        return String.format(Locale.ROOT, "%s; %s (l2 %g%s), %d iterations, %d passes, %s",
            metric, solver() == Solver.CG ? "conjugate gradients" : "L-BFGS", report.l2(),
            chosen, solve().epochs(), report.passes(), Human.seconds(seconds()));
      }
      return String.format(Locale.ROOT, "%s; lr %g%s, %d epochs, %d halvings, stopped: %s, %s",
          metric, report.learningRate(), report.probedRate() ? " (probed)" : "",
          solve().epochs(), solve().halvings(),
          solve().stopReason().name().toLowerCase(Locale.ROOT), Human.seconds(seconds()));
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
      return alphaBound() == null ? Double.NaN
          : KitchenSinks.weightBound(alphaBound(), spec().modelFeatures());
    }

    public Map<String, Object> json() {
      Task task = task();
      Solver solver = solver();
      TrainingReport report = report();
      FeaturizerSpec spec = spec();
      Evaluation heldout = heldout();
      Map<String, Object> o = Json.object();
      o.put("task", task.kind().id);
      o.put("classes", report.classes());
      o.put("features", spec.features());
      o.put("model_features", spec.modelFeatures());
      o.put("bits", spec.bits());
      // Per feature and row: what low precision adds to the Gram diagonal (an implicit ridge).
      o.put("rounding_variance", roundingVariance(spec));
      o.put("train_rows", report.trainRows());
      boolean probabilities = task != Task.REGRESSION && solver != Solver.CLOSED_FORM
          && !hinge();
      if (heldout != null) { // without a heldout set, no heldout figures
        o.put("heldout_rows", heldout.rows());
        o.put(task == Task.REGRESSION ? "heldout_mse" : "heldout_error_rate", heldout.metric());
        if (hinge()) {
          o.put("heldout_hinge_loss", heldout.meanLoss());
        }
        if (probabilities) {
          o.put("heldout_log_loss", heldout.meanLoss());
        }
        if (task == Task.REGRESSION || probabilities) {
          o.put("heldout_loss", heldout.meanLoss());
        }
      }
      if (solver == Solver.RKS) {
        o.put("loss", task.loss().name());
        o.put("alpha_bound", alphaBound());
        o.put("weight_bound", weightBound());
        o.put("stop_message", solve().message());
      }
      o.put("solver", solver.id);
      o.put("l2", report.l2());
      // rks has nothing to choose: its bound is given.
      o.put(!solver.miniBatch() ? "selected_on" : "early_stopping",
          solver == Solver.RKS ? null : report.selectedOn());
      if (solver == Solver.HALP) {
        o.put("model_bits", result.request().trainingModelBits());
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
      o.put("epochs", solve().epochs());
      o.put("passes", report.passes());
      o.put("halvings", solve().halvings());
      o.put("best_epoch", solve().bestEpoch());
      o.put("stop_reason", solve().stopReason().name().toLowerCase(Locale.ROOT));
      o.put("lr", solver.miniBatch() ? report.learningRate() : null);
      o.put("lr_probed", solver.miniBatch() ? report.probedRate() : null);
      o.put("final_lr", solver.miniBatch() ? solve().finalLearningRate() : null);
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
   * Trains on {@code trainFile} through the library's {@link FileTraining}; the choice of l2 (and
   * SGD's early stopping) uses {@code validationFile} when given, else a seeded split of the
   * training rows for the full-batch solvers and the heldout file (when there is one) for SGD's
   * early stopping (the LP-RFF paper's protocol); {@code heldoutFile}'s metrics (null: none) are
   * reported. An IllegalArgumentException or IllegalStateException carries the message for users.
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
    FileTraining.Result result = FileTraining.run(
        new FileTraining.Files(trainFile, validationFile, refitFile, heldoutFile),
        options::request, options.verify(), progress == null ? null : line -> {
          progress.println(line);
          progress.flush();
        });
    return outcome(result);
  }

  /** The outcome of a library result, with the training memory of its request. */
  public static Outcome outcome(FileTraining.Result result) {
    TrainingRequest request = result.request();
    FittedModel model = result.model();
    TrainingMemory memory = TrainingMemory.forSpec(model.spec(), request.batchRows(),
        model.task().outputs()).withModelBits(request.trainingModelBits());
    return new Outcome(result, memory);
  }
}
