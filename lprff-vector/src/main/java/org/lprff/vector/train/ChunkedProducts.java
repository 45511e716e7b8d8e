package org.lprff.vector.train;

import java.util.concurrent.Executor;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.stream.FeatureRows;

/**
 * The two products of a full-batch pass, spread over cores with results that do not depend on
 * the thread count: a batch is cut into fixed chunks of {@value #CHUNK} rows whatever the
 * threads, each chunk's product runs on whichever thread takes it, and the chunks' partial sums
 * Z_k^T d_k are added in chunk order, in double. One thread or eight give the same bits.
 *
 * <p>Scratch: per chunk of the largest batch, its scores (CHUNK x c) and its partial gradient
 * (c x m floats), allocated once. Not thread-safe: one pass at a time.
 */
final class ChunkedProducts {

  static final int CHUNK = 256;

  private final int features;
  private final int outputs;
  private final Executor executor;
  private final float[][] scores;
  private final float[][] d;
  private final float[][] partial;

  /**
   * @param executor the helpers (null: the calling thread alone); the caller works too
   */
  ChunkedProducts(int features, int outputs, int maxBatch, Executor executor) {
    this.features = features;
    this.outputs = outputs;
    this.executor = executor;
    int chunks = (maxBatch + CHUNK - 1) / CHUNK;
    this.scores = new float[chunks][CHUNK * outputs];
    this.d = new float[chunks][CHUNK * outputs];
    this.partial = new float[chunks][features * outputs];
  }

  /** y[r*c + j] = z_r . wT_j for the batch's rows (no bias). */
  void forward(FeatureRows z, float[] wT, float[] y) {
    int n = z.rows();
    int c = outputs;
    ParallelTasks.run(chunks(n), executor, k -> {
      int from = k * CHUNK;
      int count = Math.min(CHUNK, n - from);
      z.slice(from, count).forward(wT, c, scores[k]);
      System.arraycopy(scores[k], 0, y, from * c, count * c);
    });
  }

  /** into[j*m + i] += sum_r z_r[i] dy[r*c + j], chunk by chunk in order. */
  void accumulateTransposed(FeatureRows z, float[] dy, double[] into) {
    int n = z.rows();
    int c = outputs;
    int chunks = chunks(n);
    ParallelTasks.run(chunks, executor, k -> {
      int from = k * CHUNK;
      int count = Math.min(CHUNK, n - from);
      System.arraycopy(dy, from * c, d[k], 0, count * c);
      java.util.Arrays.fill(partial[k], 0f);
      z.slice(from, count).accumulateTransposed(d[k], c, partial[k]);
    });
    int cm = features * c;
    for (int k = 0; k < chunks; k++) {
      float[] p = partial[k];
      for (int i = 0; i < cm; i++) {
        into[i] += p[i];
      }
    }
  }

  private static int chunks(int n) {
    return (n + CHUNK - 1) / CHUNK;
  }
}
