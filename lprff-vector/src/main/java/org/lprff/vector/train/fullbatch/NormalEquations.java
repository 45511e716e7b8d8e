package org.lprff.vector.train.fullbatch;

import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import org.lprff.vector.products.Cholesky;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.LinearModel;

/**
 * The sums behind ridge's normal equations over n rows: Z^T Z, Z^T T, the column sums of Z and
 * T. Made by {@link ClosedFormRidge#accumulate}; solved for any lambda without another pass over
 * the rows, so choosing lambda on a validation set costs one Cholesky solve per candidate (the
 * library's blocked {@link Cholesky}, on the common pool: at m = 4096 several times faster than
 * EJML's multithreaded one, see {@code CholeskyBenchmark}), and {@link #plus} merges the sums of
 * two row sets (refit on train + validation).
 */
public final class NormalEquations implements java.io.Serializable {

  private final Task task;
  private final int m;
  private final long n;
  private final double[] gram; // row-major m x m, Z^T Z
  private final double[] zt; // row-major m x c, Z^T T
  private final double[] colSum;
  private final double[] targetSum;

  NormalEquations(Task task, int m, long n, double[] gram, double[] zt, double[] colSum,
      double[] targetSum) {
    this.task = task;
    this.m = m;
    this.n = n;
    this.gram = gram;
    this.zt = zt;
    this.colSum = colSum;
    this.targetSum = targetSum;
  }

  public int features() {
    return m;
  }

  public long rows() {
    return n;
  }

  public Task task() {
    return task;
  }

  /**
   * The sums over both row sets.
   *
   * @throws IllegalArgumentException if the tasks or feature counts differ (naming both)
   */
  public NormalEquations plus(NormalEquations other) {
    if (other.m != m || !other.task.equals(task)) {
      throw new IllegalArgumentException("cannot add normal equations of " + other.m
          + " features (" + other.task + ") to " + m + " features (" + task + ")");
    }
    return new NormalEquations(task, m, n + other.n, sum(gram, other.gram, m * m),
        sum(zt, other.zt, zt.length), sum(colSum, other.colSum, m),
        sum(targetSum, other.targetSum, targetSum.length));
  }

  /**
   * The sums of the first {@code k} features alone: the normal equations of the model that reads
   * only them, without another pass over the rows (a random subset of random features is a
   * feature map of k features, so the search compares m and k features on one Gram).
   *
   * @throws IllegalArgumentException unless 1 <= k <= m (naming k)
   */
  public NormalEquations leading(int k) {
    if (k < 1 || k > m) {
      throw new IllegalArgumentException("leading " + k + " features of " + m + ": expected 1 to "
          + m);
    }
    if (k == m) {
      return this;
    }
    int c = task.outputs();
    double[] g = new double[k * k];
    for (int i = 0; i < k; i++) {
      System.arraycopy(gram, i * m, g, i * k, k);
    }
    return new NormalEquations(task, k, n, g, Arrays.copyOf(zt, k * c),
        Arrays.copyOf(colSum, k), targetSum.clone());
  }

  private static double[] sum(double[] a, double[] b, int length) {
    double[] s = Arrays.copyOf(a, length);
    for (int i = 0; i < length; i++) {
      s[i] += b[i];
    }
    return s;
  }

  /** The features' column means mu (a new array). */
  double[] featureMeans() {
    double[] mu = new double[m];
    for (int i = 0; i < m; i++) {
      mu[i] = colSum[i] / n;
    }
    return mu;
  }

  /** The mean of output j's targets. */
  double targetMean(int j) {
    return targetSum[j] / n;
  }

  /** Zc^T Zc = Z^T Z - n mu mu^T, row-major m x m (a new array). */
  double[] centeredGram() {
    double[] mu = featureMeans();
    double[] centered = new double[m * m];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < m; j++) {
        centered[i * m + j] = gram[i * m + j] - n * mu[i] * mu[j];
      }
    }
    return centered;
  }

  /** Zc^T tc_j = (Z^T T)_j - n mu t_mean_j for output j (a new array). */
  double[] centeredCross(int j) {
    int c = task.outputs();
    double[] mu = featureMeans();
    double targetMean = targetMean(j);
    double[] cross = new double[m];
    for (int i = 0; i < m; i++) {
      cross[i] = zt[i * c + j] - n * mu[i] * targetMean;
    }
    return cross;
  }

  static void checkLambda(double lambda) {
    if (!(lambda >= 0) || Double.isInfinite(lambda)) {
      throw new IllegalArgumentException(
          "lambda is " + lambda + ", expected a finite value >= 0");
    }
  }

  /**
   * The exact minimizer for {@code lambda}: (Zc^T Zc + lambda n I) W = Zc^T Tc with centered Zc =
   * Z - 1 mu^T, Tc, and the unregularized intercept b = t_mean - W^T mu (see {@link
   * ClosedFormRidge}). Leaves these sums unchanged.
   *
   * @throws IllegalArgumentException if lambda is negative or not finite, or the system is not
   *     positive definite (lambda = 0 with collinear features) or gives non-finite weights
   */
  public LinearModel solve(double lambda) {
    checkLambda(lambda);
    int c = task.outputs();
    double[] mu = featureMeans();
    double ridge = lambda * n;
    double[] centered = centeredGram();
    for (int i = 0; i < m; i++) {
      centered[i * m + i] += ridge;
    }
    try {
      Cholesky.factor(centered, m, ForkJoinPool.commonPool());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Zc^T Zc + lambda n I is not positive definite (lambda = " + lambda + ", n = " + n
              + ", m = " + m + "): the centered features are collinear; use a larger lambda ("
              + e.getMessage() + ")", e);
    }
    double[][] x = new double[c][];
    double[] targetMean = new double[c];
    for (int j = 0; j < c; j++) {
      targetMean[j] = targetMean(j);
      x[j] = centeredCross(j);
      Cholesky.solve(centered, m, x[j]);
    }
    float[] wT = new float[c * m];
    float[] bias = new float[c];
    for (int j = 0; j < c; j++) {
      double intercept = targetMean[j];
      for (int i = 0; i < m; i++) {
        double w = x[j][i];
        if (!Double.isFinite(w)) {
          throw new IllegalArgumentException(
              "the solve gave a non-finite weight W[" + i + "][" + j + "] = " + w + " (lambda = "
                  + lambda + "): the system is too ill-conditioned; use a larger lambda");
        }
        wT[j * m + i] = (float) w;
        intercept -= mu[i] * w;
      }
      bias[j] = (float) intercept;
    }
    return LinearModel.of(m, c, wT, bias);
  }
}
