package org.lprff.vector.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.kernel.KernelFunction;

class NystromFeaturesTest {

  private static final double U = 0x1p-53;

  /**
   * |z(L_i) . z(L_j) - K_ij| for landmarks: dropping eigenvalues <= floor changes an entry by at
   * most the floor; the eigendecomposition's backward error c m u s_max (c = 1e3 generous); the
   * float32 features round each z_k relatively by 2^-24, so the dot product moves by at most
   * 2^-23 ||z_i|| ||z_j|| <= 2^-23 (||z(x)||^2 <= k(x, x) = 1), doubled for margin.
   */
  private static double landmarkTolerance(NystromFeatures nystrom) {
    double sMax = nystrom.eigenvalues()[0];
    return nystrom.floor() + 1e3 * nystrom.landmarks() * U * sMax + 0x1p-22;
  }

  @Test
  void reproducesTheKernelOnTheLandmarks() {
    KernelFunction kernel = new KernelFunction.Gaussian(1.5);
    int n = 300;
    int d = 4;
    float[] x = KernelMatrixTest.randomRows(n, d, 21);
    for (int m : new int[] {1, 10, 100}) {
      NystromFeatures nystrom = NystromFeatures.fit(kernel, x, n, d, m, 5);
      float[] l = nystrom.landmarkRows();
      float[] z = nystrom.featurize(l, m);
      DMatrixRMaj approximate = KernelMatrix.gram(z, m, nystrom.features());
      DMatrixRMaj exact = KernelMatrix.exact(kernel, l, m, d);
      double tolerance = landmarkTolerance(nystrom);
      for (int i = 0; i < m * m; i++) {
        assertEquals(exact.data[i], approximate.data[i], tolerance, "m " + m + " entry " + i);
      }
      assertTrue(nystrom.features() <= m);
      assertEquals(m, nystrom.landmarks());
    }
  }

  @Test
  void allTrainingPointsAsLandmarksReproduceK() {
    KernelFunction kernel = new KernelFunction.Laplacian(3);
    int n = 150;
    int d = 5;
    float[] x = KernelMatrixTest.randomRows(n, d, 22);
    NystromFeatures nystrom = NystromFeatures.fit(kernel, x, n, d, n, 6);
    float[] z = nystrom.featurize(x, n);
    DMatrixRMaj approximate = KernelMatrix.gram(z, n, nystrom.features());
    DMatrixRMaj exact = KernelMatrix.exact(kernel, x, n, d);
    double tolerance = landmarkTolerance(nystrom);
    double worst = 0;
    for (int i = 0; i < n * n; i++) {
      worst = Math.max(worst, Math.abs(exact.data[i] - approximate.data[i]));
    }
    assertTrue(worst <= tolerance, "max |K - K~| = " + worst + " > " + tolerance);
    SpectralApproximation s = SpectralApproximation.of(exact, approximate, 1e-3);
    assertTrue(s.delta1() < 1e-3 && s.delta2() < 1e-3, s.toString());
  }

  @Test
  void landmarksAreDistinctDeterministicAndNested() {
    KernelFunction kernel = new KernelFunction.Gaussian(1);
    int n = 500;
    float[] x = KernelMatrixTest.randomRows(n, 2, 23);
    int[] small = NystromFeatures.fit(kernel, x, n, 2, 20, 99).landmarkIndices();
    int[] large = NystromFeatures.fit(kernel, x, n, 2, 60, 99).landmarkIndices();
    int[] again = NystromFeatures.fit(kernel, x, n, 2, 60, 99).landmarkIndices();
    int[] other = NystromFeatures.fit(kernel, x, n, 2, 60, 100).landmarkIndices();
    assertArrayEquals(large, again);
    assertArrayEquals(small, Arrays.copyOf(large, 20));
    assertFalse(Arrays.equals(large, other));
    Set<Integer> distinct = new HashSet<>();
    for (int index : large) {
      assertTrue(index >= 0 && index < n);
      distinct.add(index);
    }
    assertEquals(60, distinct.size());
    NystromFeatures nystrom = NystromFeatures.fit(kernel, x, n, 2, 60, 99);
    float[] rows = nystrom.landmarkRows();
    for (int k = 0; k < 60; k++) {
      assertArrayEquals(
          Arrays.copyOfRange(x, large[k] * 2, large[k] * 2 + 2),
          Arrays.copyOfRange(rows, k * 2, k * 2 + 2));
    }
  }

  @Test
  void eigenvaluesAreDecreasingAboveTheFloorAndSmallOnesAreDropped() {
    // Many landmarks in 2-d with a wide Gaussian: K_mm is numerically low rank.
    KernelFunction kernel = new KernelFunction.Gaussian(3);
    int n = 400;
    float[] x = KernelMatrixTest.randomRows(n, 2, 24);
    NystromFeatures nystrom = NystromFeatures.fit(kernel, x, n, 2, 400, 1);
    double[] s = nystrom.eigenvalues();
    assertEquals(0x1p-52 * 400 * s[0], nystrom.floor(), 0);
    for (int k = 0; k < s.length; k++) {
      assertTrue(s[k] > nystrom.floor());
      if (k > 0) {
        assertTrue(s[k] <= s[k - 1]);
      }
    }
    assertTrue(nystrom.features() < 400, "expected dropped eigenvalues, kept " + s.length);
    float[] z = nystrom.featurize(x, n);
    for (float v : z) {
      assertTrue(Float.isFinite(v));
    }
    // ||z(x)||^2 <= k(x, x) = 1 for any x (Cauchy-Schwarz in the feature space), up to rounding.
    float[] fresh = KernelMatrixTest.randomRows(50, 2, 25);
    float[] zf = nystrom.featurize(fresh, 50);
    int f = nystrom.features();
    for (int r = 0; r < 50; r++) {
      double norm = 0;
      for (int k = 0; k < f; k++) {
        norm += (double) zf[r * f + k] * zf[r * f + k];
      }
      assertTrue(norm <= 1 + 1e-5, "row " + r + " has ||z||^2 = " + norm);
    }
  }

  @Test
  void featuresDoNotDependOnTheExecutor() {
    KernelFunction kernel = new KernelFunction.Matern(2.5, 1);
    int n = 300;
    float[] x = KernelMatrixTest.randomRows(n, 3, 26);
    NystromFeatures a = NystromFeatures.fit(kernel, x, n, 3, 80, 2);
    NystromFeatures b = NystromFeatures.fit(kernel, x, n, 3, 80, 2, ForkJoinPool.commonPool());
    float[] out = new float[n * b.features()];
    b.featurize(x, n, out, ForkJoinPool.commonPool());
    assertArrayEquals(a.featurize(x, n), out);
  }

  @Test
  void rejectsBadArgumentsNamingTheValue() {
    KernelFunction kernel = new KernelFunction.Gaussian(1);
    float[] x = KernelMatrixTest.randomRows(10, 2, 1);
    assertMessage("m is 11, expected in [1, 10]", () -> NystromFeatures.fit(kernel, x, 10, 2, 11, 1));
    assertMessage("m is 0", () -> NystromFeatures.fit(kernel, x, 10, 2, 0, 1));
    assertMessage("kernel is null", () -> NystromFeatures.fit(null, x, 10, 2, 3, 1));
    assertMessage("rows has 20 floats", () -> NystromFeatures.fit(kernel, x, 11, 2, 3, 1));
    assertMessage(
        "relativeFloor is -1.0",
        () -> NystromFeatures.fromLandmarks(kernel, x, 10, 2, -1, null));
    NystromFeatures nystrom = NystromFeatures.fit(kernel, x, 10, 2, 5, 1);
    assertMessage("n is -1", () -> nystrom.featurize(x, -1));
    assertMessage(
        "out has length 3, expected at least n * features",
        () -> nystrom.featurize(x, 1, new float[3]));
    float[] nan = x.clone();
    nan[3] = Float.NaN;
    assertMessage("rows[3] (row 1, column 1) is NaN", () -> nystrom.featurize(nan, 2));
  }

  /**
   * Diamonds: Nyström on 2000 training rows, Gaussian σ = 4, evaluated on 500 heldout rows:
   * ||K - K~||_F and Δ1 (λ = 1e-3 n) fall as the landmarks grow.
   */
  @Test
  void approximationImprovesWithLandmarksOnDiamonds() {
    Diamonds.Split data = Diamonds.split(Diamonds.shuffled(42), 2000, 500);
    KernelFunction kernel = new KernelFunction.Gaussian(4);
    int d = Diamonds.D;
    int heldout = 500;
    DMatrixRMaj exact = KernelMatrix.exact(kernel, data.heldoutX(), heldout, d);
    SpectralApproximation.Reference reference =
        SpectralApproximation.reference(exact, 1e-3 * heldout, ForkJoinPool.commonPool());
    int[] landmarks = {25, 100, 400};
    double[] frobenius = new double[landmarks.length];
    double[] delta1 = new double[landmarks.length];
    StringBuilder table = new StringBuilder("Nystrom on diamonds (2000 train, 500 heldout)\n");
    for (int i = 0; i < landmarks.length; i++) {
      NystromFeatures nystrom =
          NystromFeatures.fit(
              kernel, data.trainX(), 2000, d, landmarks[i], 7, ForkJoinPool.commonPool());
      float[] z = nystrom.featurize(data.heldoutX(), heldout);
      SpectralApproximation s =
          reference.compare(KernelMatrix.gram(z, heldout, nystrom.features()));
      frobenius[i] = s.frobeniusError();
      delta1[i] = s.delta1();
      // K - K~ is a Schur complement, so K~ ⪯ K: Δ2 is zero up to the float32 rounding of z.
      assertTrue(s.delta2() < 1e-4, "Nystrom never over-approximates: " + s);
      table.append(
          String.format(
              Locale.ROOT,
              "  m = %4d (m' = %4d): ||K - K~||_F %.4f  ||K - K~||_2 %.4f  Delta1 %.4f  Delta2 %.2e%n",
              landmarks[i], nystrom.features(), s.frobeniusError(), s.spectralError(),
              s.delta1(), s.delta2()));
    }
    System.out.print(table);
    for (int i = 1; i < landmarks.length; i++) {
      assertTrue(frobenius[i] < 0.7 * frobenius[i - 1], table.toString());
      assertTrue(delta1[i] < delta1[i - 1], table.toString());
    }
  }
}
