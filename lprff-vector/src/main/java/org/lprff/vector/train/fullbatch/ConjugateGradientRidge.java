package org.lprff.vector.train.fullbatch;

import static org.lprff.vector.train.fullbatch.DoubleVectors.addTo;
import static org.lprff.vector.train.fullbatch.DoubleVectors.dot;
import static org.lprff.vector.train.fullbatch.DoubleVectors.norm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
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
 * <p><b>Preconditioner</b> ({@link SketchPreconditioner}), as FALKON's for Nyström, from a
 * seeded uniform sample of s rows (the s smallest hashes of (seed, row id), taken during the first
 * pass: no random access, and the same sample however the rows are split into parts), shifted past
 * lambda by what the sample cannot resolve. {@link #prepare(Partitions, ConjugateGradientRidge,
 * Executor)} gives another system over the same rows (the refit's, after the l2 path) that
 * preconditioner, and a solve started from the model the last solve returned (the path's warm
 * start) continues from its residual without a pass.
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
  private final SketchPreconditioner preconditioner;
  private long passes;
  /**
   * The last solve's model, with its double weights, residual and lambda: a solve started from
   * that model (the l2 path's warm start) goes on from there without a pass for its residual.
   */
  private LinearModel last;
  private double[] lastWeights;
  private double[] lastResidual;
  private double lastLambda;

  private ConjugateGradientRidge(Partitions rows, int m, long n, double[] mean,
      double targetMean, double[] rhs, SketchPreconditioner preconditioner, Executor executor) {
    this.rows = rows;
    this.executor = executor;
    this.m = m;
    this.n = n;
    this.mean = mean;
    this.targetMean = targetMean;
    this.rhs = rhs;
    this.preconditioner = preconditioner;
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
    return prepare(rows, sketchRows, seed, SketchPreconditioner.SHIFT_DIVISOR, executor);
  }

  /** {@link #prepare(Partitions, int, long, Executor)} with another shift (the tests'). */
  static ConjugateGradientRidge prepare(
      Partitions rows, int sketchRows, long seed, double shiftDivisor, Executor executor) {
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
    Moments.Solved system = sums.solved(m);
    float[] sample = sums.sample.rowsInKeyOrder();
    return new ConjugateGradientRidge(rows, m, sums.n, system.mean(), system.targetMean(),
        system.rhs(), new SketchPreconditioner(sample, sums.sample.size(), m, system.mean(),
            sums.sample.grid(), shiftDivisor, executor), executor);
  }

  /**
   * The system of {@code rows} with {@code sharing}'s preconditioner: one preparing pass (n, the
   * means, Z^T t) and no sample, Gram or factorization of its own. For rows that {@code
   * sharing}'s rows are a large subset of (the l2 path's 90% of the training rows, then the
   * refit on all of them), whose sample approximates these rows as well.
   *
   * @throws IllegalArgumentException as {@link #prepare(Partitions, int, long, Executor)}, or if
   *     the rows do not have {@code sharing}'s features
   */
  public static ConjugateGradientRidge prepare(
      Partitions rows, ConjugateGradientRidge sharing, Executor executor) {
    if (rows == null || sharing == null) {
      throw new IllegalArgumentException((rows == null ? "rows" : "sharing") + " is null");
    }
    int m = rows.features();
    if (m != sharing.m) {
      throw new IllegalArgumentException("the rows have " + m + " features, the system whose"
          + " preconditioner they share " + sharing.m);
    }
    Moments sums = rows.sum(new Prepare(m, 0, 0), executor);
    Moments.Solved system = sums.solved(m);
    return new ConjugateGradientRidge(rows, m, sums.n, system.mean(), system.targetMean(),
        system.rhs(), sharing.preconditioner, executor);
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
      this.sample = sketchRows > 0 ? new SmallestKeys(sketchRows, m) : null;
    }

    /** The centered system's means and right-hand side Zc^T tc / n. */
    record Solved(double[] mean, double targetMean, double[] rhs) {}

    Solved solved(int m) {
      if (n == 0) {
        throw new IllegalArgumentException("the training source has no rows");
      }
      double[] mean = new double[m];
      double[] rhs = new double[m];
      double targetMean = targetSum / n;
      for (int i = 0; i < m; i++) {
        mean[i] = colSum[i] / n;
        rhs[i] = (zt[i] - n * mean[i] * targetMean) / n;
      }
      return new Solved(mean, targetMean, rhs);
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
          for (int r = 0; r < k; r++) {
            sums.targetSum += batch.targets()[r];
          }
          if (sums.sample != null) {
            SketchPreconditioner.offer(sums.sample, z, batch.rowIds(), sums.n, seed, row);
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
      if (a.sample != null) {
        a.sample.addAll(b.sample);
      }
      return a;
    }
  }

  private static void failTooLarge(int sketchRows, int m) {
    throw new IllegalArgumentException("sketchRows * m = " + sketchRows + " * " + m
        + " exceeds the largest array; use fewer sketch rows");
  }

  /** Rows n of the source. */
  public long rows() {
    return n;
  }

  /** Passes over the source so far, the preparing one included. */
  public long passes() {
    return passes + 1;
  }

  /** The preconditioner's shift beyond lambda ({@link SketchPreconditioner}). */
  public double shift() {
    return preconditioner.shift();
  }

  /** Rows in the preconditioner's sample. */
  public int sketchRows() {
    return preconditioner.rows();
  }

  /**
   * Solves for {@code lambda} from {@code start} (zeros, or a neighbouring lambda's model: a warm
   * start), to a residual below {@code tolerance} ||rhs||. From the model this system's last solve
   * returned, it goes on from that solve's double weights and residual, and from zero weights
   * its residual is rhs: neither makes a pass for the starting residual.
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
    double mu = preconditioner.mu(lambda);
    double[] w;
    double[] r;
    double[] ap = new double[m];
    if (start == last && last != null) {
      // The model this system's last solve returned: continue from its double weights, and its
      // residual needs no pass, rhs - A_lambda w = r_last - (lambda - lambda_last) w.
      w = lastWeights.clone();
      r = lastResidual.clone();
      for (int i = 0; i < m; i++) {
        r[i] -= (lambda - lastLambda) * w[i];
      }
    } else {
      w = new double[m];
      float[] w0 = start.weightsT();
      for (int i = 0; i < m; i++) {
        w[i] = w0[i];
      }
      r = rhs.clone();
      if (!allZero(w0)) { // from zero weights, r = rhs with no pass
        apply(w, lambda, ap);
        for (int i = 0; i < m; i++) {
          r[i] -= ap[i];
        }
      }
    }
    double rhsNorm = norm(rhs);
    double[] z = new double[m];
    preconditioner.apply(mu, r, z);
    double[] p = z.clone();
    double[] zPrevious = new double[m];
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
      // Flexible (Polak-Ribiere) beta: the preconditioner is applied in float, so it is a
      // slightly different operator at each step, which the plain beta r'z / r'z assumes not.
      System.arraycopy(z, 0, zPrevious, 0, m);
      preconditioner.apply(mu, r, z);
      double rzNext = dot(r, z);
      double beta = Math.max(0, (rzNext - dot(r, zPrevious)) / rz);
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
    last = model(wf, (float) bias);
    lastWeights = w;
    lastResidual = r;
    lastLambda = lambda;
    return new TrainingResult(last, reason, message, iteration,
        passes - passesBefore, 0, iteration, Double.NaN, Double.NaN, records);
  }

  private static boolean allZero(float[] w) {
    for (float x : w) {
      if (x != 0) {
        return false;
      }
    }
    return true;
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
}
