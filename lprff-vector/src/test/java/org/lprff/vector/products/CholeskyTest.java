package org.lprff.vector.products;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.CholeskyDecomposition_F64;
import org.junit.jupiter.api.Test;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.testing.ProviderTestBase;

class CholeskyTest extends ProviderTestBase {

  /** Around the lanes (4, 8), the tiles (4 x 2 vectors), the task rows and the blocks. */
  private static final int[] SIZES = {1, 2, 3, 5, 8, 13, 31, 64, 100, 127, 128, 129, 161, 255,
      256, 257, 300};

  /**
   * A random SPD matrix G^T G / k + I (k = m + 5 Gaussian rows; condition number about 5 at most),
   * row-major, the upper triangle filled with NaN: the factorization must not read it.
   */
  private static double[] spd(int m, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int k = m + 5;
    double[] g = new double[k * m];
    for (int q = 0; q < g.length; q++) {
      g[q] = random.nextGaussian();
    }
    double[] a = new double[m * m];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j <= i; j++) {
        double s = 0;
        for (int r = 0; r < k; r++) {
          s += g[r * m + i] * g[r * m + j];
        }
        a[i * m + j] = s / k + (i == j ? 1 : 0);
      }
      for (int j = i + 1; j < m; j++) {
        a[i * m + j] = Double.NaN;
      }
    }
    return a;
  }

  private static double[] full(double[] lower, int m) {
    double[] f = lower.clone();
    for (int i = 0; i < m; i++) {
      for (int j = i + 1; j < m; j++) {
        f[i * m + j] = lower[j * m + i];
      }
    }
    return f;
  }

  /**
   * Against EJML's factor, entry by entry. Both are backward stable: L L^T = A + E with |E| <=
   * (m + 1) u |L| |L^T| (Higham, Thm 10.3), and |L| |L^T| <= max a_ii entrywise (|l_ij| <=
   * sqrt(a_ii)). These matrices (G^T G / k + I, k = m + 5) have eigenvalues in about [1, 5], so the
   * factors differ by at most a small multiple of cond x m u max a_ii: 30 x 4 m u max a_ii below.
   */
  @Test
  void matchesEjmlWithinTheRoundingBound() {
    for (int m : SIZES) {
      double[] a = spd(m, 100 + m);
      double[] ours = a.clone();
      Cholesky.factor(ours, m);
      DMatrixRMaj ref = new DMatrixRMaj(m, m);
      ref.setData(full(a, m));
      CholeskyDecomposition_F64<DMatrixRMaj> chol = DecompositionFactory_DDRM.chol(m, true);
      assertTrue(chol.decompose(ref));
      DMatrixRMaj l = chol.getT(null);
      double scale = 0;
      for (int i = 0; i < m; i++) {
        scale = Math.max(scale, a[i * m + i]);
      }
      double bound = 30 * 4 * m * Math.ulp(1.0) * scale;
      for (int i = 0; i < m; i++) {
        for (int j = 0; j <= i; j++) {
          assertEquals(l.get(i, j), ours[i * m + j], bound, "m " + m + " (" + i + ", " + j + ")");
        }
        for (int j = i + 1; j < m; j++) {
          assertTrue(Double.isNaN(ours[i * m + j]), "wrote above the diagonal at m " + m);
        }
      }
    }
  }

  /** Residual check: L L^T x = b solved, A x - b small against |A| |x|. */
  @Test
  void solveInvertsTheMatrix() {
    for (int m : SIZES) {
      double[] a = spd(m, 7 + m);
      double[] f = full(a, m);
      double[] l = a.clone();
      Cholesky.factor(l, m);
      SplittableRandom random = new SplittableRandom(m);
      double[] b = new double[m];
      for (int i = 0; i < m; i++) {
        b[i] = random.nextGaussian();
      }
      for (VectorizationProvider provider : List.of(SCALAR, VECTOR)) {
        double[] x = b.clone();
        Cholesky.solveWith(provider.cholesky(), l, m, x);
        for (int i = 0; i < m; i++) {
          double r = -b[i];
          double size = Math.abs(b[i]);
          for (int j = 0; j < m; j++) {
            r += f[i * m + j] * x[j];
            size += Math.abs(f[i * m + j] * x[j]);
          }
          assertEquals(0, r, 30 * 8 * m * Math.ulp(1.0) * size, "m " + m + " row " + i);
        }
      }
    }
  }

  /** Every entry in the one order of CholeskyBody: the same bits on both bodies, any threads. */
  @Test
  void bodiesAndThreadCountsGiveTheSameBits() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      for (int m : SIZES) {
        for (int block : new int[] {Cholesky.BLOCK, 48}) {
          double[] a = spd(m, 31 * m);
          double[] scalar = a.clone();
          double[] vector = a.clone();
          double[] parallel = a.clone();
          assertEquals(-1, Cholesky.factorWith(SCALAR.cholesky(), scalar, m, block, null));
          assertEquals(-1, Cholesky.factorWith(VECTOR.cholesky(), vector, m, block, null));
          assertEquals(-1, Cholesky.factorWith(VECTOR.cholesky(), parallel, m, block, pool));
          assertArrayEquals(scalar, vector, "m " + m + " block " + block);
          assertArrayEquals(vector, parallel, "m " + m + " block " + block);
          double[] b = new double[m];
          Arrays.fill(b, 1);
          double[] xs = b.clone();
          double[] xv = b.clone();
          SCALAR.cholesky().backward(scalar, m, xs);
          VECTOR.cholesky().backward(vector, m, xv);
          assertArrayEquals(xs, xv, "backward, m " + m);
        }
      }
    } finally {
      pool.shutdown();
    }
  }

  /**
   * Many right-hand sides at once: each column bit for bit the scalar body's entry order on both
   * bodies and any threads, and solving the system (the residual within the single solve's
   * bound), for c below, at and above a group's 8 columns.
   */
  @Test
  void manyColumnsSolveEachColumnWithTheSameBitsOnEveryBody() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      for (int m : new int[] {1, 5, 64, 129}) {
        double[] a = spd(m, 11 + m);
        double[] f = full(a, m);
        double[] l = a.clone();
        Cholesky.factor(l, m);
        for (int c : new int[] {1, 3, 8, 26}) {
          SplittableRandom random = new SplittableRandom(m * 31L + c);
          double[] b = new double[m * c];
          for (int k = 0; k < b.length; k++) {
            b[k] = random.nextGaussian();
          }
          double[] serial = b.clone();
          double[] parallel = b.clone();
          Cholesky.solve(l, m, serial, c, null);
          Cholesky.solve(l, m, parallel, c, pool);
          assertArrayEquals(serial, parallel, "m " + m + " c " + c);
          int w = org.lprff.vector.simd.spi.CholeskyBody.COLUMNS;
          for (int j = 0; j < c; j++) {
            double[] scalar = new double[m * w];
            double[] vector = new double[m * w];
            for (int i = 0; i < m; i++) {
              scalar[i * w + j % w] = b[i * c + j];
              vector[i * w + j % w] = b[i * c + j];
            }
            SCALAR.cholesky().solveColumns(l, m, scalar);
            VECTOR.cholesky().solveColumns(l, m, vector);
            for (int i = 0; i < m; i++) {
              assertEquals(scalar[i * w + j % w], vector[i * w + j % w], 0, "m " + m + " c " + c);
              assertEquals(scalar[i * w + j % w], serial[i * c + j], 0, "m " + m + " c " + c);
            }
            for (int i = 0; i < m; i++) {
              double r = -b[i * c + j];
              double size = Math.abs(b[i * c + j]);
              for (int k = 0; k < m; k++) {
                r += f[i * m + k] * serial[k * c + j];
                size += Math.abs(f[i * m + k] * serial[k * c + j]);
              }
              assertEquals(0, r, 30 * 8 * m * Math.ulp(1.0) * size, "m " + m + " row " + i);
            }
          }
        }
      }
    } finally {
      pool.shutdown();
    }
  }

  /** A matrix with a negative direction fails at the pivot where it shows, naming it. */
  @Test
  void notPositiveDefiniteNamesThePivot() {
    int m = 200;
    double[] a = spd(m, 5);
    // Row and column 150 become a copy of 149's: the pivot of 150 is 0 up to rounding, or below.
    for (int j = 0; j < m; j++) {
      if (j <= 149) {
        a[150 * m + j] = a[149 * m + j];
      }
    }
    for (int i = 151; i < m; i++) {
      a[i * m + 150] = a[i * m + 149];
    }
    a[150 * m + 150] = a[149 * m + 149] - 0.5;
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Cholesky.factor(a, m));
    assertTrue(e.getMessage().contains("pivot 150 is -"), e.getMessage());
    assertTrue(e.getMessage().contains("not positive definite"), e.getMessage());
    double[] nan = spd(3, 1);
    nan[4] = Double.NaN;
    IllegalArgumentException e2 =
        assertThrows(IllegalArgumentException.class, () -> Cholesky.factor(nan, 3));
    assertTrue(e2.getMessage().contains("pivot 1 is NaN"), e2.getMessage());
  }

  @Test
  void argumentsAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> Cholesky.factor(new double[3], 2));
    assertThrows(IllegalArgumentException.class, () -> Cholesky.factor(null, 2));
    assertThrows(IllegalArgumentException.class, () -> Cholesky.solve(new double[4], 2,
        new double[1]));
  }
}
