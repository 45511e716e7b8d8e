package org.lprff.vector.train.fullbatch;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.products.BlockProducts;
import org.lprff.vector.products.Cholesky;
import org.lprff.vector.products.FloatProducts;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.products.Gram;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;

/**
 * {@link ConjugateGradientRidge}'s preconditioner, as FALKON's (Rudi, Carratino and Rosasco,
 * 2017), from a uniform sample of s rows: with Zs the s sample rows centered on {@code center},
 *
 * <pre>  P = Zs^T Zs / s + mu I,   P^-1 r = (r - Zs^T (mu s I + Zs Zs^T)^-1 Zs r) / mu   (Woodbury),</pre>
 *
 * for {@code mu = lambda + shift} ({@link #mu}). P approximates A = Zc^T Zc / n + lambda I: the
 * sample resolves the top of A's spectrum, where plain CG spends its iterations. The shift stands in
 * for what it does not resolve: the s sample rows span at most s of m directions, and in the
 * others A's spectrum still runs well above a small lambda (the kernel's tail, and with
 * quantized features the rounding's variance, a floor near step^2 / 6 per feature), where P
 * without a shift would be lambda alone. The shift is the sample's mean variance per row,
 * tr(Zs^T Zs / s), over {@link #SHIFT_DIVISOR} s.
 *
 * <p>Cost: the s x s Gram Zs Zs^T once (s^2 m / 2 multiply-adds: for rows of affine codes of up
 * to 8 bits the float Gram kernel on the codes, exact, then mapped to values; else the double
 * kernel), a Cholesky of s^3 / 3 per mu ({@link Cholesky}, on the helpers; the last two kept: the
 * l2 path's refit solves its best lambda again after one past it), and per application two
 * products of the s sample rows with a vector and two triangular solves (2 s^2). Rows of affine
 * codes keep their sample packed (b / 32 of the floats' bytes: 4 MiB at s = 2048, m = 4096, 4
 * bits) and multiply it with the pass's fused block kernels, 256 rows a task on the helpers;
 * other rows with the float product kernels. The products run in float, so P^-1 as applied is
 * not exactly the same linear map at every step: CG uses the flexible (Polak-Ribiere) beta.
 *
 * <p>Shared, one preconditioner serves several systems over subsets of the same rows (the path's
 * 90% and the refit's 100%): it is a sample, so any sample of the rows approximates them all.
 */
public final class SketchPreconditioner {

  /**
   * Measured on diamonds (43,152 x 4096, 4-bit and float32, lambda 1e-5 to 1e-7, s = 2048 and
   * 4096): shifts from 1/8 to 1/32 of tr / s cut CG's iterations 2.5-4.5x (4-bit at lambda
   * 1e-6 from zero: 168 to 54), smaller ones less, and larger ones cost iterations again.
   */
  static final double SHIFT_DIVISOR = 16;

  /** l2 values below shift / SHARED_BELOW share one mu (see {@link #mu}). */
  static final double SHARED_BELOW = 16;

  /** Sample rows per task of an application's products. */
  private static final int CHUNK = 256;

  private final int m;
  private final int s;
  /**
   * The sample rows as they are (not centered), s x m row-major: the products' operand when the
   * rows are not packed (else null).
   */
  private final float[] sample;
  /**
   * The sample re-encoded as the packed codes it was decoded from, when the rows are affine packed
   * rows of one grid (null otherwise): the products then read b / 32 of the float rows' bytes
   * with the packed kernels, which at 4 bits made an application 4x cheaper.
   */
  private final FeatureRows packed;
  /** What the sample is centered on: the mean of the rows it was drawn from. */
  private final double[] center;
  /** Zs Zs^T of the centered sample, s x s. */
  private final double[] gram;
  private final double shift;
  /** Helpers of the factorizations (null: the calling thread alone). */
  private final Executor executor;
  /**
   * The last two factorizations by mu: the l2 path's refit solves the best l2 again after the
   * path has gone one value past it.
   */
  private final Map<Double, double[]> factors = new LinkedHashMap<>();

  /**
   * @param shiftDivisor {@link #SHIFT_DIVISOR}, or another for the tests (infinity: no shift,
   *     FALKON's P)
   */
  SketchPreconditioner(float[] sample, int s, int m, double[] center, QuantizationScale grid,
      double shiftDivisor, Executor executor) {
    this.m = m;
    this.s = s;
    // Codes of up to 8 bits: the float Gram of a chunk of codes is exact (Gram.exactRows).
    if (grid == null || Gram.exactRows(grid.maxCode()) < Gram.FLOAT_ROWS) {
      this.packed = null;
      this.sample = sample;
      this.gram = gram(sample, center, s, m, executor);
    } else {
      toCodes(sample, s, m, grid);
      this.packed = encode(sample, s, m, grid);
      this.sample = null;
      this.gram = codeGram(sample, center, s, m, grid, executor);
    }
    this.center = center;
    this.executor = executor;
    double trace = 0;
    for (int a = 0; a < s; a++) {
      trace += gram[a * s + a];
    }
    this.shift = trace / s / (shiftDivisor * s);
  }

  /**
   * The preconditioner of {@code rows} for a solver without CG's preparing pass (L-BFGS): one pass
   * for the rows' mean (the center) and a sample of {@code sketchRows} rows, keyed as CG's.
   *
   * @throws IllegalArgumentException if the rows are empty or sketchRows < 1
   */
  public static SketchPreconditioner sample(
      Partitions rows, int sketchRows, long seed, Executor executor) {
    if (rows == null) {
      throw new IllegalArgumentException("rows is null");
    }
    if (sketchRows < 1) {
      throw new IllegalArgumentException("sketchRows is " + sketchRows + ", expected >= 1");
    }
    int m = rows.features();
    Sample sums = rows.sum(new Sampling(m, sketchRows, seed), executor);
    if (sums.n == 0) {
      throw new IllegalArgumentException("the training source has no rows");
    }
    double[] center = new double[m];
    for (int i = 0; i < m; i++) {
      center[i] = sums.colSum[i] / sums.n;
    }
    return new SketchPreconditioner(sums.sample.rowsInKeyOrder(), sums.sample.size(), m, center,
        sums.sample.grid(), SHIFT_DIVISOR, executor);
  }

  /**
   * Replaces the s decoded rows by the codes they came from, {@code round((v - lo) / step)}: exact,
   * v being fma(code, step, lo) rounded once (an error of |v| 2^-24, a tiny fraction of a step).
   */
  private static void toCodes(float[] rows, int s, int m, QuantizationScale grid) {
    for (int k = 0; k < s * m; k++) {
      rows[k] = (float) Math.rint(((double) rows[k] - grid.lo()) / grid.step());
    }
  }

  /** The s rows of codes (as floats) packed on {@code grid}, in native memory. */
  private static FeatureRows encode(float[] codes, int s, int m, QuantizationScale grid) {
    long rowBytes = PackedLayout.rowBytes(m, grid.bits());
    MemorySegment segment = Arena.ofAuto().allocate(Math.max(1, s * rowBytes), 64);
    int[] row = new int[m];
    for (int r = 0; r < s; r++) {
      for (int i = 0; i < m; i++) {
        row[i] = (int) codes[r * m + i];
      }
      PackedFeatures.packCodes(row, 0, m, grid.bits(), segment, r * rowBytes);
    }
    return FeatureRows.of(new PackedRows(segment, 0, s, m, grid));
  }

  /**
   * Offers the rows of a batch to a bottom-k sample: keyed by (seed, row id), or by their index
   * in the part ({@code index} the batch's first) when the batch has no ids.
   */
  static void offer(SmallestKeys sample, FeatureRows z, long[] rowIds, long index, long seed,
      float[] row) {
    sample.noteRows(z);
    for (int r = 0; r < z.rows(); r++) {
      long id = rowIds != null ? rowIds[r] : index + r;
      long key = SmallestKeys.key(seed, id);
      if (sample.wants(key, id)) {
        z.decode(r, row, 0);
        sample.offer(key, id, row, 0);
      }
    }
  }

  /** The sampling pass's sums over a part: n, column sums, the sample. */
  private static final class Sample implements java.io.Serializable {
    long n;
    final double[] colSum;
    final SmallestKeys sample;

    Sample(int m, int sketchRows) {
      this.colSum = new double[m];
      this.sample = new SmallestKeys(sketchRows, m);
    }
  }

  /** The sampling pass. */
  private record Sampling(int m, int sketchRows, long seed) implements Partitions.Pass<Sample> {

    @Override
    public Sample over(MiniBatchSource part, Executor helpers) {
      Sample sums = new Sample(m, sketchRows);
      float[] row = new float[m];
      float[] ones = new float[ConjugateGradientRidge.BATCH];
      Arrays.fill(ones, 1f);
      float[] partial = new float[m];
      try (MiniBatchSource.Batches batches = part.epoch(0, ConjugateGradientRidge.BATCH, 0)) {
        while (batches.hasNext()) {
          MiniBatch batch = batches.next();
          FeatureRows z = batch.features();
          Arrays.fill(partial, 0f);
          z.accumulateTransposed(ones, 1, partial);
          DoubleVectors.addTo(partial, sums.colSum);
          offer(sums.sample, z, batch.rowIds(), sums.n, seed, row);
          sums.n += batch.rows();
        }
      }
      return sums;
    }

    @Override
    public Sample plus(Sample a, Sample b) {
      a.n += b.n;
      DoubleVectors.addTo(b.colSum, a.colSum);
      a.sample.addAll(b.sample);
      return a;
    }
  }

  /** Features m of the rows. */
  public int features() {
    return m;
  }

  /** Rows in the sample. */
  public int rows() {
    return s;
  }

  /** The shift added to lambda. */
  public double shift() {
    return shift;
  }

  /**
   * The mu of {@code lambda}: lambda + shift, every lambda below shift / {@value #SHARED_BELOW}
   * taken as shift / {@value #SHARED_BELOW}. Those mu lie within 1/{@value #SHARED_BELOW} of each
   * other, a preconditioner as good, and the l2 path's small values share one factorization (on
   * diamonds 1e-6 and 1e-7 below a shift of 2.4e-5: one s^3 / 3 fewer).
   */
  double mu(double lambda) {
    return Math.max(lambda, shift / SHARED_BELOW) + shift;
  }

  /** Zs Zs^T (s x s) of the centered sample by the Gram kernel, reading Zs^T's m rows in chunks. */
  private static double[] gram(float[] sample, double[] center, int s, int m, Executor executor) {
    int stride = Gram.stride(s);
    double[] g = new double[stride * stride];
    int chunkRows = ClosedFormRidge.CHUNK_ROWS;
    double[] chunk = new double[chunkRows * stride];
    for (int i0 = 0; i0 < m; i0 += chunkRows) {
      int k = Math.min(chunkRows, m - i0);
      for (int i = 0; i < k; i++) {
        for (int r = 0; r < stride; r++) {
          chunk[Gram.at(k, i, r)] = r < s ? sample[r * m + i0 + i] - center[i0 + i] : 0;
        }
      }
      Gram.accumulateUpper(chunk, k, stride, g, executor);
    }
    Gram.finish(g, s, stride);
    return Arrays.copyOf(g, s * s);
  }

  /**
   * {@link #gram} from the sample's codes C (s x m, as floats): with a_i = lo - center_i the
   * centered values are step c_ri + a_i, so Zs Zs^T = step^2 C C^T + step (u 1^T + 1 u^T) + (a.a)
   * 1 1^T, u = C a. C C^T is the float Gram kernel's, exact (256 features a chunk: sums of at most
   * 256 products of codes below 2^8, integers below 2^24), 4x the double kernel's rate.
   */
  private static double[] codeGram(float[] codes, double[] center, int s, int m,
      QuantizationScale grid, Executor executor) {
    int stride = Gram.stride(s);
    double[] g = new double[stride * stride];
    int chunkRows = Gram.FLOAT_ROWS;
    float[] rows = new float[chunkRows * stride];
    float[] cols = new float[chunkRows * stride];
    float[] column = new float[s];
    double[] u = new double[s];
    double aa = 0;
    for (int i0 = 0; i0 < m; i0 += chunkRows) {
      int k = Math.min(chunkRows, m - i0);
      for (int i = 0; i < k; i++) {
        double a = grid.lo() - center[i0 + i];
        aa += a * a;
        for (int r = 0; r < s; r++) {
          column[r] = codes[r * m + i0 + i];
          u[r] += a * column[r];
        }
        Gram.putRow(column, s, stride, k, i, rows, cols);
      }
      Gram.accumulateUpper(rows, cols, k, stride, g, executor);
    }
    double step = grid.step();
    for (int a = 0; a < s; a++) {
      for (int b = a; b < s; b++) {
        g[a * stride + b] = step * step * g[a * stride + b] + step * (u[a] + u[b]) + aa;
      }
    }
    Gram.finish(g, s, stride);
    return Arrays.copyOf(g, s * s);
  }

  /** The Cholesky factor of mu s I + Zs Zs^T (row-major, lower), the last two kept. */
  private double[] factor(double mu) {
    double[] kept = factors.get(mu);
    if (kept != null) {
      return kept;
    }
    double[] k = gram.clone();
    for (int i = 0; i < s; i++) {
      k[i * s + i] += mu * s;
    }
    try {
      Cholesky.factor(k, s, executor);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the preconditioner's " + s + " x " + s + " system is"
          + " not positive definite at lambda + shift " + mu + ": " + e.getMessage(), e);
    }
    if (factors.size() == 2) {
      factors.remove(factors.keySet().iterator().next());
    }
    factors.put(mu, k);
    return k;
  }

  /**
   * P^-1 on a model's gradient {@code g = (gT, gb)} (c m class-major weights, then c biases), as
   * the Hessian of a loss whose curvature is about {@code curvature} would precondition it:
   * (curvature (Zs^T Zs / s + mu I))^-1 per output, with the bias taken through the centering
   * (the Hessian's block of weights and bias, eliminated: x_w = P^-1 (g_w - center g_b), x_b =
   * g_b / curvature - center . x_w), so that the direction of the features' mean, the steepest of
   * an uncentered problem, needs no iterations of its own.
   */
  void applyModel(double mu, double curvature, double[] g, int c, double[] out) {
    double[] rT = new double[c * m];
    for (int j = 0; j < c; j++) {
      double gb = g[c * m + j];
      for (int i = 0; i < m; i++) {
        rT[j * m + i] = g[j * m + i] - center[i] * gb;
      }
    }
    double[] woodbury = woodbury(mu, rT, c);
    for (int j = 0; j < c; j++) {
      double centerW = 0;
      for (int i = 0; i < m; i++) {
        double w = (rT[j * m + i] - woodbury[j * m + i]) / mu / curvature;
        out[j * m + i] = w;
        centerW += center[i] * w;
      }
      out[c * m + j] = g[c * m + j] / curvature - centerW;
    }
  }

  /**
   * Zs^T (mu s I + Zs Zs^T)^-1 Zs r_j, Zs the centered sample, for the c class-major columns r_j
   * of {@code rT} (c m entries): the Woodbury term of P^-1. The two products run on the
   * uncentered float rows, the centering added back as center^T r_j and center (1^T x_j).
   */
  private double[] woodbury(double mu, double[] rT, int c) {
    double[] cholesky = factor(mu);
    float[] rf = new float[c * m];
    double[] centerR = new double[c];
    for (int j = 0; j < c; j++) {
      double sum = 0;
      for (int i = 0; i < m; i++) {
        rf[j * m + i] = (float) rT[j * m + i];
        sum += center[i] * rT[j * m + i];
      }
      centerR[j] = sum;
    }
    float[] zr = new float[s * c];
    BlockProducts blocks = packed == null ? null : packed.blocks(rf, c);
    if (blocks != null) {
      forwardChunks(blocks, zr, c);
    } else {
      FloatProducts.forward(sample, 0, s, m, rf, c, zr);
    }
    double[] x = new double[s * c];
    for (int a = 0; a < s; a++) {
      for (int j = 0; j < c; j++) {
        x[a * c + j] = zr[a * c + j] - centerR[j];
      }
    }
    if (c == 1) {
      Cholesky.solve(cholesky, s, x);
    } else {
      Cholesky.solve(cholesky, s, x, c, executor);
    }
    float[] xf = new float[s * c];
    double[] sumX = new double[c];
    for (int a = 0; a < s; a++) {
      for (int j = 0; j < c; j++) {
        xf[a * c + j] = (float) x[a * c + j];
        sumX[j] += xf[a * c + j];
      }
    }
    float[] gT = new float[c * m];
    if (blocks != null) {
      accumulateChunks(blocks, xf, c, gT);
    } else {
      FloatProducts.accumulateTransposed(sample, 0, s, m, xf, c, gT);
    }
    double[] out = new double[c * m];
    for (int j = 0; j < c; j++) {
      for (int i = 0; i < m; i++) {
        out[j * m + i] = gT[j * m + i] - center[i] * sumX[j];
      }
    }
    return out;
  }

  /**
   * {@code y = Zs w} on the packed sample, {@value #CHUNK} rows a task on the helpers and the
   * caller: block by block with the pass's fused kernels (the weights {@code blocks} holds).
   */
  private void forwardChunks(BlockProducts blocks, float[] y, int c) {
    long rowBytes = packed.rowBytes();
    int block = Math.min(blocks.blockRows(), CHUNK);
    ParallelTasks.run((s + CHUNK - 1) / CHUNK, executor, t -> {
      float[] work = blocks.work();
      float[] yb = new float[block * c];
      for (int r = t * CHUNK; r < Math.min(s, (t + 1) * CHUNK); r += block) {
        int n = Math.min(block, s - r);
        blocks.forward(packed.segment(), packed.byteOffset() + r * rowBytes, n, yb, work);
        System.arraycopy(yb, 0, y, r * c, n * c);
      }
    });
  }

  /**
   * {@code gT += Zs^T d} on the packed sample: each task's {@value #CHUNK} rows summed into its
   * own partial, the partials then added in task order, so the bits do not depend on the threads.
   */
  private void accumulateChunks(BlockProducts blocks, float[] d, int c, float[] gT) {
    long rowBytes = packed.rowBytes();
    int block = Math.min(blocks.blockRows(), CHUNK);
    int tasks = (s + CHUNK - 1) / CHUNK;
    float[][] partial = new float[tasks][];
    ParallelTasks.run(tasks, executor, t -> {
      float[] work = blocks.work();
      float[] db = new float[block * c];
      for (int r = t * CHUNK; r < Math.min(s, (t + 1) * CHUNK); r += block) {
        int n = Math.min(block, s - r);
        System.arraycopy(d, r * c, db, 0, n * c);
        blocks.accumulate(packed.segment(), packed.byteOffset() + r * rowBytes, n, db, work);
      }
      partial[t] = new float[c * m];
      blocks.drain(work, partial[t]);
    });
    for (float[] p : partial) {
      for (int i = 0; i < c * m; i++) {
        gT[i] += p[i];
      }
    }
  }

  /** z = P^-1 r at mu: (r - the Woodbury term) / mu. */
  void apply(double mu, double[] r, double[] z) {
    double[] woodbury = woodbury(mu, r, 1);
    for (int i = 0; i < m; i++) {
      z[i] = (r[i] - woodbury[i]) / mu;
    }
  }
}
