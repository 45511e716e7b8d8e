package org.lprff.vector.featurize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertExactMessage;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.panama.VectorShape;
import org.lprff.vector.simd.spi.CosineBody;
import org.lprff.vector.testing.ProviderTestBase;
import org.lprff.vector.testing.TestSizes;

class CosineFeaturesTest extends ProviderTestBase {

  /**
   * The requirement: absolute error at most 1e-6 for s = 1, and 1e-6 * max(1, |s|) in general,
   * against s * cos((double) fl(t + a)) in double. Not derived from the kernels: the polynomial
   * body's own analysis gives about 1.3e-7 and the SVML one ({@code VectorOperators.COS}, the
   * benchmarks' reference, held to the same bound by jmh's {@code VectorCosineOperatorTest}) is
   * about 1 ulp, so this bound has room, and the sweep below prints what was actually observed.
   */
  private static final double BOUND = 1e-6;

  /** Largest |t| the requirement covers; phases add up to 2 pi and the sweep adds 7. */
  private static final float T_MAX = 1e4f;

  private static final float[] NON_FINITE = {
    Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY
  };

  static List<CosineBody> kernels() {
    return List.of(SCALAR.cosine(), VECTOR.cosine());
  }

  static List<CosineBody> vectorKernels() {
    return List.of(VECTOR.cosine());
  }

  private static String name(CosineBody kernel) {
    return kernel.getClass().getSimpleName();
  }

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
      double reference = s * Math.cos((double) (t[i] + a[i]));
      max = Math.max(max, Math.abs(out[i] - reference));
    }
    return max / Math.max(1.0, Math.abs(s));
  }

  // ---------------------------------------------------------------- the reference itself

  @Test
  void scalarReferenceAgreesWithIndependentFdlibmCosine() {
    // StrictMath.cos is fdlibm, a separate implementation from the (intrinsic) Math.cos; both are
    // within 1 ulp of a double, so after rounding to float they agree to 1 float ulp.
    SplittableRandom random = new SplittableRandom(1);
    int n = 100_000;
    float[] t = uniform(random, n, -T_MAX, T_MAX);
    float[] a = uniform(random, n, 0, 2 * Math.PI);
    float s = (float) Math.sqrt(2.0 / 1000);
    float[] out = new float[n];
    assertFalse(SCALAR.cosine().map(t, 0, a, 0, s, out, 0, n));
    for (int i = 0; i < n; i++) {
      float independent = (float) (s * StrictMath.cos((double) (t[i] + a[i])));
      assertTrue(
          Math.abs(out[i] - independent) <= Math.ulp(independent),
          "i = " + i + ": " + out[i] + " vs " + independent);
    }
  }

  @ParameterizedTest
  @MethodSource("kernels")
  void exactValuesAtZero(CosineBody kernel) {
    // cos(0) = 1 exactly, and cos(-0) too; so out = s exactly.
    float s = 0.125f;
    float[] out = new float[3];
    kernel.map(new float[] {0f, -0f, 0f}, 0, new float[] {0f, -0f, -0f}, 0, s, out, 0, 3);
    assertArrayEquals(new float[] {s, s, s}, out, 0f, name(kernel));
  }

  // ---------------------------------------------------------------- accuracy

  @ParameterizedTest
  @MethodSource("kernels")
  void matchesDoubleReferenceOnAllGeneralSizes(CosineBody kernel) {
    SplittableRandom random = new SplittableRandom(2);
    for (int n : TestSizes.general()) {
      float[] t = uniform(random, n, -T_MAX, T_MAX);
      float[] a = uniform(random, n, 0, 2 * Math.PI);
      float[] out = new float[n];
      assertFalse(kernel.map(t, 0, a, 0, 1f, out, 0, n));
      double error = maxScaledError(t, a, 1f, out, n);
      assertTrue(error <= BOUND, name(kernel) + " n = " + n + ": max error " + error);
    }
  }

  @ParameterizedTest
  @MethodSource("kernels")
  void meetsScaledBoundForFeatureScales(CosineBody kernel) {
    SplittableRandom random = new SplittableRandom(3);
    int n = 4099;
    float[] t = uniform(random, n, -T_MAX, T_MAX);
    float[] a = uniform(random, n, 0, 2 * Math.PI);
    float[] out = new float[n];
    for (int m : new int[] {1, 2, 3, 64, 1000, 4096, 1 << 20}) {
      float s = (float) Math.sqrt(2.0 / m);
      kernel.map(t, 0, a, 0, s, out, 0, n);
      double error = maxScaledError(t, a, s, out, n);
      assertTrue(error <= BOUND, name(kernel) + " m = " + m + ": max error " + error);
    }
    for (float s : new float[] {-3.5f, 1e20f, 1e-30f}) {
      kernel.map(t, 0, a, 0, s, out, 0, n);
      double error = maxScaledError(t, a, s, out, n);
      assertTrue(error <= BOUND, name(kernel) + " s = " + s + ": max error " + error);
    }
  }

  /**
   * The dense sweep: 10^7 evenly spaced arguments over [-1e4 - 7, 1e4 + 7], every float of
   * [8192, 1e4 + 7] with both signs (the largest quadrant numbers, where the reduction errs most),
   * and special points: the floats nearest k pi/4 with 2 neighbours each side, tiny values, +-0.
   * a = -0 so that fl(t + a) = t exactly, -0 included.
   */
  @ParameterizedTest
  @MethodSource("vectorKernels")
  void denseSweepMeetsBound(CosineBody kernel) {
    float lo = -T_MAX - 7;
    float hi = T_MAX + 7;
    Sweep sweep = new Sweep(kernel);
    int gridPoints = 10_000_000;
    double step = ((double) hi - lo) / (gridPoints - 1);
    for (int i = 0; i < gridPoints; i++) {
      sweep.add((float) (lo + i * step));
    }
    for (float x = 8192f; x <= hi; x = Math.nextUp(x)) {
      sweep.add(x);
      sweep.add(-x);
    }
    long maxQuarter = (long) Math.ceil(hi / (Math.PI / 4));
    for (long k = -maxQuarter; k <= maxQuarter; k++) {
      float nearest = (float) (k * (Math.PI / 4));
      float x = Math.nextDown(Math.nextDown(nearest));
      for (int j = 0; j < 5; j++, x = Math.nextUp(x)) {
        sweep.add(x);
      }
    }
    for (float tiny :
        new float[] {
          0f, -0f, Float.MIN_VALUE, Float.MIN_NORMAL, 1e-30f, 1e-10f, 1e-5f, 1e-3f, 0.1f, 0.5f
        }) {
      sweep.add(tiny);
      sweep.add(-tiny);
    }
    sweep.flush();
    System.out.printf(
        Locale.ROOT,
        "%s: %d arguments in [%s, %s], max abs error %.3g at x = %s%n",
        name(kernel),
        sweep.count,
        lo,
        hi,
        sweep.maxError,
        sweep.worst);
    assertTrue(
        sweep.maxError <= BOUND,
        name(kernel) + ": max error " + sweep.maxError + " at x = " + sweep.worst);
  }

  /** Feeds arguments through a kernel in chunks and keeps the largest error against double. */
  private static final class Sweep {
    private static final int CHUNK = 1 << 16;
    private final CosineBody kernel;
    private final float[] t = new float[CHUNK];
    private final float[] a = new float[CHUNK];
    private final float[] out = new float[CHUNK];
    private int filled;
    long count;
    double maxError;
    float worst;

    Sweep(CosineBody kernel) {
      this.kernel = kernel;
      Arrays.fill(a, -0f);
    }

    void add(float x) {
      t[filled++] = x;
      if (filled == CHUNK) {
        flush();
      }
    }

    void flush() {
      assertFalse(kernel.map(t, 0, a, 0, 1f, out, 0, filled));
      for (int i = 0; i < filled; i++) {
        double error = Math.abs(out[i] - Math.cos(t[i]));
        if (error > maxError) {
          maxError = error;
          worst = t[i];
        }
      }
      count += filled;
      filled = 0;
    }
  }

  @ParameterizedTest
  @MethodSource("kernels")
  void largeFiniteArgumentsStayAccurateAndAreNotMistakenForNaN(CosineBody kernel) {
    // Past 2^20 the polynomial body falls back to Math.cos per lane; the bound still holds.
    float[] t = {
      0x1p20f, Math.nextUp(0x1p20f), -0x1.8p21f, 6.5e6f, 1e7f, -3e9f, 1e30f, Float.MAX_VALUE,
      -Float.MAX_VALUE, 12345.678f, 1e8f, 2e20f, 3.3f, -7e5f, 4e6f, 1e38f, 5f
    };
    int n = t.length;
    float[] a = new float[n];
    float[] out = new float[n];
    assertFalse(kernel.map(t, 0, a, 0, 1f, out, 0, n), name(kernel));
    double error = maxScaledError(t, a, 1f, out, n);
    assertTrue(error <= BOUND, name(kernel) + ": max error " + error);
    CosineFeatures.map(t, a, 1f, out);
  }

  // ---------------------------------------------------------------- structure

  @ParameterizedTest
  @MethodSource("kernels")
  void eachOutputDependsOnlyOnItsOwnArgument(CosineBody kernel) {
    // Body lanes and tail elements must be the same function: one call over n elements equals n
    // calls of one element, bit for bit.
    SplittableRandom random = new SplittableRandom(4);
    int n = 4 * VectorShape.floatLanes() + 3;
    float[] t = uniform(random, n, -T_MAX, T_MAX);
    float[] a = uniform(random, n, 0, 2 * Math.PI);
    float s = 0.03f;
    float[] whole = new float[n];
    kernel.map(t, 0, a, 0, s, whole, 0, n);
    float[] single = new float[n];
    for (int i = 0; i < n; i++) {
      kernel.map(t, i, a, i, s, single, i, 1);
    }
    assertArrayEquals(whole, single, 0f, name(kernel));
  }

  @ParameterizedTest
  @MethodSource("kernels")
  void offsetsAreHonouredAndLeaveOtherElementsUntouched(CosineBody kernel) {
    SplittableRandom random = new SplittableRandom(5);
    int n = 2 * VectorShape.floatLanes() + 5;
    float[] t = uniform(random, n, -T_MAX, T_MAX);
    float[] a = uniform(random, n, 0, 2 * Math.PI);
    float s = 0.5f;
    float[] expected = new float[n];
    kernel.map(t, 0, a, 0, s, expected, 0, n);

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
    kernel.map(tShifted, tOff, aShifted, aOff, s, out, outOff, n);
    assertArrayEquals(expected, Arrays.copyOfRange(out, outOff, outOff + n), 0f, name(kernel));
    for (int i = 0; i < out.length; i++) {
      if (i < outOff || i >= outOff + n) {
        assertEquals(sentinel, out[i], name(kernel) + " touched out[" + i + "]");
      }
    }
  }

  @ParameterizedTest
  @MethodSource("kernels")
  void inPlaceGivesTheSameResult(CosineBody kernel) {
    SplittableRandom random = new SplittableRandom(6);
    int n = 3 * VectorShape.floatLanes() + 1;
    float[] t = uniform(random, n, -T_MAX, T_MAX);
    float[] a = uniform(random, n, 0, 2 * Math.PI);
    float[] expected = new float[n];
    kernel.map(t, 0, a, 0, 2f, expected, 0, n);
    float[] tInPlace = t.clone();
    kernel.map(tInPlace, 0, a, 0, 2f, tInPlace, 0, n);
    assertArrayEquals(expected, tInPlace, 0f, name(kernel) + " out = t");
    float[] aInPlace = a.clone();
    kernel.map(t, 0, aInPlace, 0, 2f, aInPlace, 0, n);
    assertArrayEquals(expected, aInPlace, 0f, name(kernel) + " out = a");
  }

  @Test
  void facadeUsesTheActiveImplementation() {
    SplittableRandom random = new SplittableRandom(7);
    int n = 1000;
    float[] t = uniform(random, n, -T_MAX, T_MAX);
    float[] a = uniform(random, n, 0, 2 * Math.PI);
    float s = (float) Math.sqrt(2.0 / n);
    float[] expected = new float[n];
    CosineBody active = VectorizationProvider.get().cosine();
    active.map(t, 0, a, 0, s, expected, 0, n);
    float[] out = new float[n];
    CosineFeatures.map(t, a, s, out);
    assertArrayEquals(expected, out, 0f);
    float[] outWithOffsets = new float[n + 2];
    CosineFeatures.map(t, 0, a, 0, s, outWithOffsets, 2, n);
    assertArrayEquals(expected, Arrays.copyOfRange(outWithOffsets, 2, n + 2), 0f);
  }

  // ---------------------------------------------------------------- NaN and infinity

  @ParameterizedTest
  @MethodSource("kernels")
  void kernelsReportNaNOutputForEveryNonFiniteArgument(CosineBody kernel) {
    for (int n : new int[] {1, VectorShape.floatLanes(), 2 * VectorShape.floatLanes() + 3}) {
      for (int at : new int[] {0, n / 2, n - 1}) {
        for (float bad : NON_FINITE) {
          for (boolean inPhase : new boolean[] {false, true}) {
            float[] t = new float[n];
            float[] a = new float[n];
            (inPhase ? a : t)[at] = bad;
            float[] out = new float[n];
            String where =
                name(kernel) + " n = " + n + ", " + (inPhase ? "a" : "t") + "[" + at + "]";
            assertTrue(kernel.map(t, 0, a, 0, 1f, out, 0, n), where);
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
  void facadeNamesArrayIndexAndValueOfTheFirstNonFiniteInput() {
    int n = 2 * VectorShape.floatLanes() + 5;
    for (String array : new String[] {"t", "a"}) {
      for (int at : new int[] {0, n / 2, n - 1}) {
        for (float bad : NON_FINITE) {
          float[] t = new float[n];
          float[] a = new float[n];
          Arrays.fill(t, 1f);
          Arrays.fill(a, 2f);
          (array.equals("t") ? t : a)[at] = bad;
          if (at + 3 < n) {
            // A later offender must not be the one reported.
            (array.equals("t") ? a : t)[at + 3] = Float.NaN;
          }
          IllegalArgumentException e =
              assertThrows(
                  IllegalArgumentException.class, () -> CosineFeatures.map(t, a, 1f, new float[n]));
          String expected = array + "[" + at + "] = " + bad;
          assertTrue(e.getMessage().contains(expected), e.getMessage() + " lacks " + expected);
          assertTrue(
              e.getMessage().contains(Float.isNaN(bad) ? "NaN" : "Infinity"), e.getMessage());
        }
      }
    }
  }

  @Test
  void facadeReportsArrayIndicesWithOffsets() {
    float[] t = new float[20];
    float[] a = new float[30];
    a[17] = Float.NEGATIVE_INFINITY;
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CosineFeatures.map(t, 4, a, 10, 1f, new float[12], 1, 11));
    assertTrue(e.getMessage().startsWith("a[17] = -Infinity"), e.getMessage());
    assertTrue(e.getMessage().contains("element 7 of n = 11"), e.getMessage());
  }

  @Test
  void facadeRejectsASumThatOverflows() {
    float[] t = {0f, 3e38f, 0f};
    float[] a = {0f, 3e38f, 0f};
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> CosineFeatures.map(t, a, 1f, new float[3]));
    assertTrue(
        e.getMessage().contains("t[1] + a[1] = 3.0E38 + 3.0E38 overflows to Infinity"),
        e.getMessage());
  }

  @Test
  void facadeRejectsNonFiniteInputInPlaceAndSaysTheValueWasOverwritten() {
    float[] t = {1f, 2f, Float.NaN, 4f, 5f};
    float[] a = new float[5];
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CosineFeatures.map(t, a, 1f, t));
    assertTrue(e.getMessage().startsWith("t[2] is NaN or Infinity"), e.getMessage());
    assertTrue(e.getMessage().contains("overwritten in place"), e.getMessage());
    float[] b = {1f, 2f, 3f, Float.POSITIVE_INFINITY};
    float[] phases = b.clone();
    e =
        assertThrows(
            IllegalArgumentException.class, () -> CosineFeatures.map(b, phases, 1f, phases));
    assertTrue(e.getMessage().startsWith("t[3] = Infinity"), e.getMessage());
  }

  // ---------------------------------------------------------------- argument validation

  @Test
  void facadeRejectsMismatchedLengths() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CosineFeatures.map(new float[5], new float[4], 1f, new float[5]));
    assertEquals("a has length 4, expected the length of t, 5", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CosineFeatures.map(new float[5], new float[5], 1f, new float[6]));
    assertEquals("out has length 6, expected the length of t, 5", e.getMessage());
  }

  @Test
  void facadeRejectsBadRangesNamingThem() {
    float[] x = new float[10];
    assertExactMessage(
        "n = -1, expected n >= 0",
        () -> CosineFeatures.map(x, 0, x, 0, 1f, new float[10], 0, -1));
    assertExactMessage(
        "t range [-1, 4) does not fit its length 10",
        () -> CosineFeatures.map(x, -1, new float[10], 0, 1f, new float[10], 0, 5));
    assertExactMessage(
        "a range [6, 11) does not fit its length 10",
        () -> CosineFeatures.map(x, 0, new float[10], 6, 1f, new float[10], 0, 5));
    assertExactMessage(
        "out range [8, 13) does not fit its length 12",
        () -> CosineFeatures.map(x, 0, new float[10], 0, 1f, new float[12], 8, 5));
    assertExactMessage(
        "t range [2147483647, 2147483652) does not fit its length 10",
        () -> CosineFeatures.map(x, Integer.MAX_VALUE, x, 0, 1f, new float[10], 0, 5));
    assertExactMessage(
        "out range [2, 7) overlaps t range [0, 5) of the same array;"
            + " only the same offset (in place) is allowed",
        () -> CosineFeatures.map(x, 0, new float[10], 0, 1f, x, 2, 5));
    assertExactMessage(
        "out range [0, 5) overlaps a range [4, 9) of the same array;"
            + " only the same offset (in place) is allowed",
        () -> CosineFeatures.map(new float[10], 0, x, 4, 1f, x, 0, 5));
    // Disjoint ranges of one array are fine, and n = 0 touches nothing.
    CosineFeatures.map(x, 0, x, 0, 1f, x, 5, 5);
    CosineFeatures.map(x, 10, x, 10, 1f, x, 10, 0);
  }

  @Test
  void facadeRejectsNonFiniteScale() {
    float[] x = new float[3];
    for (float s : NON_FINITE) {
      assertExactMessage(
          "s = " + s + ", expected a finite scale",
          () -> CosineFeatures.map(x, x, s, new float[3]));
    }
  }

  @Test
  void facadeRejectsNullArraysByName() {
    float[] x = new float[3];
    assertNullNamed("t", () -> CosineFeatures.map(null, x, 1f, x));
    assertNullNamed("a", () -> CosineFeatures.map(x, null, 1f, x));
    assertNullNamed("out", () -> CosineFeatures.map(x, x, 1f, null));
    assertNullNamed("t", () -> CosineFeatures.map(null, 0, x, 0, 1f, x, 0, 0));
  }

  private static void assertNullNamed(String expected, Runnable call) {
    assertEquals(expected, assertThrows(NullPointerException.class, call::run).getMessage());
  }

}
