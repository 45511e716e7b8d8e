package org.lprff.vector.metrics;

import java.util.concurrent.Executor;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.LinearSolverFactory_DDRM;
import org.ejml.interfaces.linsol.LinearSolverDense;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.simd.ParallelTasks;

/**
 * Exact kernel ridge regression, the ground truth that feature methods approximate (for n up to a
 * few thousand: the n x n system is solved by Cholesky in double).
 *
 * <p><b>Scaling.</b> The SGD objective over features z(x) in R^m is
 *
 * <pre>  L(w) = (1/n) sum_i (w . z_i - y_i)^2 / 2 + (λ/2) ||w||^2,</pre>
 *
 * whose minimizer solves (Z^T Z + n λ I) w = Z^T y (gradient (1/n) Z^T (Z w - y) + λ w = 0). By the
 * push-through identity (Z^T Z + n λ I)^(-1) Z^T = Z^T (Z Z^T + n λ I)^(-1), w = Z^T α with
 *
 * <pre>  (K + n λ I) α = y,   K = Z Z^T,</pre>
 *
 * and the prediction w . z(x) = sum_i α_i z_i . z(x) = sum_i α_i k(x_i, x) when k(x, x') = z(x) .
 * z(x'). So this class solves (K + n λ I) α = y with the exact K: the same λ means the same
 * objective, the kernel one being the limit of the feature one as K~ = Z Z^T tends to K.
 *
 * <p><b>Intercept.</b> y is centered: α solves (K + n λ I) α = y - ȳ and f(x) = ȳ + sum_i α_i
 * k(x_i, x). This is exactly the feature-space ridge on (Z, y - ȳ) with the prediction ȳ + w .
 * z(x), i.e. an intercept fixed at the training mean and not penalized. (It is not the jointly
 * fitted unpenalized intercept, which would also need centered features/kernel; for the
 * regression targets here the difference is the intercept's small shift away from ȳ.)
 *
 * <p>Immutable and thread-safe after {@link #fit}; it keeps a copy of the training rows for
 * prediction.
 */
public final class ExactKernelRidge {

  /** Rows of new data per prediction task: a 256 x n block of the cross kernel. */
  static final int PREDICT_BLOCK = 256;

  private final KernelFunction kernel;
  private final float[] rows;
  private final int n;
  private final int d;
  private final double lambda;
  private final Dual dual;

  private ExactKernelRidge(
      KernelFunction kernel, float[] rows, int n, int d, double lambda, Dual dual) {
    this.kernel = kernel;
    this.rows = rows;
    this.n = n;
    this.d = d;
    this.lambda = lambda;
    this.dual = dual;
  }

  /**
   * The dual solution for a given kernel (or Gram) matrix: α with (K + n λ I) α = y - ȳ and the
   * intercept ȳ. Predictions are {@code intercept + C α} for the cross kernel C_ij = k(x_new_i,
   * x_j).
   *
   * @param alpha the n dual coefficients
   * @param intercept ȳ, the mean of the training targets
   */
  public record Dual(double[] alpha, double intercept) {

    /** Copies alpha: a dual solution is immutable. */
    public Dual {
      if (alpha == null) {
        throw new IllegalArgumentException("alpha is null");
      }
      alpha = alpha.clone();
    }

    /** A copy of α. */
    @Override
    public double[] alpha() {
      return alpha.clone();
    }

    /** intercept + C α for the cross matrix C (rows: new points, columns: training points). */
    public double[] predict(DMatrixRMaj cross) {
      if (cross == null) {
        throw new IllegalArgumentException("cross is null");
      }
      if (cross.numCols != alpha.length) {
        throw new IllegalArgumentException(
            "cross has " + cross.numCols + " columns, expected " + alpha.length
                + " (one per training point)");
      }
      double[] out = new double[cross.numRows];
      multiply(cross.data, 0, cross.numRows, out, 0);
      return out;
    }

    /** out[outOff + r] = intercept + sum_j c[r n + j] alpha[j] for r < count. */
    void multiply(double[] c, int cOff, int count, double[] out, int outOff) {
      int n = alpha.length;
      for (int r = 0; r < count; r++) {
        out[outOff + r] = intercept + Dots.dot(c, cOff + r * n, alpha, 0, n);
      }
    }
  }

  /**
   * Solves (K + n λ I) α = y - ȳ by Cholesky (n = K's size; see the class comment for the
   * scaling).
   *
   * @throws IllegalArgumentException naming the value if gram is null, not square or not finite,
   *     y is null, of the wrong length or not finite, λ is not finite and > 0, or K + n λ I is not
   *     positive definite
   */
  public static Dual solve(DMatrixRMaj gram, double[] y, double lambda) {
    if (gram == null) {
      throw new IllegalArgumentException("gram is null");
    }
    if (gram.numRows != gram.numCols || gram.numRows < 1) {
      throw new IllegalArgumentException(
          "gram is " + gram.numRows + " x " + gram.numCols + ", expected a square matrix, n >= 1");
    }
    int n = gram.numRows;
    checkLambda(lambda);
    checkTargets(y, n);
    for (int i = 0; i < n * n; i++) {
      if (!Double.isFinite(gram.data[i])) {
        throw new IllegalArgumentException(
            "gram[" + i / n + ", " + i % n + "] is " + gram.data[i] + ", expected finite values");
      }
    }
    double mean = 0;
    for (double v : y) {
      mean += v;
    }
    mean /= n;
    DMatrixRMaj a = gram.copy();
    double ridge = n * lambda;
    for (int i = 0; i < n; i++) {
      a.data[i * n + i] += ridge;
    }
    DMatrixRMaj b = new DMatrixRMaj(n, 1);
    for (int i = 0; i < n; i++) {
      b.data[i] = y[i] - mean;
    }
    LinearSolverDense<DMatrixRMaj> solver = LinearSolverFactory_DDRM.chol(n);
    if (!solver.setA(a)) {
      throw new IllegalArgumentException(
          "K + n lambda I is not positive definite for n = " + n + ", lambda = " + lambda
              + " (is the matrix a kernel matrix?)");
    }
    DMatrixRMaj x = new DMatrixRMaj(n, 1);
    solver.solve(b, x);
    for (int i = 0; i < n; i++) {
      if (!Double.isFinite(x.data[i])) {
        throw new IllegalArgumentException(
            "the solution is not finite (alpha[" + i + "] = " + x.data[i] + "): K + n lambda I"
                + " is numerically singular for lambda = " + lambda);
      }
    }
    return new Dual(x.data, mean);
  }

  /** {@link #fit(KernelFunction, float[], int, int, double[], double, Executor)} sequentially. */
  public static ExactKernelRidge fit(
      KernelFunction kernel, float[] rows, int n, int d, double[] y, double lambda) {
    return fit(kernel, rows, n, d, y, lambda, null);
  }

  /**
   * Fits kernel ridge regression on n training rows of d floats with targets y: builds K (on
   * {@code executor} if not null, see {@link KernelMatrix#exact}) and {@link #solve}s.
   *
   * @throws IllegalArgumentException naming the value for invalid rows, targets or λ (see {@link
   *     KernelMatrix#exact} and {@link #solve})
   */
  public static ExactKernelRidge fit(
      KernelFunction kernel, float[] rows, int n, int d, double[] y, double lambda,
      Executor executor) {
    checkLambda(lambda);
    DMatrixRMaj k = KernelMatrix.exact(kernel, rows, n, d, executor);
    Dual dual = solve(k, y, lambda);
    float[] copy = java.util.Arrays.copyOf(rows, n * d);
    return new ExactKernelRidge(kernel, copy, n, d, lambda, dual);
  }

  /** Predictions for n rows of d floats, sequentially. */
  public double[] predict(float[] newRows, int count) {
    return predict(newRows, count, null);
  }

  /**
   * Predictions ȳ + sum_i α_i k(x_i, x) for {@code count} rows of d floats; blocks of {@value
   * #PREDICT_BLOCK} rows run on {@code executor} if not null.
   *
   * @throws IllegalArgumentException naming the value if newRows is null, too short or not
   *     finite, or count < 0
   */
  public double[] predict(float[] newRows, int count, Executor executor) {
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    double[] out = new double[count];
    if (count == 0) {
      return out;
    }
    KernelMatrix.checkRows("newRows", newRows, count, d, "d");
    int blocks = (count + PREDICT_BLOCK - 1) / PREDICT_BLOCK;
    ParallelTasks.run(
        blocks,
        executor,
        block -> {
          int r0 = block * PREDICT_BLOCK;
          int rows1 = Math.min(count, r0 + PREDICT_BLOCK);
          float[] part = java.util.Arrays.copyOfRange(newRows, r0 * d, rows1 * d);
          DMatrixRMaj c = KernelMatrix.cross(kernel, part, rows1 - r0, rows, n, d);
          dual.multiply(c.data, 0, rows1 - r0, out, r0);
        });
    return out;
  }

  public KernelFunction kernel() {
    return kernel;
  }

  /** Number of training rows. */
  public int n() {
    return n;
  }

  /** Input width. */
  public int inputDim() {
    return d;
  }

  public double lambda() {
    return lambda;
  }

  /** A copy of α. */
  public double[] alpha() {
    return dual.alpha();
  }

  /** ȳ. */
  public double intercept() {
    return dual.intercept();
  }

  private static void checkLambda(double lambda) {
    if (!(lambda > 0) || Double.isInfinite(lambda)) {
      throw new IllegalArgumentException("lambda is " + lambda + ", expected finite and > 0");
    }
  }

  private static void checkTargets(double[] y, int n) {
    if (y == null) {
      throw new IllegalArgumentException("y is null");
    }
    if (y.length != n) {
      throw new IllegalArgumentException(
          "y has length " + y.length + ", expected n = " + n + " targets");
    }
    for (int i = 0; i < n; i++) {
      if (!Double.isFinite(y[i])) {
        throw new IllegalArgumentException("y[" + i + "] is " + y[i] + ", expected finite");
      }
    }
  }
}
