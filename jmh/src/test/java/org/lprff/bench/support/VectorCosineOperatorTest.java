package org.lprff.bench.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.simd.panama.VectorShape;

/**
 * {@link CosineBenchmark}'s reference, {@code VectorOperators.COS}, held to the requirement the
 * library's cosine bodies meet ({@code CosineFeaturesTest}): absolute error at most 1e-6 *
 * max(1, |s|) against s * cos((double) fl(t + a)) for |t| up to 1e4, NaN reported, every element
 * the same function whatever its position. A reference that missed it would make the
 * benchmark's comparison meaningless.
 */
class VectorCosineOperatorTest {

  private static final double BOUND = 1e-6;
  private static final float T_MAX = 1e4f;
  private static final int LANES = VectorShape.floatLanes();

  private final VectorCosineOperator cosine = new VectorCosineOperator();

  private static float[] uniform(SplittableRandom random, int n, double lo, double hi) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) random.nextDouble(lo, hi);
    }
    return x;
  }

  /** Max over i of |out[i] - s cos(fl(t[i] + a[i]))| / max(1, |s|), the reference in double. */
  private static double maxScaledError(float[] t, float[] a, float s, float[] out, int n) {
    double max = 0;
    for (int i = 0; i < n; i++) {
      max = Math.max(max, Math.abs(out[i] - s * Math.cos((double) (t[i] + a[i]))));
    }
    return max / Math.max(1.0, Math.abs(s));
  }

  /**
   * {@code VectorOperators.COS} is SVML once C2 has compiled the loop and per-lane Math.cos
   * before, so two calls may differ by an ulp across a JIT tier change.
   */
  private static float tierUlps(float s) {
    return 2 * Math.ulp(s);
  }

  @Test
  void exactAtZero() {
    float s = 0.125f;
    float[] out = new float[3];
    cosine.map(new float[] {0f, -0f, 0f}, 0, new float[] {0f, -0f, -0f}, 0, s, out, 0, 3);
    assertArrayEquals(new float[] {s, s, s}, out, 0f);
  }

  @Test
  void meetsTheBoundOnEverySizeAndFeatureScale() {
    SplittableRandom random = new SplittableRandom(2);
    int[] sizes = {0, 1, 2, 3, 5, 7, LANES - 1, LANES, LANES + 1, 2 * LANES + 3, 4 * LANES + 1,
        97, 1021, 4099};
    for (int n : sizes) {
      float[] t = uniform(random, n, -T_MAX, T_MAX);
      float[] a = uniform(random, n, 0, 2 * Math.PI);
      float[] out = new float[n];
      for (float s : new float[] {1f, (float) Math.sqrt(2.0 / 4096), -3.5f, 1e20f, 1e-30f}) {
        assertFalse(cosine.map(t, 0, a, 0, s, out, 0, n), "n = " + n);
        double error = maxScaledError(t, a, s, out, n);
        assertTrue(error <= BOUND, "n = " + n + ", s = " + s + ": max error " + error);
      }
    }
  }

  /** 10^6 evenly spaced arguments over [-1e4 - 7, 1e4 + 7] and the floats around k pi/4. */
  @Test
  void sweepMeetsTheBound() {
    float lo = -T_MAX - 7;
    float hi = T_MAX + 7;
    int grid = 1_000_000;
    long quarters = (long) Math.ceil(hi / (Math.PI / 4));
    int n = grid + (int) (2 * quarters + 1) * 5;
    float[] t = new float[n];
    int k = 0;
    double step = ((double) hi - lo) / (grid - 1);
    for (int i = 0; i < grid; i++) {
      t[k++] = (float) (lo + i * step);
    }
    for (long q = -quarters; q <= quarters; q++) {
      float x = Math.nextDown(Math.nextDown((float) (q * (Math.PI / 4))));
      for (int j = 0; j < 5; j++, x = Math.nextUp(x)) {
        t[k++] = x;
      }
    }
    float[] a = new float[n];
    Arrays.fill(a, -0f); // fl(t + a) = t exactly
    float[] out = new float[n];
    assertFalse(cosine.map(t, 0, a, 0, 1f, out, 0, n));
    double error = maxScaledError(t, a, 1f, out, n);
    assertTrue(error <= BOUND, "max error " + error);
  }

  @Test
  void largeFiniteArgumentsStayAccurateAndAreNotMistakenForNaN() {
    float[] t = {
      0x1p20f, Math.nextUp(0x1p20f), -0x1.8p21f, 6.5e6f, 1e7f, -3e9f, 1e30f, Float.MAX_VALUE,
      -Float.MAX_VALUE, 12345.678f, 1e8f, 2e20f, 3.3f, -7e5f, 4e6f, 1e38f, 5f
    };
    float[] a = new float[t.length];
    float[] out = new float[t.length];
    assertFalse(cosine.map(t, 0, a, 0, 1f, out, 0, t.length));
    double error = maxScaledError(t, a, 1f, out, t.length);
    assertTrue(error <= BOUND, "max error " + error);
  }

  @Test
  void reportsNaNForEveryNonFiniteArgumentInBodyAndTail() {
    for (int n : new int[] {1, LANES, 2 * LANES + 3}) {
      for (int at : new int[] {0, n / 2, n - 1}) {
        for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
          for (boolean inPhase : new boolean[] {false, true}) {
            float[] t = new float[n];
            float[] a = new float[n];
            (inPhase ? a : t)[at] = bad;
            float[] out = new float[n];
            String where = "n = " + n + ", " + (inPhase ? "a" : "t") + "[" + at + "] = " + bad;
            assertTrue(cosine.map(t, 0, a, 0, 1f, out, 0, n), where);
            assertTrue(Float.isNaN(out[at]), where + ": out = " + out[at]);
            for (int i = 0; i < n; i++) {
              if (i != at) {
                assertEquals(1f, out[i], where);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void eachOutputDependsOnlyOnItsOwnArgumentAndOffsetsAreHonoured() {
    SplittableRandom random = new SplittableRandom(4);
    int n = 4 * LANES + 3;
    float[] t = uniform(random, n, -T_MAX, T_MAX);
    float[] a = uniform(random, n, 0, 2 * Math.PI);
    float s = 0.03f;
    float[] whole = new float[n];
    cosine.map(t, 0, a, 0, s, whole, 0, n);
    float[] single = new float[n];
    for (int i = 0; i < n; i++) {
      cosine.map(t, i, a, i, s, single, i, 1);
    }
    assertArrayEquals(whole, single, tierUlps(s), "one call against n calls of one element");

    int tOff = 3;
    int aOff = 11;
    int outOff = 6;
    float[] tShifted = new float[tOff + n + 4];
    float[] aShifted = new float[aOff + n + 1];
    float[] out = new float[outOff + n + 9];
    System.arraycopy(t, 0, tShifted, tOff, n);
    System.arraycopy(a, 0, aShifted, aOff, n);
    float sentinel = 42f;
    Arrays.fill(out, sentinel);
    cosine.map(tShifted, tOff, aShifted, aOff, s, out, outOff, n);
    assertArrayEquals(whole, Arrays.copyOfRange(out, outOff, outOff + n), tierUlps(s));
    for (int i = 0; i < out.length; i++) {
      if (i < outOff || i >= outOff + n) {
        assertEquals(sentinel, out[i], "touched out[" + i + "]");
      }
    }
  }

  @Test
  void saysItsRegisters() {
    assertEquals("FloatVector " + VectorShape.preferredBits() + "-bit, " + LANES + " lanes",
        cosine.shape());
  }
}
