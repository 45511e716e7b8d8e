package org.lprff.vector.train.fullbatch;

import java.util.concurrent.Executor;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.LinearModel;

/**
 * This package's objective over every row of a source, as a function of the flat parameters
 * {@code x = (wT, bias)} (c m class-major weights, then c biases):
 *
 * <pre>  J(x) = (1/n) sum_r loss(z_r W + b, label_r) + (lambda/2) ||W||^2</pre>
 *
 * and its gradient, in one pass ({@link LossGradient}, run on every part of the rows and
 * added): each block of a chunk of a mini-batch's rows is read by the forward product and at
 * once by the transposed accumulate, while it is in L1, and never decoded to floats; the chunks
 * run over cores ({@link ChunkedProducts}). Partial sums are added in double, in a part's order
 * for (epoch 0, batch size, seed 0) and chunk order, the same on every pass and for any thread
 * count, so on one local part a given x always gives the same J and gradient, bit for bit (a
 * cluster adds its parts' sums in the order they arrive). Memory: per chunk of a window of
 * batches, a c m partial, whatever n.
 */
final class FullBatchObjective {

  private final Partitions rows;
  private final Task task;
  private final int features;
  private final int outputs;
  private final double l2;
  private final int batchSize;
  private final Executor executor;
  private long passes;

  /** @param executor helper threads of the products (null: the calling thread alone) */
  FullBatchObjective(Partitions rows, Task task, int features, double l2, int batchSize,
      Executor executor) {
    this.rows = rows;
    this.task = task;
    this.features = features;
    this.outputs = task.outputs();
    this.l2 = l2;
    this.batchSize = batchSize;
    this.executor = executor;
  }

  /** Parameters: c m weights and c biases. */
  int dimension() {
    return features * outputs + outputs;
  }

  /** Passes over the source so far. */
  long passes() {
    return passes;
  }

  /**
   * J at x, and its gradient into {@code grad} (same length). A non-finite loss returns that
   * value (the gradient is then meaningless).
   *
   * @throws IllegalArgumentException if the source has no rows or a label is invalid (naming the
   *     row id and value)
   */
  double valueAndGradient(double[] x, double[] grad) {
    int cm = features * outputs;
    float[] wT = new float[cm];
    for (int k = 0; k < cm; k++) {
      wT[k] = (float) x[k];
    }
    double[] bias = java.util.Arrays.copyOfRange(x, cm, cm + outputs);
    passes++;
    Sums sums = rows.sum(new LossGradient(task.loss(), features, batchSize, wT, bias), executor);
    long n = sums.rows();
    if (n == 0) {
      throw new IllegalArgumentException("the training source has no rows");
    }
    System.arraycopy(sums.gradient(), 0, grad, 0, grad.length);
    double lossSum = sums.loss();
    double penalty = 0;
    for (int k = 0; k < cm; k++) {
      grad[k] = grad[k] / n + l2 * x[k];
      penalty += x[k] * x[k];
    }
    for (int j = 0; j < outputs; j++) {
      grad[cm + j] /= n;
    }
    return lossSum / n + 0.5 * l2 * penalty;
  }

  /** A pass's summed loss, summed gradient (c m weights, then c biases) and rows. */
  record Sums(double loss, double[] gradient, long rows) implements java.io.Serializable {}

  /**
   * The pass of {@code loss} (the task's, or the kitchen sinks' smoothed hinge) at weights {@code
   * wT} and biases {@code bias}: a part's loss and gradient sums.
   */
  record LossGradient(Loss loss, int features, int batchSize, float[] wT, double[] bias)
      implements Partitions.Pass<Sums> {

    @Override
    public Sums over(MiniBatchSource part, Executor helpers) {
      return new ChunkedProducts(features, loss.outputs(), batchSize, helpers)
          .lossGradient(part, loss, wT, bias);
    }

    @Override
    public Sums plus(Sums a, Sums b) {
      DoubleVectors.addTo(b.gradient(), a.gradient());
      return new Sums(a.loss() + b.loss(), a.gradient(), a.rows() + b.rows());
    }
  }

  /** The flat parameters as a model (float32); refuses non-finite values. */
  LinearModel model(double[] x) {
    int cm = features * outputs;
    float[] w = new float[cm];
    float[] b = new float[outputs];
    for (int k = 0; k < cm; k++) {
      w[k] = (float) x[k];
    }
    for (int j = 0; j < outputs; j++) {
      b[j] = (float) x[cm + j];
    }
    return LinearModel.of(features, outputs, w, b);
  }
}
