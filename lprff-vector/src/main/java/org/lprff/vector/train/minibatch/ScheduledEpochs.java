package org.lprff.vector.train.minibatch;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.model.EpochRecord;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingListener;
import org.lprff.vector.train.model.TrainingResult;
import org.lprff.vector.train.model.WorkingModel;

/**
 * The epoch loop the mini-batch solvers share ({@link SgdSolver}, {@link HalpSolver}): the
 * schedule's rate (decaying per epoch, halved by early stopping), the heldout evaluation after
 * each epoch, the kept model (early stopping: the best so far, an epoch that makes it worse
 * reverted; otherwise the last epoch's), the epoch records, the stop, and a divergence reported
 * with the last good model. A solver supplies one epoch of steps ({@link #runEpoch}) and, through
 * the hooks, what else happens between epochs.
 */
abstract class ScheduledEpochs {
  final Schedule schedule;
  final Loss loss;
  final int features;
  final int batchSize;
  final MiniBatchSource heldout;
  final TrainingListener listener;
  final LongSupplier clock;
  /** The model before the first epoch, returned if the first epoch diverges. */
  final LinearModel initial;
  final WorkingModel model;
  /** Early stopping: the best weights; otherwise the weights after the last completed epoch. */
  final WorkingModel kept;
  /** Scores of a batch, batchSize x c: the heldout evaluation's scratch too. */
  final float[] scores;
  final List<EpochRecord> history = new ArrayList<>();
  double rate;
  int halvings;
  int keptEpoch = -1;
  double keptLoss = Double.NaN;
  /** Fixed and decaying schedules: the lowest heldout loss so far (for the records). */
  double bestSeen = Double.NaN;
  long steps;
  /** Of the current epoch: summed batch losses x rows, rows, steps, and the last step begun. */
  double epochLoss;
  long epochRows;
  int epochSteps;
  int lastStep;

  ScheduledEpochs(Schedule schedule, Loss loss, int features, int batchSize,
      MiniBatchSource heldout, TrainingListener listener, LongSupplier clock,
      LinearModel initial, float[] scores) {
    this.schedule = schedule;
    this.loss = loss;
    this.features = features;
    this.batchSize = batchSize;
    this.heldout = heldout;
    this.listener = listener;
    this.clock = clock;
    this.initial = initial;
    this.model = initial.toWorking();
    this.kept = model.copy();
    this.scores = scores;
    this.rate = schedule.learningRate();
  }

  /** One pass over the training batches at {@link #rate}; null, or what went non-finite. */
  abstract String runEpoch(int epoch);

  /** Before an epoch's steps (after the rate is set); null, or what went non-finite. */
  String beforeEpoch(int epoch) {
    return null;
  }

  /** After an epoch's steps, before the heldout evaluation. */
  void afterEpoch(int epoch) {}

  /** Early stopping put the best weights back into the model. */
  void reverted() {}

  /** Early stopping halved the rate. */
  void halved() {}

  /** What the stop message adds, e.g. "; 12 re-centerings" (default nothing). */
  String summary() {
    return "";
  }

  final Evaluation evaluate() {
    return Evaluation.evaluate(
        model.weightsT(), model.bias(), features, loss, heldout, batchSize, scores);
  }

  final TrainingResult execute() {
    if (schedule instanceof Schedule.EarlyStopping) {
      // The initial model is the first "best": an epoch that makes it worse is reverted.
      keptLoss = evaluate().meanLoss();
    }
    for (int epoch = 0; epoch < schedule.maxEpochs(); epoch++) {
      if (schedule instanceof Schedule.Decaying decaying) {
        rate = decaying.rate(epoch);
      }
      long start = clock.getAsLong();
      String problem = beforeEpoch(epoch);
      if (problem == null) {
        problem = runEpoch(epoch);
      }
      if (problem != null) {
        return diverged(epoch, problem);
      }
      afterEpoch(epoch);
      double trainLoss = epochLoss / epochRows;
      double heldoutLoss = Double.NaN;
      double heldoutMetric = Double.NaN;
      if (heldout != null) {
        Evaluation e = evaluate();
        heldoutLoss = e.meanLoss();
        heldoutMetric = e.metric();
        if (!Double.isFinite(heldoutLoss)) {
          lastStep = epochSteps - 1;
          return diverged(epoch, "the heldout loss is " + heldoutLoss);
        }
      }
      double usedRate = rate;
      boolean improved;
      boolean halvedNow = false;
      if (schedule instanceof Schedule.EarlyStopping es) {
        improved = heldoutLoss <= keptLoss;
        if (improved) {
          kept.copyFrom(model);
        } else {
          model.copyFrom(kept); // back to the best weights
          reverted();
        }
        if (heldoutLoss > es.threshold() * keptLoss) {
          rate /= 2;
          halvings++;
          halvedNow = true;
          halved();
        }
        if (improved) {
          keptLoss = heldoutLoss;
          keptEpoch = epoch;
        }
      } else {
        improved = heldout != null && (keptEpoch < 0 || heldoutLoss <= bestSeen);
        if (heldout != null) {
          bestSeen = keptEpoch < 0 ? heldoutLoss : Math.min(bestSeen, heldoutLoss);
        }
        kept.copyFrom(model);
        keptEpoch = epoch;
        keptLoss = heldoutLoss;
      }
      double seconds = (clock.getAsLong() - start) / 1e9;
      EpochRecord record = new EpochRecord(
          epoch, trainLoss, heldoutLoss, heldoutMetric, usedRate, seconds, improved, halvedNow);
      history.add(record);
      listener.onEpoch(record);
      if (schedule instanceof Schedule.EarlyStopping es && halvings >= es.maxHalvings()) {
        return result(StopReason.CONVERGED, epoch + 1,
            "converged: " + halvings + " learning-rate halvings after " + (epoch + 1)
                + " epochs; best heldout loss " + keptLoss + " in epoch " + keptEpoch
                + " (0-based)" + summary());
      }
    }
    return result(StopReason.EPOCH_CAP, schedule.maxEpochs(),
        "ran the schedule's " + schedule.maxEpochs() + " epochs"
            + (schedule instanceof Schedule.EarlyStopping
                ? "; best heldout loss " + keptLoss + " in epoch " + keptEpoch + " (0-based), "
                    + halvings + " halvings"
                : "")
            + summary());
  }

  final TrainingResult diverged(int epoch, String problem) {
    String keptName = keptEpoch < 0 ? "the initial model"
        : (schedule instanceof Schedule.EarlyStopping ? "the best model, of epoch "
            : "the model after epoch ") + keptEpoch;
    String message = "training diverged in epoch " + epoch + " (0-based), step " + lastStep
        + " of the epoch, learning rate " + rate + ": " + problem + "; the learning rate is"
        + " probably too large. Returning " + keptName + ".";
    LinearModel good = keptEpoch < 0 ? initial : kept.snapshot();
    return new TrainingResult(good, StopReason.DIVERGED, message, epoch + 1, steps, halvings,
        keptEpoch, keptLoss, rate, history);
  }

  final TrainingResult result(StopReason reason, int epochs, String message) {
    return new TrainingResult(kept.snapshot(), reason, message, epochs, steps, halvings,
        keptEpoch, keptLoss, rate, history);
  }
}
