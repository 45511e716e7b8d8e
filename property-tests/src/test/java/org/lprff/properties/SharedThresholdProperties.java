package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.SharedThresholdQuantizer;
import org.lprff.vector.codec.StochasticRounding;
import org.quicktheories.generators.Generate;

/**
 * Issue item 9: the deterministic quantizer family of the seeds ({@link SharedThresholdQuantizer}:
 * one counter threshold per feature and grid interval, shared by every row) is unbiased over the
 * thresholds and deterministic in x.
 *
 * <p><b>Over the thresholds.</b> A "draw" of this family is a seed: draw k of a case quantizes v
 * as feature i with seed + k (i generated, so thresholds of many features and intervals are
 * used). The checks are QuantizerProperties' own (same formulas, bounds and allowances), with
 * {@value #EXAMPLES} cases of {@value #DRAWS} seeds: Hoeffding at delta = 1e-6 / {@value
 * #EXAMPLES} per case, eps = sqrt(ln(2 / delta) / (2 * 2^15)) = 0.017 r on the mean (0.017 r^2 on
 * the second moment). The family's own bias is below 2^-32 r (32-bit thresholds, t in double), well
 * inside the checks' 2^-14 r allowance. The same unbiasedness check rejects a fixed threshold of
 * 1/2 (deterministic round-to-nearest, the family with no randomness left).
 *
 * <p><b>Deterministic in x.</b> For a fixed seed, a value gets the same code in every row, call
 * and position, and codes are monotone in the value for each feature (values of one interval share
 * its threshold): generated batches whose rows repeat and permute a few vectors.
 */
class SharedThresholdProperties {

  static final int EXAMPLES = 100;
  static final int DRAWS = 1 << 15;

  /** Draw k: the seed + k member of the family, feature index from the case's seed. */
  static final QuantizerProperties.Rounding SHARED =
      (v, m, bits, seed, count) -> {
        QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
        int feature = (int) (seed >>> 34);
        double[] out = new double[count];
        for (int k = 0; k < count; k++) {
          int code = new SharedThresholdQuantizer(scale, seed + k).code(v, feature);
          out[k] = scale.lo() + (double) code * scale.step();
        }
        return out;
      };

  /** Wrong: a threshold fixed at 1/2 for every seed, i.e. round-to-nearest (ties down). */
  static final QuantizerProperties.Rounding FIXED_THRESHOLD =
      (v, m, bits, seed, count) -> {
        QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
        double t = ((double) v - scale.lo()) / scale.step();
        int j = Math.clamp((int) Math.floor(t), 0, scale.maxCode() - 1);
        int code = t - j > 0.5 ? j + 1 : j;
        double[] out = new double[count];
        Arrays.fill(out, scale.lo() + (double) code * scale.step());
        return out;
      };

  @Test
  void unbiasedOverTheThresholds() {
    QuantizerProperties.checkUnbiased(SHARED, QuantizerProperties.bits(), 901L, EXAMPLES, DRAWS);
  }

  @Test
  void varianceOverTheThresholdsIsTheRoundingVariance() {
    QuantizerProperties.checkVariance(SHARED, QuantizerProperties.bits(), 902L, EXAMPLES, DRAWS);
  }

  @Test
  void unbiasednessCheckRejectsAFixedThreshold() {
    for (int b : QuantizerProperties.BITS) {
      assertThrows(AssertionError.class, () -> QuantizerProperties.checkUnbiased(
          FIXED_THRESHOLD, Generate.constant(b), 901L, EXAMPLES, DRAWS));
    }
  }

  @Test
  void deterministicInXAndMonotonePerFeature() {
    qt().withFixedSeed(903L)
        .withExamples(200)
        .forAll(QuantizerProperties.bits(), Sizes.between(1, 2000), Sizes.between(1, 40),
            longs().all())
        .checkAssert(
            (bits, m, n, seed) -> {
              QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
              SharedThresholdQuantizer q = new SharedThresholdQuantizer(scale, seed);
              SplittableRandom random = new SplittableRandom(seed);
              // Three distinct vectors; rows are random picks of them.
              float[][] vectors = new float[3][m];
              for (float[] v : vectors) {
                for (int i = 0; i < m; i++) {
                  v[i] = (float) (scale.lo() + (scale.hi() - scale.lo()) * random.nextDouble());
                }
              }
              int rowBytes = scale.rowBytes(m);
              byte[][] reference = new byte[3][rowBytes];
              for (int k = 0; k < 3; k++) {
                q.quantize(vectors[k], 0, m, 0, reference[k], 0);
              }
              byte[] batch = new byte[n * rowBytes];
              int[] picks = new int[n];
              for (int r = 0; r < n; r++) {
                picks[r] = random.nextInt(3);
                // Each row in calls of random lengths (multiples of 8 but the last).
                for (int first = 0; first < m; ) {
                  int count = Math.min(m - first, 8 * (1 + random.nextInt(20)));
                  q.quantize(vectors[picks[r]], first, count, first, batch, r * rowBytes);
                  first += count;
                }
              }
              for (int r = 0; r < n; r++) {
                assertArrayEquals(reference[picks[r]],
                    Arrays.copyOfRange(batch, r * rowBytes, (r + 1) * rowBytes),
                    "bits " + bits + " m " + m + " row " + r);
              }
              // Monotone: elementwise min and max of two vectors bracket their codes.
              int[] lowCodes = new int[m];
              int[] highCodes = new int[m];
              int[] codes = new int[m];
              float[] low = new float[m];
              float[] high = new float[m];
              for (int i = 0; i < m; i++) {
                low[i] = Math.min(vectors[0][i], vectors[1][i]);
                high[i] = Math.max(vectors[0][i], vectors[1][i]);
              }
              q.codes(low, 0, m, 0, lowCodes, 0);
              q.codes(high, 0, m, 0, highCodes, 0);
              q.codes(vectors[0], 0, m, 0, codes, 0);
              for (int i = 0; i < m; i++) {
                assertTrue(lowCodes[i] <= codes[i] && codes[i] <= highCodes[i],
                    "bits " + bits + " feature " + i + ": not monotone");
              }
            });
  }

  @Test
  void stochasticRoundingIsNotDeterministicInX() {
    // The contrast that makes the family worth having: the same vector in two rows of the
    // stochastic quantizer gets different codes (1000 features at 4 bits: each differs with
    // probability f(1 - f) ~ 1/6, so equality has probability below 1e-70).
    QuantizationScale scale = QuantizationScale.forFeatures(1000, 4);
    float[] v = new float[1000];
    SplittableRandom random = new SplittableRandom(9);
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) (scale.lo() + (scale.hi() - scale.lo()) * random.nextDouble());
    }
    byte[] a = new byte[scale.rowBytes(1000)];
    byte[] b = new byte[scale.rowBytes(1000)];
    StochasticRounding.quantizeStochastic(v, 0, 1000, scale, 1, 0, 0, 0, a, 0);
    StochasticRounding.quantizeStochastic(v, 0, 1000, scale, 1, 1, 0, 0, b, 0);
    assertTrue(!Arrays.equals(a, b));
    SharedThresholdQuantizer q = new SharedThresholdQuantizer(scale, 1);
    q.quantize(v, 0, 1000, 0, a, 0);
    q.quantize(v, 0, 1000, 0, b, 0);
    assertArrayEquals(a, b);
  }
}
