package org.lprff.vector.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.factory.LinearSolverFactory_DDRM;
import org.ejml.interfaces.linsol.LinearSolverDense;
import org.junit.jupiter.api.Test;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

class ExactKernelRidgeTest {

  private static final double U = 0x1p-53;

  /**
   * The feature-space closed form of the SGD objective, solved independently in the primal: w
   * from (Z^T Z + n λ I) w = Z^T (y - ȳ) by LU, prediction ȳ + w . z.
   */
  static double[] primalPredictions(
      float[] z, int n, int m, double[] y, double lambda, float[] zNew, int count) {
    double mean = 0;
    for (double v : y) {
      mean += v;
    }
    mean /= n;
    DMatrixRMaj zm = new DMatrixRMaj(n, m);
    for (int i = 0; i < n * m; i++) {
      zm.data[i] = z[i];
    }
    DMatrixRMaj a = new DMatrixRMaj(m, m);
    CommonOps_DDRM.multTransA(zm, zm, a);
    for (int i = 0; i < m; i++) {
      a.add(i, i, n * lambda);
    }
    DMatrixRMaj centered = new DMatrixRMaj(n, 1);
    for (int i = 0; i < n; i++) {
      centered.data[i] = y[i] - mean;
    }
    DMatrixRMaj rhs = new DMatrixRMaj(m, 1);
    CommonOps_DDRM.multTransA(zm, centered, rhs);
    LinearSolverDense<DMatrixRMaj> lu = LinearSolverFactory_DDRM.lu(m);
    assertTrue(lu.setA(a));
    DMatrixRMaj w = new DMatrixRMaj(m, 1);
    lu.solve(rhs, w);
    double[] out = new double[count];
    for (int r = 0; r < count; r++) {
      double s = mean;
      for (int f = 0; f < m; f++) {
        s += zNew[r * m + f] * w.data[f];
      }
      out[r] = s;
    }
    return out;
  }

  /** C_rj = z_new_r . z_j in double (exact products). */
  static DMatrixRMaj crossGram(float[] zNew, int count, float[] z, int n, int m) {
    DMatrixRMaj c = new DMatrixRMaj(count, n);
    for (int r = 0; r < count; r++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int f = 0; f < m; f++) {
          s += (double) zNew[r * m + f] * z[j * m + f];
        }
        c.set(r, j, s);
      }
    }
    return c;
  }

  @Test
  void dualEqualsTheFeatureSpaceClosedFormWhenKIsZZt() {
    SplittableRandom random = new SplittableRandom(9);
    for (int[] shape : new int[][] {{40, 12}, {25, 60}, {7, 7}}) {
      int n = shape[0];
      int m = shape[1];
      float[] z = KernelMatrixTest.randomRows(n, m, n * 100L + m);
      float[] zNew = KernelMatrixTest.randomRows(15, m, 5);
      double[] y = new double[n];
      for (int i = 0; i < n; i++) {
        y[i] = 3 + random.nextGaussian();
      }
      for (double lambda : new double[] {1e-3, 0.1}) {
        DMatrixRMaj k = KernelMatrix.gram(z, n, m);
        ExactKernelRidge.Dual dual = ExactKernelRidge.solve(k, y, lambda);
        double[] kernelSide = dual.predict(crossGram(zNew, 15, z, n, m));
        double[] featureSide = primalPredictions(z, n, m, y, lambda, zNew, 15);
        // Both solves are backward stable: relative errors ~ c n u κ with κ = cond(K + nλI)
        // (= cond(Z^T Z + nλI) on the shared spectrum, nλ elsewhere); 1e3 n u κ bounds both,
        // scaled by the predictions' size.
        double[] mu = SpectralApproximationTest.eigenvalues(k);
        double kappa = (mu[n - 1] + n * lambda) / (Math.max(0, mu[0]) + n * lambda);
        double scale = 0;
        for (double v : featureSide) {
          scale = Math.max(scale, Math.abs(v));
        }
        double tolerance = 1e3 * Math.max(n, m) * U * kappa * scale;
        assertArrayEquals(featureSide, kernelSide, tolerance, "n " + n + " m " + m + " λ " + lambda);
        assertEquals(mean(y), dual.intercept(), 1e-15 * 3);
      }
    }
  }

  private static double mean(double[] y) {
    double s = 0;
    for (double v : y) {
      s += v;
    }
    return s / y.length;
  }

  @Test
  void fitSolvesTheNormalEquationsAndPredictsWithTheKernel() {
    int n = 60;
    int d = 3;
    KernelFunction kernel = new KernelFunction.Gaussian(1.2);
    float[] x = KernelMatrixTest.randomRows(n, d, 3);
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      y[i] = Math.sin(x[i * d]) + 0.5 * x[i * d + 1] + 10;
    }
    double lambda = 1e-3;
    ExactKernelRidge model = ExactKernelRidge.fit(kernel, x, n, d, y, lambda);
    DMatrixRMaj k = KernelMatrix.exact(kernel, x, n, d);
    double[] alpha = model.alpha();
    double ybar = mean(y);
    assertEquals(ybar, model.intercept(), 1e-14);
    // Residual of (K + n λ I) α = y - ȳ: backward stable Cholesky gives ||r|| <= c n u ||A|| ||α||.
    double norm = 0;
    for (double a : alpha) {
      norm = Math.max(norm, Math.abs(a));
    }
    for (int i = 0; i < n; i++) {
      double s = n * lambda * alpha[i];
      for (int j = 0; j < n; j++) {
        s += k.get(i, j) * alpha[j];
      }
      assertEquals(y[i] - ybar, s, 100 * n * U * (n + n * lambda) * norm, "row " + i);
    }
    // Predictions = ȳ + sum_j α_j k(x_j, x), computed here from the kernel function directly.
    float[] xNew = KernelMatrixTest.randomRows(300, d, 4);
    double[] predicted = model.predict(xNew, 300);
    for (int r = 0; r < 300; r++) {
      double s = ybar;
      for (int j = 0; j < n; j++) {
        s += alpha[j]
            * kernel.value(
                java.util.Arrays.copyOfRange(xNew, r * d, r * d + d),
                java.util.Arrays.copyOfRange(x, j * d, j * d + d));
      }
      assertEquals(s, predicted[r], 1e-12 * (1 + n * norm), "prediction " + r);
    }
    assertArrayEquals(predicted, model.predict(xNew, 300, ForkJoinPool.commonPool()), 0);
    assertEquals(0, model.predict(xNew, 0).length);
    assertEquals(n, model.n());
    assertEquals(d, model.inputDim());
    assertEquals(lambda, model.lambda());
    assertEquals(kernel, model.kernel());
  }

  @Test
  void constantTargetsGiveZeroCoefficients() {
    int n = 20;
    float[] x = KernelMatrixTest.randomRows(n, 2, 8);
    double[] y = new double[n];
    java.util.Arrays.fill(y, 4.25);
    ExactKernelRidge model =
        ExactKernelRidge.fit(new KernelFunction.Laplacian(1), x, n, 2, y, 0.01);
    assertArrayEquals(new double[n], model.alpha(), 0);
    assertArrayEquals(new double[] {4.25, 4.25}, model.predict(x, 2), 0);
  }

  @Test
  void rejectsBadArgumentsNamingTheValue() {
    KernelFunction kernel = new KernelFunction.Gaussian(1);
    float[] x = KernelMatrixTest.randomRows(5, 2, 1);
    double[] y = {1, 2, 3, 4, 5};
    assertMessage("lambda is 0.0", () -> ExactKernelRidge.fit(kernel, x, 5, 2, y, 0));
    assertMessage("lambda is -1.0", () -> ExactKernelRidge.fit(kernel, x, 5, 2, y, -1));
    assertMessage("y is null", () -> ExactKernelRidge.fit(kernel, x, 5, 2, null, 1));
    assertMessage(
        "y has length 4, expected n = 5", () -> ExactKernelRidge.fit(kernel, x, 5, 2, new double[4], 1));
    assertMessage(
        "y[2] is NaN",
        () -> ExactKernelRidge.fit(kernel, x, 5, 2, new double[] {1, 2, Double.NaN, 4, 5}, 1));
    assertMessage("gram is null", () -> ExactKernelRidge.solve(null, y, 1));
    assertMessage(
        "gram is 5 x 4, expected a square matrix",
        () -> ExactKernelRidge.solve(new DMatrixRMaj(5, 4), y, 1));
    DMatrixRMaj negative = CommonOps_DDRM.identity(5);
    CommonOps_DDRM.scale(-10, negative);
    assertMessage(
        "K + n lambda I is not positive definite for n = 5, lambda = 1.0",
        () -> ExactKernelRidge.solve(negative, y, 1));
    ExactKernelRidge model = ExactKernelRidge.fit(kernel, x, 5, 2, y, 1);
    assertMessage("count is -1", () -> model.predict(x, -1));
    assertMessage("newRows has 10 floats", () -> model.predict(x, 6));
    ExactKernelRidge.Dual dual = ExactKernelRidge.solve(CommonOps_DDRM.identity(5), y, 1);
    assertMessage(
        "cross has 4 columns, expected 5", () -> dual.predict(new DMatrixRMaj(2, 4)));
  }

  /**
   * Diamonds, 2000 training and 500 heldout rows, Gaussian σ = 4, ridge λ = 1e-5 (σ and λ the
   * best heldout MSE of σ in {0.5, 1, 2, 4} x λ in {1e-6 .. 1e-2} up to a factor 1.1; 1e-5 keeps
   * K + n λ I better conditioned than 1e-6): RFF ridge (dense, float32 features, the same λ
   * through the same dual solve) approaches the exact kernel ridge MSE as m grows.
   */
  @Test
  void rffRidgeApproachesExactKernelRidgeOnDiamonds() {
    int train = 2000;
    int heldout = 500;
    Diamonds.Split data = Diamonds.split(Diamonds.shuffled(42), train, heldout);
    Executor executor = ForkJoinPool.commonPool();
    KernelFunction kernel = new KernelFunction.Gaussian(4);
    double lambda = 1e-5;
    int d = Diamonds.D;
    ExactKernelRidge exact =
        ExactKernelRidge.fit(kernel, data.trainX(), train, d, data.trainY(), lambda, executor);
    double exactMse =
        RegressionMetrics.mse(exact.predict(data.heldoutX(), heldout, executor), data.heldoutY());
    double meanOnly = RegressionMetrics.mse(constant(mean(data.trainY()), heldout), data.heldoutY());
    int[] features = {256, 1024, 4096};
    double[] mse = new double[features.length];
    StringBuilder table = new StringBuilder();
    table.append(
        String.format(
            Locale.ROOT,
            "diamonds %d/%d, Gaussian sigma 4, lambda %.0e: exact KRR heldout MSE %.5f"
                + " (predicting the mean: %.5f)%n",
            train, heldout, lambda, exactMse, meanOnly));
    for (int mi = 0; mi < features.length; mi++) {
      int m = features[mi];
      FeaturizerSpec spec = new FeaturizerSpec(kernel, d, m, 32, "dense", 3, Quantizer.STOCHASTIC);
      Featurizer featurizer = Featurizer.of(spec);
      float[] z = floats(featurizer.featurize(data.trainX(), train, 0), train * m);
      float[] zHeld = floats(featurizer.featurize(data.heldoutX(), heldout, train), heldout * m);
      ExactKernelRidge.Dual dual =
          ExactKernelRidge.solve(KernelMatrix.gram(z, train, m, executor), data.trainY(), lambda);
      // w = Z^T α, then ȳ + w . z: the feature-space model the dual stands for.
      double[] w = new double[m];
      double[] alpha = dual.alpha();
      for (int i = 0; i < train; i++) {
        for (int f = 0; f < m; f++) {
          w[f] += alpha[i] * z[i * m + f];
        }
      }
      double[] predicted = new double[heldout];
      for (int r = 0; r < heldout; r++) {
        double s = dual.intercept();
        for (int f = 0; f < m; f++) {
          s += w[f] * zHeld[r * m + f];
        }
        predicted[r] = s;
      }
      mse[mi] = RegressionMetrics.mse(predicted, data.heldoutY());
      table.append(String.format(Locale.ROOT, "  RFF m = %5d: heldout MSE %.5f%n", m, mse[mi]));
    }
    System.out.print(table);
    assertTrue(exactMse < 0.05 * meanOnly, "exact KRR explains log(price)\n" + table);
    for (int mi = 1; mi < features.length; mi++) {
      assertTrue(
          Math.abs(mse[mi] - exactMse) < Math.abs(mse[mi - 1] - exactMse),
          "the gap to exact KRR closes with m\n" + table);
    }
    assertTrue(mse[features.length - 1] < 1.1 * exactMse, "m = 4096 within 10%\n" + table);
  }

  private static double[] constant(double value, int n) {
    double[] out = new double[n];
    java.util.Arrays.fill(out, value);
    return out;
  }

  static float[] floats(byte[] littleEndian, int count) {
    float[] out = new float[count];
    ByteBuffer.wrap(littleEndian).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return out;
  }
}
