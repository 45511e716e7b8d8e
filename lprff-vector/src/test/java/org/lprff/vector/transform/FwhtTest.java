package org.lprff.vector.transform;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lprff.vector.simd.panama.VectorShape;
import org.lprff.vector.simd.spi.FwhtBody;
import org.lprff.vector.testing.ProviderTestBase;
import org.lprff.vector.testing.TestSizes;

class FwhtTest extends ProviderTestBase {

  /** Unit roundoff of float32, round to nearest. */
  private static final double U = 0x1p-24;

  private final FwhtBody scalar = SCALAR.fwht();
  private final FwhtBody vector = VECTOR.fwht();

  // ---------------------------------------------------------------- vector vs scalar (exact)

  /**
   * Both bodies evaluate the same butterfly tree (each level rounds a + b and a - b of the same
   * operands; the in-register FMA {@code v * (±1) + partner} rounds exactly the same sum), so they
   * agree bit for bit on any input, not only on ±1 inputs. Sizes 2^1..2^18 cover every path: the
   * scalar fallback below the lane count, the first pass alone, 1..3 merged cross levels, and the
   * depth-first recursion one and two levels deep (block 2^11).
   */
  @Test
  void vectorEqualsScalarBitForBitOnRandomFloats() {
    SplittableRandom random = new SplittableRandom(1);
    for (int e = 1; e <= 18; e++) {
      int n = 1 << e;
      float[] x = randomFloats(random, n);
      float[] expected = x.clone();
      float[] actual = x.clone();
      scalar.transform(expected, 0, n);
      vector.transform(actual, 0, n);
      assertArrayEquals(expected, actual, "n = 2^" + e);

      expected = x.clone();
      actual = x.clone();
      scalar.transformNormalized(expected, 0, n);
      vector.transformNormalized(actual, 0, n);
      assertArrayEquals(expected, actual, "normalized, n = 2^" + e);
    }
  }

  /**
   * On ±1 inputs every partial sum is an integer of magnitude <= n <= 2^24, so float arithmetic is
   * exact and both bodies must equal the true H x exactly, checked here through the scalar body and
   * the identity (Hx)_0 = sum x_j. Includes 2^20 and 2^22 (three levels of recursion).
   */
  @Test
  void vectorEqualsScalarExactlyOnSignInputs() {
    SplittableRandom random = new SplittableRandom(2);
    int[] exponents = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 22};
    for (int e : exponents) {
      int n = 1 << e;
      float[] x = signs(random, n);
      float sum = 0;
      for (float v : x) {
        sum += v; // exact: integers below 2^24
      }
      float[] expected = x.clone();
      float[] actual = x.clone();
      scalar.transform(expected, 0, n);
      vector.transform(actual, 0, n);
      assertArrayEquals(expected, actual, "n = 2^" + e);
      assertEquals(sum, actual[0], "(Hx)_0 is the plain sum, n = 2^" + e);
    }
  }

  // ---------------------------------------------------------------- against the definition

  /**
   * Direct O(n^2) definition in double. Each output is computed by the float butterflies as a
   * binary summation tree of depth L = log2 n over the terms ±x_j, so (Higham, Numerical Accuracy
   * and Stability, eq. 4.4-4.5) |error| <= gamma_L * sum_j |x_j| with gamma_L = L u / (1 - L u), u
   * = 2^-24. We allow L * 2^-23 * sum |x_j|, i.e. 2 gamma_L (the 2x margin also covers the double
   * reference's own error, at most n 2^-53 sum |x_j|, which is below 2^-40 sum |x_j| here). A
   * wrong sign or ordering makes errors of order |x_j|, far above the bound.
   */
  @Test
  void bothBodiesMatchTheDirectDefinition() {
    SplittableRandom random = new SplittableRandom(3);
    for (int e = 1; e <= 10; e++) {
      int n = 1 << e;
      float[] x = randomFloats(random, n);
      double[] exact = directDefinition(x);
      double sumAbs = 0;
      for (float v : x) {
        sumAbs += Math.abs(v);
      }
      double tolerance = e * 0x1p-23 * sumAbs;
      for (FwhtBody kernel : new FwhtBody[] {scalar, vector}) {
        float[] y = x.clone();
        kernel.transform(y, 0, n);
        for (int i = 0; i < n; i++) {
          double err = Math.abs(y[i] - exact[i]);
          assertTrue(
              err <= tolerance,
              kernel.getClass().getSimpleName() + " n=" + n + " i=" + i + " err=" + err
                  + " tol=" + tolerance);
        }
      }
    }
  }

  @Test
  void smallSizesMatchTheSylvesterMatrix() {
    float[] x2 = {3, 5};
    vector.transform(x2, 0, 2);
    assertArrayEquals(new float[] {8, -2}, x2);
    // H_4 = [[1,1,1,1],[1,-1,1,-1],[1,1,-1,-1],[1,-1,-1,1]]
    float[] x4 = {1, 2, 4, 8};
    vector.transform(x4, 0, 4);
    assertArrayEquals(new float[] {15, -5, -9, 3}, x4);
    float[] s4 = {1, 2, 4, 8};
    scalar.transform(s4, 0, 4);
    assertArrayEquals(x4, s4);
  }

  // ---------------------------------------------------------------- algebraic properties

  /**
   * H H = n I. On ±1 inputs the intermediate values are integers up to n and the final ones up to
   * n^2 <= 2^24 for n <= 2^12, so the identity holds exactly.
   */
  @Test
  void applyingTwiceGivesNTimesTheInputExactlyOnSignInputs() {
    SplittableRandom random = new SplittableRandom(4);
    for (int e = 1; e <= 12; e++) {
      int n = 1 << e;
      float[] x = signs(random, n);
      for (FwhtBody kernel : new FwhtBody[] {scalar, vector}) {
        float[] y = x.clone();
        kernel.transform(y, 0, n);
        kernel.transform(y, 0, n);
        for (int i = 0; i < n; i++) {
          assertEquals(n * x[i], y[i], "n=" + n + " i=" + i);
        }
      }
    }
  }

  /**
   * H H x = n x on random floats. With y^ = Hx + e1, |e1_i| <= gamma_L S (S = sum |x_j|), and the
   * second transform adding e2 with |e2_i| <= gamma_L sum |y^_j| <= gamma_L n (1 + gamma_L) S:
   * |(H H x)^_i - n x_i| <= |(H e1)_i| + |e2_i| <= n gamma_L S (2 + gamma_L). We allow 2.01 n
   * gamma_L S with gamma_L bounded by 1.001 L u (L u <= 2^-20 here).
   */
  @Test
  void applyingTwiceGivesNTimesTheInputWithinTheErrorBound() {
    SplittableRandom random = new SplittableRandom(5);
    for (int e = 1; e <= 16; e++) {
      int n = 1 << e;
      float[] x = randomFloats(random, n);
      double sumAbs = 0;
      for (float v : x) {
        sumAbs += Math.abs(v);
      }
      double tolerance = 2.01 * n * 1.001 * e * U * sumAbs;
      float[] y = x.clone();
      vector.transform(y, 0, n);
      vector.transform(y, 0, n);
      for (int i = 0; i < n; i++) {
        double err = Math.abs(y[i] - (double) n * x[i]);
        assertTrue(err <= tolerance, "n=" + n + " i=" + i + " err=" + err + " tol=" + tolerance);
      }
    }
  }

  /**
   * The normalized transform is orthonormal. Per entry, |y^_i - y_i| <= (gamma_L + 2u) S / sqrt(n)
   * (tree error, then one rounding of the scale factor and one of the product); since S <=
   * sqrt(n) ||x||_2, ||y^ - y||_2 <= sqrt(n) (L + 2.01) u ||x||_2, and |(||y^||_2 - ||x||_2)| is
   * at most that. Norms are accumulated in double (error far below the bound).
   */
  @Test
  void normalizedTransformPreservesTheTwoNorm() {
    SplittableRandom random = new SplittableRandom(6);
    for (int e = 1; e <= 16; e++) {
      int n = 1 << e;
      float[] x = randomFloats(random, n);
      float[] y = x.clone();
      vector.transformNormalized(y, 0, n);
      double normX = norm(x);
      double tolerance = Math.sqrt(n) * (e + 2.01) * U * normX;
      assertEquals(normX, norm(y), tolerance, "n = 2^" + e);
    }
  }

  /**
   * The normalized transform is its own inverse. For even log2 n the scale is 2^-L/2, exact, so on
   * ±1 inputs (integer sums) applying it twice returns the input exactly.
   */
  @Test
  void normalizedTransformIsAnInvolutionExactlyForEvenExponents() {
    SplittableRandom random = new SplittableRandom(7);
    for (int e = 2; e <= 16; e += 2) {
      int n = 1 << e;
      float[] x = signs(random, n);
      float[] y = x.clone();
      Fwht.transformNormalized(y);
      Fwht.transformNormalized(y);
      assertArrayEquals(x, y, "n = 2^" + e);
    }
  }

  // ---------------------------------------------------------------- windows and rows

  /** Data before and after the window stay untouched (NaN sentinels compared bit for bit). */
  @Test
  void offsetWindowLeavesTheRestUntouched() {
    SplittableRandom random = new SplittableRandom(8);
    for (int e = 1; e <= 14; e++) {
      int n = 1 << e;
      for (int offset : new int[] {0, 1, 3, 7, 8, 13}) {
        int after = 5;
        float[] window = randomFloats(random, n);
        float[] expected = window.clone();
        scalar.transform(expected, 0, n);
        for (FwhtBody kernel : new FwhtBody[] {scalar, vector}) {
          float[] x = new float[offset + n + after];
          Arrays.fill(x, Float.intBitsToFloat(0x7fc0_1234)); // a NaN with a recognisable payload
          System.arraycopy(window, 0, x, offset, n);
          kernel.transform(x, offset, n);
          String where = kernel.getClass().getSimpleName() + " n=" + n + " offset=" + offset;
          assertArrayEquals(expected, Arrays.copyOfRange(x, offset, offset + n), where);
          for (int i = 0; i < x.length; i++) {
            if (i < offset || i >= offset + n) {
              assertEquals(0x7fc0_1234, Float.floatToRawIntBits(x[i]), where + " i=" + i);
            }
          }
        }
        float[] x = new float[offset + n + after];
        System.arraycopy(window, 0, x, offset, n);
        Fwht.transform(x, offset, n);
        assertArrayEquals(expected, Arrays.copyOfRange(x, offset, offset + n));
        assertEquals(0f, x[x.length - 1]);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4, 8, 16, 64, 1024, 4096})
  void rowsEqualRowByRow(int n) {
    SplittableRandom random = new SplittableRandom(9 + n);
    int rowCount = 5;
    int offset = 3;
    float[] rows = randomFloats(random, offset + n * rowCount + 2);
    float[] expected = rows.clone();
    float[] expectedNormalized = rows.clone();
    for (int r = 0; r < rowCount; r++) {
      scalar.transform(expected, offset + r * n, n);
      scalar.transformNormalized(expectedNormalized, offset + r * n, n);
    }
    float[] actual = rows.clone();
    Fwht.transformRows(actual, offset, n, rowCount);
    assertArrayEquals(expected, actual);
    float[] actualNormalized = rows.clone();
    Fwht.transformRowsNormalized(actualNormalized, offset, n, rowCount);
    assertArrayEquals(expectedNormalized, actualNormalized);

    float[] untouched = rows.clone();
    Fwht.transformRows(untouched, offset, n, 0);
    assertArrayEquals(rows, untouched, "rowCount 0 is a no-op");
  }

  /**
   * The interleaved layout gives every vector the bits of the contiguous scalar transform (same
   * butterfly tree, one rounding per level), for widths below, at and above the lane count (the
   * vector body does whole registers, the scalar body the remaining columns) and every n of the
   * structured projections' range plus the radix-2 tail (odd log n), and up to 2^14, where the
   * vector body goes depth-first at two levels of sub-blocks (at 8 and 16 lanes).
   */
  @Test
  void interleavedEqualsContiguousBitForBit() {
    SplittableRandom random = new SplittableRandom(17);
    int lanes = VectorShape.FLOAT.length();
    int[] widths = {1, 2, lanes - 1, lanes, lanes + 1, 2 * lanes, 3 * lanes + 5};
    for (int e = 1; e <= 14; e++) {
      int n = 1 << e;
      for (int width : widths) {
        int offset = 3;
        float[] x = randomFloats(random, offset + n * width + 2);
        for (boolean normalized : new boolean[] {false, true}) {
          float[] expected = x.clone();
          for (int c = 0; c < width; c++) {
            float[] column = new float[n];
            for (int i = 0; i < n; i++) {
              column[i] = x[offset + i * width + c];
            }
            if (normalized) {
              scalar.transformNormalized(column, 0, n);
            } else {
              scalar.transform(column, 0, n);
            }
            for (int i = 0; i < n; i++) {
              expected[offset + i * width + c] = column[i];
            }
          }
          String where = "n = " + n + ", width = " + width + ", normalized = " + normalized;
          for (FwhtBody body : new FwhtBody[] {scalar, vector}) {
            float[] actual = x.clone();
            body.transformInterleaved(actual, offset, n, width, normalized);
            assertArrayEquals(expected, actual, body.getClass().getSimpleName() + ", " + where);
          }
          float[] viaFacade = x.clone();
          if (normalized) {
            Fwht.transformInterleavedNormalized(viaFacade, offset, n, width);
          } else {
            Fwht.transformInterleaved(viaFacade, offset, n, width);
          }
          assertArrayEquals(expected, viaFacade, "facade, " + where);
        }
      }
    }
  }

  @Test
  void interleavedRejectsBadArguments() {
    float[] x = new float[64];
    assertMessage(() -> Fwht.transformInterleaved(x, 0, 8, 0), "width = 0");
    assertMessage(() -> Fwht.transformInterleaved(x, 0, 12, 2), "n = 12");
    assertMessage(() -> Fwht.transformInterleaved(x, 1, 8, 8), "width = 8");
    assertMessage(() -> Fwht.transformInterleavedNormalized(x, 0, 16, 8), "[0, 128)");
    assertMessage(() -> Fwht.transformInterleaved(null, 0, 2, 1), "null");
  }

  @Test
  void facadeWholeArrayOverloadsMatchTheKernels() {
    SplittableRandom random = new SplittableRandom(10);
    float[] x = randomFloats(random, 256);
    float[] expected = x.clone();
    scalar.transform(expected, 0, 256);
    float[] actual = x.clone();
    Fwht.transform(actual);
    assertArrayEquals(expected, actual);
    expected = x.clone();
    scalar.transformNormalized(expected, 0, 256);
    actual = x.clone();
    Fwht.transformNormalized(actual);
    assertArrayEquals(expected, actual);
  }

  /** Every output depends on every input, so one NaN must reach all n outputs in both bodies. */
  @Test
  void aNanInputPropagatesToEveryOutput() {
    SplittableRandom random = new SplittableRandom(11);
    for (int e = 1; e <= 14; e++) {
      int n = 1 << e;
      float[] x = randomFloats(random, n);
      x[random.nextInt(n)] = Float.NaN;
      for (FwhtBody kernel : new FwhtBody[] {scalar, vector}) {
        float[] y = x.clone();
        kernel.transformNormalized(y, 0, n);
        for (int i = 0; i < n; i++) {
          assertTrue(Float.isNaN(y[i]), kernel.getClass().getSimpleName() + " n=" + n + " i=" + i);
        }
      }
    }
  }

  // ---------------------------------------------------------------- error paths

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3, 12, -4, Integer.MIN_VALUE})
  void rejectsLengthsThatAreNotPowersOfTwoAtLeastTwo(int n) {
    float[] big = new float[64];
    assertMessage(() -> Fwht.transform(big, 0, n), "n = " + n);
    assertMessage(() -> Fwht.transformNormalized(big, 0, n), "n = " + n);
    assertMessage(() -> Fwht.transformRows(big, 0, n, 1), "n = " + n);
    assertMessage(() -> Fwht.transformRowsNormalized(big, 0, n, 1), "n = " + n);
    if (n >= 0) {
      assertMessage(() -> Fwht.transform(new float[n]), "length " + n);
      assertMessage(() -> Fwht.transformNormalized(new float[n]), "length " + n);
    }
  }

  /** Every size of the shared sweep that is not a power of two >= 2 is refused by name. */
  @Test
  void rejectsEveryNonPowerOfTwoOfTheSharedSizes() {
    for (int n : TestSizes.general()) {
      float[] x = new float[n];
      if (n >= 2 && Integer.bitCount(n) == 1) {
        Fwht.transform(x); // accepted; zeros stay zeros
        assertArrayEquals(new float[n], x);
      } else {
        assertMessage(() -> Fwht.transform(x), "length " + n);
        assertMessage(() -> Fwht.transform(new float[n + 8], 0, n), "n = " + n);
      }
    }
  }

  @Test
  void rejectsWindowsOutsideTheArray() {
    float[] x = new float[20];
    assertMessage(() -> Fwht.transform(x, -1, 8), "offset = -1");
    assertMessage(() -> Fwht.transform(x, 13, 8), "offset = 13");
    assertMessage(() -> Fwht.transform(x, 13, 8), "length 20");
    assertMessage(() -> Fwht.transform(x, 0, 32), "length 20");
    assertMessage(() -> Fwht.transformNormalized(x, 21, 2), "offset = 21");
    assertMessage(() -> Fwht.transformRows(x, 4, 8, 3), "rowCount = 3");
    assertMessage(() -> Fwht.transformRows(x, 0, 4, 6), "[0, 24)");
    assertMessage(() -> Fwht.transformRows(x, 0, 4, -1), "rowCount = -1");
    assertMessage(() -> Fwht.transformRowsNormalized(x, 0, 4, -2), "rowCount = -2");
    // n * rowCount overflows int: must be rejected, not wrapped around.
    assertMessage(
        () -> Fwht.transformRows(x, 0, 1 << 30, 1 << 20), "rowCount = " + (1 << 20));
    assertMessage(() -> Fwht.transform(null), "null");
    assertMessage(() -> Fwht.transform(null, 0, 2), "null");
  }

  // ---------------------------------------------------------------- helpers


  private static float[] randomFloats(SplittableRandom random, int n) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      // Triangular on (-1, 1) times a random power of two in [2^-3, 2^3]: varied magnitudes.
      double triangular = random.nextDouble() + random.nextDouble() - 1;
      x[i] = (float) (triangular * Math.scalb(1.0, random.nextInt(-3, 4)));
    }
    return x;
  }

  private static float[] signs(SplittableRandom random, int n) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = random.nextBoolean() ? 1f : -1f;
    }
    return x;
  }

  private static double[] directDefinition(float[] x) {
    int n = x.length;
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) {
        s += (Integer.bitCount(i & j) & 1) == 0 ? x[j] : -x[j];
      }
      y[i] = s;
    }
    return y;
  }

  private static double norm(float[] x) {
    double s = 0;
    for (float v : x) {
      s += (double) v * v;
    }
    return Math.sqrt(s);
  }
}
