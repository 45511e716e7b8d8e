package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.LloydMaxCodebook;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.Projections;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.stream.FeatureRows;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Issue 17: {@link Quantizer#LLOYD_MAX} codes, as the real {@link Featurizer} writes them, meet the
 * guarantees of {@link LloydMaxCodebook}: each code is the nearest level of the cosine, the mean
 * squared error over uniform phases is {@link LloydMaxCodebook#meanSquaredError()}, and each level
 * is the mean of the cosines its code receives (Lloyd's centroid condition). The cosine c of
 * feature i is recomputed as {@code CosineCodes.cosine(w_i . x + a_i, b)} from the featurizer's
 * projection and phases: the value the codes were computed from.
 *
 * <p><b>Nearest level</b> ({@link #everyCodeIsTheNearestLevel}, deterministic): for generated
 * specs (every projection) and rows, |c - L[code]| <= |c - L[k]| + 2^-24 for every level k
 * (checked on code's two neighbours: the levels ascend), the
 * allowance covering thresholds rounded to float (within 2^-25 of the midpoints, which moves the
 * two distances apart by at most twice that). The rows decoded through {@link FeatureRows#of} are
 * the spec's float levels s L[code] (s = sqrt(2/m)), within 2^-24 s of the exact ones. Rejects
 * Lloyd-Max levels coded by the uniform grid's nearest rounding.
 *
 * <p><b>The error and the centroids over uniform phases</b> ({@link
 * #meanSquaredErrorAndCentroidsOverUniformPhases}): with the dense projection the m features of a
 * seed are independent, and w_i . x + a_i is uniform mod 2 pi because a_i is, so the cosines of
 * {@value #SEEDS} seeds of m = {@value #FEATURES} features are N = 2^17 independent draws of the
 * arcsine law (up to the float phases and the b-bit cosine's error, {@link CosineCodes#maxError}:
 * at most 1e-5, moving the error's mean by at most 2 sqrt(W) 1e-5 + 1e-10, W below). Per b:
 *
 * <ul>
 *   <li>the mean of (c - L[code])^2, each in [0, W] with W the largest squared distance of a cell
 *       to its level, is within the Bernstein deviation (variance <= W MSE per draw, range W) of
 *       the closed-form MSE;
 *   <li>given the codes, the n_k cosines of code k are independent draws of the law restricted to
 *       cell k (width w_k), so their mean is within the Hoeffding deviation w_k sqrt(ln(2 /
 *       delta) / (2 n_k)) of the cell's mean, which is the level (Lloyd's condition, plus the
 *       same 1e-5 for the cosine's error); cells with fewer than 16 draws are skipped.
 * </ul>
 *
 * {@value #EXAMPLES} generated inputs x 4 widths x (1 + 2^b) events at delta = 1e-6 / 1360 each:
 * false failure 1e-6. Rejects uniform levels (the featurizer's nearest rounding decoded on its
 * grid): both the error and the centroids.
 */
class LloydMaxProperties {

  static final int[] BITS = {1, 2, 4, 8};
  static final int EXAMPLES = 4;
  static final int SEEDS = 2;
  static final int FEATURES = 1 << 16;
  /** Events: per example and b, the error and 2^b centroids. */
  static final double DELTA = 1e-6 / (EXAMPLES * (4 + 2 + 4 + 16 + 256));

  /** A rule under test: the quantizer the featurizer codes with, and the unit levels of its codes. */
  record Rule(Quantizer quantizer, IntFunction<double[]> levels) {}

  static final Rule PROJECT = new Rule(Quantizer.LLOYD_MAX, b -> LloydMaxCodebook.forBits(b).levels());

  /** Wrong: the uniform grid's levels and nearest rounding. */
  static final Rule UNIFORM = new Rule(Quantizer.NEAREST, LloydMaxProperties::uniformLevels);

  /** Wrong: Lloyd-Max levels, but codes by the uniform grid's nearest rounding. */
  static final Rule UNIFORM_CODES = new Rule(Quantizer.NEAREST,
      b -> LloydMaxCodebook.forBits(b).levels());

  static double[] uniformLevels(int bits) {
    int intervals = (1 << bits) - 1;
    double[] levels = new double[intervals + 1];
    Arrays.setAll(levels, k -> 2.0 * k / intervals - 1);
    return levels;
  }

  static Gen<Integer> bits() {
    return Generate.pick(Arrays.stream(BITS).boxed().toList());
  }

  /** Codes and b-bit cosines of n rows featurized under the rule (spec's quantizer replaced). */
  record Coded(int[][] codes, float[][] cosines, byte[] bytes) {}

  static Coded code(Rule rule, FeaturizerSpec lloyd, float[] rows, int n) {
    Featurizer f = Featurizer.of(lloyd.withQuantizer(rule.quantizer()));
    int d = lloyd.inputDim();
    int m = lloyd.features();
    int bits = lloyd.bits();
    byte[] bytes = f.featurize(rows, n, 0);
    float[] phases = f.phases();
    float[] t = new float[m];
    int[][] codes = new int[n][m];
    float[][] c = new float[n][m];
    for (int r = 0; r < n; r++) {
      PackedFeatures.unpackCodes(bytes, r * f.rowBytes(), bits, m, codes[r], 0);
      f.projection().project(rows, r * d, 1, 0, m, t, 0);
      for (int i = 0; i < m; i++) {
        c[r][i] = CosineCodes.cosine(t[i] + phases[i], bits);
      }
    }
    return new Coded(codes, c, bytes);
  }

  // ---- nearest level

  record Spec(String projection, int d, int m, int bits, long seed) {}

  static void checkNearest(Rule rule, long qtSeed) {
    qt().withFixedSeed(qtSeed)
        .withExamples(100)
        .withShrinkCycles(2)
        .forAll(Generate.pick(Projections.NAMES).zip(Sizes.between(1, 20), Sizes.between(1, 1100),
            bits(), longs().all(), Spec::new))
        .checkAssert(
            p -> {
              FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1.5), p.d(),
                  p.m(), p.bits(), p.projection(), p.seed(), Quantizer.LLOYD_MAX);
              SplittableRandom random = new SplittableRandom(p.seed());
              int n = 4;
              float[] rows = new float[n * p.d()];
              for (int k = 0; k < rows.length; k++) {
                rows[k] = (float) (2 * random.nextGaussian());
              }
              Coded coded = code(rule, spec, rows, n);
              double[] levels = rule.levels().apply(p.bits());
              for (int k = 1; k < levels.length; k++) {
                assertTrue(levels[k - 1] < levels[k], "levels do not ascend");
              }
              int m = p.m();
              double s = Math.sqrt(2.0 / m);
              float[] specLevels = spec.levels();
              FeatureRows decoded = FeatureRows.of(spec, MemorySegment.ofArray(coded.bytes()), 0, n);
              float[] values = new float[m];
              for (int r = 0; r < n; r++) {
                decoded.decode(r, values, 0);
                for (int i = 0; i < m; i++) {
                  double c = coded.cosines()[r][i];
                  int code = coded.codes()[r][i];
                  double own = Math.abs(c - levels[code]);
                  // Levels ascend, so the nearest of all is nearer than both neighbours.
                  for (int k = Math.max(0, code - 1); k <= Math.min(levels.length - 1, code + 1);
                      k++) {
                    double other = Math.abs(c - levels[k]);
                    assertTrue(own <= other + 0x1p-24,
                        p + " row " + r + " feature " + i + ": cosine " + c + " coded " + code
                            + " (level " + levels[code] + ") is not the nearest level, " + k
                            + " (" + levels[k] + ") is nearer");
                  }
                  assertEquals(specLevels[code], values[i], 0f, "decoded value of code " + code);
                  assertEquals(s * LloydMaxCodebook.forBits(p.bits()).level(code), values[i],
                      0x1p-24 * s, "level of code " + code);
                }
              }
            });
  }

  @Test
  void everyCodeIsTheNearestLevel() {
    checkNearest(PROJECT, 1701L);
  }

  @Test
  void nearestCheckRejectsLloydLevelsCodedOnTheUniformGrid() {
    AssertionError e = assertThrows(AssertionError.class, () -> checkNearest(UNIFORM_CODES, 1701L));
    assertTrue(e.getMessage().contains("not the nearest level"), e.getMessage());
  }

  // ---- mean squared error and centroids

  static void checkErrorAndCentroids(Rule rule, long qtSeed) {
    qt().withFixedSeed(qtSeed)
        .withExamples(EXAMPLES)
        .withShrinkCycles(1)
        .forAll(integers().between(1, 6), longs().all())
        .checkAssert(
            (d, seed) -> {
              SplittableRandom random = new SplittableRandom(seed);
              float[] x = new float[d];
              for (int j = 0; j < d; j++) {
                x[j] = (float) random.nextGaussian();
              }
              for (int bits : BITS) {
                double[] levels = rule.levels().apply(bits);
                int cells = levels.length;
                double[] sum = new double[cells];
                long[] count = new long[cells];
                double squared = 0;
                for (int k = 0; k < SEEDS; k++) {
                  FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Laplacian(1.5), d,
                      FEATURES, bits, "dense", seed + 1 + k, Quantizer.LLOYD_MAX);
                  Coded coded = code(rule, spec, x, 1);
                  for (int i = 0; i < FEATURES; i++) {
                    double c = coded.cosines()[0][i];
                    int code = coded.codes()[0][i];
                    squared += (c - levels[code]) * (c - levels[code]);
                    sum[code] += c;
                    count[code]++;
                  }
                }
                double w = 0;
                for (int k = 0; k < cells; k++) {
                  w = Math.max(w, Math.max(sq(levels[k] - low(levels, k)),
                      sq(high(levels, k) - levels[k])));
                }
                long n = (long) SEEDS * FEATURES;
                double expected = LloydMaxCodebook.forBits(bits).meanSquaredError();
                double tol = Bounds.bernsteinSum(n * w * expected, w, DELTA) / n
                    + 2 * Math.sqrt(w) * CosineCodes.maxError(bits) + 1e-10;
                double mse = squared / n;
                String what = "x " + Arrays.toString(x) + " b = " + bits + ": mean squared error "
                    + mse + ", closed form " + expected + " +- " + tol;
                Report.line(what);
                assertTrue(Math.abs(mse - expected) <= tol, "mean squared error: " + what);
                String centroid = centroidFailure(levels, sum, count, bits);
                assertTrue(centroid == null, "centroid: b = " + bits + " " + centroid);
              }
            });
  }

  /** Cell k of the levels: from the midpoint below (or -1) to the midpoint above (or 1). */
  static double low(double[] levels, int k) {
    return k == 0 ? -1 : (levels[k - 1] + levels[k]) / 2;
  }

  static double high(double[] levels, int k) {
    return k == levels.length - 1 ? 1 : (levels[k] + levels[k + 1]) / 2;
  }

  /**
   * The first code whose mean cosine is farther from its level than the Hoeffding deviation of its
   * cell (width w_k, n_k >= 16 draws, delta {@link #DELTA}) plus the cosine's error, or null.
   */
  static String centroidFailure(double[] levels, double[] sum, long[] count, int bits) {
    for (int k = 0; k < levels.length; k++) {
      if (count[k] < 16) {
        continue;
      }
      double mean = sum[k] / count[k];
      double width = high(levels, k) - low(levels, k);
      double tol = Bounds.hoeffdingMean(width, count[k], DELTA) + CosineCodes.maxError(bits) + 1e-12;
      if (Math.abs(mean - levels[k]) > tol) {
        return "code " + k + ": mean cosine " + mean + " of " + count[k] + ", level " + levels[k]
            + " +- " + tol;
      }
    }
    return null;
  }

  static double sq(double v) {
    return v * v;
  }

  @Test
  void meanSquaredErrorAndCentroidsOverUniformPhases() {
    checkErrorAndCentroids(PROJECT, 1702L);
  }

  @Test
  void errorAndCentroidChecksRejectUniformLevels() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> checkErrorAndCentroids(UNIFORM, 1702L));
    assertTrue(e.getMessage().contains("mean squared error"), e.getMessage());
  }

  /** The centroid check alone rejects uniform levels at every b (the error check is skipped). */
  @Test
  void centroidCheckRejectsUniformLevelsAtEveryWidth() {
    SplittableRandom random = new SplittableRandom(1703L);
    for (int bits : BITS) {
      double[] levels = uniformLevels(bits);
      FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1), 3, FEATURES, bits,
          "dense", random.nextLong(), Quantizer.LLOYD_MAX);
      float[] x = {0.5f, -1f, 2f};
      Coded coded = code(UNIFORM, spec, x, 1);
      double[] sum = new double[levels.length];
      long[] count = new long[levels.length];
      for (int i = 0; i < FEATURES; i++) {
        sum[coded.codes()[0][i]] += coded.cosines()[0][i];
        count[coded.codes()[0][i]]++;
      }
      boolean rejected = centroidFailure(levels, sum, count, bits) != null;
      assertTrue(rejected, "b = " + bits + ": uniform levels pass the centroid check");
    }
  }
}
