package org.lprff.cli.experiment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Spearman's ρ: hand-computed cases with and without ties, its invariances, the no-ties formula. */
class SpearmanTest {

  @Test
  void tiesShareTheAverageOfTheirRanks() {
    assertArrayEquals(new double[] {3, 1.5, 4, 1.5, 5},
        Spearman.ranks(new double[] {3, 1, 4, 1, 5}));
    assertArrayEquals(new double[] {2, 2, 2}, Spearman.ranks(new double[] {7, 7, 7}));
    assertArrayEquals(new double[] {1.5, 1.5}, Spearman.ranks(new double[] {-0.0, 0.0}));
    assertArrayEquals(new double[] {3, 1, 2},
        Spearman.ranks(new double[] {Double.POSITIVE_INFINITY, -1, 1e300}));
  }

  @Test
  void handComputedValues() {
    // no ties: d = 0, -1, 1, 0; 1 - 6 * 2 / (4 * 15) = 0.8
    assertEquals(0.8, Spearman.rho(new double[] {10, 20, 30, 40}, new double[] {1, 3, 2, 4}),
        1e-15);
    // y's tie: ranks 1, 2, 3.5, 5, 3.5 against 1..5; sxy = 8, sxx = 10, syy = 9.5
    assertEquals(8 / Math.sqrt(95),
        Spearman.rho(new double[] {1, 2, 3, 4, 5}, new double[] {5, 6, 7, 8, 7}), 1e-15);
    // ties on both sides, ranks 1.5, 1.5, 3.5, 3.5 and 1.5, 3.5, 1.5, 3.5: uncorrelated
    assertEquals(0, Spearman.rho(new double[] {1, 1, 2, 2}, new double[] {1, 2, 1, 2}), 1e-15);
    // ties on both sides, ranks 1.5, 1.5, 3, 4 and 1, 2.5, 2.5, 4:
    // dx = -1, -1, .5, 1.5 ; dy = -1.5, 0, 0, 1.5 ; sxy = 1.5 + 2.25 = 3.75 ; sxx = 4.5 ; syy = 4.5
    assertEquals(3.75 / 4.5,
        Spearman.rho(new double[] {0, 0, 1, 2}, new double[] {-3, 5, 5, 9}), 1e-15);
    // the no-ties formula would say 1 - 6 * 2 / (3 * 8) = 0.5 for ranks 1, 3, 2
    assertEquals(0.5, Spearman.rho(new double[] {1, 2, 3}, new double[] {-1, 8, 2}), 1e-15);
  }

  @Test
  void undefinedBelowThreePairsOrWithAConstantSide() {
    assertTrue(Double.isNaN(Spearman.rho(new double[0], new double[0])));
    assertTrue(Double.isNaN(Spearman.rho(new double[] {1, 2}, new double[] {2, 1})));
    assertTrue(Double.isNaN(Spearman.rho(new double[] {1, 2, 3}, new double[] {4, 4, 4})));
    assertTrue(Double.isNaN(Spearman.rho(new double[] {5, 5, 5, 5}, new double[] {1, 2, 3, 4})));
    assertThrows(IllegalArgumentException.class,
        () -> Spearman.rho(new double[] {1, 2, 3}, new double[] {1, 2}));
    assertThrows(IllegalArgumentException.class,
        () -> Spearman.rho(new double[] {1, Double.NaN, 3}, new double[] {1, 2, 3}));
  }

  @Test
  void symmetricAndInvariantUnderMonotoneTransforms() {
    Random random = new Random(16);
    for (int n : new int[] {3, 4, 5, 17, 100, 1001}) {
      double[] x = new double[n];
      double[] y = new double[n];
      for (int i = 0; i < n; i++) {
        x[i] = random.nextGaussian();
        // with ties: y rounded to a coarse grid
        y[i] = Math.round(2 * (x[i] + random.nextGaussian()));
      }
      double rho = Spearman.rho(x, y);
      assertEquals(rho, Spearman.rho(y, x), 1e-12, "n = " + n);
      double[] up = new double[n];
      double[] down = new double[n];
      double[] cube = new double[n];
      for (int i = 0; i < n; i++) {
        up[i] = Math.exp(x[i]);
        down[i] = -x[i] * x[i] * x[i] - 7;
        cube[i] = Math.pow(y[i], 3); // keeps y's ties
      }
      assertEquals(1, Spearman.rho(x, up), 1e-12, "n = " + n);
      assertEquals(-1, Spearman.rho(x, down), 1e-12, "n = " + n);
      assertEquals(-1, Spearman.rho(up, down), 1e-12, "n = " + n);
      assertEquals(rho, Spearman.rho(up, cube), 1e-12, "n = " + n);
      assertEquals(-rho, Spearman.rho(down, y), 1e-12, "n = " + n);
    }
  }

  @Test
  void withoutTiesItIsTheSquaredRankDifferenceFormula() {
    Random random = new Random(2019);
    for (int n : new int[] {3, 4, 7, 16, 33, 500}) {
      for (int trial = 0; trial < 5; trial++) {
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
          x[i] = random.nextDouble();
          y[i] = x[i] * trial + random.nextGaussian(); // continuous: no ties
        }
        double[] rx = Spearman.ranks(x);
        double[] ry = Spearman.ranks(y);
        double sum = 0;
        for (int i = 0; i < n; i++) {
          sum += (rx[i] - ry[i]) * (rx[i] - ry[i]);
        }
        double direct = 1 - 6 * sum / ((double) n * ((double) n * n - 1));
        assertEquals(direct, Spearman.rho(x, y), 1e-12, "n = " + n + ", trial " + trial);
      }
    }
  }
}
