package org.lprff.vector.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.NormOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

class SpectralApproximationTest {

  private static final double U = 0x1p-53;

  /** A test case: exact K, an approximation, λ. */
  record Case(String name, DMatrixRMaj exact, DMatrixRMaj approximate, double lambda) {}

  /** Gaussian-kernel K on n random points and several K~: RFF Grams at b = 32 and 2, scaled K. */
  static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    for (int n : new int[] {6, 17, 40}) {
      int d = 3;
      KernelFunction kernel = new KernelFunction.Gaussian(1.5);
      float[] x = KernelMatrixTest.randomRows(n, d, 100 + n);
      DMatrixRMaj k = KernelMatrix.exact(kernel, x, n, d);
      for (double lambda : new double[] {0.05, 1}) {
        for (int bits : new int[] {32, 2}) {
          FeaturizerSpec spec =
              new FeaturizerSpec(kernel, d, 24, bits, "dense", 7, Quantizer.STOCHASTIC);
          byte[] z = Featurizer.of(spec).featurize(x, n, 0);
          cases.add(
              new Case(
                  "n " + n + " rff b " + bits + " lambda " + lambda,
                  k, KernelMatrix.gram(z, n, spec, null), lambda));
        }
        DMatrixRMaj scaled = k.copy();
        CommonOps_DDRM.scale(0.7, scaled);
        cases.add(new Case("n " + n + " 0.7 K lambda " + lambda, k, scaled, lambda));
      }
    }
    return cases;
  }

  static double[] eigenvalues(DMatrixRMaj symmetric) {
    EigenDecomposition_F64<DMatrixRMaj> eig =
        DecompositionFactory_DDRM.eig(symmetric.numRows, false, true);
    assertTrue(eig.decompose(symmetric.copy()));
    double[] values = new double[symmetric.numRows];
    for (int i = 0; i < values.length; i++) {
      values[i] = eig.getEigenvalue(i).real;
    }
    Arrays.sort(values);
    return values;
  }

  static DMatrixRMaj plusLambda(DMatrixRMaj a, double lambda) {
    DMatrixRMaj out = a.copy();
    for (int i = 0; i < a.numRows; i++) {
      out.add(i, i, lambda);
    }
    return out;
  }

  /**
   * The independent reference: A^(-1/2) from a symmetric eigendecomposition of A = K + λI (with
   * vectors), M = A^(-1/2) (K~ - K) A^(-1/2) by plain products, its extreme eigenvalues.
   */
  static double[] referenceDeltas(DMatrixRMaj k, DMatrixRMaj approximate, double lambda) {
    int n = k.numRows;
    DMatrixRMaj a = plusLambda(k, lambda);
    EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, true, true);
    assertTrue(eig.decompose(a.copy()));
    DMatrixRMaj inverseRoot = new DMatrixRMaj(n, n);
    for (int i = 0; i < n; i++) {
      double s = eig.getEigenvalue(i).real;
      DMatrixRMaj v = eig.getEigenVector(i);
      for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++) {
          inverseRoot.add(r, c, v.get(r) * v.get(c) / Math.sqrt(s));
        }
      }
    }
    DMatrixRMaj e = new DMatrixRMaj(n, n);
    CommonOps_DDRM.subtract(approximate, k, e);
    DMatrixRMaj t = new DMatrixRMaj(n, n);
    DMatrixRMaj m = new DMatrixRMaj(n, n);
    CommonOps_DDRM.mult(inverseRoot, e, t);
    CommonOps_DDRM.mult(t, inverseRoot, m);
    DMatrixRMaj sym = new DMatrixRMaj(n, n);
    CommonOps_DDRM.transpose(m, sym);
    CommonOps_DDRM.add(0.5, m, 0.5, sym, sym);
    double[] values = eigenvalues(sym);
    return new double[] {Math.max(0, -values[0]), Math.max(0, values[n - 1])};
  }

  /** κ(K + λI) = (μ_max + λ) / (μ_min + λ). */
  static double condition(DMatrixRMaj k, double lambda) {
    double[] mu = eigenvalues(k);
    return (mu[mu.length - 1] + lambda) / (mu[0] + lambda);
  }

  @Test
  void agreesWithTheInverseSquareRootReference() {
    for (Case c : cases()) {
      SpectralApproximation s = SpectralApproximation.of(c.exact, c.approximate, c.lambda);
      double[] reference = referenceDeltas(c.exact, c.approximate, c.lambda);
      int n = c.exact.numRows;
      // Both routes carry a relative error of about c n u κ(K + λI) (class comment) plus the
      // eigensolvers' u ||M||; 100 n u κ (1 + Δ) covers both with room (here at most ~1e-10).
      double tolerance = 100 * n * U * condition(c.exact, c.lambda);
      assertEquals(reference[0], s.delta1(), tolerance * (1 + reference[0]), c.name + " Δ1");
      assertEquals(reference[1], s.delta2(), tolerance * (1 + reference[1]), c.name + " Δ2");
      DMatrixRMaj e = new DMatrixRMaj(n, n);
      CommonOps_DDRM.subtract(c.exact, c.approximate, e);
      double frobenius = NormOps_DDRM.normF(e);
      double spectral = NormOps_DDRM.normP2(e); // SVD based: independent of our eigenvalues
      // Norms of E: a sum of n^2 squares (n^2 u relative) and the SVD's backward error.
      assertEquals(frobenius, s.frobeniusError(), 4 * n * n * U * frobenius, c.name + " F");
      assertEquals(spectral, s.spectralError(), 100 * n * U * frobenius, c.name + " 2-norm");
      assertEquals(n, s.n());
      assertEquals(c.lambda, s.lambda());
    }
  }

  @Test
  void deltasAreTheSmallestBoundsThatHold() {
    for (Case c : cases()) {
      SpectralApproximation s = SpectralApproximation.of(c.exact, c.approximate, c.lambda);
      int n = c.exact.numRows;
      DMatrixRMaj a = plusLambda(c.exact, c.lambda);
      DMatrixRMaj at = plusLambda(c.approximate, c.lambda);
      // Rounding in forming and decomposing the differences: 100 n u (||A||_F + ||A~||_F).
      double tolerance = 100 * n * U * (NormOps_DDRM.normF(a) + NormOps_DDRM.normF(at));
      // A violation by ε shows as an eigenvalue <= -ε λ_min(A) <= -ε λ: 1e-6 λ >> tolerance.
      double epsilon = 1e-6;
      assertTrue(
          minEigenvalue(at, a, 1 - s.delta1()) >= -tolerance,
          c.name + ": (1 - Δ1)(K + λI) ⪯ K~ + λI must hold");
      assertTrue(
          minEigenvalue(a, at, 1 / (1 + s.delta2())) * (1 + s.delta2()) >= -tolerance,
          c.name + ": K~ + λI ⪯ (1 + Δ2)(K + λI) must hold");
      if (s.delta1() > epsilon) {
        assertTrue(
            minEigenvalue(at, a, 1 - (s.delta1() - epsilon)) < -epsilon * c.lambda / 2,
            c.name + ": Δ1 - ε must fail");
      }
      if (s.delta2() > epsilon) {
        double smaller = s.delta2() - epsilon;
        assertTrue(
            minEigenvalue(a, at, 1 / (1 + smaller)) * (1 + smaller) < -epsilon * c.lambda / 2,
            c.name + ": Δ2 - ε must fail");
      }
      assertTrue(s.delta1() > epsilon || s.delta2() > epsilon, c.name + " is not exact");
    }
  }

  /** λ_min(x - factor y). */
  private static double minEigenvalue(DMatrixRMaj x, DMatrixRMaj y, double factor) {
    DMatrixRMaj d = new DMatrixRMaj(x.numRows, x.numCols);
    CommonOps_DDRM.add(1, x, -factor, y, d);
    return eigenvalues(d)[0];
  }

  @Test
  void scaledKernelHasTheClosedForm() {
    // K~ = (1 + a) K: M = a K (K + λI)^-1 has eigenvalues a μ_i / (μ_i + λ).
    int n = 30;
    KernelFunction kernel = new KernelFunction.Laplacian(2);
    float[] x = KernelMatrixTest.randomRows(n, 4, 77);
    DMatrixRMaj k = KernelMatrix.exact(kernel, x, n, 4);
    double[] mu = eigenvalues(k);
    double lambda = 0.3;
    for (double a : new double[] {0.5, -0.3, 1e-3}) {
      DMatrixRMaj scaled = k.copy();
      CommonOps_DDRM.scale(1 + a, scaled);
      SpectralApproximation s = SpectralApproximation.of(k, scaled, lambda);
      double top = mu[n - 1] / (mu[n - 1] + lambda);
      double tolerance = 100 * n * U * condition(k, lambda);
      if (a > 0) {
        assertEquals(a * top, s.delta2(), tolerance, "Δ2 for a = " + a);
        // The smallest eigenvalue a μ_min/(μ_min + λ) is >= 0, so Δ1 is 0 up to rounding.
        assertEquals(0, s.delta1(), tolerance, "Δ1 for a = " + a);
      } else {
        assertEquals(-a * top, s.delta1(), tolerance, "Δ1 for a = " + a);
        assertEquals(0, s.delta2(), tolerance, "Δ2 for a = " + a);
      }
      assertEquals(Math.abs(a) * NormOps_DDRM.normF(k), s.frobeniusError(), 1e-12 * n);
      assertEquals(Math.abs(a) * mu[n - 1], s.spectralError(), 1e-12 * n);
    }
  }

  @Test
  void identicalMatricesGiveZeroExactly() {
    DMatrixRMaj k = KernelMatrix.exact(new KernelFunction.Gaussian(1), KernelMatrixTest.randomRows(20, 2, 1), 20, 2);
    SpectralApproximation s = SpectralApproximation.of(k, k.copy(), 0.1);
    assertEquals(new SpectralApproximation(20, 0.1, 0, 0, 0, 0), s);
  }

  @Test
  void aReferenceIsReusableAndTheExecutorChangesNothing() {
    Case c = cases().get(cases().size() - 2);
    SpectralApproximation.Reference sequential = SpectralApproximation.reference(c.exact, c.lambda);
    SpectralApproximation.Reference parallel =
        SpectralApproximation.reference(c.exact, c.lambda, ForkJoinPool.commonPool());
    SpectralApproximation first = sequential.compare(c.approximate);
    assertEquals(first, sequential.compare(c.approximate));
    assertEquals(first, parallel.compare(c.approximate));
    assertEquals(first, SpectralApproximation.of(c.exact, c.approximate, c.lambda));
    assertEquals(c.exact.numRows, sequential.n());
    assertEquals(c.lambda, sequential.lambda());
  }

  @Test
  void rejectsBadArgumentsNamingTheValue() {
    DMatrixRMaj k = CommonOps_DDRM.identity(3);
    assertMessage("lambda is 0.0", () -> SpectralApproximation.of(k, k, 0));
    assertMessage("lambda is NaN", () -> SpectralApproximation.of(k, k, Double.NaN));
    assertMessage("lambda is Infinity", () -> SpectralApproximation.of(k, k, Double.POSITIVE_INFINITY));
    assertMessage("exact is null", () -> SpectralApproximation.of(null, k, 1));
    assertMessage("approximate is null", () -> SpectralApproximation.of(k, null, 1));
    assertMessage(
        "exact is 2 x 3, expected a square matrix",
        () -> SpectralApproximation.of(new DMatrixRMaj(2, 3), k, 1));
    assertMessage(
        "approximate is 4 x 4, expected 3 x 3",
        () -> SpectralApproximation.of(k, CommonOps_DDRM.identity(4), 1));
    DMatrixRMaj asymmetric = k.copy();
    asymmetric.set(2, 0, 0.5);
    assertMessage(
        "approximate is not symmetric: [2, 0] = 0.5 but [0, 2] = 0.0",
        () -> SpectralApproximation.of(k, asymmetric, 1));
    DMatrixRMaj nan = k.copy();
    nan.set(1, 1, Double.NaN);
    assertMessage("exact[1, 1] is NaN", () -> SpectralApproximation.of(nan, k, 1));
    DMatrixRMaj negative = CommonOps_DDRM.identity(3);
    CommonOps_DDRM.scale(-2, negative);
    assertMessage(
        "K + lambda I is not positive definite for lambda = 1.0",
        () -> SpectralApproximation.of(negative, k, 1));
  }
}
