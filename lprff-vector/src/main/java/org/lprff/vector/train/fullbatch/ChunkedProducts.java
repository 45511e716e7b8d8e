package org.lprff.vector.train.fullbatch;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.lprff.vector.products.BlockProducts;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.loss.Loss;

/**
 * The fused products of one full-batch pass over a part's rows, spread over cores with results
 * that do not depend on the thread count. Each batch is cut into fixed chunks of {@value #CHUNK}
 * rows whatever the threads; a chunk runs block by block ({@link BlockProducts}: 4 rows of 1-,
 * 2- or 4-bit codes with one output): the block's forward product, the per-row step, and its
 * transposed accumulate while the block is still in L1, so each row is read from memory once per
 * pass. The chunks' partial sums (floats) are then added in chunk order, in double. One thread or
 * eight give the same bits.
 *
 * <p>Fork/join: when the source's features outlive a batch ({@link
 * MiniBatchSource#featuresOutliveBatch()}: views of rows that do not move), one fork/join runs the
 * chunks of a window of whole batches (at most {@value #WINDOW_CHUNKS} chunks, their labels
 * copied); otherwise one batch's. The chunks, and so the bits, are the same either way.
 *
 * <p>Scratch, per chunk of a window: a c x m float partial and its loss and bias sums; per
 * thread, the block kernels' work array. Not thread-safe: one pass at a time.
 */
final class ChunkedProducts {

  static final int CHUNK = 256;

  /** Most chunks of one fork/join: 16,384 rows, 1 MiB of partials at c m = 4096. */
  static final int WINDOW_CHUNKS = 64;

  /** Most bytes of the partials of one window (many outputs make fewer chunks per window). */
  private static final long WINDOW_BYTES = 16L << 20;

  private final int features;
  private final int outputs;
  private final int batchSize;
  private final Executor executor;
  private final int maxChunks;
  private final float[][] partial;
  private final double[] lossSums;
  private final double[][] biasSums;
  // The window: its batches' features, and per chunk its batch, first row and rows.
  private final FeatureRows[] held;
  private final int[] chunkBatch;
  private final int[] chunkFrom;
  private final int[] chunkRows;
  private final int[] chunkLabels;
  private float[] targets;
  private int[] classes;

  /**
   * @param batchSize rows per batch the pass asks its source for
   * @param executor the helpers (null: the calling thread alone); the caller works too
   */
  ChunkedProducts(int features, int outputs, int batchSize, Executor executor) {
    this.features = features;
    this.outputs = outputs;
    this.batchSize = batchSize;
    this.executor = executor;
    int perBatch = (batchSize + CHUNK - 1) / CHUNK;
    long fit = WINDOW_BYTES / (4L * features * outputs);
    this.maxChunks = (int) Math.max(perBatch, Math.min(WINDOW_CHUNKS, fit));
    this.partial = new float[maxChunks][];
    this.lossSums = new double[maxChunks];
    this.biasSums = new double[maxChunks][outputs];
    this.held = new FeatureRows[maxChunks];
    this.chunkBatch = new int[maxChunks];
    this.chunkFrom = new int[maxChunks];
    this.chunkRows = new int[maxChunks];
    this.chunkLabels = new int[maxChunks];
  }

  /** {@code Z^T (Z v)} over every row of epoch 0 of {@code part}: ridge's normal matrix times v. */
  double[] normal(MiniBatchSource part, float[] v) {
    double[] into = new double[features];
    pass(part, v, null, null, into);
    return into;
  }

  /**
   * The summed loss at weights {@code wT} and bias {@code bias} over every row of epoch 0 of
   * {@code part}, its summed gradient (Z^T D in the first c m entries, sum_r D_r in the last c; D
   * the per-row gradients of the loss w.r.t. the scores) and the rows.
   *
   * @throws IllegalArgumentException if a label is invalid (naming the row id and value)
   */
  FullBatchObjective.Sums lossGradient(
      MiniBatchSource part, Loss loss, float[] wT, double[] bias) {
    double[] grad = new double[features * outputs + outputs];
    double[] lossSum = new double[1];
    long rows = pass(part, wT, loss, bias, grad, lossSum);
    return new FullBatchObjective.Sums(lossSum[0], grad, rows);
  }

  private long pass(MiniBatchSource part, float[] wT, Loss loss, double[] bias, double[] into) {
    return pass(part, wT, loss, bias, into, null);
  }

  private long pass(MiniBatchSource part, float[] wT, Loss loss, double[] bias, double[] into,
      double[] lossSum) {
    boolean window = part.featuresOutliveBatch();
    Kernel kernel = null;
    long rows = 0;
    try (MiniBatchSource.Batches batches = part.epoch(0, batchSize, 0)) {
      while (batches.hasNext()) {
        int chunks = 0;
        int batchCount = 0;
        int labels = 0;
        do {
          MiniBatch batch = batches.next();
          int n = batch.rows();
          if (loss != null) {
            loss.checkLabels(n, batch.targets(), batch.classes(), batch.rowIds());
            copyLabels(batch, labels, n);
          }
          if (kernel == null) {
            kernel = kernel(batch.features(), wT);
          }
          held[batchCount] = batch.features();
          for (int from = 0; from < n; from += CHUNK) {
            chunkBatch[chunks] = batchCount;
            chunkFrom[chunks] = from;
            chunkRows[chunks] = Math.min(CHUNK, n - from);
            chunkLabels[chunks] = labels + from;
            chunks++;
          }
          batchCount++;
          labels += n;
        } while (window && batches.hasNext()
            && chunks + (batchSize + CHUNK - 1) / CHUNK <= maxChunks);
        Kernel k = kernel;
        ParallelTasks.run(chunks, executor, t -> chunk(t, k, loss, bias));
        addPartials(chunks, into);
        if (loss != null) {
          int cm = features * outputs;
          for (int t = 0; t < chunks; t++) {
            lossSum[0] += lossSums[t];
            for (int j = 0; j < outputs; j++) {
              into[cm + j] += biasSums[t][j];
            }
          }
        }
        Arrays.fill(held, 0, batchCount, null);
        rows += labels;
      }
    }
    return rows;
  }

  private void copyLabels(MiniBatch batch, int at, int n) {
    int need = at + n;
    if (batch.targets() != null) {
      if (targets == null || targets.length < need) {
        targets = Arrays.copyOf(targets == null ? new float[0] : targets, need);
      }
      System.arraycopy(batch.targets(), 0, targets, at, n);
    }
    if (batch.classes() != null) {
      if (classes == null || classes.length < need) {
        classes = Arrays.copyOf(classes == null ? new int[0] : classes, need);
      }
      System.arraycopy(batch.classes(), 0, classes, at, n);
    }
  }

  /**
   * Chunk t of the window: block by block, the forward product, the step (CG: D = Y; else the
   * loss gradient of the block's scores plus bias, as a sum), the transposed accumulate; then its
   * partial Z_t^T D_t into {@code partial[t]}.
   */
  private void chunk(int t, Kernel kernel, Loss loss, double[] bias) {
    FeatureRows z = held[chunkBatch[t]];
    int from = chunkFrom[t];
    int count = chunkRows[t];
    int c = outputs;
    int block = Math.min(kernel.blockRows(), count);
    float[] y = new float[block * c];
    float[] d = loss == null ? y : new float[block * c];
    float[] tb = targets == null ? null : new float[block];
    int[] cb = classes == null ? null : new int[block];
    double lossSum = 0;
    double[] biasSum = biasSums[t];
    Arrays.fill(biasSum, 0);
    float[] work = kernel.takeWork();
    for (int b = 0; b < count; b += block) {
      int n = Math.min(block, count - b);
      kernel.forward(z, from + b, n, y, work);
      if (loss != null) {
        for (int r = 0; r < n; r++) {
          for (int j = 0; j < c; j++) {
            y[r * c + j] += (float) bias[j];
          }
        }
        int at = chunkLabels[t] + b;
        if (tb != null) {
          System.arraycopy(targets, at, tb, 0, n);
        }
        if (cb != null) {
          System.arraycopy(classes, at, cb, 0, n);
        }
        lossSum += loss.compute(y, n, tb, cb, d) * n;
        // The loss's gradient is of the block's mean; the pass wants the sum.
        for (int r = 0; r < n; r++) {
          for (int j = 0; j < c; j++) {
            d[r * c + j] *= n;
            biasSum[j] += d[r * c + j];
          }
        }
      }
      kernel.accumulate(z, from + b, n, d, work);
    }
    if (partial[t] == null) {
      partial[t] = new float[features * c];
    } else {
      Arrays.fill(partial[t], 0f);
    }
    kernel.drain(work, partial[t]);
    kernel.giveWork(work);
    lossSums[t] = lossSum;
  }

  /**
   * into[i] += partial_t[i] for the window's chunks in order, each entry's sum in that order
   * whatever thread adds it: the features are cut into slices, one task each.
   */
  private void addPartials(int chunks, double[] into) {
    int cm = features * outputs;
    int slices = executor == null ? 1 : Math.min(16, (cm + 1023) / 1024);
    int width = (cm + slices - 1) / slices;
    ParallelTasks.run(slices, executor, s -> {
      int lo = s * width;
      int hi = Math.min(cm, lo + width);
      for (int t = 0; t < chunks; t++) {
        float[] p = partial[t];
        for (int i = lo; i < hi; i++) {
          into[i] += p[i];
        }
      }
    });
  }

  private Kernel kernel(FeatureRows z, float[] wT) {
    BlockProducts blocks = z.blocks(wT, outputs);
    return blocks != null ? new Fused(blocks) : new Sliced(wT, outputs, features);
  }

  /** A pass's products block by block, and the work arrays its threads share out. */
  private abstract static class Kernel {
    private final ConcurrentLinkedQueue<float[]> free = new ConcurrentLinkedQueue<>();

    abstract int blockRows();

    abstract float[] newWork();

    abstract void forward(FeatureRows z, int from, int n, float[] y, float[] work);

    abstract void accumulate(FeatureRows z, int from, int n, float[] d, float[] work);

    abstract void drain(float[] work, float[] gT);

    final float[] takeWork() {
      float[] work = free.poll();
      return work != null ? work : newWork();
    }

    final void giveWork(float[] work) {
      free.add(work);
    }
  }

  /** Rows with fused blocks: packed on a grid, or float32. */
  private static final class Fused extends Kernel {
    private final BlockProducts blocks;

    Fused(BlockProducts blocks) {
      this.blocks = blocks;
    }

    @Override
    int blockRows() {
      return blocks.blockRows();
    }

    @Override
    float[] newWork() {
      return blocks.work();
    }

    @Override
    void forward(FeatureRows z, int from, int n, float[] y, float[] work) {
      blocks.forward(z.segment(), z.byteOffset() + from * z.rowBytes(), n, y, work);
    }

    @Override
    void accumulate(FeatureRows z, int from, int n, float[] d, float[] work) {
      blocks.accumulate(z.segment(), z.byteOffset() + from * z.rowBytes(), n, d, work);
    }

    @Override
    void drain(float[] work, float[] gT) {
      blocks.drain(work, gT);
    }
  }

  /** Codebook and condensed rows: the whole chunk through the rows' own products. */
  private static final class Sliced extends Kernel {
    private final float[] wT;
    private final int c;
    private final int m;

    Sliced(float[] wT, int c, int m) {
      this.wT = wT;
      this.c = c;
      this.m = m;
    }

    @Override
    int blockRows() {
      return CHUNK;
    }

    @Override
    float[] newWork() {
      return new float[c * m];
    }

    @Override
    void forward(FeatureRows z, int from, int n, float[] y, float[] work) {
      z.slice(from, n).forward(wT, c, y);
    }

    @Override
    void accumulate(FeatureRows z, int from, int n, float[] d, float[] work) {
      z.slice(from, n).accumulateTransposed(d, c, work);
    }

    @Override
    void drain(float[] work, float[] gT) {
      for (int i = 0; i < work.length; i++) {
        gT[i] += work[i];
      }
      Arrays.fill(work, 0f);
    }
  }
}
