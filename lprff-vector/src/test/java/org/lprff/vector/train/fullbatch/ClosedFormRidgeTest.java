package org.lprff.vector.train.fullbatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.train.TrainData;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.LinearModel;

class ClosedFormRidgeTest {

  private static final int N = 1500;
  private static final int D = 4;
  private static final float[] X = TrainData.gaussian(N, D, 31);
  private static final float[] T = TrainData.smoothTargets(X, N, D, 0.1, 32);

  /**
   * Independent reference: the augmented system [Z 1]^T [Z 1] + diag(lambda n, ..., lambda n, 0)
   * (the bias as an unregularized column), built by plain double loops and solved by EJML's
   * general solver (LU). Same objective, different method.
   */
  private static double[] reference(double[] z, int n, int m, float[] t, double lambda) {
    DMatrixRMaj a = new DMatrixRMaj(m + 1, m + 1);
    DMatrixRMaj b = new DMatrixRMaj(m + 1, 1);
    for (int r = 0; r < n; r++) {
      for (int i = 0; i <= m; i++) {
        double zi = i < m ? z[r * m + i] : 1;
        b.add(i, 0, zi * t[r]);
        for (int j = 0; j <= m; j++) {
          double zj = j < m ? z[r * m + j] : 1;
          a.add(i, j, zi * zj);
        }
      }
    }
    for (int i = 0; i < m; i++) {
      a.add(i, i, lambda * n);
    }
    DMatrixRMaj x = new DMatrixRMaj(m + 1, 1);
    assertTrue(CommonOps_DDRM.solve(a, b, x));
    return x.data;
  }

  /**
   * Weights and bias against the reference for packed and float features and m not a multiple of
   * the tile width. Both solve in double; the model stores float (relative rounding 6e-8) and the
   * system's condition number (<= (||Z||^2 + lambda n) / (lambda n) ~ 1e3 here) amplifies the
   * double rounding of the Gram matrix (~1e-16 relative) to well under 1e-10: 1e-6 relative to
   * the largest weight covers the float rounding with margin.
   */
  @Test
  void matchesTheAugmentedNormalEquations() {
    double lambda = 1e-3;
    for (int bits : new int[] {2, 8, 32}) {
      for (int m : new int[] {1, 13, 64}) {
        FeatureRows z = TrainData.featurize(TrainData.spec(D, m, bits, 2.0, 7), X, N);
        double[] decoded = TrainData.decode(z);
        double[] expected = reference(decoded, N, m, T, lambda);
        LinearModel model = ClosedFormRidge.fit(z, T, lambda);
        double scale = Arrays.stream(expected).map(Math::abs).max().orElseThrow();
        for (int i = 0; i < m; i++) {
          assertEquals(expected[i], model.weight(i, 0), 1e-6 * scale, "b " + bits + " m " + m + " w" + i);
        }
        assertEquals(expected[m], model.bias(0), 1e-6 * scale, "b " + bits + " m " + m + " bias");
      }
    }
  }

  /**
   * The sums do not depend on the threads: codes (the float form, 8 bits: two float chunks per
   * chunk of rows) and float32 rows, serial and on a pool of 3 threads, give the same bits.
   */
  @Test
  void sumsDoNotDependOnTheThreads() {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
    try {
      for (int bits : new int[] {4, 8, 32}) {
        FeatureRows z = TrainData.featurize(TrainData.spec(D, 150, bits, 2.0, 7), X, N);
        var source = org.lprff.vector.stream.InMemoryBatches.of(z, T).ordered();
        NormalEquations serial = ClosedFormRidge.accumulate(source, Task.REGRESSION, null, r -> {});
        NormalEquations parallel =
            ClosedFormRidge.accumulate(source, Task.REGRESSION, pool, r -> {});
        assertTrue(Arrays.equals(serial.centeredGram(), parallel.centeredGram()), "b " + bits);
        assertTrue(Arrays.equals(serial.centeredCross(0), parallel.centeredCross(0)), "b " + bits);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** The solution zeroes the gradient of J = mean 0.5 (y - t)^2 + lambda/2 ||w||^2. */
  @Test
  void gradientVanishesAtTheSolution() {
    int m = 48;
    double lambda = 1e-2;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 4, 2.0, 7), X, N);
    double[] decoded = TrainData.decode(z);
    LinearModel model = ClosedFormRidge.fit(z, T, lambda);
    double[] y = TrainData.scores(decoded, N, m, model);
    double biasGradient = 0;
    double[] g = new double[m];
    for (int r = 0; r < N; r++) {
      double e = (y[r] - T[r]) / N;
      biasGradient += e;
      for (int i = 0; i < m; i++) {
        g[i] += decoded[r * m + i] * e;
      }
    }
    // At the float-rounded weights the gradient is H (w_float - w*), |.| <= ||H|| 6e-8 |w| with
    // ||H|| <= 1 + lambda here; 1e-6 bounds it with margin.
    for (int i = 0; i < m; i++) {
      assertEquals(0, g[i] + lambda * model.weight(i, 0), 1e-6, "w" + i);
    }
    assertEquals(0, biasGradient, 1e-6);
  }

  /**
   * Classification: one-hot targets give, per class, the regression fit of that column (the
   * outputs decouple), and +-1 targets for binary labels.
   */
  @Test
  void classificationTargetsAreOneHotOrPlusMinusOne() {
    int m = 32;
    FeatureRows z = TrainData.featurize(TrainData.spec(D, m, 8, 2.0, 7), X, N);
    int[] classes = new int[N];
    for (int r = 0; r < N; r++) {
      classes[r] = T[r] < 1 ? 0 : T[r] < 2 ? 1 : 2;
    }
    LinearModel multi = ClosedFormRidge.fit(z, classes, Task.multiclass(3), 1e-3);
    assertEquals(3, multi.outputs());
    for (int k = 0; k < 3; k++) {
      float[] column = new float[N];
      for (int r = 0; r < N; r++) {
        column[r] = classes[r] == k ? 1 : 0;
      }
      LinearModel single = ClosedFormRidge.fit(z, column, 1e-3);
      for (int i = 0; i < m; i++) {
        // Same system, same right-hand side column: equal up to the Cholesky solve's rounding
        // with one vs three right-hand sides (identical operations per column): exact in fact.
        assertEquals(single.weight(i, 0), multi.weight(i, k), 1e-6, "class " + k + " w" + i);
      }
      assertEquals(single.bias(0), multi.bias(k), 1e-6);
    }
    int[] binary = new int[N];
    float[] signs = new float[N];
    for (int r = 0; r < N; r++) {
      binary[r] = T[r] < 1.2 ? 0 : 1;
      signs[r] = binary[r] == 1 ? 1 : -1;
    }
    assertEquals(
        ClosedFormRidge.fit(z, signs, 1e-3), ClosedFormRidge.fit(z, binary, Task.BINARY, 1e-3));
  }

  @Test
  void refusesBadArguments() {
    FeatureRows z = TrainData.featurize(TrainData.spec(D, 8, 4, 2.0, 7), X, N);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ClosedFormRidge.fit(z, T, -1));
    assertEquals("lambda is -1.0, expected a finite value >= 0", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> ClosedFormRidge.fit(z, T, Double.NaN));
    assertEquals("lambda is NaN, expected a finite value >= 0", e.getMessage());
    int[] labels = new int[N];
    labels[N - 1] = 2;
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ClosedFormRidge.fit(z, labels, Task.BINARY, 1e-3));
    assertEquals(
        "classes[" + ((N - 1) % ClosedFormRidge.CHUNK_ROWS) + "] (row id " + (N - 1)
            + ") is 2, expected 0 or 1 for binary classification",
        e.getMessage());
    // 4 rows, 8 features, lambda 0: rank <= 3. Values are small dyadic numbers, so every sum is
    // exact and the centered Gram matrix is exactly singular.
    float[] rows = new float[4 * 8];
    for (int k = 0; k < rows.length; k++) {
      rows[k] = (k * 7 % 5 - 2) * 0.25f;
    }
    FeatureRows few = FeatureRows.float32(rows, 0, 4, 8);
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ClosedFormRidge.fit(few, new float[] {1, 2, 3, 4}, 0));
    // The factorization's own message follows, naming the pivot (3: 4 centered rows span 3).
    assertTrue(e.getMessage().startsWith(
        "Zc^T Zc + lambda n I is not positive definite (lambda = 0.0, n = 4, m = 8): the centered"
            + " features are collinear; use a larger lambda (the 8 x 8 matrix is not positive"
            + " definite: pivot 3 is "), e.getMessage());
    assertTrue(ClosedFormRidge.fit(few, new float[] {1, 2, 3, 4}, 1e-3).squaredNorm() > 0);
  }
}
