package org.lprff.vector.train.fullbatch;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Consumer;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.LinearSolverFactory_MT_DDRM;
import org.ejml.interfaces.linsol.LinearSolverDense;

/**
 * The box-constrained quadratic {@code min q(w) = (1/2) w^T A w - r^T w} over {@code |w_i| <= B},
 * A symmetric positive semi-definite (possibly singular) m x m in memory: {@link KitchenSinks}'
 * squared loss in the centered normal equations (A = Zc^T Zc / n, r = Zc^T tc / n).
 *
 * <p><b>Method</b>: projected Newton with an active set (Bertsekas 1982; like BVLS and the
 * primal-dual active set method, many weights change sides per step). At w, the <i>held</i>
 * weights are those at a bound whose gradient pushes outward (at +B with g_i <= 0, at -B with g_i
 * >= 0); the others are free. The Newton step of the free block F solves {@code (A_FF + delta I)
 * d_F = -g_F} by Cholesky, the held weights staying. The free weights it puts beyond the box are
 * clamped at the bound they cross and held, and the smaller block solved again, until none
 * crosses: that point (the minimum of a face) is taken if q falls. Otherwise w moves along the
 * projected arc {@code P(w + t d)}, P the clamp into the box, t = 1, 1/2, ... to an Armijo
 * decrease (1e-4); if no t gives one, a projected gradient step of length 1 / L, L the
 * Gershgorin bound on A's largest eigenvalue, which always falls. q falls at every step, so no
 * point repeats. On diamonds (m 1024) it takes 2 to 56 steps (the most where about 15% of the
 * weights end free and the arc is often needed); the first often clamps 4 rounds. Measured on
 * singular A (m 32 > n 20) it can take 119 steps.
 *
 * <p><b>Singular A</b> (no l2: least squares over collinear or m > n features): delta starts at
 * 1e-13 m times A's largest diagonal entry, a ridge on the <i>direction</i> only (never on q, whose
 * minimizer is what is sought), and grows tenfold while the Cholesky fails. q restricted to a
 * face is bounded below (it is a sum of squares), so g_F lies in the range of A_FF and the
 * ridged step reaches the face's minimum up to the eigen-directions below delta, which carry
 * at most delta |d|^2 / 8 of q; the next steps on the same face reuse the factor and refine
 * those too (iterative refinement).
 *
 * <p><b>Stopping</b> (converged): the full Newton step (t = 1) clips nothing, leaves the held set
 * unchanged and changes q by at most {@value #REFINED} of |q|: the free weights minimize q on
 * their face and every held weight's gradient pushes outward, which are the KKT conditions; or no
 * step falls (rounding). Otherwise at {@code maxIterations}.
 */
final class BoundedLeastSquares {

  /** The relative fall of q below which a Newton step on an unchanged face ends the solve. */
  static final double REFINED = 1e-13;
  /** The first ridge of the Newton direction, relative to m times A's largest diagonal entry. */
  static final double FIRST_RIDGE = 1e-13;
  /** Halvings of the projected Newton step before the gradient step. */
  static final int HALVINGS = 30;

  /** How a solve ended: iterations, Cholesky factorizations, whether KKT holds, and why. */
  record Outcome(int iterations, int factorizations, boolean converged, String message) {}

  private final double[] a;
  private final double[] r;
  private final int m;
  private final double bound;

  /** q on the m x m row-major A (not copied, not changed), r, and the box [-bound, bound]. */
  BoundedLeastSquares(double[] a, double[] r, int m, double bound) {
    assert a.length == m * m && r.length == m && bound > 0;
    this.a = a;
    this.r = r;
    this.m = m;
    this.bound = bound;
  }

  /** g = A w - r into g; q(w) returned. */
  double gradient(double[] w, double[] g) {
    double q = 0;
    for (int i = 0; i < m; i++) {
      double s = 0;
      int row = i * m;
      for (int j = 0; j < m; j++) {
        s += a[row + j] * w[j];
      }
      g[i] = s - r[i];
      q += w[i] * (0.5 * s - r[i]);
    }
    return q;
  }

  /** The held weights: at a bound with the gradient pushing outward. */
  boolean[] held(double[] w, double[] g) {
    boolean[] held = new boolean[m];
    for (int i = 0; i < m; i++) {
      held[i] = (w[i] >= bound && g[i] <= 0) || (w[i] <= -bound && g[i] >= 0);
    }
    return held;
  }

  /** The held set of the factor, the factor of its free block (plus the ridge), the block. */
  private boolean[] factored;
  private LinearSolverDense<DMatrixRMaj> factor;
  private int[] free;
  private double ridge;
  private int factorizations;

  /**
   * Factors the free block of {@code held} with the smallest ridge (from {@code firstRidge},
   * tenfold) that the Cholesky accepts, unless it is factored already; false if even a ridge of
   * A's largest diagonal entry does not do.
   */
  private boolean factor(boolean[] held, double firstRidge, double largest) {
    if (Arrays.equals(held, factored)) {
      return true;
    }
    int k = 0;
    free = new int[m];
    for (int i = 0; i < m; i++) {
      if (!held[i]) {
        free[k++] = i;
      }
    }
    free = Arrays.copyOf(free, k);
    factored = held.clone();
    factor = null;
    for (ridge = firstRidge; k > 0; ridge *= 10) {
      if (!(ridge <= largest)) {
        factored = null;
        return false;
      }
      DMatrixRMaj block = new DMatrixRMaj(k, k);
      for (int p = 0; p < k; p++) {
        int row = free[p] * m;
        for (int s = 0; s < k; s++) {
          block.data[p * k + s] = a[row + free[s]];
        }
        block.data[p * k + p] += ridge;
      }
      factor = LinearSolverFactory_MT_DDRM.chol(k);
      factorizations++;
      if (factor.setA(block)) {
        return true;
      }
      // Rounding made the semi-definite block indefinite: a larger ridge on the direction.
    }
    return true;
  }

  /** d = the Newton step of the factored free block for the gradient g; zero on the held. */
  private void newton(double[] g, double[] d) {
    Arrays.fill(d, 0);
    if (free.length == 0) {
      return;
    }
    DMatrixRMaj rhs = new DMatrixRMaj(free.length, 1);
    for (int p = 0; p < free.length; p++) {
      rhs.data[p] = -g[free[p]];
    }
    DMatrixRMaj step = new DMatrixRMaj(free.length, 1);
    factor.solve(rhs, step);
    for (int p = 0; p < free.length; p++) {
      d[free[p]] = step.data[p];
    }
  }

  /**
   * Minimizes q from w (clamped into the box first), in place, after at most {@code
   * maxIterations} steps; {@code progress} hears a line per step.
   */
  Outcome minimize(double[] w, int maxIterations, Consumer<String> progress) {
    for (int i = 0; i < m; i++) {
      w[i] = Math.clamp(w[i], -bound, bound);
    }
    double[] g = new double[m];
    double[] next = new double[m];
    double[] gNext = new double[m];
    double[] d = new double[m];
    double[] y = new double[m];
    double[] gy = new double[m];
    double[] dy = new double[m];
    double q = gradient(w, g);
    double largest = 0;
    for (int i = 0; i < m; i++) {
      largest = Math.max(largest, a[i * m + i]);
    }
    double firstRidge = FIRST_RIDGE * m * largest;
    double gershgorin = Double.NaN;
    factorizations = 0;
    factored = null;
    for (int iteration = 0; iteration < maxIterations; iteration++) {
      boolean[] held = held(w, g);
      if (!factor(held, firstRidge, largest)) {
        return new Outcome(iteration, factorizations, false, String.format(Locale.ROOT,
            "the free block of %d weights is not positive definite even with a ridge of %.3g"
                + " (the largest diagonal entry)", free.length, largest));
      }
      int freeAtStart = free.length;
      if (freeAtStart == 0) {
        return new Outcome(iteration, factorizations, true,
            "every weight is held at its bound by the gradient (the KKT conditions)");
      }
      newton(g, d);
      // The face's minimum: clamp the free weights it puts beyond the box at the bound they
      // cross, hold them there, and solve again until none crosses (each round holds more).
      System.arraycopy(w, 0, y, 0, m);
      System.arraycopy(g, 0, gy, 0, m);
      System.arraycopy(d, 0, dy, 0, m);
      boolean[] face = held.clone();
      int rounds = 0;
      boolean feasible = false;
      while (!feasible) {
        feasible = true;
        for (int i = 0; i < m; i++) {
          double moved = y[i] + dy[i];
          if (!face[i] && Math.abs(moved) > bound) {
            feasible = false;
            face[i] = true;
            y[i] = Math.copySign(bound, moved);
          }
        }
        if (feasible) {
          for (int i = 0; i < m; i++) {
            y[i] += dy[i];
          }
        } else {
          rounds++;
          gradient(y, gy);
          if (!factor(face, firstRidge, largest)) {
            break;
          }
          newton(gy, dy);
        }
      }
      double qNext = feasible ? gradient(y, gNext) : Double.NaN;
      if (rounds == 0 && feasible && Math.abs(q - qNext) <= REFINED * Math.abs(q)
          && Arrays.equals(held(y, gNext), held)) {
        // The full step stays on the face and changes q by rounding only: w is the face's
        // minimum (up to the ridge's refinement, done) and the held weights stay held.
        if (qNext < q) {
          System.arraycopy(y, 0, w, 0, m);
        }
        return new Outcome(iteration + 1, factorizations, true, String.format(Locale.ROOT,
            "the KKT conditions hold: %d of %d weights free at their face's minimum, the"
                + " others held at the bound by the gradient", freeAtStart, m));
      }
      String kind;
      if (feasible && qNext < q) {
        System.arraycopy(y, 0, next, 0, m);
        kind = rounds == 0 ? "Newton step" : "face minimum after " + rounds + " clamping rounds";
      } else {
        // The face's minimum does not descend: the projected Newton arc P(w + t d), t = 1,
        // 1/2, ..., to an Armijo decrease.
        double t = 1;
        boolean accepted = false;
        for (int halving = 0; halving <= HALVINGS && !accepted; halving++, t /= 2) {
          double slope = 0;
          for (int i = 0; i < m; i++) {
            next[i] = Math.clamp(w[i] + t * d[i], -bound, bound);
            slope += g[i] * (next[i] - w[i]);
          }
          qNext = gradient(next, gNext);
          accepted = qNext < q && qNext <= q + 1e-4 * Math.min(0, slope);
        }
        kind = "projected Newton step " + 2 * t;
        if (!accepted) {
          // Nor does the arc: a projected gradient step of 1 / L, L >= A's largest
          // eigenvalue, falls by at least (L / 2) |next - w|^2.
          if (Double.isNaN(gershgorin)) {
            gershgorin = 0;
            for (int i = 0; i < m; i++) {
              double sum = 0;
              for (int j = 0; j < m; j++) {
                sum += Math.abs(a[i * m + j]);
              }
              gershgorin = Math.max(gershgorin, sum);
            }
          }
          for (int i = 0; i < m; i++) {
            next[i] = Math.clamp(w[i] - g[i] / gershgorin, -bound, bound);
          }
          qNext = gradient(next, gNext);
          kind = "projected gradient step";
          if (!(qNext < q)) {
            return new Outcome(iteration + 1, factorizations, true, String.format(Locale.ROOT,
                "no step lowers the objective (%.10g) further: rounding", q));
          }
        }
      }
      double fall = q - qNext;
      System.arraycopy(next, 0, w, 0, m);
      System.arraycopy(gNext, 0, g, 0, m);
      q = qNext;
      progress.accept(String.format(Locale.ROOT, "rks: Newton iteration %d, %d of %d weights"
          + " free, q %.12g (fell %.3g), %s", iteration + 1, freeAtStart, m, q, fall, kind));
    }
    return new Outcome(maxIterations, factorizations, false, "the iteration cap was reached");
  }
}
