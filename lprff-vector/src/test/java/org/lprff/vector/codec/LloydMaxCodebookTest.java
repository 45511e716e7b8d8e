package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The Lloyd-Max codebook of the cosine's arcsine law: Lloyd's two optimality conditions, the
 * symmetry, the known one-bit optimum, the closed-form error against a Monte Carlo estimate, and
 * the gain over the uniform grid of LP-RFF at the same bits.
 */
class LloydMaxCodebookTest {

  private static final int[] BITS = {1, 2, 4, 8};

  /** One bit: the levels are E[z | z > 0] = 2 / pi and its negative, split at 0. */
  @Test
  void oneBitIsTheSignTimesTwoOverPi() {
    LloydMaxCodebook one = LloydMaxCodebook.forBits(1);
    assertEquals(-2 / Math.PI, one.level(0), 1e-15);
    assertEquals(2 / Math.PI, one.level(1), 1e-15);
    assertEquals(0, one.thresholds()[0]);
    // E[z^2] - (2/pi)^2 = 1/2 - 4/pi^2
    assertEquals(0.5 - 4 / (Math.PI * Math.PI), one.meanSquaredError(), 1e-15);
  }

  /**
   * Lloyd's conditions at every b: thresholds are midpoints of their levels, levels are the means
   * of their cells (to 1e-12); the codebook is symmetric and its levels ascend inside [-1, 1].
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4, 8})
  void lloydsConditionsHold(int bits) {
    LloydMaxCodebook book = LloydMaxCodebook.forBits(bits);
    double[] c = book.levels();
    double[] t = book.thresholds();
    assertEquals(1 << bits, c.length);
    assertEquals(c.length - 1, t.length);
    assertEquals(0, centroidGap(c, t), 1e-12);
    for (int i = 0; i < t.length; i++) {
      assertEquals((c[i] + c[i + 1]) / 2, t[i], 1e-15, "threshold " + i);
      assertTrue(c[i] < t[i] && t[i] < c[i + 1], "order at " + i);
    }
    for (int i = 0; i < c.length; i++) {
      assertEquals(-c[c.length - 1 - i], c[i], 0, "symmetry at " + i);
    }
    assertTrue(-1 < c[0] && c[c.length - 1] < 1);
  }

  /** The check above catches a codebook that is not Lloyd-Max: the uniform grid fails it. */
  @Test
  void theCentroidCheckRejectsTheUniformGrid() {
    int levels = 16;
    double[] c = new double[levels];
    double[] t = new double[levels - 1];
    for (int i = 0; i < levels; i++) {
      c[i] = -1 + 2.0 * i / (levels - 1);
    }
    for (int i = 0; i < t.length; i++) {
      t[i] = (c[i] + c[i + 1]) / 2;
    }
    assertTrue(centroidGap(c, t) > 1e-3, "uniform grid gap " + centroidGap(c, t));
  }

  /**
   * The closed-form error against a Monte Carlo estimate: N = 2,000,000 seeded uniform phases;
   * the squared errors are bounded by 1, so their standard deviation is at most the square root
   * of their mean; a bound of 5.5 standard errors fails a correct codebook with probability
   * below 4e-8 per b (Gaussian tail; N is large enough for the central limit).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4, 8})
  void theErrorMatchesMonteCarlo(int bits) {
    LloydMaxCodebook book = LloydMaxCodebook.forBits(bits);
    SplittableRandom random = new SplittableRandom(0x11d1L + bits);
    int n = 2_000_000;
    double sum = 0;
    double sumSquares = 0;
    for (int i = 0; i < n; i++) {
      double z = Math.cos(2 * Math.PI * random.nextDouble());
      double e = z - book.level(book.code(z));
      sum += e * e;
      sumSquares += e * e * e * e;
    }
    double mean = sum / n;
    double sd = Math.sqrt(Math.max(0, sumSquares / n - mean * mean));
    double expected = book.meanSquaredError();
    assertEquals(expected, mean, 5.5 * sd / Math.sqrt(n) + 1e-12,
        "b = " + bits + ": closed form " + expected + ", Monte Carlo " + mean);
  }

  /**
   * At every b the codebook's error is below round-to-nearest on LP-RFF's uniform grid of 2^b
   * levels spanning [-1, 1] (computed in closed form on the same cells), and it falls with b.
   */
  @Test
  void itBeatsTheUniformGridAtEqualBits() {
    double previous = Double.POSITIVE_INFINITY;
    for (int bits : BITS) {
      double lloyd = LloydMaxCodebook.forBits(bits).meanSquaredError();
      int levels = 1 << bits;
      double uniform = 0;
      for (int i = 0; i < levels; i++) {
        double c = -1 + 2.0 * i / (levels - 1);
        double lo = i == 0 ? -1 : c - 1.0 / (levels - 1);
        double hi = i == levels - 1 ? 1 : c + 1.0 / (levels - 1);
        uniform += LloydMaxCodebook.secondMoment(lo, hi)
            - 2 * c * LloydMaxCodebook.firstMoment(lo, hi)
            + c * c * LloydMaxCodebook.probability(lo, hi);
      }
      assertTrue(lloyd < uniform, "b = " + bits + ": Lloyd-Max " + lloyd + ", uniform "
          + uniform);
      assertTrue(lloyd < previous, "b = " + bits);
      previous = lloyd;
    }
  }

  @Test
  void codesFollowTheThresholds() {
    LloydMaxCodebook two = LloydMaxCodebook.forBits(2);
    double[] t = two.thresholds();
    assertEquals(0, two.code(-1));
    assertEquals(3, two.code(1));
    assertEquals(1, two.code(0)); // a tie goes to the lower level
    assertEquals(2, two.code(Math.nextUp(0.0)));
    assertEquals(0, two.code(t[0]));
    assertEquals(1, two.code(Math.nextUp(t[0])));
    assertThrows(IllegalArgumentException.class, () -> two.code(Double.NaN));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> LloydMaxCodebook.forBits(16));
    assertEquals("bits is 16; expected 1, 2, 4 or 8 for quantizer lloyd-max (16 bits: stochastic"
        + " or nearest)", e.getMessage());
  }

  /** The largest distance between a level and the arcsine mean of its cell. */
  private static double centroidGap(double[] c, double[] t) {
    double gap = 0;
    for (int i = 0; i < c.length; i++) {
      double lo = i == 0 ? -1 : t[i - 1];
      double hi = i == c.length - 1 ? 1 : t[i];
      gap = Math.max(gap, Math.abs(LloydMaxCodebook.centroid(lo, hi) - c[i]));
    }
    return gap;
  }
}
