package org.lprff.vector.simd.scalar;

import static org.lprff.vector.simd.spi.CholeskyBody.packedAt;

import org.lprff.vector.simd.spi.CholeskyBody;

/** The reference Cholesky steps: every entry in the order {@link CholeskyBody} defines. */
public final class ScalarCholesky implements CholeskyBody {

  @Override
  public int unit() {
    return 1;
  }

  @Override
  public void solvePanel(double[] a, int m, int k0, int w, double[] p, int r0, int r1) {
    int first = k0 + w;
    for (int r = r0; r < r1; r++) {
      int row = (first + r) * m + k0;
      boolean real = first + r < m;
      for (int q = 0; q < w; q++) {
        double acc = real ? a[row + q] : 0;
        int lq = (k0 + q) * m + k0;
        for (int j = 0; j < q; j++) {
          acc = Math.fma(-p[packedAt(w, 1, r, j)], a[lq + j], acc);
        }
        acc /= a[lq + q];
        p[packedAt(w, 1, r, q)] = acc;
        if (real) {
          a[row + q] = acc;
        }
      }
    }
  }

  @Override
  public void updateTrailing(double[] a, int m, int k0, int w, double[] p, int r0, int r1) {
    int first = k0 + w;
    for (int i = r0; i < Math.min(r1, m - first); i++) {
      for (int j = 0; j <= i; j++) {
        double s = 0;
        for (int q = 0; q < w; q++) {
          s = Math.fma(p[packedAt(w, 1, i, q)], p[packedAt(w, 1, j, q)], s);
        }
        a[(first + i) * m + first + j] -= s;
      }
    }
  }

  @Override
  public void forward(double[] l, int m, double[] b) {
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int j = 0; j < i; j++) {
        s = Math.fma(l[i * m + j], b[j], s);
      }
      b[i] = (b[i] - s) / l[i * m + i];
    }
  }

  @Override
  public void backward(double[] l, int m, double[] y) {
    for (int i = m - 1; i >= 0; i--) {
      double x = y[i] / l[i * m + i];
      y[i] = x;
      for (int j = 0; j < i; j++) {
        y[j] = Math.fma(-l[i * m + j], x, y[j]);
      }
    }
  }

  @Override
  public void solveColumns(double[] l, int m, double[] x) {
    int w = COLUMNS;
    for (int i = 0; i < m; i++) {
      int row = i * m;
      for (int j = 0; j < w; j++) {
        double acc = x[i * w + j];
        for (int k = 0; k < i; k++) {
          acc = Math.fma(-l[row + k], x[k * w + j], acc);
        }
        x[i * w + j] = acc / l[row + i];
      }
    }
    for (int i = m - 1; i >= 0; i--) {
      int row = i * m;
      for (int j = 0; j < w; j++) {
        double xi = x[i * w + j] / l[row + i];
        x[i * w + j] = xi;
        for (int k = 0; k < i; k++) {
          x[k * w + j] = Math.fma(-l[row + k], xi, x[k * w + j]);
        }
      }
    }
  }
}
