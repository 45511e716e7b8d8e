package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.simd.scalar.ScalarRounding;
import org.lprff.vector.testing.ProviderTestBase;
import org.lprff.vector.testing.TestSizes;

class StochasticRoundingTest extends ProviderTestBase {

  private static final int[] BITS = BitPackingTest.BITS;
  private static final int FEATURES = 4096;
  private static final long SEED = 0xC0FFEE_1234L;

  /** Values in [lo, hi], with both ends and a few points within the facade's slack outside. */
  private static float[] values(SplittableRandom random, QuantizationScale scale, int n) {
    float[] v = new float[n];
    double lo = scale.lo();
    double hi = scale.hi();
    for (int i = 0; i < n; i++) {
      v[i] = switch (random.nextInt(20)) {
        case 0 -> scale.lo();
        case 1 -> (float) hi;
        case 2 -> (float) (hi + 0.5e-6 * Math.abs(hi));
        case 3 -> (float) (lo - 0.5e-6 * Math.abs(lo));
        default -> (float) (lo + (hi - lo) * random.nextDouble());
      };
    }
    return v;
  }

  /** The definition, written independently of the bodies: code from CounterRng's uniform. */
  private static int definitionCode(float v, QuantizationScale scale, long row, int column, int draw) {
    int b = scale.bits();
    double sum;
    if (b == 16) {
      sum = ((double) v - scale.lo()) / scale.step()
          + CounterRng.uniformDouble(SEED, row, column, draw);
    } else {
      float t = (v - scale.lo()) / scale.step();
      sum = t + CounterRng.uniform16(SEED, row, column, draw); // float + float, rounded to float
      sum = (float) sum;
    }
    return (int) Math.max(0, Math.min(scale.maxCode(), Math.floor(sum)));
  }

  @Test
  void scalarBodyMatchesTheDefinition() {
    SplittableRandom random = new SplittableRandom(21);
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(FEATURES, bits);
      for (int count : new int[] {0, 1, 7, 8, 9, 33, 100, 1000}) {
        int firstColumn = 8 * random.nextInt(20);
        long row = random.nextLong();
        int draw = random.nextInt();
        float[] v = values(random, scale, count);
        int[] codes = new int[count];
        for (int i = 0; i < count; i++) {
          codes[i] = definitionCode(v[i], scale, row, firstColumn + i, draw);
        }
        byte[] expected = BitPackingTest.referencePack(codes, 0, count, bits);
        byte[] actual = new byte[expected.length];
        SCALAR.rounding().quantizeStochastic(
            v, 0, count, bits, scale.lo(), scale.step(), SEED, row, firstColumn, draw,
            MemorySegment.ofArray(actual), 0);
        assertArrayEquals(expected, actual, "bits " + bits + " count " + count);
      }
    }
  }

  @Test
  void vectorAndScalarBodiesWriteIdenticalBytes() {
    SplittableRandom random = new SplittableRandom(22);
    int[] counts = IntStream.concat(IntStream.rangeClosed(0, 200), Arrays.stream(TestSizes.general()))
        .distinct().toArray();
    // Every multiple of 8 within a 64-column group (the b <= 8 groups), and far columns.
    int[] firstColumns = {0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 4096, 4152, 1 << 20, (1 << 20) + 24};
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(FEATURES, bits);
      for (int count : counts) {
        for (int firstColumn : firstColumns) {
          long row = random.nextLong();
          int draw = random.nextInt();
          int off = random.nextInt(3);
          float[] v = values(random, scale, count + off);
          int pad = 1 + random.nextInt(5);
          int bytes = (int) PackedFeatures.rowBytes(count, bits);
          byte[] scalar = new byte[pad + bytes + pad];
          byte[] vector = new byte[pad + bytes + pad];
          Arrays.fill(scalar, BitPackingTest.SENTINEL);
          Arrays.fill(vector, BitPackingTest.SENTINEL);
          String what = "bits " + bits + " count " + count + " firstColumn " + firstColumn;
          SCALAR.rounding().quantizeStochastic(v, off, count, bits, scale.lo(), scale.step(),
              SEED, row, firstColumn, draw, MemorySegment.ofArray(scalar), pad);
          VECTOR.rounding().quantizeStochastic(v, off, count, bits, scale.lo(), scale.step(),
              SEED, row, firstColumn, draw, MemorySegment.ofArray(vector), pad);
          assertArrayEquals(scalar, vector, what);
          assertEquals(BitPackingTest.SENTINEL, vector[0], what);
          assertEquals(BitPackingTest.SENTINEL, vector[vector.length - 1], what);
          Arrays.fill(scalar, BitPackingTest.SENTINEL);
          Arrays.fill(vector, BitPackingTest.SENTINEL);
          SCALAR.rounding().quantizeNearest(v, off, count, bits, scale.lo(), scale.step(),
              MemorySegment.ofArray(scalar), pad);
          VECTOR.rounding().quantizeNearest(v, off, count, bits, scale.lo(), scale.step(),
              MemorySegment.ofArray(vector), pad);
          assertArrayEquals(scalar, vector, "nearest " + what);
        }
      }
    }
  }

  @Test
  void splittingARowIntoCallsDoesNotChangeItsBytes() {
    SplittableRandom random = new SplittableRandom(23);
    int m = 1000;
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
      float[] v = values(random, scale, m);
      byte[] whole = new byte[scale.rowBytes(m)];
      StochasticRounding.quantizeStochastic(v, 0, m, scale, SEED, 42, 0, 3, whole, 0);
      byte[] pieces = new byte[scale.rowBytes(m)];
      int column = 0;
      while (column < m) {
        int n = Math.min(m - column, 8 * (1 + random.nextInt(12)));
        StochasticRounding.quantizeStochastic(v, column, n, scale, SEED, 42, column, 3, pieces, 0);
        column += n;
      }
      assertArrayEquals(whole, pieces, "bits " + bits);
    }
  }

  // ---- statistics

  /** Grid of G = 33 values lo + (hi - lo) g / 32, g = 0..32, as floats. */
  private static float[] grid(QuantizationScale scale) {
    float[] v = new float[33];
    for (int g = 0; g <= 32; g++) {
      v[g] = (float) (scale.lo() + (scale.hi() - scale.lo()) * g / 32);
    }
    return v;
  }

  /** Per grid value: {mean of X - v, mean of (X - v)^2} over rows 0..n-1, X = value(code). */
  private static double[][] moments(QuantizationScale scale, int n, boolean stochastic) {
    float[] v = grid(scale);
    int bits = scale.bits();
    byte[] row = new byte[scale.rowBytes(v.length)];
    double[][] sums = new double[v.length][2];
    for (int r = 0; r < n; r++) {
      if (stochastic) {
        StochasticRounding.quantizeStochastic(v, 0, v.length, scale, SEED, r, 0, 0, row, 0);
      } else {
        StochasticRounding.quantizeNearest(v, 0, v.length, scale, 0, row, 0);
      }
      int[] codes = BitPackingTest.referenceUnpack(row, 0, v.length, bits);
      for (int g = 0; g < v.length; g++) {
        double d = scale.lo() + (double) codes[g] * scale.step() - v[g];
        sums[g][0] += d;
        sums[g][1] += d * d;
      }
    }
    for (double[] s : sums) {
      s[0] /= n;
      s[1] /= n;
    }
    return sums;
  }

  /**
   * Hoeffding: X - v lies in an interval of width step, so P(|mean - E| >= eps) <= 2 exp(-2 N
   * eps^2 / step^2). With N = 20000 rows and delta = 1e-6 / (5 widths x 33 values x 2 moments)
   * (union bound: whole test fails falsely with probability <= 1e-6), eps = step sqrt(ln(2 /
   * delta) / (2N)) ~ 0.023 step. (X - v)^2 lies in [0, step^2]: same bound times step.
   *
   * <p>E itself is not exactly 0 (mean) or the exact variance: the rounding goes up with
   * probability frac(t) + beta, |beta| <= 2^-16 (ScalarRounding; tested exactly in
   * roundingProbabilityIsWithinTheDocumentedBound), and t = (v - lo) / step computed in float is
   * off by two roundings, < 2 x 2^-24 t < 2^-15 for t < 256 (b = 16: in double, far less). Both
   * move the mean by at most (2^-16 + 2^-15) step and the second moment by at most that times
   * step (d(f(1 - f) + beta(1 - 2f)) with |1 - 2f| <= 1, and |d/dt of f(1 - f)| <= 1). BIAS =
   * 2^-14 covers both, and is added to eps explicitly.
   */
  private static final int N = 20_000;

  private static final double EPS_FRACTION = Math.sqrt(Math.log(2 / (1e-6 / 330)) / (2.0 * N));

  private static final double BIAS_FRACTION = 0x1p-14;

  @Test
  void stochasticRoundingIsUnbiasedWithTheStatedVariance() {
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(FEATURES, bits);
      double step = scale.step();
      float[] v = grid(scale);
      double[][] m = moments(scale, N, true);
      for (int g = 0; g < v.length; g++) {
        String what = "bits " + bits + " value " + v[g];
        assertEquals(0, m[g][0], (EPS_FRACTION + BIAS_FRACTION) * step, what);
        double t = ((double) v[g] - scale.lo()) / step;
        double below = Math.min(Math.floor(t), scale.maxCode());
        double variance = (t - below) * (below + 1 - t) * step * step;
        assertEquals(variance, m[g][1], (EPS_FRACTION + BIAS_FRACTION) * step * step, what);
      }
    }
  }

  /**
   * The documented bound on the rounding probability for b <= 8 (ScalarRounding), checked
   * exactly: for a value v with t = fl((v - lo) / step), n = floor(t), the code is n + 1 for a
   * count k of the 2^16 draws h and n for the others, and |k / 2^16 - (t - n)| <= 2^-17 + delta,
   * delta = half the float spacing just below n + 1 (ties of t + u round to the even n + 1).
   * Over all b <= 8 that is at most 2^-16; the test also shows it is reached at b = 8 (t >= 128)
   * and that the 16-bit grid alone errs by at most 2^-17 where t + u is exact.
   */
  @Test
  void roundingProbabilityIsWithinTheDocumentedBound() {
    SplittableRandom random = new SplittableRandom(24);
    double worstAtEight = 0;
    for (int bits : new int[] {1, 2, 4, 8}) {
      QuantizationScale scale = QuantizationScale.forFeatures(FEATURES, bits);
      int maxCode = scale.maxCode();
      for (int i = 0; i < 100; i++) {
        float v = (float) (scale.lo() + (scale.hi() - scale.lo()) * random.nextDouble());
        float t = (v - scale.lo()) / scale.step();
        int n = (int) t;
        if (n >= maxCode) {
          continue; // clamped: nothing to round
        }
        int up = 0;
        for (int h = 0; h < 1 << 16; h++) {
          int code = ScalarRounding.stochasticCode(v, h, bits, scale.lo(), scale.step());
          assertTrue(code == n || code == n + 1, "bits " + bits + " v " + v + " code " + code);
          up += code - n;
        }
        double f = t - n;
        double delta = Math.ulp(Math.nextDown((float) (n + 1))) / 2;
        double error = Math.abs((double) up / (1 << 16) - f);
        String what = "bits " + bits + " v " + v + " t " + t + " error " + error;
        assertTrue(error <= 0x1p-17 + delta, what);
        assertTrue(error <= 0x1p-16, what);
        if (t >= 1 && t < 64) {
          // t shares its binade with the float below n + 1 <= 64, whose spacing (<= 2^-18)
          // divides 2^-17: t + u < n + 1 is then exact, and only the 16-bit grid errs.
          assertTrue(error <= 0x1p-17, what);
        }
        if (bits == 8) {
          worstAtEight = Math.max(worstAtEight, error);
        }
      }
    }
    assertEquals(0x1p-16, worstAtEight, 0x1p-24, "the bound is reached at b = 8, t >= 128");
  }

  @Test
  void roundToNearestFailsTheUnbiasednessCheck() {
    // The same check must reject a biased rounding, or it proves nothing.
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(FEATURES, bits);
      double[][] m = moments(scale, 50, false); // deterministic: a few rows suffice
      double worst = Arrays.stream(m).mapToDouble(x -> Math.abs(x[0])).max().orElseThrow();
      assertTrue(worst > 5 * EPS_FRACTION * scale.step(),
          "bits " + bits + ": largest bias " + worst / scale.step() + " steps");
    }
  }

  /**
   * b = 16 near the top of the range: float32 arithmetic would be biased by ~2^-9 step, which N =
   * 2^24 samples detect; the double path must pass. Hoeffding with delta = 1e-6: eps = step
   * sqrt(ln(2e6) / 2^25) ~ 6.6e-4 step.
   */
  @Test
  void sixteenBitPathIsUnbiasedWhereFloatArithmeticWouldNotBe() {
    QuantizationScale scale = QuantizationScale.forFeatures(FEATURES, 16);
    double step = scale.step();
    int samples = 1 << 24;
    double eps = Math.sqrt(Math.log(2 / 1e-6) / (2.0 * samples));
    // Among values a few hundred ulps below hi, pick the one where the float path is worst. Its
    // mean code is exact: fl(t + u) is monotone in u, so binary search finds the first of the
    // 2^24 grid points u = k 2^-24 that rounds up.
    float v = 0;
    double floatBias = 0;
    float candidate = (float) scale.hi();
    for (int k = 0; k < 400; k++) {
      candidate = Math.nextDown(candidate);
      float t = (candidate - scale.lo()) / scale.step();
      int base = (int) t;
      int lowK = 0;
      int highK = 1 << 24; // first k with (int) (t + k 2^-24) > base, or 2^24 if none
      while (lowK < highK) {
        int mid = (lowK + highK) >>> 1;
        if ((int) (t + mid * 0x1p-24f) > base) {
          highK = mid;
        } else {
          lowK = mid + 1;
        }
      }
      double meanCode = base + (double) ((1 << 24) - lowK) / (1 << 24);
      double exactT = ((double) candidate - scale.lo()) / step;
      double bias = meanCode - exactT;
      if (Math.abs(bias) > Math.abs(floatBias)) {
        floatBias = bias;
        v = candidate;
      }
    }
    assertTrue(Math.abs(floatBias) > 2 * eps, "float bias " + floatBias + " steps");

    float[] values = new float[1 << 20];
    Arrays.fill(values, v);
    byte[] row = new byte[scale.rowBytes(values.length)];
    double sum = 0;
    for (int r = 0; r < samples / values.length; r++) {
      StochasticRounding.quantizeStochastic(values, 0, values.length, scale, SEED, r, 0, 0, row, 0);
      for (int i = 0; i < values.length; i++) {
        sum += (row[2 * i] & 0xFF) | (row[2 * i + 1] & 0xFF) << 8;
      }
    }
    double exactT = ((double) v - scale.lo()) / step;
    assertEquals(exactT, sum / samples, eps, "float path bias would be " + floatBias + " steps");
  }

  // ---- scale and errors

  @Test
  void scaleFollowsTheDesignNotes() {
    QuantizationScale scale = QuantizationScale.forFeatures(FEATURES, 4);
    double s = Math.sqrt(2.0 / FEATURES);
    assertEquals((float) -s, scale.lo());
    assertEquals((float) (2 * s / 15), scale.step());
    assertEquals(16, scale.levels());
    assertEquals(s, scale.hi(), 1e-6 * s);
    assertEquals(2048, scale.rowBytes(FEATURES));
    assertEquals(2, QuantizationScale.forFeatures(9, 1).rowBytes(9));
    assertEquals(QuantizationScale.of(2, -1f, 0.5f), new QuantizationScale(2, -1f, 0.5f));
  }

  @Test
  void valuesWithinTheSlackClampToTheEndCodes() {
    QuantizationScale scale = QuantizationScale.of(2, -1f, 1f); // levels -1, 0, 1, 2
    float[] v = {Math.nextUp(2f), Math.nextDown(-1f), 2f, -1f};
    byte[] out = new byte[1];
    StochasticRounding.quantizeStochastic(v, 0, 4, scale, SEED, 0, 0, 0, out, 0);
    assertArrayEquals(new int[] {3, 0, 3, 0}, BitPackingTest.referenceUnpack(out, 0, 4, 2));
  }

  @Test
  void errorPathsNameTheValues() {
    QuantizationScale scale = QuantizationScale.forFeatures(16, 8);
    byte[] out = new byte[16];
    float[] v = new float[16];
    v[5] = Float.NaN;
    var e = assertThrows(IllegalArgumentException.class,
        () -> StochasticRounding.quantizeStochastic(v, 0, 16, scale, 1, 2, 0, 3, out, 0));
    assertTrue(e.getMessage().contains("values[5] is NaN"), e.getMessage());
    v[5] = 0.5f; // hi = sqrt(2/16) ~ 0.354
    e = assertThrows(IllegalArgumentException.class,
        () -> StochasticRounding.quantizeNearest(v, 0, 16, scale, 0, out, 0));
    assertTrue(e.getMessage().contains("values[5] is 0.5") && e.getMessage().contains("0.35"),
        e.getMessage());
    v[5] = 0;
    e = assertThrows(IllegalArgumentException.class,
        () -> StochasticRounding.quantizeStochastic(v, 0, 16, scale, 1, 2, 12, 3, out, 0));
    assertTrue(e.getMessage().contains("firstColumn is 12"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> StochasticRounding.quantizeStochastic(v, 0, 16, scale, 1, 2, 8, 3, out, 0));
    assertTrue(e.getMessage().contains("16 bytes") && e.getMessage().contains("[8, 24)"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> StochasticRounding.quantizeStochastic(v, 4, 16, scale, 1, 2, 0, 3, out, 0));
    assertTrue(e.getMessage().contains("length 16"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QuantizationScale.forFeatures(16, 3));
    assertTrue(e.getMessage().contains("bits is 3"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QuantizationScale.forFeatures(0, 8));
    assertTrue(e.getMessage().contains("features is 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> QuantizationScale.of(8, 0f, -1f));
    assertTrue(e.getMessage().contains("step is -1.0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> StochasticRounding.quantizeStochastic(v, 0, 16, scale, 1, 2, 0, 3,
            MemorySegment.ofArray(new byte[16]).asReadOnly(), 0));
    assertTrue(e.getMessage().contains("read-only"), e.getMessage());
  }
}
