package org.lprff.vector.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.lprff.vector.simd.spi.FftBody;
import org.lprff.vector.testing.ProviderTestBase;
import org.lprff.vector.testing.TestSizes;

/**
 * circ(g) x (first column g) against the direct O(n^2) product in double, and the vector body
 * against the scalar one.
 *
 * <p>Tolerance: y = IFFT(G . FFT(x)) on an N = n/2 point transform. With Higham's bound
 * (FftTest) each N-point FFT errs by at most 8 log2(N) u relative (norm-wise); the split step
 * before and after the spectral product, the product itself and the float rounding of its
 * coefficients (computed in double) add a few u each, which we cover with 16 u. Errors in the
 * spectrum are amplified by at most max_k |G_k| = ||circ(g)||_2, so
 * ||y^ - y||_2 <= (16 log2(n) + 16) u max_k |G_k| ||x||_2, u = 2^-24 (16 log2 n covers
 * 2 x 8 log2 N with room to spare). The direct product is exact to ~1e-13 relative.
 */
public class CirculantTest {

  private static final double U = 0x1p-24;

  private static final FftBody SCALAR = ProviderTestBase.SCALAR.fft();
  private static final FftBody VECTOR = ProviderTestBase.VECTOR.fft();

  private static float[] gaussian(SplittableRandom random, int n) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) (random.nextDouble() - random.nextDouble() + random.nextDouble() - 0.5);
    }
    return x;
  }

  /** out_i = sum_j g[(i - j) mod n] x_j in double. */
  static double[] directCirculant(float[] g, float[] x) {
    int n = g.length;
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) {
        s += (double) g[(i - j + n) % n] * x[j];
      }
      y[i] = s;
    }
    return y;
  }

  /** max_k |G_k| = ||circ(g)||_2 by a direct DFT in double. */
  static double spectralNorm(float[] g) {
    double[][] spectrum = FftTest.directDft(g, new float[g.length], -1);
    double max = 0;
    for (int k = 0; k < g.length; k++) {
      max = Math.max(max, Math.hypot(spectrum[0][k], spectrum[1][k]));
    }
    return max;
  }

  private static void assertWithinBound(String what, float[] g, float[] x, float[] actual) {
    int n = g.length;
    double[] expected = directCirculant(g, x);
    double err = 0;
    double xNorm = 0;
    for (int i = 0; i < n; i++) {
      err += (actual[i] - expected[i]) * (actual[i] - expected[i]);
      xNorm += x[i] * (double) x[i];
    }
    err = Math.sqrt(err);
    int t = Integer.numberOfTrailingZeros(n);
    double bound = (16 * t + 16) * U * spectralNorm(g) * Math.sqrt(xNorm);
    assertTrue(err <= bound, what + ": error " + err + " > bound " + bound);
  }

  @Test
  void matchesDirectProductForAllPowersOfTwoUpTo4096() {
    SplittableRandom random = new SplittableRandom(11);
    for (int n : TestSizes.powersOfTwo(0, 12)) {
      float[] g = gaussian(random, n);
      float[] x = gaussian(random, n);
      assertWithinBound("facade n=" + n, g, x, Fft.circulantMultiply(g, x));
      CirculantPlan plan = new CirculantPlan(g);
      for (FftBody kernel : new FftBody[] {SCALAR, VECTOR}) {
        float[] out = new float[n];
        plan.multiplyWith(kernel, x, out, new float[n]);
        assertWithinBound(kernel.getClass().getSimpleName() + " n=" + n, g, x, out);
      }
    }
  }

  @Test
  void firstColumnIsGAndUnitShiftsRotateIt() {
    // circ(g) e_0 = g (the first column) and circ(g) e_1 = g shifted down by one:
    // out_i = g[(i - 1) mod n]. This pins the convention (column, not row).
    SplittableRandom random = new SplittableRandom(12);
    int n = 32;
    float[] g = gaussian(random, n);
    CirculantPlan plan = new CirculantPlan(g);
    float[] e = new float[n];
    float[] out = new float[n];
    e[0] = 1;
    plan.multiply(e, out);
    double tol = (16 * 5 + 16) * U * spectralNorm(g);
    for (int i = 0; i < n; i++) {
      assertEquals(g[i], out[i], tol, "column 0, row " + i);
    }
    e[0] = 0;
    e[1] = 1;
    plan.multiply(e, out);
    for (int i = 0; i < n; i++) {
      assertEquals(g[(i - 1 + n) % n], out[i], tol, "column 1, row " + i);
    }
  }

  @Test
  void vectorBodyEqualsScalarBody() {
    SplittableRandom random = new SplittableRandom(13);
    for (int n : TestSizes.powersOfTwo(0, 16)) {
      float[] g = gaussian(random, n);
      float[] x = gaussian(random, n);
      CirculantPlan plan = new CirculantPlan(g);
      float[] scalar = new float[n];
      float[] vector = new float[n];
      plan.multiplyWith(SCALAR, x, scalar, new float[n]);
      plan.multiplyWith(VECTOR, x, vector, new float[n]);
      FftTest.assertSameValues("circulant n=" + n, scalar, vector);
    }
  }

  @Test
  void aliasingScratchOverloadAndLargeSize() {
    SplittableRandom random = new SplittableRandom(14);
    int n = 1 << 16;
    float[] g = gaussian(random, n);
    float[] x = gaussian(random, n);
    CirculantPlan plan = new CirculantPlan(g);
    float[] expected = new float[n];
    plan.multiply(x, expected);
    float[] withScratch = new float[n];
    plan.multiply(x, withScratch, new float[plan.scratchLength()]);
    FftTest.assertSameValues("caller scratch", expected, withScratch);
    float[] inPlace = x.clone();
    plan.multiply(inPlace, inPlace);
    FftTest.assertSameValues("x == out", expected, inPlace);
  }

  @Test
  void planIsSafeForConcurrentUse() throws Exception {
    SplittableRandom random = new SplittableRandom(15);
    int n = 4096;
    CirculantPlan plan = new CirculantPlan(gaussian(random, n));
    List<float[]> inputs = new ArrayList<>();
    List<float[]> expected = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      float[] x = gaussian(random, n);
      float[] y = new float[n];
      plan.multiply(x, y);
      inputs.add(x);
      expected.add(y);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<float[]>> results = new ArrayList<>();
      for (int rep = 0; rep < 8; rep++) {
        for (float[] x : inputs) {
          results.add(pool.submit(() -> {
            float[] y = new float[n];
            plan.multiply(x, y);
            return y;
          }));
        }
      }
      for (int r = 0; r < results.size(); r++) {
        FftTest.assertSameValues("task " + r, expected.get(r % inputs.size()), results.get(r).get());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void errorPathsNameValues() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new CirculantPlan(new float[3]));
    assertTrue(e.getMessage().contains("length 3"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new CirculantPlan(null));
    assertTrue(e.getMessage().contains("g must not be null"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Fft.circulantMultiply(new float[8], new float[4]));
    assertTrue(e.getMessage().contains("x has length 4") && e.getMessage().contains("8"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Fft.circulantMultiply(new float[8], null));
    assertTrue(e.getMessage().contains("x must not be null"), e.getMessage());
    float[] g = new float[8];
    g[5] = Float.NaN;
    e = assertThrows(IllegalArgumentException.class, () -> new CirculantPlan(g));
    assertTrue(e.getMessage().contains("g[5] is NaN"), e.getMessage());
    CirculantPlan plan = new CirculantPlan(new float[8]);
    e = assertThrows(IllegalArgumentException.class,
        () -> plan.multiply(new float[8], new float[8], new float[7]));
    assertTrue(e.getMessage().contains("scratch has length 7"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> plan.multiply(new float[8], new float[16]));
    assertTrue(e.getMessage().contains("out has length 16"), e.getMessage());
  }
}
