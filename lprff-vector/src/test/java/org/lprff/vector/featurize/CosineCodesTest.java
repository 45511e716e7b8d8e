package org.lprff.vector.featurize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;
import org.lprff.vector.testing.ProviderTestBase;
import org.junit.jupiter.api.Test;

/**
 * The fused cosine-to-codes step of b <= 8 ({@link CosineCodes}, {@link CosineFeatures#quantize}):
 * the two bodies agree byte for byte, the cosine meets its stated error bound, and the codes are
 * unbiased.
 */
class CosineCodesTest extends ProviderTestBase {

  private static final int[] BITS = {1, 2, 4, 8};

  // ---- the two bodies

  @Test
  void vectorBodyWritesTheScalarBodysBytes() {
    CosineCodesBody scalar = SCALAR.cosineCodes();
    CosineCodesBody vector = VECTOR.cosineCodes();
    SplittableRandom random = new SplittableRandom(5);
    int[] sizes = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 128, 129, 257, 1000,
        4099};
    int[] firstColumns = {0, 8, 16, 24, 56, 64, 120, 128, 4096};
    for (int n : sizes) {
      float[] t = new float[n + 3];
      float[] a = new float[n + 5];
      for (int i = 0; i < t.length; i++) {
        // Mostly feature-map arguments, some beyond the polynomial's limit.
        t[i] = random.nextInt(50) == 0 ? (float) random.nextDouble(-1e6, 1e6)
            : (float) random.nextDouble(-60, 60);
      }
      for (int i = 0; i < a.length; i++) {
        a[i] = (float) random.nextDouble(0, 2 * Math.PI);
      }
      for (int bits : BITS) {
        for (int first : firstColumns) {
          for (int drawBits : new int[] {CosineCodes.BYTE_DRAWS, CosineCodes.HALF_WORD_DRAWS,
              CosineCodes.NO_DRAWS}) {
            int bytes = (n * bits + 7) / 8 + 3;
            byte[] expected = new byte[bytes];
            byte[] actual = new byte[bytes];
            boolean nanS = scalar.quantize(t, 3, a, 5, n - 3 > 0 ? n - 3 : n, bits, drawBits,
                91L, 12345L, first, 2, MemorySegment.ofArray(expected), 1);
            boolean nanV = vector.quantize(t, 3, a, 5, n - 3 > 0 ? n - 3 : n, bits, drawBits,
                91L, 12345L, first, 2, MemorySegment.ofArray(actual), 1);
            String what = "n " + n + " b " + bits + " first " + first + " draw bits " + drawBits;
            assertArrayEquals(expected, actual, what);
            assertEquals(nanS, nanV, what);
            assertTrue(!nanS, what);
          }
        }
      }
    }
  }

  @Test
  void bothBodiesReportANonFiniteArgument() {
    for (var provider : new org.lprff.vector.simd.VectorizationProvider[] {SCALAR, VECTOR}) {
      for (int at : new int[] {0, 17, 40}) {
        float[] t = new float[48];
        float[] a = new float[48];
        t[at] = at == 17 ? Float.POSITIVE_INFINITY : Float.NaN;
        byte[] out = new byte[48];
        assertTrue(provider.cosineCodes().quantize(t, 0, a, 0, 48, 4, CosineCodes.BYTE_DRAWS, 1, 0, 0, 0,
            MemorySegment.ofArray(out), 0), "at " + at);
      }
    }
  }

  // ---- the cosine

  /**
   * Max |cosine(x, b) - cos((double) x)| over 4.1 million arguments spread over [-1e4, 1e4] plus
   * 1000 per binade from 2^-20 up to the polynomial's limit and beyond, for each tier, within
   * {@link CosineCodes#maxError}; and that bound below 2^-13 of a rounding step (2 / (2^b - 1) in
   * cosine units) for every b the tier serves. The lower tier's polynomial misses the upper
   * tier's bound: the sweep tells the two precisions apart.
   */
  @Test
  void cosineMeetsItsBoundForEachPrecision() {
    double low = maxCosineError(4);
    double high = maxCosineError(8);
    System.out.printf("cosine error: b <= 4 %.3g (bound %.1g), b = 8 %.3g (bound %.1g)%n",
        low, CosineCodes.maxError(4), high, CosineCodes.maxError(8));
    assertTrue(low <= CosineCodes.maxError(4), "b <= 4 tier error " + low);
    assertTrue(high <= CosineCodes.maxError(8), "b = 8 tier error " + high);
    assertTrue(low > CosineCodes.maxError(8), "the sweep cannot tell the tiers apart: " + low);
    for (int bits : BITS) {
      double step = 2.0 / ((1 << bits) - 1);
      assertTrue(CosineCodes.maxError(bits) <= 0x1p-13 * step,
          "b " + bits + ": bound " + CosineCodes.maxError(bits) + " vs step " + step);
    }
  }

  private static double maxCosineError(int bits) {
    double worst = 0;
    int count = 1 << 22;
    for (int i = 0; i < count; i++) {
      float x = (float) (-1e4 + 2e4 * (i + 0.5) / count);
      worst = Math.max(worst, Math.abs(CosineCodes.cosine(x, bits) - Math.cos(x)));
    }
    SplittableRandom random = new SplittableRandom(3);
    for (int e = -20; e <= 18; e++) {
      for (int j = 0; j < 1000; j++) {
        float x = (float) Math.scalb(1 + random.nextDouble(), e) * (j % 2 == 0 ? 1 : -1);
        worst = Math.max(worst, Math.abs(CosineCodes.cosine(x, bits) - Math.cos(x)));
      }
    }
    return worst;
  }

  // ---- the codes

  /**
   * Unbiasedness: for 64 fixed arguments whose grid positions t = (cos x + 1)(2^b - 1)/2 have
   * fractional parts in [0.2, 0.8], the mean code over N = 40,000 row ids (independent draws)
   * is t within 5.5 standard errors (a code's variance is at most 1/4, so 5.5 * 0.5 / sqrt(N) =
   * 0.01375 steps) plus the stated bias (2^-16 of a step and the cosine's error in steps).
   * False-failure probability: 64 * P(|Z| > 5.5) < 3e-6 per b. Round-to-nearest, biased by
   * 0.2 to 0.5 of a step on these arguments, fails the same check (shown below).
   *
   * <p>Variance: a stochastically rounded code is floor(t) + Bernoulli(f), f = frac(t), so its
   * variance is f (1 - f) (step^2 in values), the bound the LP-RFF analysis uses. The sample
   * variance over the same N draws must be within 5.5 of its standard errors, sqrt((mu4 -
   * sigma^4) / N) with mu4 = f (1 - f) (1 - 3 f (1 - f)), of f (1 - f) (plus 0.01 for the bias
   * allowance of f); round-to-nearest (variance 0) fails it. Same false-failure bound.
   */
  @Test
  void stochasticCodesAreUnbiasedWithTheRoundingVarianceAndNearestIsNot() {
    int rows = 40_000;
    int columns = 64;
    for (int bits : new int[] {1, 4, 8}) {
      int max = (1 << bits) - 1;
      float[] t = new float[columns];
      float[] a = new float[columns];
      double[] exact = new double[columns];
      SplittableRandom random = new SplittableRandom(bits);
      for (int i = 0; i < columns; i++) {
        do {
          t[i] = (float) random.nextDouble(-20, 20);
          exact[i] = (Math.cos(t[i]) + 1) * max / 2;
        } while (frac(exact[i]) < 0.2 || frac(exact[i]) > 0.8);
      }
      double allowance = 5.5 * 0.5 / Math.sqrt(rows) + 0x1p-16
          + CosineCodes.maxError(bits) * max / 2;
      double[][] stochasticMoments = moments(t, a, bits, Quantizer.STOCHASTIC, rows);
      double[] stochastic = stochasticMoments[0];
      double[][] nearestMoments = moments(t, a, bits, Quantizer.NEAREST, 1);
      double[] nearest = nearestMoments[0];
      double worstNearest = 0;
      for (int i = 0; i < columns; i++) {
        assertTrue(Math.abs(stochastic[i] - exact[i]) <= allowance,
            "b " + bits + " column " + i + ": mean code " + stochastic[i] + ", t " + exact[i]
                + ", allowance " + allowance);
        worstNearest = Math.max(worstNearest, Math.abs(nearest[i] - exact[i]));
        double f = frac(exact[i]);
        double variance = f * (1 - f);
        double mu4 = variance * (1 - 3 * variance);
        double varianceAllowance = 5.5 * Math.sqrt((mu4 - variance * variance) / rows) + 0.01;
        assertTrue(Math.abs(stochasticMoments[1][i] - variance) <= varianceAllowance,
            "b " + bits + " column " + i + ": code variance " + stochasticMoments[1][i]
                + ", f(1 - f) " + variance + ", allowance " + varianceAllowance);
        assertTrue(Math.abs(nearestMoments[1][i] - variance) > varianceAllowance,
            "nearest rounding passed the variance check at b " + bits + " column " + i);
      }
      assertTrue(worstNearest > allowance, "nearest rounding passed the bias check at b " + bits);
    }
  }

  private static double frac(double v) {
    return v - Math.floor(v);
  }

  /** The mean and the (population) variance of each column's code over {@code rows} row ids. */
  private static double[][] moments(float[] t, float[] a, int bits, Quantizer q, int rows) {
    int columns = t.length;
    int rowBytes = columns * bits / 8;
    byte[] out = new byte[rowBytes];
    double[] sum = new double[columns];
    double[] squares = new double[columns];
    int[] codes = new int[columns];
    for (int r = 0; r < rows; r++) {
      CosineFeatures.quantize(t, 0, a, 0, columns, bits, q, 77, r, 0, 0,
          MemorySegment.ofArray(out), 0);
      PackedFeatures.unpackCodes(out, 0, bits, columns, codes, 0);
      for (int i = 0; i < columns; i++) {
        sum[i] += codes[i];
        squares[i] += (double) codes[i] * codes[i];
      }
    }
    double[] variance = new double[columns];
    for (int i = 0; i < columns; i++) {
      sum[i] /= rows;
      variance[i] = Math.max(0, squares[i] / rows - sum[i] * sum[i]);
    }
    return new double[][] {sum, variance};
  }

  // ---- the facade

  @Test
  void facadeErrorsNameTheValues() {
    float[] t = new float[16];
    float[] a = new float[16];
    MemorySegment out = MemorySegment.ofArray(new byte[16]);
    assertEquals("bits = 3, expected 1, 2, 4 or 8", assertThrows(IllegalArgumentException.class,
        () -> CosineFeatures.quantize(t, 0, a, 0, 16, 3, Quantizer.STOCHASTIC, 1, 0, 0, 0, out, 0))
        .getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> CosineFeatures.quantize(t, 0, a, 0, 16, 4, Quantizer.STOCHASTIC, 1, 0, 4, 0, out, 0))
        .getMessage().startsWith("firstColumn = 4, expected a multiple of 8"));
    t[9] = Float.NaN;
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> CosineFeatures.quantize(t, 0, a, 0, 16, 4, Quantizer.NEAREST, 1, 0, 0, 0, out, 0))
        .getMessage().startsWith("t[9] + a[9] = NaN + 0.0 is not finite"));
  }
}
