package org.lprff.vector.train.fullbatch;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.LongConsumer;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.products.Gram;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.LinearModel;

/**
 * Ridge regression on features in closed form: the exact minimizer of this package's objective
 * with the squared loss,
 *
 * <pre>  J(W, b) = (1/2n) ||Z W + 1 b^T - T||_F^2 + (lambda/2) ||W||_F^2,</pre>
 *
 * the objective {@code SgdSolver} descends for {@link Task#REGRESSION}. Setting the gradient to
 * zero: b = t_mean - W^T mu (mu the features' column means), and with the centered Zc = Z - 1 mu^T,
 * Tc = T - 1 t_mean^T,
 *
 * <pre>  (Zc^T Zc + lambda n I) W = Zc^T Tc</pre>
 *
 * (note lambda n: the loss is a mean, the penalty is not). The intercept is thus handled by
 * centering, unregularized. Zc^T Zc is formed as Z^T Z - n mu mu^T.
 *
 * <p>Targets: the float targets for regression; for classification ("least-squares
 * classification", a baseline) ±1 for binary labels (so that a score > 0 predicts class 1, as
 * {@link Loss#predictedClass} decides) and one-hot columns for k classes (argmax).
 *
 * <p><b>Cost.</b> Z^T Z is accumulated over the upper triangle, n m^2 / 2 fused multiply-adds,
 * in column panels on an executor (the common pool unless given; the calling thread works too;
 * the bits do not depend on the threads). Rows of b <= 8-bit codes on a grid (the packed
 * features) take the exact path: the Gram of the codes, summed in float over chunks of {@link
 * Gram#FLOAT_ROWS} rows (exact: products of codes are small integers), added in double and mapped
 * to the values lo + step code at the end ({@link Gram#affineUpper}): twice the lanes of double,
 * and no rounding in the sums at all. Other rows (float32, 16 bits, codebooks, condensed) are
 * decoded ({@link FeatureRows#decode}) into chunks of {@value #CHUNK_ROWS} rows and summed in
 * double. Decoding a chunk's rows, and its column sums and Z^T T (each entry over the rows in
 * order), run in tasks on the executor too. It needs an m x m double matrix, 8 m^2 bytes (512 MiB
 * at m = 8192; the JVM heap must allow it), and the Cholesky solve ({@link NormalEquations#solve},
 * the library's blocked {@link org.lprff.vector.products.Cholesky}) about m^3 / 3 more flops.
 * Meant for m up to about 8192.
 */
public final class ClosedFormRidge {

  /** Rows decoded per chunk of the Gram accumulation. */
  public static final int CHUNK_ROWS = 512;

  /** Rows per decoding task (of a chunk's rows, on the executor). */
  static final int DECODE_ROWS = 32;

  /** Columns per task of the column sums and Z^T T. */
  static final int SUM_COLUMNS = 512;

  /** Largest m accepted: an m x m double matrix must fit in one array. */
  public static final int MAX_FEATURES = 16384;

  /**
   * The largest m at which the closed form is preferred to iterating: {@code Solver.AUTO} solves
   * ridge in closed form up to it, and {@link KitchenSinks} solves the squared loss on the normal
   * equations up to it by default. Its cost, n m^2 / 2 multiply-adds once and m^3 / 3 per l2,
   * grows with m where a pass of conjugate gradients grows as n m. Measured with the automatic l2
   * path, 4-bit diamonds (43,152 rows, 2 cores of an AMD EPYC, avx2;
   * scripts/diamonds-crossover.sh): closed form 2.1 / 4.0 / 11.5 s at m = 1024 / 2048 / 4096,
   * conjugate gradients 4.4 / 5.4 / 7.3 s: the crossover lies between 2048 and 4096.
   */
  public static final int PREFERRED_MAX_FEATURES = 2048;

  private ClosedFormRidge() {}

  /** Regression on rows z with float targets. */
  public static LinearModel fit(FeatureRows z, float[] targets, double lambda) {
    return fit(InMemoryBatches.of(z, targets).ordered(), Task.REGRESSION, lambda);
  }

  /** Least-squares classification on rows z with class labels, for a binary or multiclass task. */
  public static LinearModel fit(FeatureRows z, int[] classes, Task task, double lambda) {
    return fit(InMemoryBatches.of(z, classes).ordered(), task, lambda);
  }

  /**
   * Fits on every row of epoch 0 of {@code source}.
   *
   * @throws IllegalArgumentException if lambda is negative or not finite, m exceeds {@value
   *     #MAX_FEATURES}, the source is empty, a label is invalid for the task (naming row and
   *     value), or the system is not positive definite (lambda = 0 with collinear features)
   */
  public static LinearModel fit(MiniBatchSource source, Task task, double lambda) {
    return fit(source, task, lambda, ForkJoinPool.commonPool());
  }

  /**
   * As {@link #fit(MiniBatchSource, Task, double)}, the Gram matrix accumulated on {@code
   * executor} and the calling thread (null: the calling thread alone). The result does not depend
   * on the executor.
   */
  public static LinearModel fit(
      MiniBatchSource source, Task task, double lambda, Executor executor) {
    NormalEquations.checkLambda(lambda);
    return accumulate(source, task, executor, rows -> {}).solve(lambda);
  }

  /**
   * The sums of the normal equations over every row of epoch 0 of {@code source}, to be solved
   * for one or more lambdas ({@link NormalEquations#solve}); the Gram matrix is accumulated on
   * {@code executor} and the calling thread (null: the calling thread alone; the bits do not
   * depend on it), and {@code rowsDone} hears the number of rows summed after every chunk.
   *
   * @throws IllegalArgumentException if m exceeds {@value #MAX_FEATURES}, the source is empty or
   *     a label is invalid for the task (naming row and value)
   */
  public static NormalEquations accumulate(MiniBatchSource source, Task task, Executor executor,
      LongConsumer rowsDone) {
    if (source == null) {
      throw new IllegalArgumentException("source is null");
    }
    return accumulate(Partitions.of(source), task, executor, rowsDone);
  }

  /**
   * As {@link #accumulate(MiniBatchSource, Task, Executor, LongConsumer)} over rows held in parts:
   * one pass per part, the parts' sums added ({@link NormalEquations#plus}); {@code rowsDone}
   * hears the rows of a local part (a cluster's parts run elsewhere and say nothing).
   */
  public static NormalEquations accumulate(Partitions rows, Task task, Executor executor,
      LongConsumer rowsDone) {
    if (rows == null || task == null || rowsDone == null) {
      throw new IllegalArgumentException(
          (rows == null ? "rows" : task == null ? "task" : "rowsDone") + " is null");
    }
    int m = rows.features();
    if (m < 1 || m > MAX_FEATURES) {
      throw new IllegalArgumentException(
          "source has " + m + " features, expected 1 to " + MAX_FEATURES + " for the closed form");
    }
    NormalEquations sums = rows.sum(new Accumulate(task, m, rowsDone), executor);
    if (sums.rows() == 0) {
      throw new IllegalArgumentException("the source has no rows to fit");
    }
    return sums;
  }

  /** The pass of the normal equations' sums over one part (which may have no rows). */
  private static final class Accumulate implements Partitions.Pass<NormalEquations> {
    private final Task task;
    private final int m;
    /** Progress of a local part; null where the pass was shipped to a cluster. */
    private final transient LongConsumer rowsDone;

    Accumulate(Task task, int m, LongConsumer rowsDone) {
      this.task = task;
      this.m = m;
      this.rowsDone = rowsDone;
    }

    @Override
    public NormalEquations over(MiniBatchSource part, Executor helpers) {
      return sums(part, task, m, helpers, rowsDone == null ? rows -> {} : rowsDone);
    }

    @Override
    public NormalEquations plus(NormalEquations a, NormalEquations b) {
      return a.plus(b);
    }
  }

  private static NormalEquations sums(MiniBatchSource source, Task task, int m, Executor executor,
      LongConsumer rowsDone) {
    Sums sums = new Sums(task, m);
    try (MiniBatchSource.Batches batches = source.epoch(0, CHUNK_ROWS, 0)) {
      while (batches.hasNext()) {
        MiniBatch batch = batches.next();
        int k = batch.rows();
        if (k == 0) {
          continue;
        }
        batch.checkFits(m, CHUNK_ROWS, "fit");
        task.loss().checkLabels(k, batch.targets(), batch.classes(), batch.rowIds());
        sums.add(batch, executor);
        rowsDone.accept(sums.n);
      }
    }
    return sums.finish();
  }

  /**
   * The running sums of one pass. Rows of b <= 8-bit codes on a grid take the exact path: the
   * Gram, the column sums and Z^T T of the codes (the Gram in float chunks of {@link
   * Gram#FLOAT_ROWS} rows, exact: see {@link Gram}), mapped to the values lo + step code once at
   * the end. Other rows (float32, 16-bit codes, codebooks, condensed) are decoded to floats and
   * summed in double.
   */
  private static final class Sums {
    private final Task task;
    private final int m;
    private final int c;
    private final int stride;
    private final double[] g;
    private final double[] zt; // Z^T T (or C^T T on the code path), row-major m x c
    private final double[] colSum; // of values (or of codes on the code path)
    private final double[] targetSum;
    /** The chunk's rows decoded, row-major: what the sums beside the Gram read. */
    private float[] decoded;
    /** The chunk's targets as encoded, row-major rows x c. */
    private double[] t;
    /** The grid of the code path, null on the value path; set by the first rows. */
    private QuantizationScale scale;
    private boolean started;
    private double[] chunk; // value path: packed, see Gram.at
    private float[] chunkRows; // code path: the two packings, see Gram.putRow
    private float[] chunkCols;
    long n;

    Sums(Task task, int m) {
      this.task = task;
      this.m = m;
      this.c = task.outputs();
      this.stride = Gram.stride(m);
      this.g = new double[stride * stride];
      this.zt = new double[m * c];
      this.colSum = new double[m];
      this.targetSum = new double[c];
      this.t = new double[CHUNK_ROWS * c];
    }

    /** The grid of rows whose code products are exact in float sums, else null. */
    private static QuantizationScale exactCodes(FeatureRows z) {
      return z instanceof FeatureRows.Packed p && p.bits() <= 8 ? p.scale() : null;
    }

    void add(MiniBatch batch, Executor executor) {
      FeatureRows z = batch.features();
      QuantizationScale codes = exactCodes(z);
      if (!started) {
        started = true;
        scale = codes;
      } else if (!java.util.Objects.equals(codes, scale)) {
        throw new IllegalArgumentException("rows of " + z.bits() + " bits (" + codes + ") after "
            + (scale == null ? "rows without an exact grid" : "rows on grid " + scale));
      }
      if (scale != null) {
        addCodes((FeatureRows.Packed) z, batch, executor);
      } else {
        addValues(z, batch, executor);
      }
      n += batch.rows();
    }

    private void addValues(FeatureRows z, MiniBatch batch, Executor executor) {
      if (chunk == null) {
        chunk = new double[CHUNK_ROWS * stride];
        decoded = new float[CHUNK_ROWS * m];
      }
      int k = batch.rows();
      double[] packed = chunk;
      // Rows decoded and packed in tasks of DECODE_ROWS: each writes only its rows' entries.
      ParallelTasks.run((k + DECODE_ROWS - 1) / DECODE_ROWS, executor, task -> {
        for (int r = task * DECODE_ROWS; r < Math.min(k, (task + 1) * DECODE_ROWS); r++) {
          z.decode(r, decoded, r * m);
          for (int i = m; i < stride; i++) {
            packed[Gram.at(k, r, i)] = 0; // the padding's place moves with k
          }
          for (int i = 0; i < m; i++) {
            packed[Gram.at(k, r, i)] = decoded[r * m + i];
          }
        }
      });
      addRows(batch, 0, k, executor);
      Gram.accumulateUpper(chunk, k, stride, g, executor);
    }

    private void addCodes(FeatureRows.Packed z, MiniBatch batch, Executor executor) {
      if (chunkRows == null) {
        chunkRows = new float[Gram.FLOAT_ROWS * stride];
        chunkCols = new float[Gram.FLOAT_ROWS * stride];
        decoded = new float[Gram.FLOAT_ROWS * m];
      }
      // Codes as floats: the grid 0, 1, 2, ... decodes code c to exactly c.
      QuantizationScale identity = QuantizationScale.of(scale.bits(), 0f, 1f);
      int k = batch.rows();
      for (int from = 0; from < k; from += Gram.FLOAT_ROWS) {
        int rows = Math.min(Gram.FLOAT_ROWS, k - from);
        int first = from;
        ParallelTasks.run((rows + DECODE_ROWS - 1) / DECODE_ROWS, executor, task -> {
          for (int r = task * DECODE_ROWS; r < Math.min(rows, (task + 1) * DECODE_ROWS); r++) {
            PackedFeatures.unpack(z.segment(), z.byteOffset() + (first + r) * z.rowBytes(),
                identity, m, decoded, r * m);
            Gram.putRow(decoded, r * m, m, stride, rows, r, chunkRows, chunkCols);
          }
        });
        addRows(batch, from, rows, executor);
        Gram.accumulateUpper(chunkRows, chunkCols, rows, stride, g, executor);
      }
    }

    /**
     * The column sums, Z^T T and target sums of batch rows [from, from + rows), decoded in {@code
     * decoded}: in tasks of {@value #SUM_COLUMNS} columns, each entry summed over the rows in
     * order, so the bits do not depend on the threads.
     */
    private void addRows(MiniBatch batch, int from, int rows, Executor executor) {
      if (t.length < rows * c) {
        t = new double[Math.max(rows, CHUNK_ROWS) * c];
      }
      double[] targets = t;
      for (int r = 0; r < rows; r++) {
        encode(task, batch, from + r, targets, r * c);
        for (int j = 0; j < c; j++) {
          targetSum[j] += targets[r * c + j];
        }
      }
      ParallelTasks.run((m + SUM_COLUMNS - 1) / SUM_COLUMNS, executor, part -> {
        for (int r = 0; r < rows; r++) {
          for (int i = part * SUM_COLUMNS; i < Math.min(m, (part + 1) * SUM_COLUMNS); i++) {
            double v = decoded[r * m + i];
            colSum[i] += v;
            for (int j = 0; j < c; j++) {
              zt[i * c + j] += v * targets[r * c + j];
            }
          }
        }
      });
    }

    NormalEquations finish() {
      if (scale != null) {
        // Codes to values v = lo + step code: the Gram by its affine map, the sums directly.
        double lo = scale.lo();
        double step = scale.step();
        Gram.affineUpper(g, m, stride, n, colSum, lo, step);
        for (int i = 0; i < m; i++) {
          for (int j = 0; j < c; j++) {
            zt[i * c + j] = lo * targetSum[j] + step * zt[i * c + j];
          }
          colSum[i] = n * lo + step * colSum[i];
        }
      }
      Gram.finish(g, m, stride);
      return new NormalEquations(task, m, n, g, zt, colSum, targetSum);
    }
  }

  /** The regression target(s) of row r at {@code t[off..off + c)}: the target, ±1, or one-hot. */
  private static void encode(Task task, MiniBatch batch, int r, double[] t, int off) {
    switch (task) {
      case Task.Regression ignored -> t[off] = batch.targets()[r];
      case Task.Binary ignored -> t[off] = batch.classes()[r] == 1 ? 1 : -1;
      case Task.Multiclass mc -> {
        java.util.Arrays.fill(t, off, off + mc.outputs(), 0);
        t[off + batch.classes()[r]] = 1;
      }
    }
  }
}
