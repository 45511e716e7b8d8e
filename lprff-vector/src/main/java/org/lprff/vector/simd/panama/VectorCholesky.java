package org.lprff.vector.simd.panama;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.spi.CholeskyBody;

/**
 * Vector API Cholesky steps on the preferred double species, each entry in the order {@link
 * CholeskyBody} defines (lanes are entries: the scalar reference's bits).
 *
 * <p>The panel runs 2 groups of {@link #UNIT} rows and 2 columns at once, lanes across rows: 8
 * accumulators (FMA latency 4 on 2 ports), 4 loads and 2 broadcasts per 8 FMAs. The trailing
 * update runs tiles of 4 rows x 2 vectors of columns (8 accumulators, 2 loads and 4 broadcasts
 * per 8 FMAs): per block of {@link #COLUMN_BLOCK} columns, whose packed panel stays in L2, each row
 * tile of the task walks along its 4 rows of C (streams the prefetcher follows; walking down a
 * column group instead ran the update 15% slower), its w x 4 broadcasts staying in L1. The update
 * runs at ~43 GFLOP/s on one Zen 3 core (84% of its double peak), the panel at about half that.
 */
public final class VectorCholesky implements CholeskyBody {

  static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
  static final int L = D.length();
  /** Rows per packed group: the tile's 2 vectors of columns. */
  static final int UNIT = 2 * L;
  /**
   * Columns of the trailing matrix per pass of a task's row tiles: their packed panel (w x 256
   * doubles, 256 KiB at w = 128) stays in L2 while the task's rows of C stream by.
   */
  static final int COLUMN_BLOCK = 256;

  @Override
  public int unit() {
    return UNIT;
  }

  @Override
  public void solvePanel(double[] a, int m, int k0, int w, double[] p, int r0, int r1) {
    assert r0 % (2 * UNIT) == 0 && r1 % (2 * UNIT) == 0;
    int first = k0 + w;
    for (int r = r0; r < r1; r++) {
      int row = (first + r) * m + k0;
      int at = CholeskyBody.packedAt(w, UNIT, r, 0);
      for (int q = 0; q < w; q++, at += UNIT) {
        p[at] = first + r < m ? a[row + q] : 0;
      }
    }
    for (int r = r0; r < r1; r += 2 * UNIT) {
      solveGroups(a, m, k0, w, p, r / UNIT * (w * UNIT));
    }
    for (int r = r0; r < Math.min(r1, m - first); r++) {
      int row = (first + r) * m + k0;
      int at = CholeskyBody.packedAt(w, UNIT, r, 0);
      for (int q = 0; q < w; q++, at += UNIT) {
        a[row + q] = p[at];
      }
    }
  }

  /**
   * Solves the 2 packed groups from {@code g0} in place, two columns q, q + 1 at a time: one pass
   * over the solved columns j < q feeds both (4 loads and 2 broadcasts per 8 FMAs, a GEMM tile's
   * ratio), then column q's term of column q + 1, keeping each entry's order over j. The
   * accumulators hold -acc: fma(x, l, -acc) = -fma(-x, l, acc) and -acc / -l_qq = acc / l_qq
   * exactly, so l_qj is broadcast straight from the matrix with no negation per broadcast (the
   * panel alone: 18.5 -> 19-21 GFLOP/s of one core's CPU time at m = 2048).
   */
  private static void solveGroups(double[] a, int m, int k0, int w, double[] p, int g0) {
    int gs = w * UNIT;
    int q = 0;
    for (; q + 2 <= w; q += 2) {
      int c = g0 + q * UNIT;
      DoubleVector c0 = DoubleVector.fromArray(D, p, c).neg();
      DoubleVector c1 = DoubleVector.fromArray(D, p, c + L).neg();
      DoubleVector c2 = DoubleVector.fromArray(D, p, c + gs).neg();
      DoubleVector c3 = DoubleVector.fromArray(D, p, c + gs + L).neg();
      DoubleVector d0 = DoubleVector.fromArray(D, p, c + UNIT).neg();
      DoubleVector d1 = DoubleVector.fromArray(D, p, c + UNIT + L).neg();
      DoubleVector d2 = DoubleVector.fromArray(D, p, c + UNIT + gs).neg();
      DoubleVector d3 = DoubleVector.fromArray(D, p, c + UNIT + gs + L).neg();
      int lq = (k0 + q) * m + k0;
      int lr = lq + m;
      for (int j = 0, x = g0; j < q; j++, x += UNIT) {
        DoubleVector x0 = DoubleVector.fromArray(D, p, x);
        DoubleVector x1 = DoubleVector.fromArray(D, p, x + L);
        DoubleVector x2 = DoubleVector.fromArray(D, p, x + gs);
        DoubleVector x3 = DoubleVector.fromArray(D, p, x + gs + L);
        DoubleVector l = DoubleVector.broadcast(D, a[lq + j]);
        DoubleVector n = DoubleVector.broadcast(D, a[lr + j]);
        c0 = x0.fma(l, c0);
        c1 = x1.fma(l, c1);
        c2 = x2.fma(l, c2);
        c3 = x3.fma(l, c3);
        d0 = x0.fma(n, d0);
        d1 = x1.fma(n, d1);
        d2 = x2.fma(n, d2);
        d3 = x3.fma(n, d3);
      }
      DoubleVector l = DoubleVector.broadcast(D, -a[lq + q]);
      c0 = c0.div(l);
      c1 = c1.div(l);
      c2 = c2.div(l);
      c3 = c3.div(l);
      c0.intoArray(p, c);
      c1.intoArray(p, c + L);
      c2.intoArray(p, c + gs);
      c3.intoArray(p, c + gs + L);
      DoubleVector n = DoubleVector.broadcast(D, a[lr + q]);
      DoubleVector e = DoubleVector.broadcast(D, -a[lr + q + 1]);
      c0.fma(n, d0).div(e).intoArray(p, c + UNIT);
      c1.fma(n, d1).div(e).intoArray(p, c + UNIT + L);
      c2.fma(n, d2).div(e).intoArray(p, c + UNIT + gs);
      c3.fma(n, d3).div(e).intoArray(p, c + UNIT + gs + L);
    }
    if (q < w) {
      // The last column of an odd w.
      int c = g0 + q * UNIT;
      DoubleVector c0 = DoubleVector.fromArray(D, p, c).neg();
      DoubleVector c1 = DoubleVector.fromArray(D, p, c + L).neg();
      DoubleVector c2 = DoubleVector.fromArray(D, p, c + gs).neg();
      DoubleVector c3 = DoubleVector.fromArray(D, p, c + gs + L).neg();
      int lq = (k0 + q) * m + k0;
      for (int j = 0, x = g0; j < q; j++, x += UNIT) {
        DoubleVector l = DoubleVector.broadcast(D, a[lq + j]);
        c0 = DoubleVector.fromArray(D, p, x).fma(l, c0);
        c1 = DoubleVector.fromArray(D, p, x + L).fma(l, c1);
        c2 = DoubleVector.fromArray(D, p, x + gs).fma(l, c2);
        c3 = DoubleVector.fromArray(D, p, x + gs + L).fma(l, c3);
      }
      DoubleVector l = DoubleVector.broadcast(D, -a[lq + q]);
      c0.div(l).intoArray(p, c);
      c1.div(l).intoArray(p, c + L);
      c2.div(l).intoArray(p, c + gs);
      c3.div(l).intoArray(p, c + gs + L);
    }
  }

  @Override
  public void updateTrailing(double[] a, int m, int k0, int w, double[] p, int r0, int r1) {
    assert r0 % 4 == 0;
    int first = k0 + w;
    int rows = m - first;
    int end = Math.min(r1, rows);
    double[] edge = new double[4 * UNIT];
    for (int jc = 0; jc < end; jc += COLUMN_BLOCK) {
      int jcEnd = Math.min(jc + COLUMN_BLOCK, end);
      // Row tiles from the one holding column jc's diagonal (UNIT is a multiple of 4), each along
      // its 4 rows of C (streams the prefetcher follows) over the block's column groups.
      for (int i0 = Math.max(r0, jc); i0 < end; i0 += 4) {
        int rowAt = i0 / UNIT * (w * UNIT) + i0 % UNIT;
        for (int j0 = jc; j0 < Math.min(jcEnd, i0 + 4); j0 += UNIT) {
          int colAt = j0 / UNIT * (w * UNIT);
          int cAt = (first + i0) * m + first + j0;
          if (i0 >= j0 + UNIT - 1 && i0 + 4 <= rows) {
            tile(p, w, rowAt, colAt, a, cAt, m, null);
          } else {
            // Crossing the diagonal or the last row: sums to the side, then only j <= i < rows.
            tile(p, w, rowAt, colAt, a, cAt, m, edge);
            for (int s = 0; s < 4 && i0 + s < rows; s++) {
              for (int t = 0; t < UNIT && j0 + t <= i0 + s; t++) {
                a[cAt + s * m + t] -= edge[s * UNIT + t];
              }
            }
          }
        }
      }
    }
  }

  /**
   * The 4 x 2-vector tile's sums over the panel's w columns: subtracted from A at {@code cAt}
   * when {@code edge} is null, else stored in {@code edge} (4 rows of UNIT).
   */
  private static void tile(double[] p, int w, int rowAt, int colAt, double[] a, int cAt, int m,
      double[] edge) {
    DoubleVector a00 = DoubleVector.zero(D);
    DoubleVector a01 = DoubleVector.zero(D);
    DoubleVector a10 = DoubleVector.zero(D);
    DoubleVector a11 = DoubleVector.zero(D);
    DoubleVector a20 = DoubleVector.zero(D);
    DoubleVector a21 = DoubleVector.zero(D);
    DoubleVector a30 = DoubleVector.zero(D);
    DoubleVector a31 = DoubleVector.zero(D);
    for (int q = 0, x = rowAt, y = colAt; q < w; q++, x += UNIT, y += UNIT) {
      DoubleVector b0 = DoubleVector.fromArray(D, p, y);
      DoubleVector b1 = DoubleVector.fromArray(D, p, y + L);
      DoubleVector x0 = DoubleVector.broadcast(D, p[x]);
      DoubleVector x1 = DoubleVector.broadcast(D, p[x + 1]);
      DoubleVector x2 = DoubleVector.broadcast(D, p[x + 2]);
      DoubleVector x3 = DoubleVector.broadcast(D, p[x + 3]);
      a00 = x0.fma(b0, a00);
      a01 = x0.fma(b1, a01);
      a10 = x1.fma(b0, a10);
      a11 = x1.fma(b1, a11);
      a20 = x2.fma(b0, a20);
      a21 = x2.fma(b1, a21);
      a30 = x3.fma(b0, a30);
      a31 = x3.fma(b1, a31);
    }
    if (edge == null) {
      DoubleVector.fromArray(D, a, cAt).sub(a00).intoArray(a, cAt);
      DoubleVector.fromArray(D, a, cAt + L).sub(a01).intoArray(a, cAt + L);
      DoubleVector.fromArray(D, a, cAt + m).sub(a10).intoArray(a, cAt + m);
      DoubleVector.fromArray(D, a, cAt + m + L).sub(a11).intoArray(a, cAt + m + L);
      DoubleVector.fromArray(D, a, cAt + 2 * m).sub(a20).intoArray(a, cAt + 2 * m);
      DoubleVector.fromArray(D, a, cAt + 2 * m + L).sub(a21).intoArray(a, cAt + 2 * m + L);
      DoubleVector.fromArray(D, a, cAt + 3 * m).sub(a30).intoArray(a, cAt + 3 * m);
      DoubleVector.fromArray(D, a, cAt + 3 * m + L).sub(a31).intoArray(a, cAt + 3 * m + L);
    } else {
      a00.intoArray(edge, 0);
      a01.intoArray(edge, L);
      a10.intoArray(edge, UNIT);
      a11.intoArray(edge, UNIT + L);
      a20.intoArray(edge, 2 * UNIT);
      a21.intoArray(edge, 2 * UNIT + L);
      a30.intoArray(edge, 3 * UNIT);
      a31.intoArray(edge, 3 * UNIT + L);
    }
  }

  @Override
  public void forward(double[] l, int m, double[] b) {
    for (int i = 0; i < m; i++) {
      int row = i * m;
      DoubleVector s0 = DoubleVector.zero(D);
      DoubleVector s1 = DoubleVector.zero(D);
      int j = 0;
      for (; j + 2 * L <= i; j += 2 * L) {
        s0 = DoubleVector.fromArray(D, l, row + j).fma(DoubleVector.fromArray(D, b, j), s0);
        s1 = DoubleVector.fromArray(D, l, row + j + L).fma(DoubleVector.fromArray(D, b, j + L), s1);
      }
      double s = s0.add(s1).reduceLanes(VectorOperators.ADD);
      for (; j < i; j++) {
        s = Math.fma(l[row + j], b[j], s);
      }
      b[i] = (b[i] - s) / l[row + i];
    }
  }

  @Override
  public void backward(double[] l, int m, double[] y) {
    for (int i = m - 1; i >= 0; i--) {
      int row = i * m;
      double x = y[i] / l[row + i];
      y[i] = x;
      DoubleVector minusX = DoubleVector.broadcast(D, -x);
      int j = 0;
      // l_ij (-x) + y_j: the reference's fma(-l_ij, x, y_j), bit for bit.
      for (; j + L <= i; j += L) {
        DoubleVector.fromArray(D, l, row + j).fma(minusX, DoubleVector.fromArray(D, y, j))
            .intoArray(y, j);
      }
      for (; j < i; j++) {
        y[j] = Math.fma(-l[row + j], x, y[j]);
      }
    }
  }

  /**
   * The row's {@code COLUMNS / L} vectors of right-hand sides summed together in the k loop: their
   * chains interleave, and each l_ik is broadcast once for all of them.
   */
  @Override
  public void solveColumns(double[] l, int m, double[] x) {
    int w = COLUMNS;
    for (int i = 0; i < m; i++) {
      int row = i * m;
      DoubleVector d = DoubleVector.broadcast(D, l[row + i]);
      for (int j = 0; j < w; j += 2 * L) {
        // One or two vectors per trip (COLUMNS / L is 1, 2 or 4; 2 L divides it or equals it).
        boolean two = j + 2 * L <= w;
        DoubleVector a0 = DoubleVector.fromArray(D, x, i * w + j);
        DoubleVector a1 = two ? DoubleVector.fromArray(D, x, i * w + j + L) : a0;
        for (int k = 0; k < i; k++) {
          DoubleVector minus = DoubleVector.broadcast(D, -l[row + k]);
          a0 = minus.fma(DoubleVector.fromArray(D, x, k * w + j), a0);
          if (two) {
            a1 = minus.fma(DoubleVector.fromArray(D, x, k * w + j + L), a1);
          }
        }
        a0.div(d).intoArray(x, i * w + j);
        if (two) {
          a1.div(d).intoArray(x, i * w + j + L);
        }
      }
    }
    for (int i = m - 1; i >= 0; i--) {
      int row = i * m;
      DoubleVector d = DoubleVector.broadcast(D, l[row + i]);
      for (int j = 0; j < w; j += L) {
        DoubleVector xi = DoubleVector.fromArray(D, x, i * w + j).div(d);
        xi.intoArray(x, i * w + j);
        for (int k = 0; k < i; k++) {
          DoubleVector.broadcast(D, -l[row + k]).fma(xi, DoubleVector.fromArray(D, x, k * w + j))
              .intoArray(x, k * w + j);
        }
      }
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(D);
  }
}
