package org.lprff.vector.train.fullbatch;

import java.util.Arrays;
import java.util.concurrent.Executor;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.train.loss.Loss;

/**
 * The fused products of a full-batch pass, spread over cores with results that do not depend on
 * the thread count. A batch is cut into fixed chunks of {@value #CHUNK} rows whatever the
 * threads; each chunk runs its forward product, the per-row step in between, and its transposed
 * accumulate back to back on whichever thread takes it, so its packed rows are read while they
 * are still in cache; the chunks' partial sums are then added in chunk order, in double. One
 * thread or eight give the same bits.
 *
 * <p>Scratch, per chunk of the largest batch: its scores and their gradient (CHUNK x c), its
 * labels, and its partial Z_k^T d_k (c x m floats), allocated once. Not thread-safe: one pass at
 * a time.
 */
final class ChunkedProducts {

  static final int CHUNK = 256;

  private final int features;
  private final int outputs;
  private final Executor executor;
  private final float[][] scores;
  private final float[][] gradient;
  private final float[][] targets;
  private final int[][] classes;
  private final float[][] partial;
  private final double[] lossSums;

  /**
   * @param executor the helpers (null: the calling thread alone); the caller works too
   */
  ChunkedProducts(int features, int outputs, int maxBatch, Executor executor) {
    this.features = features;
    this.outputs = outputs;
    this.executor = executor;
    int chunks = (maxBatch + CHUNK - 1) / CHUNK;
    this.scores = new float[chunks][CHUNK * outputs];
    this.gradient = new float[chunks][CHUNK * outputs];
    this.targets = new float[chunks][CHUNK];
    this.classes = new int[chunks][CHUNK];
    this.partial = new float[chunks][features * outputs];
    this.lossSums = new double[chunks];
  }

  /**
   * Adds {@code Z^T (Z v)} over the batch's rows to {@code into} (m entries, one output): the
   * product of ridge's normal matrix with v, without the centering and the ridge.
   */
  void addNormal(FeatureRows z, float[] v, double[] into) {
    int n = z.rows();
    ParallelTasks.run(chunks(n), executor, k -> {
      FeatureRows rows = z.slice(k * CHUNK, Math.min(CHUNK, n - k * CHUNK));
      rows.forward(v, 1, scores[k]);
      Arrays.fill(partial[k], 0f);
      rows.accumulateTransposed(scores[k], 1, partial[k]);
    });
    addPartials(chunks(n), into);
  }

  /**
   * The batch's summed loss at weights {@code wT} and bias {@code bias}; adds the summed
   * gradient of the loss to {@code grad}: Z^T D into its first c m entries and sum_r D_r into
   * the last c (D the per-row gradients of the loss w.r.t. the scores, not divided by n).
   */
  double addLossGradient(MiniBatch batch, Loss loss, float[] wT, double[] bias, double[] grad) {
    FeatureRows z = batch.features();
    int n = batch.rows();
    int c = outputs;
    ParallelTasks.run(chunks(n), executor, k -> {
      int from = k * CHUNK;
      int count = Math.min(CHUNK, n - from);
      FeatureRows rows = z.slice(from, count);
      float[] y = scores[k];
      rows.forward(wT, c, y);
      for (int r = 0; r < count; r++) {
        for (int j = 0; j < c; j++) {
          y[r * c + j] += (float) bias[j];
        }
      }
      float[] t = batch.targets() == null ? null : targets[k];
      int[] cl = batch.classes() == null ? null : classes[k];
      if (t != null) {
        System.arraycopy(batch.targets(), from, t, 0, count);
      }
      if (cl != null) {
        System.arraycopy(batch.classes(), from, cl, 0, count);
      }
      float[] d = gradient[k];
      double mean = loss.compute(y, count, t, cl, d);
      lossSums[k] = mean * count;
      // The loss's gradient is of the chunk's mean; the pass wants the sum.
      for (int i = 0; i < count * c; i++) {
        d[i] *= count;
      }
      Arrays.fill(partial[k], 0f);
      rows.accumulateTransposed(d, c, partial[k]);
    });
    double lossSum = 0;
    int cm = features * c;
    for (int k = 0; k < chunks(n); k++) {
      lossSum += lossSums[k];
      int count = Math.min(CHUNK, n - k * CHUNK);
      for (int r = 0; r < count; r++) {
        for (int j = 0; j < c; j++) {
          grad[cm + j] += gradient[k][r * c + j];
        }
      }
    }
    addPartials(chunks(n), grad);
    return lossSum;
  }

  /** into[i] += partial_k[i] for the chunks in order. */
  private void addPartials(int chunks, double[] into) {
    for (int k = 0; k < chunks; k++) {
      DoubleVectors.addTo(partial[k], into);
    }
  }

  private static int chunks(int n) {
    return (n + CHUNK - 1) / CHUNK;
  }
}
