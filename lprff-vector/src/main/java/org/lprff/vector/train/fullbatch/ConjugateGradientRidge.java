package org.lprff.vector.train.fullbatch;

import static org.lprff.vector.train.fullbatch.DoubleVectors.addTo;
import static org.lprff.vector.train.fullbatch.DoubleVectors.dot;
import static org.lprff.vector.train.fullbatch.DoubleVectors.norm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.LinearSolverFactory_DDRM;
import org.ejml.interfaces.linsol.LinearSolverDense;
import org.lprff.vector.products.Gram;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.EpochRecord;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingListener;
import org.lprff.vector.train.model.TrainingResult;

/**
 * Ridge regression by preconditioned conjugate gradients, streaming: the minimizer of this
 * package's objective with the squared loss (the one {@link ClosedFormRidge} solves exactly),
 * without ever forming the m x m Gram matrix.
 *
 * <p>With the intercept handled by centering, as in the closed form, the weights solve
 *
 * <pre>  A w = (Zc^T Zc / n + lambda I) w = Zc^T tc / n,   b = t_mean - mu^T w,</pre>
 *
 * and {@code Zc^T Zc = Z^T Z - n mu mu^T}, so A v costs one pass over the packed rows (the forward
 * product Z v and the transposed accumulate Z^T (Z v), batch by batch, over cores in fixed chunks
 * ({@link ChunkedProducts}: the bits do not depend on the thread count), the data never centered
 * or decoded). {@link #prepare} makes one more pass for n, mu, the targets' mean and Z^T t.
 *
 * <p><b>Preconditioner</b>, as FALKON does for Nyström (Rudi, Carratino and Rosasco, 2017), from a
 * seeded uniform sample of s rows (the s smallest hashes of (seed, row id), taken during the first
 * pass: no random access, and the same sample however the rows are split into parts): with Zs
 * the s centered sample rows, P = Zs^T Zs / s + lambda I approximates A, and by Woodbury
 * P^-1 r = (r - Zs^T (lambda s I + Zs Zs^T)^-1 Zs r) / lambda. Cost: s decoded rows (8 s m
 * bytes, and 4 s m while they are sampled), the s x s Gram Zs Zs^T once (s^2 m / 2
 * multiply-adds, blocked Vector API kernel), a Cholesky of s^3 / 3 per lambda, and 4 s m flops per
 * iteration, small beside a pass (2 n m). The sketch captures the top of A's spectrum, where plain
 * CG would spend its iterations.
 *
 * <p><b>Stopping</b>: {@link StopReason#CONVERGED} when the residual ||A w - rhs|| falls below
 * {@code tolerance} times ||rhs||; {@link StopReason#EPOCH_CAP} after {@code maxIterations};
 * {@link StopReason#DIVERGED} when a value becomes non-finite. Every pass reads the source in
 * the same order and sums in double, so results are a pure function of the inputs.
 */
public final class ConjugateGradientRidge {

  public static final int DEFAULT_SKETCH_ROWS = 2048;
  public static final double DEFAULT_TOLERANCE = 1e-6;
  public static final int DEFAULT_MAX_ITERATIONS = 300;
  /** Rows per batch of a pass. */
  public static final int BATCH = 1024;

  private final Partitions rows;
  private final Executor executor;
  private final int m;
  private final long n;
  private final double[] mean;
  private final double targetMean;
  /** Zc^T tc / n. */
  private final double[] rhs;
  /** The centered sample rows, s x m row-major. */
  private final double[] sketch;
  private final int s;
  /** Zs Zs^T, s x s. */
  private final double[] sketchGram;
  private long passes;

  private ConjugateGradientRidge(Partitions rows, int m, long n, double[] mean,
      double targetMean, double[] rhs, double[] sketch, int s, double[] sketchGram,
      Executor executor) {
    this.rows = rows;
    this.executor = executor;
    this.m = m;
    this.n = n;
    this.mean = mean;
    this.targetMean = targetMean;
    this.rhs = rhs;
    this.sketch = sketch;
    this.s = s;
    this.sketchGram = sketchGram;
  }

  /** {@link #prepare(Partitions, int, long, Executor)} on one local source. */
  public static ConjugateGradientRidge prepare(
      MiniBatchSource source, int sketchRows, long seed, Executor executor) {
    if (source == null) {
      throw new IllegalArgumentException("source is null");
    }
    return prepare(Partitions.of(source), sketchRows, seed, executor);
  }

  /**
   * The lambda-independent part, in one pass over {@code rows} (regression targets): n, the
   * column means, the targets' mean, Zc^T tc / n, and the preconditioner's sample of {@code
   * sketchRows} rows (all rows when there are fewer): the rows with the smallest keys, a hash of
   * ({@code seed}, row id), so that the sample does not depend on how the rows are split into
   * parts (rows without ids are keyed by their index in their part).
   *
   * @throws IllegalArgumentException if the source has no rows or a target is not finite (naming
   *     the row), or sketchRows < 1
   */
  public static ConjugateGradientRidge prepare(
      Partitions rows, int sketchRows, long seed, Executor executor) {
    if (rows == null) {
      throw new IllegalArgumentException("rows is null");
    }
    if (sketchRows < 1) {
      throw new IllegalArgumentException("sketchRows is " + sketchRows + ", expected >= 1");
    }
    int m = rows.features();
    if ((long) sketchRows * m > Integer.MAX_VALUE - 16) {
      failTooLarge(sketchRows, m);
    }
    Moments sums = rows.sum(new Prepare(m, sketchRows, seed), executor);
    long n = sums.n;
    if (n == 0) {
      throw new IllegalArgumentException("the training source has no rows");
    }
    int s = sums.sample.size();
    double[] mean = new double[m];
    double[] rhs = new double[m];
    double targetMean = sums.targetSum / n;
    for (int i = 0; i < m; i++) {
      mean[i] = sums.colSum[i] / n;
      rhs[i] = (sums.zt[i] - n * mean[i] * targetMean) / n;
    }
    float[] sample = sums.sample.rowsInKeyOrder();
    double[] sketch = new double[s * m];
    for (int r = 0; r < s; r++) {
      for (int i = 0; i < m; i++) {
        sketch[r * m + i] = sample[r * m + i] - mean[i];
      }
    }
    return new ConjugateGradientRidge(rows, m, n, mean, targetMean, rhs, sketch, s,
        gram(sketch, s, m, executor), executor);
  }

  /** The preparing pass's sums over a part: n, column sums, Z^T t, the targets' sum, a sample. */
  private static final class Moments implements java.io.Serializable {
    long n;
    final double[] colSum;
    final double[] zt;
    double targetSum;
    final SmallestKeys sample;

    Moments(int m, int sketchRows) {
      this.colSum = new double[m];
      this.zt = new double[m];
      this.sample = new SmallestKeys(sketchRows, m);
    }
  }

  /** The preparing pass. */
  private record Prepare(int m, int sketchRows, long seed) implements Partitions.Pass<Moments> {

    @Override
    public Moments over(MiniBatchSource part, Executor helpers) {
      Moments sums = new Moments(m, sketchRows);
      float[] row = new float[m];
      float[] ones = new float[BATCH];
      Arrays.fill(ones, 1f);
      float[] partial = new float[m];
      Loss loss = Task.REGRESSION.loss();
      long index = 0;
      try (MiniBatchSource.Batches batches = part.epoch(0, BATCH, 0)) {
        while (batches.hasNext()) {
          MiniBatch batch = batches.next();
          int k = batch.rows();
          loss.checkLabels(k, batch.targets(), null, batch.rowIds());
          FeatureRows z = batch.features();
          Arrays.fill(partial, 0f);
          z.accumulateTransposed(ones, 1, partial);
          addTo(partial, sums.colSum);
          Arrays.fill(partial, 0f);
          z.accumulateTransposed(batch.targets(), 1, partial);
          addTo(partial, sums.zt);
          for (int r = 0; r < k; r++, index++) {
            sums.targetSum += batch.targets()[r];
            long id = batch.rowIds() != null ? batch.rowIds()[r] : index;
            long key = SmallestKeys.key(seed, id);
            if (sums.sample.wants(key, id)) {
              z.decode(r, row, 0);
              sums.sample.offer(key, id, row, 0);
            }
          }
          sums.n += k;
        }
      }
      return sums;
    }

    @Override
    public Moments plus(Moments a, Moments b) {
      a.n += b.n;
      addTo(b.colSum, a.colSum);
      addTo(b.zt, a.zt);
      a.targetSum += b.targetSum;
      a.sample.addAll(b.sample);
      return a;
    }
  }

  private static void failTooLarge(int sketchRows, int m) {
    throw new IllegalArgumentException("sketchRows * m = " + sketchRows + " * " + m
        + " exceeds the largest array; use fewer sketch rows");
  }

  /** Zs Zs^T (s x s) by the Gram kernel, reading Zs^T's m rows of s entries in chunks. */
  private static double[] gram(double[] sketch, int s, int m, Executor executor) {
    int stride = Gram.stride(s);
    double[] g = new double[stride * stride];
    int chunkRows = ClosedFormRidge.CHUNK_ROWS;
    double[] chunk = new double[chunkRows * stride];
    for (int i0 = 0; i0 < m; i0 += chunkRows) {
      int k = Math.min(chunkRows, m - i0);
      for (int i = 0; i < k; i++) {
        for (int r = 0; r < stride; r++) {
          chunk[Gram.at(k, i, r)] = r < s ? sketch[r * m + i0 + i] : 0;
        }
      }
      Gram.accumulateUpper(chunk, k, stride, g, executor);
    }
    Gram.finish(g, s, stride);
    return Arrays.copyOf(g, s * s);
  }

  /** Rows n of the source. */
  public long rows() {
    return n;
  }

  /** Passes over the source so far, the preparing one included. */
  public long passes() {
    return passes + 1;
  }

  /** Rows in the preconditioner's sample. */
  public int sketchRows() {
    return s;
  }

  /**
   * Solves for {@code lambda} from {@code start} (zeros, or a neighbouring lambda's model: a warm
   * start), to a residual below {@code tolerance} ||rhs||.
   *
   * @throws IllegalArgumentException if lambda is not finite and > 0, tolerance not in (0, 1),
   *     maxIterations < 1, or start does not have m features and one output
   */
  public TrainingResult solve(double lambda, LinearModel start, double tolerance,
      int maxIterations, TrainingListener listener) {
    if (!(lambda > 0) || Double.isInfinite(lambda)) {
      throw new IllegalArgumentException("lambda is " + lambda + ", expected finite and > 0 for"
          + " conjugate gradients (lambda = 0 needs the closed form)");
    }
    if (!(tolerance > 0 && tolerance < 1)) {
      throw new IllegalArgumentException("tolerance is " + tolerance + ", expected in (0, 1)");
    }
    if (maxIterations < 1) {
      throw new IllegalArgumentException("maxIterations is " + maxIterations + ", expected >= 1");
    }
    if (start == null || start.features() != m || start.outputs() != 1) {
      throw new IllegalArgumentException("start model is " + (start == null ? "null"
          : start.features() + " x " + start.outputs()) + ", expected " + m + " x 1");
    }
    TrainingListener hear = listener == null ? TrainingListener.NONE : listener;
    long passesBefore = passes; // the result counts this solve's passes, as L-BFGS's does
    LinearSolverDense<DMatrixRMaj> cholesky = preconditioner(lambda);
    double[] w = new double[m];
    float[] w0 = start.weightsT();
    for (int i = 0; i < m; i++) {
      w[i] = w0[i];
    }
    double[] r = new double[m];
    double[] ap = new double[m];
    apply(w, lambda, ap);
    for (int i = 0; i < m; i++) {
      r[i] = rhs[i] - ap[i];
    }
    double rhsNorm = norm(rhs);
    double[] z = new double[m];
    precondition(cholesky, lambda, r, z);
    double[] p = z.clone();
    double rz = dot(r, z);
    List<EpochRecord> records = new ArrayList<>();
    double residual = norm(r) / rhsNorm;
    int iteration = 0;
    StopReason reason = StopReason.EPOCH_CAP;
    String message = "stopped after " + maxIterations + " iterations at relative residual ";
    while (true) {
      if (!Double.isFinite(residual)) {
        return new TrainingResult(model(start.weightsT(), start.bias()[0]), StopReason.DIVERGED,
            "the residual is " + residual + " at iteration " + iteration, iteration,
            passes - passesBefore, 0, -1, Double.NaN, Double.NaN, records);
      }
      if (residual <= tolerance || rhsNorm == 0) {
        reason = StopReason.CONVERGED;
        message = "relative residual " + residual + " <= " + tolerance + " after " + iteration
            + " iterations";
        break;
      }
      if (iteration == maxIterations) {
        message += residual;
        break;
      }
      long t0 = System.nanoTime();
      apply(p, lambda, ap);
      double alpha = rz / dot(p, ap);
      for (int i = 0; i < m; i++) {
        w[i] += alpha * p[i];
        r[i] -= alpha * ap[i];
      }
      precondition(cholesky, lambda, r, z);
      double rzNext = dot(r, z);
      double beta = rzNext / rz;
      rz = rzNext;
      for (int i = 0; i < m; i++) {
        p[i] = z[i] + beta * p[i];
      }
      residual = norm(r) / rhsNorm;
      EpochRecord record = new EpochRecord(iteration, residual, Double.NaN, Double.NaN, alpha,
          (System.nanoTime() - t0) / 1e9, true, false);
      records.add(record);
      hear.onEpoch(record);
      iteration++;
    }
    float[] wf = new float[m];
    double bias = targetMean;
    for (int i = 0; i < m; i++) {
      wf[i] = (float) w[i];
      bias -= mean[i] * w[i];
    }
    return new TrainingResult(model(wf, (float) bias), reason, message, iteration,
        passes - passesBefore, 0, iteration, Double.NaN, Double.NaN, records);
  }

  private LinearModel model(float[] w, float bias) {
    return LinearModel.of(m, 1, w, new float[] {bias});
  }

  /** out = A v = (Z^T Z v) / n - mu (mu . v) + lambda v: one pass. */
  private void apply(double[] v, double lambda, double[] out) {
    float[] vf = new float[m]; // the pass's own copy: a cluster ships it
    for (int i = 0; i < m; i++) {
      vf[i] = (float) v[i];
    }
    passes++;
    double[] normal = rows.sum(new NormalProduct(m, vf), executor);
    double muV = dot(mean, v);
    for (int i = 0; i < m; i++) {
      out[i] = normal[i] / n - mean[i] * muV + lambda * v[i];
    }
  }

  /** The pass of A v: Z^T (Z v) summed over a part's rows. */
  private record NormalProduct(int m, float[] v) implements Partitions.Pass<double[]> {

    @Override
    public double[] over(MiniBatchSource part, Executor helpers) {
      return new ChunkedProducts(m, 1, BATCH, helpers).normal(part, v);
    }

    @Override
    public double[] plus(double[] a, double[] b) {
      addTo(b, a);
      return a;
    }
  }

  /** The Cholesky factor of lambda s I + Zs Zs^T. */
  private LinearSolverDense<DMatrixRMaj> preconditioner(double lambda) {
    DMatrixRMaj k = new DMatrixRMaj(s, s);
    System.arraycopy(sketchGram, 0, k.data, 0, s * s);
    for (int i = 0; i < s; i++) {
      k.data[i * s + i] += lambda * s;
    }
    LinearSolverDense<DMatrixRMaj> solver = LinearSolverFactory_DDRM.chol(s);
    if (!solver.setA(k)) {
      throw new IllegalArgumentException("the preconditioner's " + s + " x " + s + " system is"
          + " not positive definite at lambda " + lambda);
    }
    return solver;
  }

  /** z = P^-1 r = (r - Zs^T K^-1 Zs r) / lambda. */
  private void precondition(
      LinearSolverDense<DMatrixRMaj> cholesky, double lambda, double[] r, double[] z) {
    DMatrixRMaj y = new DMatrixRMaj(s, 1);
    for (int a = 0; a < s; a++) {
      double sum = 0;
      for (int i = 0; i < m; i++) {
        sum += sketch[a * m + i] * r[i];
      }
      y.data[a] = sum;
    }
    DMatrixRMaj x = new DMatrixRMaj(s, 1);
    cholesky.solve(y, x);
    System.arraycopy(r, 0, z, 0, m);
    for (int a = 0; a < s; a++) {
      double xa = x.data[a];
      for (int i = 0; i < m; i++) {
        z[i] -= sketch[a * m + i] * xa;
      }
    }
    for (int i = 0; i < m; i++) {
      z[i] /= lambda;
    }
  }
}
