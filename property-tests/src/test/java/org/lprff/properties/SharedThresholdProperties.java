package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.SharedThresholdQuantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.Projections;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.stream.FeatureRows;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Issue items 9 and 17: {@link Quantizer#SHARED_THRESHOLD} (stochastic rounding's rule with one
 * 16-bit draw per feature and grid interval, {@link SharedThresholdQuantizer}) is unbiased over
 * the seed with the rounding variance, and deterministic in x and monotone per feature, through
 * the class and through the real {@link Featurizer}.
 *
 * <p><b>A fixed cosine over the seeds</b> ({@link #unbiasedOverTheSeeds}, {@link
 * #varianceOverTheSeedsIsTheRoundingVariance}): draw k of a case codes the cosine c = v / s as
 * feature i with seed + k (i generated, so draws of many features and intervals are used), decoded
 * on the theory's grid -s + code r. The checks are QuantizerProperties' own (same formulas,
 * bounds and 2^-14 r allowance), with {@value #EXAMPLES} cases of {@value #DRAWS} seeds:
 * Hoeffding at delta = 1e-6 / {@value #EXAMPLES} per case, eps = sqrt(ln(2 / delta) / (2 2^15))
 * = 0.017 r on the mean (0.017 r^2 on the second moment). The rule's own bias is below 2^-16 r
 * (T is the position times 2^16 within 1) plus 2^-17 r for c = v / s in float. The same
 * unbiasedness check rejects a draw fixed at 2^15 (round-to-nearest).
 *
 * <p><b>The featurizer's codes over the seeds</b> ({@link
 * #featurizerCodesAreUnbiasedGivenTheCosineWithTheRoundingVariance}): {@value
 * #SEED_EXAMPLES} generated cases (b, d, m, x) featurize x with {@value #SEEDS} seeds; each seed
 * changes the projection and phases, so the cosine c_i of each feature changes too. Given all the
 * cosines, the errors e = decoded - s c (decoded through {@link FeatureRows#of}) of the N = SEEDS
 * m (seed, feature) pairs are independent (distinct counters of the draws, which are independent
 * of the parameter streams), each in an interval of width r with mean within a = 2^-16 r +
 * levelError of 0 and variance V = f (1 - f) r^2 + 2^-16 r^2, f the fractional grid position of
 * c. So for every weight g(c) in [-1, 1], sum g e has mean within N a of 0 and, by Bernstein (range
 * r, variance sum V), deviates by more than t with probability at most delta; checked for g = 1
 * and g = sign(f - 1/2) (which catches a rule that is biased given c but not on average over c).
 * The second moment: e^2 - V in [-r^2, r^2], Var(e^2) <= r^2 E e^2, Bernstein again, allowance
 * 2 a r per term. Three events per case, delta = 1e-6 / (3 {@value #SEED_EXAMPLES}). The same
 * check rejects the featurizer's round-to-nearest.
 *
 * <p><b>Deterministic in x, monotone</b> ({@link #featurizerCodesAreDeterministicInXAndMonotone}):
 * generated specs (every projection) featurize batches whose rows repeat three vectors at random
 * row ids and draws, in random batches; every row's codes are those of its vector, and those the
 * class gives for the cosines CosineCodes.cosine(w_i . x + a_i, b). Separately, for many random
 * inputs, the codes of each feature sorted by its cosine never decrease. The same check rejects
 * per-row draws (the stochastic featurizer) and a deterministic rule whose draw depends on the
 * cosine's fine position instead of its interval (not monotone).
 */
class SharedThresholdProperties {

  static final int[] BITS = {1, 2, 4, 8};
  static final int EXAMPLES = 100;
  static final int DRAWS = 1 << 15;
  static final int SEED_EXAMPLES = 24;
  static final int SEEDS = 512;

  static Gen<Integer> bits() {
    return Generate.pick(Arrays.stream(BITS).boxed().toList());
  }

  /** The cosine of feature value v in [-s, s], in float, clamped into [-1, 1]. */
  static float cosine(float v, int m) {
    return (float) Math.max(-1, Math.min(1, v / Math.sqrt(2.0 / m)));
  }

  /** Draw k: the seed + k member of the family, feature index from the case's seed. */
  static final QuantizerProperties.Rounding SHARED =
      (v, m, bits, seed, count) -> {
        float c = cosine(v, m);
        int feature = (int) (seed >>> 34);
        double s = Math.sqrt(2.0 / m);
        double r = 2 * s / ((1 << bits) - 1);
        double[] out = new double[count];
        for (int k = 0; k < count; k++) {
          out[k] = -s + new SharedThresholdQuantizer(bits, seed + k).code(c, feature) * r;
        }
        return out;
      };

  /** Wrong: the draw fixed at 2^15 for every seed, i.e. round-to-nearest. */
  static final QuantizerProperties.Rounding FIXED_DRAW =
      (v, m, bits, seed, count) -> {
        double s = Math.sqrt(2.0 / m);
        int code = CosineCodes.code(cosine(v, m), CosineCodes.NEAREST_DRAW, bits);
        double[] out = new double[count];
        Arrays.fill(out, -s + code * 2 * s / ((1 << bits) - 1));
        return out;
      };

  @Test
  void unbiasedOverTheSeeds() {
    QuantizerProperties.checkUnbiased(SHARED, bits(), 901L, EXAMPLES, DRAWS);
  }

  @Test
  void varianceOverTheSeedsIsTheRoundingVariance() {
    QuantizerProperties.checkVariance(SHARED, bits(), 902L, EXAMPLES, DRAWS);
  }

  @Test
  void unbiasednessCheckRejectsAFixedDraw() {
    for (int b : BITS) {
      assertThrows(AssertionError.class, () -> QuantizerProperties.checkUnbiased(
          FIXED_DRAW, Generate.constant(b), 901L, EXAMPLES, DRAWS));
    }
  }

  // ---- through the featurizer, over the seeds

  /** A case of the seed check: b, d, m, the input's seed, the first seed of the feature maps. */
  record SeedCase(int bits, int d, int m, long seed) {}

  static void checkOverSeeds(Quantizer quantizer, long qtSeed) {
    double delta = 1e-6 / (3 * SEED_EXAMPLES);
    qt().withFixedSeed(qtSeed)
        .withExamples(SEED_EXAMPLES)
        .withShrinkCycles(2)
        .forAll(bits().zip(integers().between(1, 8), Sizes.between(16, 128), longs().all(),
            SeedCase::new))
        .checkAssert(
            c -> {
              int bits = c.bits();
              int m = c.m();
              int d = c.d();
              int intervals = (1 << bits) - 1;
              double s = Math.sqrt(2.0 / m);
              double r = 2 * s / intervals;
              SplittableRandom random = new SplittableRandom(c.seed());
              float[] x = new float[d];
              for (int j = 0; j < d; j++) {
                x[j] = (float) random.nextGaussian();
              }
              FeaturizerSpec base = new FeaturizerSpec(new KernelFunction.Gaussian(1 + d / 4.0), d,
                  m, bits, "dense", c.seed(), quantizer);
              float[] levels = base.levels();
              double levelError = 0;
              for (int k = 0; k <= intervals; k++) {
                levelError = Math.max(levelError, Math.abs(levels[k] - (-s + k * r)));
              }
              double a = 0x1p-16 * r + levelError;
              double sum = 0;
              double weighted = 0;
              double second = 0;
              double variance = 0;
              float[] t = new float[m];
              float[] decoded = new float[m];
              for (int k = 0; k < SEEDS; k++) {
                FeaturizerSpec spec = base.withSeed(c.seed() + 1 + k);
                Featurizer f = Featurizer.of(spec);
                byte[] bytes = f.featurize(x, 1, k);
                FeatureRows.of(spec, MemorySegment.ofArray(bytes), 0, 1).decode(0, decoded, 0);
                f.projection().project(x, 0, 1, 0, m, t, 0);
                float[] phases = f.phases();
                for (int i = 0; i < m; i++) {
                  double cosine = CosineCodes.cosine(t[i] + phases[i], bits);
                  double position = Math.max(0, Math.min(intervals, (cosine + 1) * intervals / 2));
                  double frac = position - Math.min(Math.floor(position), intervals - 1);
                  double v = frac * (1 - frac) * r * r;
                  double e = decoded[i] - s * cosine;
                  sum += e;
                  weighted += frac > 0.5 ? e : -e;
                  second += e * e - v;
                  variance += v + 0x1p-16 * r * r;
                }
              }
              long n = (long) SEEDS * m;
              double meanTol = Bounds.bernsteinSum(variance, r, delta) + n * a;
              double secondTol = Bounds.bernsteinSum(r * r * variance, r * r, delta) + n * 2 * a * r;
              String what = c + ": sum e = " + sum / r + " r, sum sign(f - 1/2) e = "
                  + weighted / r + " r (+- " + meanTol / r + "), sum e^2 - V = " + second / (r * r)
                  + " r^2 (+- " + secondTol / (r * r) + ") over " + n + " pairs";
              Report.line(what);
              assertTrue(Math.abs(sum) <= meanTol, "biased over the seeds: " + what);
              assertTrue(Math.abs(weighted) <= meanTol, "biased given the cosine: " + what);
              assertTrue(Math.abs(second) <= secondTol, "not the rounding variance: " + what);
            });
  }

  @Test
  void featurizerCodesAreUnbiasedGivenTheCosineWithTheRoundingVariance() {
    checkOverSeeds(Quantizer.SHARED_THRESHOLD, 904L);
  }

  @Test
  void seedCheckRejectsRoundToNearest() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> checkOverSeeds(Quantizer.NEAREST, 904L));
    assertTrue(e.getMessage().contains("biased"), e.getMessage());
  }

  // ---- through the featurizer, deterministic and monotone

  /** Codes of n rows x (ids, draw) for the featurizer of a shared-threshold spec. */
  interface Coder {
    int[][] codes(Featurizer f, float[] rows, int n, long[] ids, int draw);
  }

  /** The project: the featurizer's bytes, unpacked. */
  static final Coder PROJECT = (f, rows, n, ids, draw) -> {
    FeaturizerSpec spec = f.spec();
    int m = spec.features();
    byte[] bytes = new byte[n * f.rowBytes()];
    f.featurize(rows, n, ids, MemorySegment.ofArray(bytes), 0, draw);
    int[][] codes = new int[n][m];
    for (int r = 0; r < n; r++) {
      PackedFeatures.unpackCodes(bytes, r * f.rowBytes(), spec.bits(), m, codes[r], 0);
    }
    return codes;
  };

  /** Wrong: per-row draws, the stochastic featurizer of the same spec. */
  static final Coder PER_ROW_DRAWS = (f, rows, n, ids, draw) -> PROJECT.codes(
      Featurizer.of(f.spec().withQuantizer(Quantizer.STOCHASTIC)), rows, n, ids, draw);

  /** Wrong: deterministic, but the draw depends on the cosine's fine position T, not its interval. */
  static final Coder POSITION_DRAWS = (f, rows, n, ids, draw) -> {
    FeaturizerSpec spec = f.spec();
    int bits = spec.bits();
    float[][] c = Cosines.of(f, rows, n);
    float h = CosineCodes.gridScale(bits);
    int[][] codes = new int[n][spec.features()];
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < codes[r].length; i++) {
        int t = Math.max(0, (int) Math.fma(c[r][i], h, h + 0.5f));
        codes[r][i] = CosineCodes.code(c[r][i], CounterRng.bits16(spec.seed(), i, t, 0), bits);
      }
    }
    return codes;
  };

  record Spec(String projection, int d, int m, int bits, long seed) {}

  static void checkDeterministicAndMonotone(Coder coder, long qtSeed) {
    qt().withFixedSeed(qtSeed)
        .withExamples(60)
        .withShrinkCycles(2)
        .forAll(Generate.pick(Projections.NAMES).zip(Sizes.between(1, 20), Sizes.between(1, 600),
            bits(), longs().all(), Spec::new))
        .checkAssert(
            p -> {
              FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1.5), p.d(),
                  p.m(), p.bits(), p.projection(), p.seed(), Quantizer.SHARED_THRESHOLD);
              Featurizer f = Featurizer.of(spec);
              int d = p.d();
              int m = p.m();
              SplittableRandom random = new SplittableRandom(p.seed());
              float[] vectors = new float[3 * d];
              for (int k = 0; k < vectors.length; k++) {
                vectors[k] = (float) random.nextGaussian();
              }
              int[][] reference = coder.codes(f, vectors, 3, new long[] {0, 1, 2}, 0);
              // Rows repeating the three vectors, at random row ids and draws, in batches.
              int n = 1 + random.nextInt(40);
              int[] picks = new int[n];
              float[] rows = new float[n * d];
              long[] ids = new long[n];
              for (int r = 0; r < n; r++) {
                picks[r] = random.nextInt(3);
                System.arraycopy(vectors, picks[r] * d, rows, r * d, d);
                ids[r] = random.nextLong(1L << 40);
              }
              for (int r0 = 0; r0 < n; ) {
                int count = Math.min(n - r0, 1 + random.nextInt(16));
                int[][] codes = coder.codes(f, Arrays.copyOfRange(rows, r0 * d, (r0 + count) * d),
                    count, Arrays.copyOfRange(ids, r0, r0 + count), random.nextInt(1000));
                for (int r = 0; r < count; r++) {
                  assertArrayEquals(reference[picks[r0 + r]], codes[r],
                      p + ": row id " + ids[r0 + r] + " of vector " + picks[r0 + r]
                          + ": not deterministic in x");
                }
                r0 += count;
              }
              // Monotone: many inputs, each feature's codes sorted by its cosine.
              int many = 64;
              float[] inputs = new float[many * d];
              for (int k = 0; k < inputs.length; k++) {
                inputs[k] = (float) (3 * random.nextGaussian());
              }
              long[] manyIds = new long[many];
              Arrays.setAll(manyIds, r -> r);
              int[][] codes = coder.codes(f, inputs, many, manyIds, 0);
              float[][] cos = Cosines.of(f, inputs, many);
              Integer[] order = new Integer[many];
              for (int i = 0; i < m; i++) {
                int feature = i;
                Arrays.setAll(order, r -> r);
                Arrays.sort(order, (u, w) -> Float.compare(cos[u][feature], cos[w][feature]));
                for (int k = 1; k < many; k++) {
                  assertTrue(codes[order[k - 1]][i] <= codes[order[k]][i],
                      p + ": feature " + i + " not monotone at cosine " + cos[order[k]][i]);
                }
              }
              // And the codes are the class's for the featurizer's cosines.
              float[][] c = Cosines.of(f, vectors, 3);
              SharedThresholdQuantizer q = new SharedThresholdQuantizer(p.bits(), p.seed());
              for (int k = 0; k < 3; k++) {
                int[] expected = new int[m];
                q.codes(c[k], 0, m, 0, expected, 0);
                assertArrayEquals(expected, reference[k], p + ": not the class's codes");
              }
            });
  }

  @Test
  void featurizerCodesAreDeterministicInXAndMonotone() {
    checkDeterministicAndMonotone(PROJECT, 903L);
  }

  @Test
  void determinismCheckRejectsPerRowDraws() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> checkDeterministicAndMonotone(PER_ROW_DRAWS, 903L));
    assertTrue(e.getMessage().contains("not deterministic in x"), e.getMessage());
  }

  @Test
  void monotonicityCheckRejectsDrawsOfTheFinePosition() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> checkDeterministicAndMonotone(POSITION_DRAWS, 903L));
    assertTrue(e.getMessage().contains("not monotone"), e.getMessage());
  }
}
