package org.lprff.vector.random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;
import org.lprff.vector.testing.ChiSquare;
import org.lprff.vector.testing.Distributions;

class RandomParametersTest {

  private static final long SEED = 0x5EED_1234_ABCD_0042L;

  /** Sample size of every Kolmogorov–Smirnov test below. */
  private static final int N = 100_000;

  /** False-failure probability of each KS test (DKW bound, rigorous for iid continuous draws). */
  private static final double ALPHA = 1e-6;

  /**
   * eps = sqrt(ln(2/alpha) / (2N)) = 0.00851. The draws are on a grid of step 2^-52 (uniforms)
   * and their images under smooth maps; the CDF mass a grid cell carries is below 1e-12, far
   * under the 1e-9 slack added to the bound.
   */
  private static final double KS_BOUND = Distributions.dkwBound(N, ALPHA) + 1e-9;

  @Test
  void rowsAreNegativeAndDistinctFromDataRows() {
    assertEquals(-1L, RandomParameters.row(0));
    assertEquals(-2L, RandomParameters.row(1));
    assertEquals(-1L - Integer.MAX_VALUE, RandomParameters.row(Integer.MAX_VALUE));
  }

  @Test
  void uniformOpenFollowsTheDocumentedBits() {
    for (int stream = 0; stream < 4; stream++) {
      for (int index : new int[] {0, 1, 7, 8, 31, 32, 1000, Integer.MAX_VALUE}) {
        long row = -1L - stream;
        long high = CounterRng.bits(SEED, row, index, 0) & 0xFFFFFFFFL;
        long low = (CounterRng.bits(SEED, row, index, 1) & 0xFFFFFFFFL) >>> 12;
        double expected = (2 * ((high << 20) | low) + 1) / 0x1p53;
        assertEquals(expected, RandomParameters.uniformOpen(SEED, stream, index));
        // Box–Muller from draws (0, 1) and (2, 3).
        double u1 = expected;
        long high2 = CounterRng.bits(SEED, row, index, 2) & 0xFFFFFFFFL;
        long low2 = (CounterRng.bits(SEED, row, index, 3) & 0xFFFFFFFFL) >>> 12;
        double u2 = (2 * ((high2 << 20) | low2) + 1) / 0x1p53;
        assertEquals(
            StrictMath.sqrt(-2 * StrictMath.log(u1)) * StrictMath.cos(2 * Math.PI * u2),
            RandomParameters.normal(SEED, stream, index));
        assertEquals(
            StrictMath.tan(Math.PI * (u1 - 0.5)), RandomParameters.cauchy(SEED, stream, index));
        assertEquals(
            CounterRng.bits(SEED, row, index, 0) < 0 ? -1 : 1,
            RandomParameters.rademacher(SEED, stream, index));
      }
    }
  }

  @Test
  void extremeBitsStayInsideTheOpenInterval() {
    double smallest = RandomParameters.uniformFromBits(0, 0);
    double largest = RandomParameters.uniformFromBits(-1, -1);
    assertEquals(0x1p-53, smallest);
    assertEquals(1 - 0x1p-53, largest);
    assertEquals(1.0, smallest + largest); // the grid is symmetric about 1/2
    assertTrue(Double.isFinite(Math.log(smallest)) && Math.log(largest) < 0);
    assertTrue(Double.isFinite(StrictMath.tan(Math.PI * (smallest - 0.5))));
    assertTrue(Double.isFinite(StrictMath.tan(Math.PI * (largest - 0.5))));
  }

  @Test
  void sameInputsSameValueOtherInputsOtherValue() {
    double u = RandomParameters.uniformOpen(SEED, 3, 17);
    assertEquals(u, RandomParameters.uniformOpen(SEED, 3, 17));
    assertNotEquals(u, RandomParameters.uniformOpen(SEED + 1, 3, 17));
    assertNotEquals(u, RandomParameters.uniformOpen(SEED, 4, 17));
    assertNotEquals(u, RandomParameters.uniformOpen(SEED, 3, 18));
    double z = RandomParameters.normal(SEED, 0, 5);
    assertEquals(z, RandomParameters.normal(SEED, 0, 5));
    assertNotEquals(z, RandomParameters.normal(SEED ^ (1L << 40), 0, 5)); // high seed word counts
    assertNotEquals(z, RandomParameters.normal(SEED, 1, 5));
    assertNotEquals(z, RandomParameters.normal(SEED, 0, 6));
    double c = RandomParameters.chiSquared(SEED, 2, 9, 5);
    assertEquals(c, RandomParameters.chiSquared(SEED, 2, 9, 5));
    assertNotEquals(c, RandomParameters.chiSquared(SEED, 2, 9, 3));
    assertNotEquals(c, RandomParameters.chiSquared(SEED, 1, 9, 5));
    // Rademacher signs: 64 in a row agree by chance with probability 2^-64.
    float[] a = new float[64];
    float[] b = new float[64];
    RandomParameters.fillRademacher(SEED, 3, 0, a, 0, 64);
    RandomParameters.fillRademacher(SEED, 4, 0, b, 0, 64);
    assertTrue(!Arrays.equals(a, b));
    RandomParameters.fillRademacher(SEED, 3, 0, b, 0, 64);
    assertArrayEquals(a, b);
    RandomParameters.fillRademacher(SEED + 1, 3, 0, b, 0, 64);
    assertTrue(!Arrays.equals(a, b));
  }

  @Test
  void chiSquaredSumsSquaredNormalsOfDistinctDraws() {
    for (int dof : new int[] {1, 3, 5}) {
      for (int index : new int[] {0, 5, 40}) {
        double sum = 0;
        for (int j = 0; j < dof; j++) {
          long row = -1L - 2;
          double u1 = RandomParameters.uniformFromBits(
              CounterRng.bits(SEED, row, index, 4 * j), CounterRng.bits(SEED, row, index, 4 * j + 1));
          double u2 = RandomParameters.uniformFromBits(
              CounterRng.bits(SEED, row, index, 4 * j + 2),
              CounterRng.bits(SEED, row, index, 4 * j + 3));
          double z = StrictMath.sqrt(-2 * StrictMath.log(u1)) * StrictMath.cos(2 * Math.PI * u2);
          sum += z * z;
        }
        assertEquals(sum, RandomParameters.chiSquared(SEED, 2, index, dof));
      }
    }
  }

  @Test
  void bulkFillsEqualTheSingleValues() {
    // Counts and first indices cross the 32-column groups of CounterRng and the 1024-value chunks.
    int[] firsts = {0, 1, 31, 33, 1000};
    int[] counts = {0, 1, 7, 33, 1023, 1024, 1025, 2100};
    for (int first : firsts) {
      for (int count : counts) {
        int off = 3;
        float[] normal = new float[count + 5];
        float[] cauchy = new float[count + 5];
        float[] signs = new float[count + 5];
        float[] chi = new float[count + 5];
        double[] uniform = new double[count + 5];
        double[] normalD = new double[count + 5];
        double[] cauchyD = new double[count + 5];
        double[] chiD = new double[count + 5];
        RandomParameters.fillNormal(SEED, 5, first, normal, off, count);
        RandomParameters.fillCauchy(SEED, 5, first, cauchy, off, count);
        RandomParameters.fillRademacher(SEED, 5, first, signs, off, count);
        RandomParameters.fillChiSquared(SEED, 5, first, 3, chi, off, count);
        RandomParameters.fillUniformOpen(SEED, 5, first, uniform, off, count);
        RandomParameters.fillNormalDouble(SEED, 5, first, normalD, off, count);
        RandomParameters.fillCauchyDouble(SEED, 5, first, cauchyD, off, count);
        RandomParameters.fillChiSquaredDouble(SEED, 5, first, 3, chiD, off, count);
        for (int i = 0; i < count + 5; i++) {
          boolean inside = i >= off && i < off + count;
          int index = first + i - off;
          String at = "first " + first + " count " + count + " i " + i;
          assertEquals(inside ? (float) RandomParameters.normal(SEED, 5, index) : 0f, normal[i], at);
          assertEquals(inside ? (float) RandomParameters.cauchy(SEED, 5, index) : 0f, cauchy[i], at);
          assertEquals(inside ? RandomParameters.rademacher(SEED, 5, index) : 0f, signs[i], at);
          assertEquals(
              inside ? (float) RandomParameters.chiSquared(SEED, 5, index, 3) : 0f, chi[i], at);
          assertEquals(inside ? RandomParameters.uniformOpen(SEED, 5, index) : 0, uniform[i], at);
          assertEquals(inside ? RandomParameters.normal(SEED, 5, index) : 0, normalD[i], at);
          assertEquals(inside ? RandomParameters.cauchy(SEED, 5, index) : 0, cauchyD[i], at);
          assertEquals(inside ? RandomParameters.chiSquared(SEED, 5, index, 3) : 0, chiD[i], at);
        }
      }
    }
  }

  // ---- distributions: N = 100,000 draws each, KS distance against the exact CDF, bound
  // KS_BOUND (DKW, false-failure probability <= 1e-6 per test).

  private static void assertKs(double[] samples, DoubleUnaryOperator cdf, String what) {
    double d = Distributions.ksDistance(samples, cdf);
    assertTrue(d <= KS_BOUND, what + ": KS distance " + d + " > " + KS_BOUND);
  }

  @Test
  void referenceCdfsAreRight() {
    // Normal CDF against known values (15+ digits, e.g. from mpmath), the others against their
    // densities by central differences (step 1e-5: truncation error ~ h^2 f''' < 1e-9).
    assertEquals(0.8413447460685429, Distributions.normalCdf(1), 1e-14);
    assertEquals(0.024997895148220435, Distributions.normalCdf(-1.96), 1e-14);
    assertEquals(0.9986501019683699, Distributions.normalCdf(3), 1e-14);
    // In the far tail 1/2 + (negative sum) cancels: the error is absolute (~1e-16), which is what
    // the KS distance needs.
    assertEquals(2.866515718791939e-07, Distributions.normalCdf(-5), 1e-15);
    double h = 1e-5;
    for (int nu : new int[] {1, 3, 5}) {
      assertEquals(0.5, Distributions.studentCdf(nu, 0), 1e-15);
      for (double t : new double[] {-7, -2.5, -1, -0.3, 0.2, 1, 3.3, 10}) {
        double slope =
            (Distributions.studentCdf(nu, t + h) - Distributions.studentCdf(nu, t - h)) / (2 * h);
        assertEquals(Distributions.studentDensity(nu, t), slope, 1e-8, "t" + nu + " at " + t);
      }
      assertEquals(1.0, Distributions.studentCdf(nu, 1e12), 1e-9);
      for (double x : new double[] {0.01, 0.3, 1, 2.5, 6, 15}) {
        double slope = (Distributions.chiSquaredCdf(nu, x + h * x)
                - Distributions.chiSquaredCdf(nu, x - h * x)) / (2 * h * x);
        assertEquals(Distributions.chiSquaredDensity(nu, x), slope, 1e-7, "chi2 " + nu + " at " + x);
      }
      assertEquals(1.0, Distributions.chiSquaredCdf(nu, 200), 1e-12);
    }
  }

  @Test
  void uniformOpenIsUniform() {
    double[] u = new double[N];
    RandomParameters.fillUniformOpen(SEED, 7, 0, u, 0, N);
    for (double v : u) {
      assertTrue(v > 0 && v < 1, "uniformOpen out of (0,1): " + v);
    }
    assertKs(u, x -> Math.min(1, Math.max(0, x)), "uniform");
  }

  @Test
  void normalIsStandardNormal() {
    double[] z = new double[N];
    RandomParameters.fillNormalDouble(SEED, 8, 0, z, 0, N);
    assertKs(z, Distributions::normalCdf, "normal");
  }

  @Test
  void cauchyIsStandardCauchy() {
    double[] c = new double[N];
    RandomParameters.fillCauchyDouble(SEED, 9, 0, c, 0, N);
    assertKs(c, Distributions::cauchyCdf, "cauchy");
  }

  @Test
  void chiSquaredHasItsDistribution() {
    for (int dof : new int[] {1, 3, 5}) {
      double[] c = new double[N];
      RandomParameters.fillChiSquaredDouble(SEED, 10 + dof, 0, dof, c, 0, N);
      for (double v : c) {
        assertTrue(v > 0 && Double.isFinite(v), "chi2 " + v);
      }
      assertKs(c, x -> Distributions.chiSquaredCdf(dof, x), "chi2(" + dof + ")");
    }
  }

  @Test
  void rademacherIsBalanced() {
    // N = 100,000 signs; Hoeffding: P(|mean| > sqrt(2 ln(2/alpha) / N)) <= alpha = 1e-6.
    float[] s = new float[N];
    RandomParameters.fillRademacher(SEED, 20, 0, s, 0, N);
    double sum = 0;
    for (float v : s) {
      assertTrue(v == 1f || v == -1f, "sign " + v);
      sum += v;
    }
    double bound = Math.sqrt(2 * Math.log(2 / ALPHA) / N);
    assertTrue(Math.abs(sum / N) <= bound, "mean " + sum / N + " > " + bound);
  }

  @Test
  void ksTestRejectsTheWrongDistribution() {
    // Power: the same samples against a wrong CDF must exceed the bound by far.
    double[] z = new double[N];
    RandomParameters.fillNormalDouble(SEED, 8, 0, z, 0, N);
    assertTrue(Distributions.ksDistance(z.clone(), Distributions::cauchyCdf) > KS_BOUND);
    assertTrue(Distributions.ksDistance(z.clone(), x -> Distributions.normalCdf(x / 1.1)) > KS_BOUND);
    double[] c = new double[N];
    RandomParameters.fillChiSquaredDouble(SEED, 13, 0, 3, c, 0, N);
    assertTrue(Distributions.ksDistance(c, x -> Distributions.chiSquaredCdf(5, x)) > KS_BOUND);
  }

  // ---- permutations

  @Test
  void permutationIsAPermutation() {
    for (int n : new int[] {0, 1, 2, 3, 7, 8, 17, 100, 1000, 4097}) {
      int[] p = RandomParameters.permutation(SEED, 3, n);
      assertEquals(n, p.length);
      int[] sorted = p.clone();
      Arrays.sort(sorted);
      for (int i = 0; i < n; i++) {
        assertEquals(i, sorted[i], "n " + n);
      }
      assertArrayEquals(p, RandomParameters.permutation(SEED, 3, n));
    }
    // Different streams give different permutations (equal by chance with probability 1/1000!).
    assertTrue(!Arrays.equals(
        RandomParameters.permutation(SEED, 3, 1000), RandomParameters.permutation(SEED, 4, 1000)));
  }

  /**
   * Positions 0 and n-1 of T = 100,000 permutations of n = 10 (seeds SEED + t): each of the 10
   * values must land there uniformly. Chi-squared with df = 9 against the Wilson–Hilferty 1e-6
   * threshold, so each of the two tests fails falsely with probability <= 1e-6.
   */
  @Test
  void firstAndLastElementsAreUniform() {
    int n = 10;
    long[] first = new long[n];
    long[] last = new long[n];
    for (int t = 0; t < 100_000; t++) {
      int[] p = RandomParameters.permutation(SEED + t, 3, n);
      first[p[0]]++;
      last[p[n - 1]]++;
    }
    double critical = ChiSquare.criticalValue1e6(n - 1);
    assertTrue(ChiSquare.uniformStatistic(first) < critical, Arrays.toString(first));
    assertTrue(ChiSquare.uniformStatistic(last) < critical, Arrays.toString(last));
    // Power: the off-by-one shuffle (partner j in [0, i), Sattolo's algorithm) never leaves an
    // element in place, so value n-1 never ends last; the same test must reject it.
    long[] sattoloLast = new long[n];
    for (int t = 0; t < 100_000; t++) {
      int[] p = new int[n];
      for (int i = 0; i < n; i++) {
        p[i] = i;
      }
      for (int i = n - 1; i >= 1; i--) {
        int j = (int) ((CounterRng.bits(SEED + t, -4, i, 0) & 0xFFFFFFFFL) % i);
        int swap = p[i];
        p[i] = p[j];
        p[j] = swap;
      }
      sattoloLast[p[n - 1]]++;
    }
    assertTrue(ChiSquare.uniformStatistic(sattoloLast) > critical, Arrays.toString(sattoloLast));
  }

  // ---- errors


  @Test
  void errorPathsNameTheValues() {
    assertMessage(() -> RandomParameters.uniformOpen(SEED, -2, 0), "stream", "-2");
    assertMessage(() -> RandomParameters.normal(SEED, 0, -5), "index", "-5");
    assertMessage(() -> RandomParameters.cauchy(SEED, -1, 0), "stream", "-1");
    assertMessage(() -> RandomParameters.rademacher(SEED, 0, -9), "index", "-9");
    assertMessage(() -> RandomParameters.chiSquared(SEED, 0, 0, 2), "dof", "2", "1, 3, 5");
    assertMessage(() -> RandomParameters.chiSquared(SEED, 0, 0, 0), "dof is 0");
    assertMessage(() -> RandomParameters.fillNormal(SEED, 0, 0, new float[10], 5, 6), "length 10", "6");
    assertMessage(() -> RandomParameters.fillCauchy(SEED, 0, 0, null, 0, 1), "out is null");
    assertMessage(() -> RandomParameters.fillRademacher(SEED, 0, -4, new float[3], 0, 1), "-4");
    assertMessage(() -> RandomParameters.fillChiSquared(SEED, 0, 0, 3, new float[3], 0, -1), "-1");
    assertMessage(() -> RandomParameters.fillChiSquared(SEED, 0, 0, 4, new float[3], 0, 1), "dof is 4");
    assertMessage(
        () -> RandomParameters.fillUniformOpen(SEED, 0, Integer.MAX_VALUE - 1, new double[3], 0, 3),
        String.valueOf(Integer.MAX_VALUE - 1));
    assertMessage(() -> RandomParameters.fillNormal(SEED, -3, 0, new float[3], 0, 1), "stream", "-3");
    assertMessage(() -> RandomParameters.permutation(SEED, 0, -7), "n is -7");
    assertMessage(() -> RandomParameters.permutation(SEED, -8, 3), "stream", "-8");
  }
}
