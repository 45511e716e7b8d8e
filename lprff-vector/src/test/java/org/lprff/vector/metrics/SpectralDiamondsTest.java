package org.lprff.vector.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.junit.jupiter.api.Test;
import org.lprff.fixtures.Quadratic;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

/**
 * The LP-RFF theory on real data (Zhang et al. 2019, Theorem 2 and Figure 3): with more features
 * Δ1 falls for full and low precision alike, while the quantization noise keeps Δ2 of 1- and
 * 2-bit features above a plateau that does not fall with m, and the full-precision Δ2 shrinks.
 *
 * <p>Setup: n diamonds rows (default 800 to stay near 20 s on two busy cores; {@code
 * -Dlprff.metrics.spectralN=1000} for the size of the issue), standardized with
 * their own statistics, Gaussian kernel σ = 4 (the best of σ in {0.5, 1, 2, 4} for exact kernel
 * ridge on 2000/500 diamonds rows), λ = 1e-3 n, i.e. the ridge λ = 1e-3 in the (K + n λ I)
 * scaling of {@link ExactKernelRidge}; dense projection, seed 11, stochastic rounding; m in {256,
 * 1024, 4096}, b in {32, 4, 2, 1}.
 *
 * <p><b>The plateau.</b> Let x be the unit eigenvector of K for its smallest eigenvalue μ_min.
 * The Rayleigh quotient P = x^T (K~ - K) x / (μ_min + λ) is a lower bound of Δ2 (Δ2 is the
 * maximum of such quotients). Writing the quantized features as Q = Z + ε with independent,
 * zero-mean rounding errors of variance v_ji = (z_ji - lo)(hi - z_ji) (lo, hi the ends of z's
 * grid cell), E[P] = (x^T (Z Z^T - K) x + x^T D x) / (μ_min + λ) with D = diag(sum_i v_ji): the
 * term x^T D x is about the mean rounding variance per row, which depends on b but not on m (for b
 * = 1 it is 2 - ||z_j||^2 ≈ 1). Its fluctuation is a sum of m independent terms with relative
 * standard deviation about sqrt(2/m) (<= 0.09 at m = 256), and x^T (Z Z^T - K) x >= -μ_min. So the
 * test asserts P >= 0.5 (x^T D x - μ_min) / (μ_min + λ): a shortfall of at least 5.6 standard
 * deviations, false-failure probability below 1e-7 per case by the normal approximation (whose
 * lower tail is heavier than that of these chi-squared-like sums).
 */
class SpectralDiamondsTest {

  private static final int[] FEATURES = {256, 1024, 4096};
  private static final int[] BITS = {32, 4, 2, 1};

  @Test
  void lowPrecisionKeepsDelta2AbovePlateauWhileDelta1Falls() {
    int n = Integer.getInteger("lprff.metrics.spectralN", 800);
    Diamonds.Split data = Diamonds.split(Diamonds.shuffled(2024), n, 1);
    Executor executor = ForkJoinPool.commonPool();
    int d = Diamonds.D;
    KernelFunction kernel = new KernelFunction.Gaussian(4);
    double lambda = 1e-3 * n;
    DMatrixRMaj k = KernelMatrix.exact(kernel, data.trainX(), n, d, executor);
    SpectralApproximation.Reference reference =
        SpectralApproximation.reference(k, lambda, executor);

    EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(n, true, true);
    assertTrue(eig.decompose(k.copy()));
    int lowest = 0;
    for (int i = 1; i < n; i++) {
      if (eig.getEigenvalue(i).real < eig.getEigenvalue(lowest).real) {
        lowest = i;
      }
    }
    double muMin = eig.getEigenvalue(lowest).real;
    double[] x = eig.getEigenVector(lowest).data.clone();

    double[][] delta1 = new double[BITS.length][FEATURES.length];
    double[][] delta2 = new double[BITS.length][FEATURES.length];
    double[][] rayleigh = new double[BITS.length][FEATURES.length];
    double[][] plateau = new double[BITS.length][FEATURES.length];
    StringBuilder table = new StringBuilder();
    table.append(
        String.format(
            Locale.ROOT,
            "diamonds n = %d, Gaussian sigma = 4, lambda = %.3g, dense, stochastic; mu_min = %.3g%n"
                + "%6s %3s %9s %9s %10s %10s %11s %11s%n",
            n, lambda, muMin, "m", "b", "Delta1", "Delta2", "||E||_F", "||E||_2", "P (<=D2)",
            "plateau"));
    for (int mi = 0; mi < FEATURES.length; mi++) {
      int m = FEATURES[mi];
      float[] z = null;
      for (int bi = 0; bi < BITS.length; bi++) {
        int b = BITS[bi];
        FeaturizerSpec spec =
            new FeaturizerSpec(kernel, d, m, b, "dense", 11, Quantizer.STOCHASTIC);
        byte[] rows = new byte[n * spec.rowBytes()];
        Featurizer.of(spec).featurize(data.trainX(), n, 0, rows, 0, 0, executor);
        if (b == 32) {
          z = new float[n * m];
          ByteBuffer.wrap(rows).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(z);
        }
        DMatrixRMaj approximate = KernelMatrix.gram(rows, n, spec, executor);
        SpectralApproximation s = reference.compare(approximate);
        delta1[bi][mi] = s.delta1();
        delta2[bi][mi] = s.delta2();
        rayleigh[bi][mi] = Quadratic.of(approximate.data, x) - muMin;
        rayleigh[bi][mi] /= muMin + lambda;
        plateau[bi][mi] =
            b == 32 ? 0 : roundingVariance(z, n, m, spec.scale(), x) / (muMin + lambda);
        table.append(
            String.format(
                Locale.ROOT,
                "%6d %3d %9.4f %9.4f %10.3f %10.3f %11.4f %11.4f%n",
                m, b, s.delta1(), s.delta2(), s.frobeniusError(), s.spectralError(),
                rayleigh[bi][mi], plateau[bi][mi]));
      }
    }
    System.out.print(table);

    for (int bi = 0; bi < BITS.length; bi++) {
      for (int mi = 0; mi < FEATURES.length; mi++) {
        // P is a Rayleigh quotient of M: never above Δ2 (up to rounding).
        assertTrue(rayleigh[bi][mi] <= delta2[bi][mi] + 1e-9, "P <= Δ2\n" + table);
      }
    }
    for (int bi : new int[] {0, 1}) { // b = 32 and 4
      for (int mi = 1; mi < FEATURES.length; mi++) {
        // 4x the features: the concentration bound scales as 1/sqrt(m), so about halves.
        assertTrue(
            delta1[bi][mi] < 0.8 * delta1[bi][mi - 1],
            "Δ1 must fall with m for b = " + BITS[bi] + "\n" + table);
      }
    }
    assertTrue(delta2[0][2] < 0.5 * delta2[0][0], "full-precision Δ2 shrinks\n" + table);
    for (int bi : new int[] {2, 3}) { // b = 2 and 1
      for (int mi = 0; mi < FEATURES.length; mi++) {
        double floor = 0.5 * (plateau[bi][mi] - muMin / (muMin + lambda));
        assertTrue(
            rayleigh[bi][mi] >= floor && delta2[bi][mi] >= floor,
            "Δ2 above the plateau for b = " + BITS[bi] + ", m = " + FEATURES[mi] + "\n" + table);
      }
      // The plateau itself does not vanish: the rounding variance per row does not depend on m.
      assertTrue(plateau[bi][2] > 0.8 * plateau[bi][0], "plateau stays\n" + table);
    }
    // And at 4096 features the full-precision Δ2 is already below the 1-bit plateau.
    assertTrue(delta2[0][2] < plateau[3][2], "FP Δ2 below the 1-bit plateau\n" + table);
  }

  /** x^T D x, D_jj = sum_i (z_ji - lo)(hi - z_ji) over the grid cell [lo, hi] of z_ji. */
  private static double roundingVariance(
      float[] z, int n, int m, QuantizationScale scale, double[] x) {
    double sum = 0;
    for (int j = 0; j < n; j++) {
      double v = 0;
      for (int i = 0; i < m; i++) {
        float value = z[j * m + i];
        int code = (int) Math.floor((value - scale.lo()) / scale.step());
        code = Math.max(0, Math.min(scale.maxCode() - 1, code));
        double lo = scale.value(code);
        double hi = scale.value(code + 1);
        v += Math.max(0, (value - lo) * (hi - value));
      }
      sum += x[j] * x[j] * v;
    }
    return sum;
  }
}
