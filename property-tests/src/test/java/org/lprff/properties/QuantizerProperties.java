package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.StochasticRounding;
import org.lprff.vector.featurize.CosineFeatures;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Issue items 1 and 2: the project's quantizer Q_b (stochastic rounding on the grid of {@link
 * QuantizationScale#forFeatures}) is unbiased, E[Q_b(v)] = v, and its variance is Var[Q_b(v)] = (v
 * - lo)(hi - v) <= r^2/4 = 2 / (m (2^b - 1)^2), for generated v in [-s, s], s = sqrt(2/m), every b in
 * {1, 2, 4, 8, 16} and generated m.
 *
 * <p><b>Sampling.</b> Each of {@value #EXAMPLES} generated cases (b, m, v, seed) quantizes {@link
 * #DRAWS} = 2^18 copies of v in one row (one counter column each, so independent draws) and
 * compares the sample mean of Q - v and of (Q - v)^2 with the theory. Q - v lies between the two
 * levels around v, an interval of width step r, and (Q - v)^2 in [0, r^2]: by Hoeffding the sample
 * mean is off by more than {@link #EPS} r (resp. EPS r^2) with probability at most {@link #DELTA}
 * = 1e-6 / {@value #EXAMPLES}, so each property fails falsely with probability at most 1e-6 (union
 * bound over its examples). EPS = sqrt(ln(2 / DELTA) / 2^19) = 0.0062.
 *
 * <p><b>Deterministic allowances, stated.</b> (a) The rounding goes up with probability frac(t) +
 * beta, |beta| <= 2^-16 for b <= 8 (16-bit uniforms; ScalarRounding's javadoc), and t = (v - lo) /
 * step is computed in float (two roundings, < 2^-15 for t < 256): together at most {@link #BIAS} =
 * 2^-14 step on the mean and 2^-14 step^2 on the second moment (as in StochasticRoundingTest; b =
 * 16 runs in double and is far below). (b) The expected variance uses the exact grid lo = -s, r =
 * 2s / (2^b - 1) of the theory, whereas the project's levels use lo and step rounded to float; the
 * levels around v differ from the theory's by eta = |lo_f - lo| + c |step_f - step| (computed per
 * case, at most about 2^-24 (2^b + 1) s, i.e. 0.004 r at b = 16 and below 1e-5 r for b <= 8), which
 * moves (v - lo)(hi - v) by at most 2 eta (r + 2 eta).
 *
 * <p><b>Power.</b> The same checks reject round-to-nearest (biased, zero variance) for every b, and
 * the variance check rejects an off-by-one scale (step = 2s / 2^b) for every b.
 */
class QuantizerProperties {

  static final int[] BITS = {1, 2, 4, 8, 16};
  static final int DRAWS = 1 << 18;
  static final int EXAMPLES = 200;
  static final double DELTA = 1e-6 / EXAMPLES;
  /** Hoeffding's eps for the class's sample sizes, in units of r (r^2): 0.0062. */
  static final double EPS = Bounds.hoeffdingMean(1, DRAWS, DELTA);
  static final double BIAS = 0x1p-14;

  /** A quantizer under test: the decoded values (in double) of count copies of v. */
  interface Rounding {
    double[] draws(float v, int m, int bits, long seed, int count);
  }

  /** The project: stochastic rounding on QuantizationScale.forFeatures(m, b), decoded exactly. */
  static final Rounding PROJECT =
      (v, m, bits, seed, count) ->
          stochastic(QuantizationScale.forFeatures(m, bits), v, seed, count);

  /**
   * The featurizer's fused step with byte draws (CosineFeatures.quantize, {@link
   * Quantizer#STOCHASTIC}, b <= 8): count copies of the argument x = acos(v / s) in one row, the
   * codes decoded on the same grid. cos x is v / s to float's precision plus the cosine's own
   * error, at most 2^-13 of a step (CosineCodes.maxError).
   */
  static final Rounding BYTE_DRAWS =
      (v, m, bits, seed, count) -> {
        QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
        double s = Math.sqrt(2.0 / m);
        float[] t = copies((float) Math.acos(Math.max(-1, Math.min(1, v / s))), count);
        byte[] row = new byte[scale.rowBytes(count)];
        CosineFeatures.quantize(t, 0, new float[count], 0, count, bits, Quantizer.STOCHASTIC,
            seed, seed >>> 1, 0, 0, MemorySegment.ofArray(row), 0);
        return decode(scale, row, count);
      };

  /**
   * Byte draws' allowance: u = (d + 1/2) 2^-8 goes up with probability within 2^-9 of frac(t)
   * (CounterRng's byte draws), plus the cosine's 2^-13 and the float argument's 2^-14: 0.0021 of
   * a step, a third of the check's Hoeffding width {@link #EPS} (0.0062), so the check cannot
   * tell byte draws from exact ones; it still rejects round-to-nearest (a bias up to 1/2).
   */
  static final double BYTE_DRAWS_BIAS = 0x1p-9 + 0x1p-13 + 0x1p-14;

  static final int[] FUSED_BITS = {1, 2, 4, 8};

  /** Wrong: deterministic round-to-nearest on the right grid. */
  static final Rounding NEAREST =
      (v, m, bits, seed, count) -> {
        QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
        byte[] row = new byte[scale.rowBytes(count)];
        StochasticRounding.quantizeNearest(copies(v, count), 0, count, scale, 0, row, 0);
        return decode(scale, row, count);
      };

  /** Wrong: an off-by-one scale, step = 2s / 2^b instead of 2s / (2^b - 1). */
  static final Rounding OFF_BY_ONE_SCALE =
      (v, m, bits, seed, count) -> {
        double s = Math.sqrt(2.0 / m);
        QuantizationScale wrong = QuantizationScale.of(bits, (float) -s, (float) (2 * s / (1 << bits)));
        // Values above the wrong top level are outside its range: clamp them there, as a
        // quantizer with this scale would (the facade would refuse them).
        float top = (float) wrong.hi();
        return stochastic(wrong, Math.min(v, top), seed, count);
      };

  /** A generated case: b, m, the position of v in [-s, s] and how it is snapped, the seed. */
  record Case(int bits, int m, double position, int snap, long seed) {

    double s() {
      return Math.sqrt(2.0 / m);
    }

    /** The theory's step r = 2s / (2^b - 1). */
    double step() {
      return 2 * s() / ((1 << bits) - 1);
    }

    /**
     * v: the position in [-s, s] as is (snap 0), snapped to a level (1) or to the middle of its
     * interval (2), in float and clamped into the project's range.
     */
    float value() {
      int intervals = (1 << bits) - 1;
      double v = switch (snap) {
        case 1 -> -s() + Math.rint(position * intervals) * step();
        case 2 -> -s() + (Math.min(Math.floor(position * intervals), intervals - 1) + 0.5) * step();
        default -> -s() + position * 2 * s();
      };
      QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
      return (float) Math.max(scale.lo(), Math.min(scale.hi(), v));
    }
  }

  static Gen<Integer> bits() {
    return Generate.pick(Arrays.stream(BITS).boxed().toList());
  }

  static Gen<Case> cases(Gen<Integer> bits) {
    return bits.zip(
        Sizes.between(1, 1 << 20),
        doubles().between(0, 1),
        integers().between(0, 2),
        longs().all(),
        Case::new);
  }

  // ---- item 1

  /** The unbiasedness check, for any quantizer, with the class's sample sizes. */
  static void checkUnbiased(Rounding q, Gen<Integer> bits, long qtSeed) {
    checkUnbiased(q, bits, qtSeed, EXAMPLES, DRAWS);
  }

  /**
   * The unbiasedness check with {@code examples} cases of {@code draws} draws each: Hoeffding at
   * delta = 1e-6 / examples per case.
   */
  static void checkUnbiased(Rounding q, Gen<Integer> bits, long qtSeed, int examples, int draws) {
    checkUnbiased(q, bits, qtSeed, examples, draws, BIAS);
  }

  static void checkUnbiased(
      Rounding q, Gen<Integer> bits, long qtSeed, int examples, int draws, double bias) {
    double eps = Bounds.hoeffdingMean(1, draws, 1e-6 / examples);
    qt().withFixedSeed(qtSeed)
        .withExamples(examples)
        .withShrinkCycles(5)
        .forAll(cases(bits))
        .checkAssert(
            c -> {
              float v = c.value();
              double[] x = q.draws(v, c.m(), c.bits(), c.seed(), draws);
              double sum = 0;
              for (double xi : x) {
                sum += xi - v;
              }
              double mean = sum / draws;
              // Hoeffding width: the project's cell, at most r (1 + 2^-20) after float rounding.
              double bound = (eps * (1 + 0x1p-20) + bias) * c.step();
              assertTrue(
                  Math.abs(mean) <= bound,
                  c + ": v = " + v + ", mean(Q) - v = " + mean / c.step() + " r, bound "
                      + bound / c.step() + " r");
            });
  }

  @Test
  void stochasticRoundingIsUnbiased() {
    checkUnbiased(PROJECT, bits(), 101L);
  }

  @Test
  void stochasticRoundingWithByteDrawsIsUnbiasedToItsAllowance() {
    checkUnbiased(BYTE_DRAWS, Generate.pick(Arrays.stream(FUSED_BITS).boxed().toList()), 103L,
        EXAMPLES, DRAWS, BYTE_DRAWS_BIAS);
  }

  @Test
  void unbiasednessCheckRejectsRoundToNearest() {
    for (int b : BITS) {
      AssertionError e =
          assertThrows(AssertionError.class, () -> checkUnbiased(NEAREST, Generate.constant(b), 101L));
      assertTrue(e.getMessage().contains("mean(Q) - v"), e.getMessage());
    }
  }

  // ---- item 2

  /** The variance check, for any quantizer, with the class's sample sizes. */
  static void checkVariance(Rounding q, Gen<Integer> bits, long qtSeed) {
    checkVariance(q, bits, qtSeed, EXAMPLES, DRAWS);
  }

  /** The variance check with {@code examples} cases of {@code draws} draws each. */
  static void checkVariance(Rounding q, Gen<Integer> bits, long qtSeed, int examples, int draws) {
    double eps = Bounds.hoeffdingMean(1, draws, 1e-6 / examples);
    qt().withFixedSeed(qtSeed)
        .withExamples(examples)
        .withShrinkCycles(5)
        .forAll(cases(bits))
        .checkAssert(
            c -> {
              float v = c.value();
              int intervals = (1 << c.bits()) - 1;
              double lo = -c.s();
              double r = c.step();
              int j = (int) Math.min(Math.max(Math.floor((v - lo) / r), 0), intervals - 1);
              double below = lo + j * r;
              double above = lo + (j + 1) * r;
              double expected = (v - below) * (above - v);
              double bound = 2.0 / (c.m() * (double) intervals * intervals);
              // The deterministic part: (v - lo)(hi - v) <= r^2 / 4 = 2 / (m (2^b - 1)^2).
              assertTrue(expected <= r * r / 4 * (1 + 1e-12), c + ": " + expected);
              assertEquals(bound, r * r / 4, 1e-12 * bound, "r^2 / 4");
              QuantizationScale project = QuantizationScale.forFeatures(c.m(), c.bits());
              assertEquals(bound, (double) project.step() * project.step() / 4, 0x1p-21 * bound);

              double eta = 0;
              for (int code : new int[] {j, j + 1}) {
                double level = project.lo() + (double) code * project.step();
                eta = Math.max(eta, Math.abs(level - (lo + code * r)));
              }
              double[] x = q.draws(v, c.m(), c.bits(), c.seed(), draws);
              double sum = 0;
              for (double xi : x) {
                sum += (xi - v) * (xi - v);
              }
              double second = sum / draws;
              double tolerance =
                  (eps * (1 + 0x1p-19) + BIAS) * r * r + 2 * eta * (r + 2 * eta);
              String what =
                  c + ": v = " + v + ", mean (Q - v)^2 = " + second / (r * r) + " r^2, expected "
                      + expected / (r * r) + " r^2 +- " + tolerance / (r * r);
              assertTrue(Math.abs(second - expected) <= tolerance, what);
              assertTrue(second <= bound + tolerance, what + ", above r^2/4");
            });
  }

  @Test
  void stochasticRoundingHasTheStatedVariance() {
    checkVariance(PROJECT, bits(), 202L);
  }

  @Test
  void varianceCheckRejectsRoundToNearestAndAnOffByOneScale() {
    for (int b : BITS) {
      for (Rounding wrong : new Rounding[] {NEAREST, OFF_BY_ONE_SCALE}) {
        AssertionError e =
            assertThrows(
                AssertionError.class, () -> checkVariance(wrong, Generate.constant(b), 202L));
        assertTrue(e.getMessage().contains("mean (Q - v)^2"), e.getMessage());
      }
    }
  }

  // ---- helpers

  static float[] copies(float v, int count) {
    float[] values = new float[count];
    Arrays.fill(values, v);
    return values;
  }

  /** count copies of v rounded stochastically in one row (columns 0..count-1), decoded. */
  static double[] stochastic(QuantizationScale scale, float v, long seed, int count) {
    byte[] row = new byte[scale.rowBytes(count)];
    StochasticRounding.quantizeStochastic(
        copies(v, count), 0, count, scale, seed, seed >>> 1, 0, 0, row, 0);
    return decode(scale, row, count);
  }

  /** lo + code step in double: exact (a float times a code below 2^16, plus a float). */
  static double[] decode(QuantizationScale scale, byte[] row, int count) {
    int[] codes = new int[count];
    PackedFeatures.unpackCodes(row, 0, scale.bits(), count, codes, 0);
    double[] out = new double[count];
    for (int k = 0; k < count; k++) {
      out[k] = scale.lo() + (double) codes[k] * scale.step();
    }
    return out;
  }
}
