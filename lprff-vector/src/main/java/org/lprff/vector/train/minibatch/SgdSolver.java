package org.lprff.vector.train.minibatch;

import java.util.Arrays;
import java.util.function.LongSupplier;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingListener;
import org.lprff.vector.train.model.TrainingResult;

/**
 * Mini-batch SGD on the objective of this package ({@code J = mean loss + (lambda/2) ||W||^2},
 * bias not regularized), with the batches' features fed straight into the packed (or float32)
 * product kernels.
 *
 * <p>One step on a batch of n rows Z with labels: {@code Y = Z W + b} ({@link
 * FeatureRows#forward}); {@code D = dL/dY}, the gradient of the batch's mean loss ({@link Loss},
 * 1/n included); {@code G = Z^T D} ({@link FeatureRows#accumulateTransposed}); then {@code W -= lr
 * (G + lambda W)} and {@code b -= lr sum_r D_r}, in float32. Weights start at zero (or at a given
 * model). The scratch (scores and D, batchSize x c; G, m x c) is allocated once per solver.
 *
 * <p><b>Determinism.</b> Everything is a pure function of (sources, seed, settings): the shuffling
 * of each epoch comes from (seed, epoch) via the source, the kernels are deterministic, and the
 * updates run on one thread. Same inputs, same weights, bit for bit.
 *
 * <p><b>Divergence.</b> A non-finite mini-batch loss, non-finite weights after an epoch, or a
 * non-finite heldout loss stops training with {@link StopReason#DIVERGED} and a message naming the
 * epoch, step and learning rate; the result then holds the last good model (the best for early
 * stopping, else the weights after the last completed epoch, else the initial model), never a
 * NaN model. The caller decides what to do.
 *
 * <p>Not thread-safe in the sense that {@link #train} calls are serialized (it is synchronized);
 * build one solver per thread to train in parallel.
 */
public final class SgdSolver {

  public static final int DEFAULT_BATCH_SIZE = 250;

  private final Task task;
  private final Loss loss;
  private final int features;
  private final int outputs;
  private final int batchSize;
  private final double l2;
  private final long seed;
  private final Schedule schedule;
  private final TrainingListener listener;
  private final LongSupplier clock;

  private final float[] scores;
  private final float[] gradient;
  private final float[] gT;

  private SgdSolver(Builder b) {
    this.task = b.task;
    this.loss = b.task.loss();
    this.features = b.features;
    this.outputs = b.task.outputs();
    this.batchSize = b.batchSize;
    this.l2 = b.l2;
    this.seed = b.seed;
    this.schedule = b.schedule;
    this.listener = b.listener;
    this.clock = b.clock;
    int batchFloats = b.batchFloats();
    this.scores = new float[batchFloats];
    this.gradient = new float[batchFloats];
    this.gT = new float[features * outputs];
  }

  /** A builder for a model of {@code task} on {@code features} features. */
  public static Builder builder(Task task, int features) {
    return new Builder(task, features);
  }

  public Task task() {
    return task;
  }

  public int features() {
    return features;
  }

  public int batchSize() {
    return batchSize;
  }

  public double l2() {
    return l2;
  }

  public long seed() {
    return seed;
  }

  public Schedule schedule() {
    return schedule;
  }

  /** Trains from zero weights; {@code heldout} may be null unless the schedule stops early. */
  public TrainingResult train(MiniBatchSource train, MiniBatchSource heldout) {
    return train(train, heldout, LinearModel.zeros(features, outputs));
  }

  /**
   * Trains from {@code initial}.
   *
   * @throws IllegalArgumentException if a source or the initial model does not fit this solver,
   *     early stopping has no heldout source, a source has no rows, or a label is invalid (the
   *     message names the epoch, step, row and value)
   */
  public synchronized TrainingResult train(
      MiniBatchSource train, MiniBatchSource heldout, LinearModel initial) {
    if (train == null) {
      throw new IllegalArgumentException("train source is null");
    }
    if (initial == null) {
      throw new IllegalArgumentException("initial model is null");
    }
    Evaluation.checkFeatures("train source", train.features(), features);
    if (heldout != null) {
      Evaluation.checkFeatures("heldout source", heldout.features(), features);
    }
    if (initial.features() != features || initial.outputs() != outputs) {
      throw new IllegalArgumentException(
          "initial model is " + initial.features() + " x " + initial.outputs() + ", expected "
              + features + " features x " + outputs + " outputs");
    }
    boolean early = schedule instanceof Schedule.EarlyStopping;
    if (early && heldout == null) {
      throw new IllegalArgumentException("early stopping needs a heldout source, got null");
    }
    Run run = new Run(train, heldout, initial);
    return run.execute();
  }

  /** The state of one {@link #train} call. */
  private final class Run extends ScheduledEpochs {
    final MiniBatchSource train;

    Run(MiniBatchSource train, MiniBatchSource heldout, LinearModel initial) {
      super(SgdSolver.this.schedule, SgdSolver.this.loss, SgdSolver.this.features,
          SgdSolver.this.batchSize, heldout, SgdSolver.this.listener, SgdSolver.this.clock,
          initial, SgdSolver.this.scores);
      this.train = train;
    }

    @Override
    String runEpoch(int epoch) {
      epochLoss = 0;
      epochRows = 0;
      epochSteps = 0;
      float[] wT = model.weightsT();
      float[] bias = model.bias();
      float step = (float) rate;
      float decay = (float) l2;
      int c = outputs;
      int m = features;
      try (MiniBatchSource.Batches batches = train.epoch(epoch, batchSize, seed)) {
        while (batches.hasNext()) {
          MiniBatch batch = batches.next();
          int n = batch.rows();
          if (n == 0) {
            continue;
          }
          batch.checkFits(m, batchSize, "train");
          try {
            loss.checkLabels(n, batch.targets(), batch.classes(), batch.rowIds());
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                "epoch " + epoch + " (0-based), step " + epochSteps + ": " + e.getMessage(), e);
          }
          FeatureRows z = batch.features();
          z.forward(wT, c, scores);
          LinearModel.addBias(bias, n, c, scores);
          double batchLoss = loss.compute(scores, n, batch.targets(), batch.classes(), gradient);
          lastStep = epochSteps;
          if (!Double.isFinite(batchLoss)) {
            return "the mini-batch's mean loss is " + batchLoss;
          }
          Arrays.fill(gT, 0f);
          z.accumulateTransposed(gradient, c, gT);
          for (int k = 0; k < wT.length; k++) {
            wT[k] -= step * (gT[k] + decay * wT[k]);
          }
          for (int j = 0; j < c; j++) {
            double sum = 0;
            for (int r = 0; r < n; r++) {
              sum += gradient[r * c + j];
            }
            bias[j] -= step * (float) sum;
          }
          epochLoss += batchLoss * n;
          epochRows += n;
          epochSteps++;
          steps++;
        }
      }
      if (epochRows == 0) {
        throw new IllegalArgumentException("the train source has no rows in epoch " + epoch);
      }
      if (!model.isFinite()) {
        return "a weight or bias became non-finite";
      }
      return null;
    }
  }

  /** Settings of a solver; every setter validates its value. */
  public static final class Builder extends MiniBatchSettings<Builder> {
    private Builder(Task task, int features) {
      super(task, features);
    }

    @Override
    Builder self() {
      return this;
    }

    public SgdSolver build() {
      requireSchedule();
      return new SgdSolver(this);
    }
  }
}
