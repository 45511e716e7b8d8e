package org.lprff.vector.metrics;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.CholeskyDecomposition_F64;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.lprff.vector.simd.ParallelTasks;

/**
 * How well K~ approximates K: the (Δ1, Δ2)-spectral approximation of Zhang, May, Dao and Ré
 * (AISTATS 2019, after Avron et al. 2017) and two classical norms.
 *
 * <p>Δ1 and Δ2 are the smallest values with
 *
 * <pre>  (1 - Δ1)(K + λI) ⪯ K~ + λI ⪯ (1 + Δ2)(K + λI).</pre>
 *
 * With A = K + λI (positive definite for K ⪰ 0 and λ > 0) and E = K~ - K, the condition reads
 * -Δ1 A ⪯ E ⪯ Δ2 A, i.e. -Δ1 ≤ x^T E x / x^T A x ≤ Δ2 for all x: the extreme eigenvalues of the
 * pencil (E, A), which are those of M = A^(-1/2) E A^(-1/2). So Δ2 = max(0, λ_max(M)) and Δ1 =
 * max(0, -λ_min(M)).
 *
 * <p><b>How M is formed.</b> Any factor A = L L^T gives a matrix L^(-1) E L^(-T) = Q M Q^T with Q =
 * L^(-1) A^(1/2) orthogonal, so the same eigenvalues. This class uses the Cholesky factor rather
 * than A^(-1/2) from an eigendecomposition of A, because it is as accurate and much cheaper:
 *
 * <ul>
 *   <li>Accuracy. Cholesky of a positive definite matrix is backward stable without pivoting: the
 *       computed L satisfies L L^T = A + ΔA with ||ΔA||_2 <= c n u ||A||_2, and the triangular
 *       solves add backward errors of the same kind. The result is then exactly the pencil (E, A +
 *       ΔA), and A + ΔA = A^(1/2) (I + F) A^(1/2) with ||F||_2 <= ||ΔA||_2 / λ_min(A) = c n u
 *       κ(A), κ(A) = (μ_max + λ) / (μ_min + λ) for μ the eigenvalues of K; so Δ1 and Δ2 carry a
 *       relative error of about c n u κ(A), plus the eigensolver's absolute u ||M||. The
 *       eigendecomposition route perturbs each μ_i + λ by c n u ||A||, the same relative c n u κ(A)
 *       on the small ones, and its computed eigenvectors are orthogonal only to c n u: no gain.
 *   <li>Cost. n^3/6 multiply-adds for Cholesky against several n^3 for eigenvalues with vectors
 *       (EJML, n = 1000, measured: 0.6 s against 3.2 s), then n^3 multiply-adds for the two
 *       triangular solves against 2 n^3 for the two dense products A^(-1/2) E A^(-1/2).
 * </ul>
 *
 * The computed L^(-1) E L^(-T) is symmetrized ((M + M^T)/2) before the symmetric eigensolver.
 *
 * <p>Also reported: ||K - K~||_F and the spectral norm ||K - K~||_2 = max |eigenvalue of E|.
 *
 * <p>Cost of one comparison: two triangular solves with n right-hand sides (n^3 multiply-adds), two
 * symmetric eigenvalue problems without vectors (M and E; about 0.75 s each at n = 1000 with
 * EJML), and about five n x n double arrays. Use a {@link Reference} to factor K + λI once and
 * compare many K~ against it.
 *
 * @param n the matrix size
 * @param lambda λ > 0
 * @param delta1 Δ1 >= 0 (the lower bound, governed by the number of features)
 * @param delta2 Δ2 >= 0 (the upper bound, raised by quantization noise)
 * @param frobeniusError ||K - K~||_F
 * @param spectralError ||K - K~||_2
 */
public record SpectralApproximation(
    int n, double lambda, double delta1, double delta2, double frobeniusError,
    double spectralError) {

  /**
   * Relative asymmetry tolerated in K and K~: |a_ij - a_ji| <= 1e-12 max|a| (a Gram matrix
   * accumulated in another order than its mirror differs by a few ulps).
   */
  static final double SYMMETRY_TOLERANCE = 1e-12;

  /** Right-hand sides per task of the triangular solves. */
  static final int SOLVE_ROWS = 16;

  /** Δ1, Δ2 and both norms of K~ against K at λ, computed on the calling thread. */
  public static SpectralApproximation of(DMatrixRMaj exact, DMatrixRMaj approximate, double lambda) {
    return reference(exact, lambda).compare(approximate);
  }

  /**
   * Factors K + λI once, for comparing several K~ with {@link Reference#compare}.
   *
   * @throws IllegalArgumentException naming the value if exact is null, not square, not
   *     symmetric or not finite, λ is not finite and > 0, or K + λI is not positive definite (K
   *     has an eigenvalue <= -λ)
   */
  public static Reference reference(DMatrixRMaj exact, double lambda) {
    return reference(exact, lambda, null);
  }

  /**
   * As {@link #reference(DMatrixRMaj, double)}; comparisons split the triangular solves over
   * {@code executor} and solve the two eigenvalue problems side by side (the results do not
   * depend on it).
   */
  public static Reference reference(DMatrixRMaj exact, double lambda, Executor executor) {
    if (!(lambda > 0) || Double.isInfinite(lambda)) {
      throw new IllegalArgumentException("lambda is " + lambda + ", expected finite and > 0");
    }
    checkSymmetric("exact", exact, -1);
    return new Reference(exact, lambda, executor);
  }

  /** Factored K + λI; immutable, thread-safe. */
  public static final class Reference {
    private final DMatrixRMaj exact;
    private final double lambda;
    private final Executor executor;
    /** Lower-triangular L with L L^T = K + λI, row-major n x n. */
    private final double[] lower;
    private final int n;

    private Reference(DMatrixRMaj exact, double lambda, Executor executor) {
      this.n = exact.numRows;
      this.exact = exact.copy();
      this.lambda = lambda;
      this.executor = executor;
      DMatrixRMaj a = exact.copy();
      for (int i = 0; i < n; i++) {
        a.data[i * n + i] += lambda;
      }
      CholeskyDecomposition_F64<DMatrixRMaj> chol = DecompositionFactory_DDRM.chol(n, true);
      if (!chol.decompose(a)) {
        throw new IllegalArgumentException(
            "K + lambda I is not positive definite for lambda = " + lambda
                + ": K has an eigenvalue <= -lambda (is it a kernel matrix?)");
      }
      DMatrixRMaj l = chol.getT(null);
      this.lower = l.data;
      for (int i = 0; i < n; i++) {
        if (!(lower[i * n + i] > 0)) {
          throw new IllegalArgumentException(
              "K + lambda I is not positive definite for lambda = " + lambda + " (pivot " + i
                  + " is " + lower[i * n + i] + ")");
        }
      }
    }

    public int n() {
      return n;
    }

    public double lambda() {
      return lambda;
    }

    /**
     * Δ1, Δ2, ||K - K~||_F and ||K - K~||_2 of {@code approximate} against this reference.
     *
     * @throws IllegalArgumentException naming the value if approximate is null, not n x n, not
     *     symmetric or not finite
     * @throws IllegalStateException if the eigensolver does not converge
     */
    public SpectralApproximation compare(DMatrixRMaj approximate) {
      checkSymmetric("approximate", approximate, n);
      double[] e = difference(approximate);
      double frobenius = frobenius(e);
      // The two eigenvalue problems are independent: with an executor, ||E||_2 runs beside M.
      double[] copy = e.clone();
      CompletableFuture<double[]> differenceEigenvalues =
          executor == null
              ? CompletableFuture.completedFuture(symmetricEigenvalues(copy))
              : CompletableFuture.supplyAsync(() -> symmetricEigenvalues(copy), executor);
      // e := E L^-T, its transpose L^-1 E (E is symmetric), then L^-1 E L^-T.
      solveRows(e);
      transposeInPlace(e, n);
      solveRows(e);
      symmetrize(e, n);
      double[] eigenvalues = symmetricEigenvalues(e);
      double[] ofDifference;
      try {
        ofDifference = differenceEigenvalues.join();
      } catch (CompletionException failure) {
        if (failure.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw failure;
      }
      double spectral =
          Math.max(Math.abs(ofDifference[0]), Math.abs(ofDifference[ofDifference.length - 1]));
      double lowest = eigenvalues[0];
      double highest = eigenvalues[eigenvalues.length - 1];
      return new SpectralApproximation(
          n, lambda, Math.max(0, -lowest), Math.max(0, highest), frobenius, spectral);
    }

    private double[] difference(DMatrixRMaj approximate) {
      double[] e = new double[n * n];
      double[] k = exact.data;
      double[] t = approximate.data;
      for (int i = 0; i < e.length; i++) {
        e[i] = t[i] - k[i];
      }
      return e;
    }

    /**
     * b := b L^-T: every row r of b is replaced by the solution w of L w = b[r, :]^T (forward
     * substitution, w_i = (b_i - L[i, 0:i] . w[0:i]) / L_ii, in place). Rows are independent, so
     * groups of {@value #SOLVE_ROWS} rows are the tasks; four rows go together so that each load
     * of L feeds four of them, each with two accumulators (even and odd k: 8 independent FMA
     * chains). A row's arithmetic is the same alone or in a group, so the result does not depend
     * on the executor.
     */
    private void solveRows(double[] b) {
      int tasks = (n + SOLVE_ROWS - 1) / SOLVE_ROWS;
      ParallelTasks.run(
          tasks,
          executor,
          task -> {
            int r = task * SOLVE_ROWS;
            int end = Math.min(n, r + SOLVE_ROWS);
            for (; r + 3 < end; r += 4) {
              solveFour(b, r);
            }
            for (; r < end; r++) {
              solveOne(b, r);
            }
          });
    }

    private void solveFour(double[] b, int r) {
      int w0 = r * n;
      int w1 = w0 + n;
      int w2 = w1 + n;
      int w3 = w2 + n;
      for (int i = 0; i < n; i++) {
        int li = i * n;
        double a0 = 0;
        double a1 = 0;
        double a2 = 0;
        double a3 = 0;
        double c0 = 0;
        double c1 = 0;
        double c2 = 0;
        double c3 = 0;
        int k = 0;
        for (; k + 1 < i; k += 2) {
          double even = lower[li + k];
          double odd = lower[li + k + 1];
          a0 += even * b[w0 + k];
          c0 += odd * b[w0 + k + 1];
          a1 += even * b[w1 + k];
          c1 += odd * b[w1 + k + 1];
          a2 += even * b[w2 + k];
          c2 += odd * b[w2 + k + 1];
          a3 += even * b[w3 + k];
          c3 += odd * b[w3 + k + 1];
        }
        if (k < i) {
          double even = lower[li + k];
          a0 += even * b[w0 + k];
          a1 += even * b[w1 + k];
          a2 += even * b[w2 + k];
          a3 += even * b[w3 + k];
        }
        double pivot = lower[li + i];
        b[w0 + i] = (b[w0 + i] - (a0 + c0)) / pivot;
        b[w1 + i] = (b[w1 + i] - (a1 + c1)) / pivot;
        b[w2 + i] = (b[w2 + i] - (a2 + c2)) / pivot;
        b[w3 + i] = (b[w3 + i] - (a3 + c3)) / pivot;
      }
    }

    private void solveOne(double[] b, int r) {
      int w = r * n;
      for (int i = 0; i < n; i++) {
        int li = i * n;
        b[w + i] = (b[w + i] - Dots.dot(lower, li, b, w, i)) / lower[li + i];
      }
    }

    private double[] symmetricEigenvalues(double[] symmetric) {
      DMatrixRMaj a = DMatrixRMaj.wrap(n, n, symmetric);
      EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, false, true);
      if (!eig.decompose(a)) {
        throw new IllegalStateException("symmetric eigensolver did not converge for n = " + n);
      }
      double[] values = new double[n];
      for (int i = 0; i < n; i++) {
        values[i] = eig.getEigenvalue(i).real;
      }
      java.util.Arrays.sort(values);
      return values;
    }
  }

  // ---- helpers

  static double frobenius(double[] a) {
    // Scaled sum of squares, so the norm neither overflows nor underflows.
    double scale = 0;
    for (double v : a) {
      scale = Math.max(scale, Math.abs(v));
    }
    if (scale == 0) {
      return 0;
    }
    double sum = 0;
    for (double v : a) {
      double r = v / scale;
      sum += r * r;
    }
    return scale * Math.sqrt(sum);
  }

  static void transposeInPlace(double[] a, int n) {
    for (int i = 1; i < n; i++) {
      for (int j = 0; j < i; j++) {
        double t = a[i * n + j];
        a[i * n + j] = a[j * n + i];
        a[j * n + i] = t;
      }
    }
  }

  static void symmetrize(double[] a, int n) {
    for (int i = 1; i < n; i++) {
      for (int j = 0; j < i; j++) {
        double mean = 0.5 * (a[i * n + j] + a[j * n + i]);
        a[i * n + j] = mean;
        a[j * n + i] = mean;
      }
    }
  }

  /** Square (of size expected if >= 0), finite, symmetric within {@link #SYMMETRY_TOLERANCE}. */
  static void checkSymmetric(String name, DMatrixRMaj a, int expected) {
    if (a == null) {
      throw new IllegalArgumentException(name + " is null");
    }
    if (a.numRows != a.numCols || a.numRows < 1) {
      throw new IllegalArgumentException(
          name + " is " + a.numRows + " x " + a.numCols + ", expected a square matrix, n >= 1");
    }
    if (expected >= 0 && a.numRows != expected) {
      throw new IllegalArgumentException(
          name + " is " + a.numRows + " x " + a.numCols + ", expected " + expected + " x "
              + expected + " like the exact kernel matrix");
    }
    int n = a.numRows;
    double[] d = a.data;
    double max = 0;
    for (int i = 0; i < n * n; i++) {
      double v = d[i];
      if (!Double.isFinite(v)) {
        throw new IllegalArgumentException(
            name + "[" + i / n + ", " + i % n + "] is " + v + ", expected finite values");
      }
      max = Math.max(max, Math.abs(v));
    }
    double tolerance = SYMMETRY_TOLERANCE * max;
    for (int i = 1; i < n; i++) {
      for (int j = 0; j < i; j++) {
        if (Math.abs(d[i * n + j] - d[j * n + i]) > tolerance) {
          throw new IllegalArgumentException(
              name + " is not symmetric: [" + i + ", " + j + "] = " + d[i * n + j] + " but ["
                  + j + ", " + i + "] = " + d[j * n + i]);
        }
      }
    }
  }
}
