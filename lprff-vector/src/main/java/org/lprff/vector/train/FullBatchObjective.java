package org.lprff.vector.train;

import java.util.concurrent.Executor;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;

/**
 * This package's objective over every row of a source, as a function of the flat parameters
 * {@code x = (wT, bias)} (c m class-major weights, then c biases):
 *
 * <pre>  J(x) = (1/n) sum_r loss(z_r W + b, label_r) + (lambda/2) ||W||^2</pre>
 *
 * and its gradient, in one pass: each chunk of a mini-batch's rows is read by the forward product
 * and at once by the transposed accumulate, while it is hot, and never decoded to floats; the
 * chunks run over cores ({@link ChunkedProducts}). Partial sums are added in double, in
 * the source's order for (epoch 0, batch size, seed 0) and chunk order, the same on every pass
 * and for any thread count, so a given x always gives the same J and gradient, bit for bit.
 * Memory: per chunk of a batch, its scores, their gradient and a c m partial, whatever n.
 */
final class FullBatchObjective {

  private final MiniBatchSource source;
  private final Loss loss;
  private final int features;
  private final int outputs;
  private final double l2;
  private final int batchSize;
  private final float[] wT;
  private final double[] bias;
  private final ChunkedProducts products;
  private long passes;

  /** @param executor helper threads of the products (null: the calling thread alone) */
  FullBatchObjective(MiniBatchSource source, Task task, int features, double l2, int batchSize,
      Executor executor) {
    this.source = source;
    this.loss = task.loss();
    this.features = features;
    this.outputs = task.outputs();
    this.l2 = l2;
    this.batchSize = batchSize;
    this.wT = new float[features * outputs];
    this.bias = new double[outputs];
    this.products = new ChunkedProducts(features, outputs, batchSize, executor);
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
    for (int k = 0; k < cm; k++) {
      wT[k] = (float) x[k];
    }
    java.util.Arrays.fill(grad, 0);
    double lossSum = 0;
    long n = 0;
    passes++;
    try (MiniBatchSource.Batches batches = source.epoch(0, batchSize, 0)) {
      while (batches.hasNext()) {
        MiniBatch batch = batches.next();
        loss.checkLabels(batch.rows(), batch.targets(), batch.classes(), batch.rowIds());
        lossSum += products.addLossGradient(batch, loss, wT, bias(x), grad);
        n += batch.rows();
      }
    }
    if (n == 0) {
      throw new IllegalArgumentException("the training source has no rows");
    }
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

  /** The biases of x (its last c entries), into a reused array. */
  private double[] bias(double[] x) {
    System.arraycopy(x, features * outputs, bias, 0, outputs);
    return bias;
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
