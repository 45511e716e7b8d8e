package org.lprff.vector.train.model;

import java.util.concurrent.Executor;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.Task;

/**
 * A model's quality on a data set: the mean per-row loss of its task (without the L2 term) and the
 * task's metric, the mean squared error {@code mean (y - t)^2} for regression (twice the mean
 * squared loss) or the error rate for classification.
 *
 * @param meanLoss mean per-row loss
 * @param metric MSE or error rate
 * @param rows rows evaluated
 */
public record Evaluation(double meanLoss, double metric, long rows) {

  /**
   * Evaluates {@code model} on epoch 0 of {@code source} in batches of {@code batchSize} rows.
   *
   * @throws IllegalArgumentException if the model does not fit the task or source, or a label is
   *     invalid (naming row and value)
   */
  public static Evaluation of(LinearModel model, Task task, MiniBatchSource source, int batchSize) {
    return of(model, task, source == null ? null : Partitions.of(source), batchSize);
  }

  /**
   * Evaluates {@code model} on rows held in parts (one local source, or a cluster's partitions:
   * a pass per part, the sums added).
   *
   * @throws IllegalArgumentException as {@link #of(LinearModel, Task, MiniBatchSource, int)}
   */
  public static Evaluation of(LinearModel model, Task task, Partitions rows, int batchSize) {
    if (model == null || task == null || rows == null) {
      throw new IllegalArgumentException(
          (model == null ? "model" : task == null ? "task" : "source") + " is null");
    }
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize is " + batchSize + ", expected >= 1");
    }
    if (model.outputs() != task.outputs()) {
      throw new IllegalArgumentException(
          "model has " + model.outputs() + " outputs, task " + task + " has " + task.outputs());
    }
    checkFeatures("source", rows.features(), model.features());
    return rows.sum(new Pass(model.weightsT(), model.bias(), model.features(), task, batchSize),
        null).mean();
  }

  /** A pass's sums: loss and metric summed over its rows. */
  record Sums(double loss, double metric, long rows) implements java.io.Serializable {

    /** The means, refusing an empty set of rows. */
    Evaluation mean() {
      if (rows == 0) {
        throw new IllegalArgumentException("the evaluation source has no rows");
      }
      return new Evaluation(loss / rows, metric / rows, rows);
    }
  }

  /** The evaluation pass over one part. */
  private record Pass(float[] wT, float[] bias, int m, Task task, int batchSize)
      implements Partitions.Pass<Sums> {

    @Override
    public Sums over(MiniBatchSource part, Executor helpers) {
      float[] scores = new float[Math.multiplyExact(batchSize, task.outputs())];
      return sums(wT, bias, m, task.loss(), part, batchSize, scores);
    }

    @Override
    public Sums plus(Sums a, Sums b) {
      return new Sums(a.loss() + b.loss(), a.metric() + b.metric(), a.rows() + b.rows());
    }
  }

  /** The loop of {@link #of}, with the caller's weights and scratch (batchSize * c floats). */
  public static Evaluation evaluate(
      float[] wT, float[] bias, int m, Loss loss, MiniBatchSource source, int batchSize,
      float[] scores) {
    return sums(wT, bias, m, loss, source, batchSize, scores).mean();
  }

  private static Sums sums(
      float[] wT, float[] bias, int m, Loss loss, MiniBatchSource source, int batchSize,
      float[] scores) {
    int c = loss.outputs();
    double lossSum = 0;
    double metricSum = 0;
    long rows = 0;
    try (MiniBatchSource.Batches batches = source.epoch(0, batchSize, 0)) {
      while (batches.hasNext()) {
        MiniBatch batch = batches.next();
        int n = batch.rows();
        if (n == 0) {
          continue;
        }
        batch.checkFits(m, batchSize, "heldout");
        loss.checkLabels(n, batch.targets(), batch.classes(), batch.rowIds());
        batch.features().forward(wT, c, scores);
        LinearModel.addBias(bias, n, c, scores);
        lossSum += n * loss.compute(scores, n, batch.targets(), batch.classes(), null);
        metricSum += loss.metricSum(scores, n, batch.targets(), batch.classes());
        rows += n;
      }
    }
    return new Sums(lossSum, metricSum, rows);
  }

  /** Refuses a source ({@code name}) whose features are not the model's, naming both. */
  public static void checkFeatures(String name, int features, int expected) {
    if (features != expected) {
      throw new IllegalArgumentException(
          name + " has " + features + " features, the model has " + expected);
    }
  }
}
