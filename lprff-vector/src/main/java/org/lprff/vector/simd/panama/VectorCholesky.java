package org.lprff.vector.simd.panama;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.spi.CholeskyBody;

/**
 * Vector API Cholesky steps on the preferred double species, each entry in the order {@link
 * CholeskyBody} defines (lanes are entries: the scalar reference's bits).
 *
 * <p>The panel runs 4 groups of {@link #UNIT} rows at once, lanes across rows: per column q, 8
 * accumulators (FMA latency 4 on 2 ports) take one broadcast of l_qj per 8 FMAs. The trailing
 * update runs tiles of 4 rows x 2 vectors of columns, GEMM style: a column group's w x {@link
 * #UNIT} panel (8 KiB at w = 128 on 4 lanes) stays in L1 while the row tiles of the task pass over
 * it, their w x 4 broadcasts streamed from L2.
 */
public final class VectorCholesky implements CholeskyBody {

  static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
  static final int L = D.length();
  /** Rows per packed group: the tile's 2 vectors of columns. */
  static final int UNIT = 2 * L;

  @Override
  public int unit() {
    return UNIT;
  }

  @Override
  public void solvePanel(double[] a, int m, int k0, int w, double[] p, int r0, int r1) {
    assert r0 % (4 * UNIT) == 0 && r1 % (4 * UNIT) == 0;
    int first = k0 + w;
    for (int r = r0; r < r1; r++) {
      int row = (first + r) * m + k0;
      int at = CholeskyBody.packedAt(w, UNIT, r, 0);
      for (int q = 0; q < w; q++, at += UNIT) {
        p[at] = first + r < m ? a[row + q] : 0;
      }
    }
    for (int r = r0; r < r1; r += 4 * UNIT) {
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

  /** Solves the 4 packed groups from {@code g0} in place, a column at a time. */
  private static void solveGroups(double[] a, int m, int k0, int w, double[] p, int g0) {
    int gs = w * UNIT;
    for (int q = 0; q < w; q++) {
      int c = g0 + q * UNIT;
      DoubleVector c0 = DoubleVector.fromArray(D, p, c);
      DoubleVector c1 = DoubleVector.fromArray(D, p, c + L);
      DoubleVector c2 = DoubleVector.fromArray(D, p, c + gs);
      DoubleVector c3 = DoubleVector.fromArray(D, p, c + gs + L);
      DoubleVector c4 = DoubleVector.fromArray(D, p, c + 2 * gs);
      DoubleVector c5 = DoubleVector.fromArray(D, p, c + 2 * gs + L);
      DoubleVector c6 = DoubleVector.fromArray(D, p, c + 3 * gs);
      DoubleVector c7 = DoubleVector.fromArray(D, p, c + 3 * gs + L);
      int lq = (k0 + q) * m + k0;
      for (int j = 0, x = g0; j < q; j++, x += UNIT) {
        DoubleVector l = DoubleVector.broadcast(D, -a[lq + j]);
        c0 = DoubleVector.fromArray(D, p, x).fma(l, c0);
        c1 = DoubleVector.fromArray(D, p, x + L).fma(l, c1);
        c2 = DoubleVector.fromArray(D, p, x + gs).fma(l, c2);
        c3 = DoubleVector.fromArray(D, p, x + gs + L).fma(l, c3);
        c4 = DoubleVector.fromArray(D, p, x + 2 * gs).fma(l, c4);
        c5 = DoubleVector.fromArray(D, p, x + 2 * gs + L).fma(l, c5);
        c6 = DoubleVector.fromArray(D, p, x + 3 * gs).fma(l, c6);
        c7 = DoubleVector.fromArray(D, p, x + 3 * gs + L).fma(l, c7);
      }
      DoubleVector d = DoubleVector.broadcast(D, a[lq + q]);
      c0.div(d).intoArray(p, c);
      c1.div(d).intoArray(p, c + L);
      c2.div(d).intoArray(p, c + gs);
      c3.div(d).intoArray(p, c + gs + L);
      c4.div(d).intoArray(p, c + 2 * gs);
      c5.div(d).intoArray(p, c + 2 * gs + L);
      c6.div(d).intoArray(p, c + 3 * gs);
      c7.div(d).intoArray(p, c + 3 * gs + L);
    }
  }

  @Override
  public void updateTrailing(double[] a, int m, int k0, int w, double[] p, int r0, int r1) {
    assert r0 % 4 == 0;
    int first = k0 + w;
    int rows = m - first;
    int end = Math.min(r1, rows);
    double[] edge = new double[4 * UNIT];
    for (int j0 = 0; j0 < end; j0 += UNIT) {
      int colAt = j0 / UNIT * (w * UNIT);
      // Row tiles from the one holding column j0's diagonal (UNIT is a multiple of 4).
      for (int i0 = Math.max(r0, j0); i0 < end; i0 += 4) {
        int rowAt = i0 / UNIT * (w * UNIT) + i0 % UNIT;
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

  @Override
  public String shape() {
    return VectorShape.describe(D);
  }
}
