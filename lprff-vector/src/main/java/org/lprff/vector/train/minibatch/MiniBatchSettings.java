package org.lprff.vector.train.minibatch;

import java.util.function.LongSupplier;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.EpochRecord;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.TrainingListener;

/**
 * The settings the mini-batch solvers' builders share ({@link SgdSolver.Builder}, {@link
 * HalpSolver.Builder}): the task and m, batch rows, l2, seed, schedule, listener and clock; every
 * setter validates its value. {@code B} is the builder itself, so a chain of calls keeps its own
 * setters.
 */
public abstract sealed class MiniBatchSettings<B extends MiniBatchSettings<B>>
    permits SgdSolver.Builder, HalpSolver.Builder {
  final Task task;
  final int features;
  int batchSize = SgdSolver.DEFAULT_BATCH_SIZE;
  double l2;
  long seed;
  Schedule schedule;
  TrainingListener listener = TrainingListener.NONE;
  LongSupplier clock = System::nanoTime;

  MiniBatchSettings(Task task, int features) {
    if (task == null) {
      throw new IllegalArgumentException("task is null");
    }
    LinearModel.checkShape(features, task.outputs());
    this.task = task;
    this.features = features;
  }

  abstract B self();

  /** Rows per mini-batch, >= 1 (default 250). */
  public B batchSize(int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize is " + batchSize + ", expected >= 1");
    }
    this.batchSize = batchSize;
    return self();
  }

  /** The L2 strength lambda of {@code (lambda/2) ||W||^2}, finite and >= 0 (default 0). */
  public B l2(double lambda) {
    if (!(lambda >= 0) || Double.isInfinite(lambda)) {
      throw new IllegalArgumentException(
          "l2 (lambda) is " + lambda + ", expected a finite value >= 0");
    }
    this.l2 = lambda;
    return self();
  }

  /** The seed of the sources' shuffling (and of LM-HALP's rounding draws; default 0). */
  public B seed(long seed) {
    this.seed = seed;
    return self();
  }

  /** The learning-rate schedule (required). */
  public B schedule(Schedule schedule) {
    if (schedule == null) {
      throw new IllegalArgumentException("schedule is null");
    }
    this.schedule = schedule;
    return self();
  }

  public B listener(TrainingListener listener) {
    if (listener == null) {
      throw new IllegalArgumentException("listener is null");
    }
    this.listener = listener;
    return self();
  }

  /** The clock of {@link EpochRecord#seconds()}, in nanoseconds (default System::nanoTime). */
  public B clock(LongSupplier nanos) {
    if (nanos == null) {
      throw new IllegalArgumentException("clock is null");
    }
    this.clock = nanos;
    return self();
  }

  /** batchSize x outputs, the floats of a batch's scores; refuses more than an array holds. */
  final int batchFloats() {
    long floats = (long) batchSize * task.outputs();
    if (floats > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("batchSize * outputs = " + batchSize + " * "
          + task.outputs() + " exceeds the largest array");
    }
    return (int) floats;
  }

  /** Refuses to build without a schedule, naming the three. */
  final void requireSchedule() {
    if (schedule == null) {
      throw new IllegalArgumentException(
          "no schedule: call schedule(Schedule.fixed(...)), decaying(...) or earlyStopping(...)");
    }
  }
}
