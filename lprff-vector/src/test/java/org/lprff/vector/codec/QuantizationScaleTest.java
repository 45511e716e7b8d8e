package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class QuantizationScaleTest {

  /** At 1 bit the levels are -s and s and Var[Q(v)] = s^2 - v^2, whose mean over the phase is s^2 / 2. */
  @Test
  void oneBitVarianceIsHalfTheSquaredScale() {
    for (int m : new int[] {1, 100, 4096}) {
      QuantizationScale scale = QuantizationScale.forFeatures(m, 1);
      double s = -scale.lo();
      // the grid is float (relative 6e-8); the midpoint rule on a smooth integrand ~1e-9
      assertEquals(s * s / 2, scale.cosineRoundingVariance(), 1e-6 * s * s, "m " + m);
    }
  }

  /**
   * With many levels the fractional position of v in its cell is nearly uniform and the mean of
   * frac (1 - frac) step^2 tends to step^2 / 6, slowly, because the cosine's density piles up in
   * the outermost cells: measured 6.7% below at 4 bits, 1.6% at 8; bounds 10%, 3% and 1% at 16.
   */
  @Test
  void manyLevelsApproachStepSquaredOverSix() {
    for (int bits : new int[] {4, 8, 16}) {
      QuantizationScale scale = QuantizationScale.forFeatures(1024, bits);
      double sixth = (double) scale.step() * scale.step() / 6;
      assertEquals(sixth, scale.cosineRoundingVariance(), (bits == 4 ? 0.10 : bits == 8 ? 0.03 : 0.01) * sixth,
          "bits " + bits);
    }
  }

  /**
   * Against a simulation of the definition: theta uniform, v = s cos theta, rounded up with
   * probability frac; mean of (Q - v)^2 over n = 200,000 draws. Each term is in [0, step^2], so
   * Hoeffding bounds the deviation by step^2 sqrt(ln(2 / 1e-6) / 2n) = 0.0062 step^2
   * (false-failure probability 1e-6 per bit width, fixed seed).
   */
  @Test
  void matchesASimulationOfStochasticRounding() {
    SplittableRandom random = new SplittableRandom(20261122);
    int n = 200_000;
    for (int bits : new int[] {1, 2, 4}) {
      QuantizationScale scale = QuantizationScale.forFeatures(64, bits);
      double step = scale.step();
      double sum = 0;
      for (int k = 0; k < n; k++) {
        double v = -scale.lo() * Math.cos(2 * Math.PI * random.nextDouble());
        double f = Math.min((v - scale.lo()) / step, scale.maxCode());
        double below = Math.min(Math.floor(f), scale.maxCode() - 1);
        double q = scale.lo() + step * (random.nextDouble() < f - below ? below + 1 : below);
        sum += (q - v) * (q - v);
      }
      double bound = step * step * Math.sqrt(Math.log(2 / 1e-6) / (2.0 * n));
      assertEquals(sum / n, scale.cosineRoundingVariance(), bound, "bits " + bits);
    }
  }
}
