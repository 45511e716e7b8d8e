package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.StochasticRounding;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Issue items 3 and 4: the kernel estimate of the project's quantized features (z = {@link
 * Featurizer}, dense projection, Q = stochastic rounding) for generated pairs (x, y).
 *
 * <p><b>The terms.</b> For m features from one seed, the estimate is S = sum_i Q(z_i(x)) Q(z_i(y))
 * = (1/m) sum_i T_i with T_i = m Q(z_i(x)) Q(z_i(y)) in [-2, 2] (|Q| <= s = sqrt(2/m)). With the
 * dense projection the T_i are independent and identically distributed: w_i and a_i are drawn
 * independently per feature, and x and y get distinct row ids so their rounding draws are
 * independent; seeds give independent feature maps. So E[S] = E[T] and Var[S] = Var[T] / m, and
 * item 3 is checked on N = {@value #TERMS} terms pooled over ceil(N / m) seeds of m features each.
 *
 * <p><b>Item 3.</b> E[T] = k(x, y), and Var[T] <= B = 2 sigma~^2 + sigma~^4 + sigma^2 (the seeds'
 * lemma: the m-feature estimate has variance <= B / m) with, in the units of T (unscaled features
 * sqrt(m) z in [-sqrt 2, sqrt 2]), sigma~^2 = delta_b^2 = 2 / (2^b - 1)^2 the rounding variance
 * bound (0 for b = 32) and sigma^2 = Var[2 cos(w.x + a) cos(w.y + a)] = 1 + k(2(x - y)) / 2 -
 * k(x, y)^2 the full-precision per-feature variance (exact: 2 cos u cos v = cos(u - v) + cos(u + v)
 * and the phase averages the second term out). Also Var[T] >= sigma^2 (rounding only adds
 * variance), so for b = 32 the variance check is an equality and can fail both ways.
 *
 * <p>Bounds: the mean of N terms in [-2, 2] (Hoeffding, width 4); Y = (T - k)^2 in [0, 9] with,
 * when the lemma holds, Var[Y] <= 9 E[Y] <= 9 B (Bernstein). Deterministic allowances: the grid
 * bias of the rounding (|E[Q | z] - z| <= 2^-14 r, see QuantizerProperties) moves E[T] by at most
 * 2^-11 / (2^b - 1) <= 4.9e-4 and E[T^2] by at most 2^-11 * 4 / (2^b - 1); the float features
 * (argument error gamma_d sum |w_j x_j| + ulp, cosine error <= 1e-6 absolute, CosineFeatures) move
 * T by at most 4 |e| / s, below 2e-4 here (d <= 6, |x_j| <= 1, m <= 4096); heavy-tailed
 * frequencies (Laplacian, Matérn 1/2) add a part in 1e-5. {@link #MEAN_ALLOWANCE} = 1e-3 and
 * {@link #SECOND_MOMENT_ALLOWANCE} = 5e-3 cover these.
 *
 * <p><b>Item 4.</b> For n features, P(|S_n - k| >= eps) <= 2 exp(-n eps^2 / 8) (Hoeffding for n
 * terms in [-2, 2]). With eps chosen so that this bound is p = {@value #CONCENTRATION_P}, the
 * empirical frequency over {@value #CONCENTRATION_SEEDS} independent seeds must stay below the
 * Chernoff upper limit of a Binomial(seeds, p) frequency.
 *
 * <p>False failures: item 3 runs {@value #EXAMPLES} pairs x 6 widths (b = 1, 2, 4, 8, 16, 32) x 2
 * events (mean; second moment, whose two sides are one Bernstein event), delta = 1e-6 / 144 each;
 * item 4 runs {@value #CONCENTRATION_EXAMPLES} pairs x 6 widths x 3 n, delta = 1e-6 / 108 each.
 *
 * <p><b>Power.</b> The item-3 check rejects features that miss the sqrt(2/m) factor (cosines on
 * the grid of [-1, 1]): their products estimate m k / 2. Hoeffding's bound is loose (observed
 * frequencies are a few percent at b = 1 and 0 above, against p = 0.2), so the item-4 check can
 * only catch gross errors; it too rejects the missing sqrt(2/m).
 */
class KernelEstimateProperties {

  static final int[] BITS = {1, 2, 4, 8, 16, 32};
  static final int TERMS = 1 << 19;
  static final int EXAMPLES = 12;
  static final double DELTA = 1e-6 / (EXAMPLES * BITS.length * 2);
  static final double MEAN_ALLOWANCE = 1e-3;
  static final double SECOND_MOMENT_ALLOWANCE = 5e-3;

  static final int CONCENTRATION_EXAMPLES = 6;
  static final int CONCENTRATION_SEEDS = 1000;
  static final int[] CONCENTRATION_FEATURES = {16, 64, 256};
  static final double CONCENTRATION_P = 0.2;
  static final double CONCENTRATION_DELTA =
      1e-6 / (CONCENTRATION_EXAMPLES * BITS.length * CONCENTRATION_FEATURES.length);

  /** A generated pair: kernel, input width, features per seed, distance, seed. */
  record Pair(int kernel, double scale, int d, int m, double distance, long seed) {

    KernelFunction function() {
      return switch (kernel) {
        case 0 -> new KernelFunction.Gaussian(scale);
        case 1 -> new KernelFunction.Laplacian(scale);
        default -> new KernelFunction.Matern(kernel == 2 ? 0.5 : 1.5, scale);
      };
    }

    /** x in [-1, 1]^d, y = x + a random direction of length distance * scale, clamped to the box. */
    float[] xy() {
      SplittableRandom random = new SplittableRandom(seed);
      float[] xy = new float[2 * d];
      double[] dir = new double[d];
      double norm = 0;
      for (int j = 0; j < d; j++) {
        xy[j] = (float) (2 * random.nextDouble() - 1);
        dir[j] = random.nextGaussian();
        norm += dir[j] * dir[j];
      }
      for (int j = 0; j < d; j++) {
        double y = xy[j] + dir[j] / Math.sqrt(norm) * distance * scale;
        xy[d + j] = (float) Math.max(-1, Math.min(1, y));
      }
      return xy;
    }

    FeaturizerSpec spec(int features, long featureSeed) {
      return new FeaturizerSpec(function(), d, features, 32, "dense", featureSeed,
          Quantizer.STOCHASTIC);
    }
  }

  static Gen<Pair> pairs(Gen<Integer> features) {
    return integers().between(0, 3).zip(
        doubles().between(0.5, 3),
        integers().between(1, 6),
        features,
        doubles().between(0, 1.5),
        (k, scale, d, m, dist) -> new Object[] {k, scale, d, m, dist})
        .zip(longs().all(), (o, seed) -> new Pair((Integer) o[0], (Double) o[1], (Integer) o[2],
            (Integer) o[3], (Double) o[4], seed));
  }

  /**
   * The features under test: decoded Q(z(x)) and Q(z(y)) of one seed's map, given the two input
   * rows xy and their float features.
   */
  interface Features {
    void quantize(
        Featurizer floats, float[] xy, float[] zx, float[] zy, int bits, double[] qx, double[] qy);
  }

  /**
   * The project: rows 0 and 1 as Featurizer(b) writes them (for b <= 8 its fused kernel: the
   * cosine at b's precision, rounded with the same draws), decoded.
   */
  static final Features PROJECT =
      (f, xy, zx, zy, bits, qx, qy) -> {
        if (bits == 32) {
          copy(zx, qx);
          copy(zy, qy);
          return;
        }
        int m = zx.length;
        QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
        byte[] bytes = Featurizer.of(f.spec().withBits(bits)).featurize(xy, 2, 0);
        decode(scale, bytes, 0, qx);
        decode(scale, bytes, scale.rowBytes(m), qy);
      };

  /** Wrong: the cosines without sqrt(2/m), on the grid of [-1, 1]. */
  static final Features MISSING_SQRT =
      (f, xy, zx, zy, bits, qx, qy) -> {
        float s = f.featureScale();
        float[] cx = new float[zx.length];
        float[] cy = new float[zy.length];
        for (int i = 0; i < cx.length; i++) {
          cx[i] = Math.max(-1f, Math.min(1f, zx[i] / s));
          cy[i] = Math.max(-1f, Math.min(1f, zy[i] / s));
        }
        if (bits == 32) {
          copy(cx, qx);
          copy(cy, qy);
          return;
        }
        QuantizationScale scale = QuantizationScale.of(bits, -1f, 2f / ((1 << bits) - 1));
        round(scale, f.spec().seed(), 0, cx, qx);
        round(scale, f.spec().seed(), 1, cy, qy);
      };

  // ---- item 3

  static void checkKernelEstimate(Features features, long qtSeed) {
    qt().withFixedSeed(qtSeed)
        .withExamples(EXAMPLES)
        .withShrinkCycles(2)
        .forAll(pairs(Sizes.between(32, 4096)))
        .checkAssert(
            p -> {
              float[] xy = p.xy();
              int d = p.d();
              int m = p.m();
              KernelFunction kernel = p.function();
              double k = kernel.value(xy, 0, xy, d, d);
              float[] twice = new float[2 * d];
              for (int j = 0; j < 2 * d; j++) {
                twice[j] = 2 * xy[j];
              }
              double sigma2 = 1 + kernel.value(twice, 0, twice, d, d) / 2 - k * k;
              int seeds = (TERMS + m - 1) / m;
              long terms = (long) seeds * m;
              double[] sum = new double[BITS.length];
              double[] sumSquares = new double[BITS.length];
              double[] qx = new double[m];
              double[] qy = new double[m];
              for (int r = 0; r < seeds; r++) {
                Featurizer f = Featurizer.of(p.spec(m, p.seed() + r));
                float[][] z = floatFeatures(f, xy);
                for (int bi = 0; bi < BITS.length; bi++) {
                  features.quantize(f, xy, z[0], z[1], BITS[bi], qx, qy);
                  for (int i = 0; i < m; i++) {
                    double t = m * qx[i] * qy[i];
                    sum[bi] += t;
                    sumSquares[bi] += (t - k) * (t - k);
                  }
                }
                if (r == 0 && features == PROJECT) {
                  sameBytesAsTheFeaturizer(f, xy, z);
                }
              }
              for (int bi = 0; bi < BITS.length; bi++) {
                int b = BITS[bi];
                double tilde2 = b == 32 ? 0 : 2.0 / (((1 << b) - 1) * (double) ((1 << b) - 1));
                double lemma = 2 * tilde2 + tilde2 * tilde2 + sigma2;
                double mean = sum[bi] / terms;
                double meanTol = Bounds.hoeffdingMean(4, terms, DELTA) + MEAN_ALLOWANCE;
                double second = sumSquares[bi] / terms;
                double secondTol =
                    Bounds.bernsteinSum(terms * 9 * lemma, 9, DELTA) / terms
                        + SECOND_MOMENT_ALLOWANCE;
                String what =
                    p + " b = " + b + ": k = " + k + ", mean estimate " + mean + " (+- " + meanTol
                        + "); per-feature variance " + second + ", sigma^2 = " + sigma2
                        + ", lemma bound " + lemma + " (+- " + secondTol + ")";
                Report.line(what);
                assertTrue(Math.abs(mean - k) <= meanTol, "kernel estimate biased: " + what);
                assertTrue(second <= lemma + secondTol, "variance above the lemma: " + what);
                assertTrue(second >= sigma2 - secondTol, "variance below sigma^2: " + what);
              }
            });
  }

  @Test
  void quantizedKernelEstimateIsUnbiasedWithTheLemmaVariance() {
    checkKernelEstimate(PROJECT, 303L);
  }

  @Test
  void kernelEstimateCheckRejectsFeaturesMissingTheSqrtTwoOverMScale() {
    AssertionError e =
        assertThrows(AssertionError.class, () -> checkKernelEstimate(MISSING_SQRT, 303L));
    assertTrue(e.getMessage().contains("kernel estimate biased"), e.getMessage());
  }

  // ---- item 4

  /** The concentration check, for any features (m of the pairs is unused: n is the size). */
  static void checkConcentration(Features features, long qtSeed) {
    qt().withFixedSeed(qtSeed)
        .withExamples(CONCENTRATION_EXAMPLES)
        .withShrinkCycles(2)
        .forAll(pairs(Generate.constant(0)))
        .checkAssert(
            p -> {
              float[] xy = p.xy();
              int d = p.d();
              double k = p.function().value(xy, 0, xy, d, d);
              double limit =
                  Bounds.binomialUpper(CONCENTRATION_P, CONCENTRATION_SEEDS, CONCENTRATION_DELTA);
              for (int n : CONCENTRATION_FEATURES) {
                // 2 exp(-n eps^2 / 8) = p.
                double eps = Math.sqrt(8 * Math.log(2 / CONCENTRATION_P) / n);
                int[] exceed = new int[BITS.length];
                double[] qx = new double[n];
                double[] qy = new double[n];
                for (int r = 0; r < CONCENTRATION_SEEDS; r++) {
                  Featurizer f = Featurizer.of(p.spec(n, p.seed() + 1_000_003L * n + r));
                  float[][] z = floatFeatures(f, xy);
                  for (int bi = 0; bi < BITS.length; bi++) {
                    features.quantize(f, xy, z[0], z[1], BITS[bi], qx, qy);
                    double estimate = 0;
                    for (int i = 0; i < n; i++) {
                      estimate += qx[i] * qy[i];
                    }
                    if (Math.abs(estimate - k) >= eps) {
                      exceed[bi]++;
                    }
                  }
                }
                for (int bi = 0; bi < BITS.length; bi++) {
                  double frequency = (double) exceed[bi] / CONCENTRATION_SEEDS;
                  String what =
                      p + " n = " + n + " b = " + BITS[bi] + ": P(|S - k| >= " + eps
                          + ") observed " + frequency + ", Hoeffding " + CONCENTRATION_P
                          + ", limit " + limit;
                  Report.line(what);
                  assertTrue(frequency <= limit, "deviations too frequent: " + what);
                }
              }
            });
  }

  @Test
  void deviationFrequencyStaysBelowHoeffding() {
    checkConcentration(PROJECT, 404L);
  }

  @Test
  void concentrationCheckRejectsFeaturesMissingTheSqrtTwoOverMScale() {
    AssertionError e =
        assertThrows(AssertionError.class, () -> checkConcentration(MISSING_SQRT, 404L));
    assertTrue(e.getMessage().contains("deviations too frequent"), e.getMessage());
  }

  // ---- helpers

  /** The float features z(x), z(y) of a b = 32 featurizer (rows 0 and 1). */
  static float[][] floatFeatures(Featurizer f, float[] xy) {
    int m = f.spec().features();
    byte[] bytes = f.featurize(xy, 2, 0);
    ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    float[][] z = new float[2][m];
    buffer.asFloatBuffer().get(z[0]).get(z[1]);
    return z;
  }

  /**
   * For b = 16 (the general rounding of the float features) the rows are the bytes Featurizer(b)
   * writes for rows 0 and 1; for b <= 8 PROJECT decodes the featurizer's own bytes.
   */
  static void sameBytesAsTheFeaturizer(Featurizer floats, float[] xy, float[][] z) {
    FeaturizerSpec spec = floats.spec();
    int m = spec.features();
    for (int b : new int[] {16}) {
      byte[] expected = Featurizer.of(spec.withBits(b)).featurize(xy, 2, 0);
      QuantizationScale scale = QuantizationScale.forFeatures(m, b);
      int rowBytes = scale.rowBytes(m);
      byte[] actual = new byte[2 * rowBytes];
      StochasticRounding.quantizeStochastic(z[0], 0, m, scale, spec.seed(), 0, 0, 0, actual, 0);
      StochasticRounding.quantizeStochastic(
          z[1], 0, m, scale, spec.seed(), 1, 0, 0, actual, rowBytes);
      assertArrayEquals(expected, actual, "b = " + b);
    }
  }

  static void round(QuantizationScale scale, long seed, long row, float[] z, double[] out) {
    byte[] bytes = new byte[scale.rowBytes(z.length)];
    StochasticRounding.quantizeStochastic(z, 0, z.length, scale, seed, row, 0, 0, bytes, 0);
    decode(scale, bytes, 0, out);
  }

  /** out.length codes packed from bytes[offset], as values lo + code step. */
  static void decode(QuantizationScale scale, byte[] bytes, int offset, double[] out) {
    int m = out.length;
    int[] codes = new int[m];
    PackedFeatures.unpackCodes(bytes, offset, scale.bits(), m, codes, 0);
    for (int i = 0; i < m; i++) {
      out[i] = scale.lo() + (double) codes[i] * scale.step();
    }
  }

  static void copy(float[] from, double[] to) {
    for (int i = 0; i < from.length; i++) {
      to[i] = from[i];
    }
  }
}
