package org.lprff.vector.simd.spi;

/**
 * The steps of a right-looking blocked Cholesky factorization A = L L^T of a row-major m x m
 * matrix, in place on its lower triangle, and the two triangular solves.
 *
 * <p>Step k0 factors the block columns [k0, k0 + w): the diagonal block ({@link #factorDiagonal},
 * one definition for every body), the panel below it ({@link #solvePanel}: L21 = A21 L11^-T),
 * then the trailing matrix ({@link #updateTrailing}: A22 -= L21 L21^T, the m^3 / 3 flops). The
 * panel is solved in, and the update reads it from, a packed copy P: the panel's rows in groups of
 * {@link #unit()}, each group w x unit with the unit rows of one column adjacent ({@link
 * #packedAt}), zero rows past the end. A group's column is one vector, and the 4 values a tile
 * broadcasts per column are adjacent.
 *
 * <p>Every body computes every entry with the same operations in the same order, so the bits do
 * not depend on the body, the vector width or the threads:
 *
 * <ul>
 *   <li>in step k0, entry (i, q) of the block columns (i >= q, j, q relative to k0): acc = a_iq,
 *       then acc = fma(-l_ij, l_qj, acc) for j = 0 .. q - 1 in order; l_iq = acc / l_qq below the
 *       diagonal, l_qq = sqrt(acc) on it (a pivot acc that is not > 0 stops the factorization);
 *   <li>in the trailing update of step k0, entry (i, j) (i >= j >= k0 + w): s = 0, s = fma(l_iq,
 *       l_jq, s) for q = 0 .. w - 1 in order, then a_ij -= s.
 * </ul>
 *
 * <p>The back substitution ({@link #backward}) is defined entry by entry too; the forward one sums
 * a row's dot product in the body's own order (the vector body in lanes), so its last bits may
 * differ between bodies.
 */
public interface CholeskyBody extends Body {

  /** Rows per group of the packed panel: 1 for the scalar body, 2 vectors for the vector one. */
  int unit();

  /** Index of the packed panel's row r (relative to the panel's first row), column q. */
  static int packedAt(int w, int unit, int r, int q) {
    return (r / unit) * (w * unit) + q * unit + r % unit;
  }

  /**
   * Factors the diagonal block [k0, k0 + w) in place (its lower triangle), in the order of the
   * class comment: the one definition every body runs.
   *
   * @return -1, or the index (in A) of the first pivot that is not > 0, left in place on the
   *     diagonal
   */
  static int factorDiagonal(double[] a, int m, int k0, int w) {
    for (int i = k0; i < k0 + w; i++) {
      int row = i * m;
      for (int q = k0; q <= i; q++) {
        int lq = q * m;
        double acc = a[row + q];
        for (int j = k0; j < q; j++) {
          acc = Math.fma(-a[row + j], a[lq + j], acc);
        }
        if (q < i) {
          a[row + q] = acc / a[lq + q];
        } else {
          a[row + i] = acc;
          if (!(acc > 0)) {
            return i;
          }
          a[row + i] = Math.sqrt(acc);
        }
      }
    }
    return -1;
  }

  /**
   * The panel rows [r0, r1) (relative to row k0 + w; multiples of the body's panel tasks, r1 at
   * most P's padded rows): copies them from A into P, solves them against the factored diagonal
   * block and writes the real rows (below m) of L21 back to A.
   */
  void solvePanel(double[] a, int m, int k0, int w, double[] p, int r0, int r1);

  /**
   * A22 -= L21 L21^T on the entries j <= i of the trailing rows [r0, r1) (relative to row k0 +
   * w, r0 a multiple of 4), from the solved panel P.
   */
  void updateTrailing(double[] a, int m, int k0, int w, double[] p, int r0, int r1);

  /** Solves L y = b in place ({@code b} becomes y), L the lower triangle of {@code l}. */
  void forward(double[] l, int m, double[] b);

  /** Solves L^T x = y in place ({@code y} becomes x): x_i = y_i / l_ii, then y_j -= l_ij x_i. */
  void backward(double[] l, int m, double[] y);

  /** Columns of {@link #solveColumns}: a multiple of every body's vector of doubles. */
  int COLUMNS = 8;

  /**
   * Solves L L^T X = B in place for {@link #COLUMNS} right-hand sides ({@code x}, m x COLUMNS
   * row-major: B, then X), reading each row of L once for all of them. Entry by entry, in every
   * body: forward, acc = b_ij, acc = fma(-l_ik, y_kj, acc) for k = 0 .. i - 1 in order, y_ij = acc
   * / l_ii; backward, for i from m - 1 down, x_ij = y_ij / l_ii, then y_kj = fma(-l_ik, x_ij, y_kj)
   * for k < i.
   */
  void solveColumns(double[] l, int m, double[] x);
}
