package org.lprff.vector.products;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.CodebookRows;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.panama.VectorShape;
import org.lprff.vector.simd.spi.ProductsBody;
import org.lprff.vector.testing.PackedReadReference;
import org.lprff.vector.testing.ProviderTestBase;
import org.lprff.vector.testing.TestSizes;

/**
 * Packed and float products against dequantize-then-multiply in double.
 *
 * <p>Tolerance (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 3.1):
 * a float32 sum of k products, evaluated in ANY order and with or without fused multiply-adds,
 * satisfies |computed - exact| <= gamma_k * sum |x_i||y_i|, gamma_k = k u / (1 - k u), u =
 * 2^-24, because each term passes through at most k roundings. "exact" is the double sum of the
 * float feature values {@code z = fma(code, step, lo)} (the contract defines them so) times the
 * float weights.
 *
 * <p>Scalar body and float rows: the feature values are those same floats, so the only error is
 * the summation: forward sums k = m products; the transposed accumulate sums the old G entry and
 * n products, k = n + 1. Bound gamma_k * sum |z_i||y_i|.
 *
 * <p>Vector body, packed rows: the affine map is factored out, {@code y = fl(fma(step, A^, fl(lo
 * * W^)))} with A^ the float sum of the m products code_i w_i (error <= gamma_m * sum code_i
 * |w_i|, codes >= 0) and W^ the float sum of the w_i (error <= gamma_m * sum |w_i|); the two
 * final roundings and the rounding of the reference values (|z_i - (lo + step code_i)| <= u |lo +
 * step code_i|) add u each times at most (1 + gamma_m)(1 + u)^2, which stays within gamma_(m+3):
 * |y - exact| <= gamma_(m+3) * (step * sum_i code_i |w_i| + |lo| * sum_i |w_i|). The accumulate
 * is the same with one more rounding (adding to the old G entry g0): |g - exact| <= gamma_(n+4) *
 * (|g0| + step * sum_r code_r |d_r| + |lo| * sum_r |d_r|). This is looser than the scalar bound
 * where the values lo + step code cancel (|lo + step code| < |lo| + step code): the price of one
 * FMA less per decoded feature. Vector and scalar differ by at most the sum of their bounds.
 *
 * <p>Codebook rows (values {@code levels[code]}): both bodies look the float levels up and sum
 * level times weight, nothing factored out, so both meet the scalar bounds above (gamma_m *
 * sum |z_i||w_i| forward, gamma_(n+1) * (|g0| + sum |z_r||d_r|) accumulated), and differ from
 * each other by at most twice that.
 */
class PackedProductsTest extends ProviderTestBase {

  private static final ProductsBody SCALAR = ProviderTestBase.SCALAR.products();
  private static final ProductsBody VECTOR = ProviderTestBase.VECTOR.products();
  private static final int[] CLASSES = {1, 2, 3, 10, 17};
  private static final int[] ROWS = {0, 1, 7, 250};
  private static final int FLOAT = PackedLayout.FLOAT_BITS;

  /** A batch of n rows: its bytes (at a 3-byte unaligned offset) and its float values. */
  private record Batch(byte[] bytes, long offset, int n, int m, int bits, float lo, float step,
      double[][] z, int[][] codes) {}

  private static PackedRows rows(Batch b) {
    return PackedRows.of(
        b.bytes(), (int) b.offset(), b.n(), b.m(), QuantizationScale.of(b.bits(), b.lo(), b.step()));
  }

  private static Batch batch(SplittableRandom random, int n, int m, int bits) {
    long offset = 3;
    long rowBytes = PackedLayout.rowBytes(m, bits);
    byte[] bytes = new byte[(int) (offset + n * rowBytes)];
    double[][] z = new double[n][m];
    int[][] codes = new int[n][m];
    float lo = PackedReadReference.lo(m);
    float step = bits == FLOAT ? 0f : PackedReadReference.step(m, bits);
    if (bits == FLOAT) {
      MemorySegment s = MemorySegment.ofArray(bytes);
      for (int r = 0; r < n; r++) {
        for (int i = 0; i < m; i++) {
          float v = (float) random.nextDouble(-1, 1);
          PackedReadReference.putFloatLe(s, offset + r * rowBytes + 4L * i, v);
          z[r][i] = v;
        }
      }
    } else {
      random.nextBytes(bytes);
      for (int r = 0; r < n; r++) {
        for (int i = 0; i < m; i++) {
          int code = PackedReadReference.bitByBitCode(bytes, (int) (offset + r * rowBytes), bits, i);
          z[r][i] = PackedReadReference.value(code, lo, step);
          codes[r][i] = code;
        }
      }
    }
    return new Batch(bytes, offset, n, m, bits, lo, step, z, codes);
  }

  private static float[] randomFloats(SplittableRandom random, int length) {
    float[] a = new float[length];
    for (int i = 0; i < length; i++) {
      a[i] = (float) random.nextDouble(-1, 1);
    }
    return a;
  }

  /** Checks forward of both bodies against the double reference for one batch and c. */
  private static void checkForward(Batch b, MemorySegment z, int c, SplittableRandom random) {
    int n = b.n();
    int m = b.m();
    float[] wT = randomFloats(random, c * m + 1);
    float[] ys = new float[n * c + 1];
    float[] yv = new float[n * c + 1];
    Arrays.fill(ys, 99f);
    Arrays.fill(yv, 99f);
    SCALAR.forward(z, b.offset(), n, m, b.bits(), b.lo(), b.step(), wT, c, ys);
    VECTOR.forward(z, b.offset(), n, m, b.bits(), b.lo(), b.step(), wT, c, yv);
    double gamma = PackedReadReference.gamma(m);
    double gammaFactored = PackedReadReference.gamma(m + 3L);
    boolean factored = b.bits() != FLOAT;
    for (int r = 0; r < n; r++) {
      for (int j = 0; j < c; j++) {
        double exact = 0;
        double abs = 0;
        double absFactored = 0;
        for (int i = 0; i < m; i++) {
          double p = b.z()[r][i] * wT[j * m + i];
          exact += p;
          abs += Math.abs(p);
          absFactored += (b.step() * b.codes()[r][i] - b.lo()) * Math.abs(wT[j * m + i]);
        }
        double bound = gamma * abs;
        double vectorBound = factored ? gammaFactored * absFactored : bound;
        int at = r * c + j;
        String where = "bits=" + b.bits() + " n=" + n + " m=" + m + " c=" + c + " r=" + r
            + " j=" + j;
        assertTrue(Math.abs(ys[at] - exact) <= bound, where + " scalar " + ys[at] + " vs " + exact);
        assertTrue(
            Math.abs(yv[at] - exact) <= vectorBound, where + " vector " + yv[at] + " vs " + exact);
        assertTrue(Math.abs(yv[at] - ys[at]) <= bound + vectorBound, where);
      }
    }
    assertEquals(99f, ys[n * c], "scalar wrote past n*c");
    assertEquals(99f, yv[n * c], "vector wrote past n*c");
  }

  /** Checks G += Z^T D of both bodies, G starting non-zero, against the double reference. */
  private static void checkAccumulate(Batch b, MemorySegment z, int c, SplittableRandom random) {
    int n = b.n();
    int m = b.m();
    float[] d = randomFloats(random, n * c);
    float[] g0 = randomFloats(random, c * m + 1);
    float[] gs = g0.clone();
    float[] gv = g0.clone();
    SCALAR.accumulateTransposed(z, b.offset(), n, m, b.bits(), b.lo(), b.step(), d, c, gs);
    VECTOR.accumulateTransposed(z, b.offset(), n, m, b.bits(), b.lo(), b.step(), d, c, gv);
    double gamma = PackedReadReference.gamma(n + 1L);
    double gammaFactored = PackedReadReference.gamma(n + 4L);
    boolean factored = b.bits() != FLOAT;
    for (int j = 0; j < c; j++) {
      for (int i = 0; i < m; i++) {
        int at = j * m + i;
        double exact = g0[at];
        double abs = Math.abs(g0[at]);
        double absFactored = Math.abs(g0[at]);
        for (int r = 0; r < n; r++) {
          double p = b.z()[r][i] * d[r * c + j];
          exact += p;
          abs += Math.abs(p);
          absFactored += (b.step() * b.codes()[r][i] - b.lo()) * Math.abs(d[r * c + j]);
        }
        double bound = gamma * abs;
        double vectorBound = factored ? gammaFactored * absFactored : bound;
        String where = "bits=" + b.bits() + " n=" + n + " m=" + m + " c=" + c + " i=" + i
            + " j=" + j;
        assertTrue(Math.abs(gs[at] - exact) <= bound, where + " scalar " + gs[at] + " vs " + exact);
        assertTrue(
            Math.abs(gv[at] - exact) <= vectorBound, where + " vector " + gv[at] + " vs " + exact);
        assertTrue(Math.abs(gv[at] - gs[at]) <= bound + vectorBound, where);
      }
    }
    assertEquals(g0[c * m], gs[c * m], "scalar wrote past c*m");
    assertEquals(g0[c * m], gv[c * m], "vector wrote past c*m");
  }

  /** m sweeps for the small batches (all general sizes) and for the 250-row batch (a subset). */
  private static int[] sizesFor(int n) {
    if (n <= 7) {
      return TestSizes.general();
    }
    int lanes = VectorShape.floatLanes();
    return new int[] {0, 1, 5, lanes - 1, lanes, lanes + 1, 8 * lanes + 3, 61, 127, 513, 1021, 4096};
  }

  private static void sweep(int[] bitsList, boolean forward) {
    SplittableRandom random = new SplittableRandom(forward ? 10 : 11);
    try (Arena arena = Arena.ofConfined()) {
      for (int bits : bitsList) {
        for (int n : ROWS) {
          for (int m : sizesFor(n)) {
            Batch b = batch(random, n, m, bits);
            // Alternate heap and off-heap segments.
            MemorySegment z = PackedReadReference.segment(b.bytes(), (m + n) % 2 == 0, arena);
            for (int c : CLASSES) {
              if (n == 250 && m >= 1000 && c == 17 && bits != 4) {
                continue; // keeps the run short; 4 bits and the float rows cover this shape
              }
              if (forward) {
                checkForward(b, z, c, random);
              } else {
                checkAccumulate(b, z, c, random);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void packedForwardWithinGammaBound() {
    sweep(PackedReadReference.BITS, true);
  }

  @Test
  void packedAccumulateWithinGammaBound() {
    sweep(PackedReadReference.BITS, false);
  }

  @Test
  void floatForwardWithinGammaBound() {
    sweep(new int[] {FLOAT}, true);
  }

  @Test
  void floatAccumulateWithinGammaBound() {
    sweep(new int[] {FLOAT}, false);
  }

  @Test
  void accumulateAddsAndZeroGradientLeavesGUnchanged() {
    SplittableRandom random = new SplittableRandom(12);
    for (ProductsBody kernel : new ProductsBody[] {SCALAR, VECTOR}) {
      for (int bits : new int[] {1, 4, 16, FLOAT}) {
        int n = 7;
        int m = 37;
        int c = 3;
        Batch b = batch(random, n, m, bits);
        MemorySegment z = MemorySegment.ofArray(b.bytes());
        float[] g0 = randomFloats(random, c * m);
        // D = 0: every product is +-0, G + 0 = G exactly.
        float[] g = g0.clone();
        kernel.accumulateTransposed(z, b.offset(), n, m, bits, b.lo(), b.step(), new float[n * c], c, g);
        assertArrayEquals(g0, g, kernel.getClass().getSimpleName() + " bits=" + bits);
        // Twice the same D from G0 = 0 gives the one-step result plus itself (within the bound
        // of a sum of 2n + 1 terms); from G0 it does not equal the one-step result.
        float[] d = randomFloats(random, n * c);
        float[] once = new float[c * m];
        kernel.accumulateTransposed(z, b.offset(), n, m, bits, b.lo(), b.step(), d, c, once);
        float[] twice = once.clone();
        kernel.accumulateTransposed(z, b.offset(), n, m, bits, b.lo(), b.step(), d, c, twice);
        for (int k = 0; k < c * m; k++) {
          assertEquals(2.0 * once[k], twice[k], 1e-5 * (1 + Math.abs(once[k])), "k=" + k);
        }
        // n = 0 leaves G exactly as it was.
        float[] same = g0.clone();
        kernel.accumulateTransposed(z, b.offset(), 0, m, bits, b.lo(), b.step(), d, c, same);
        assertArrayEquals(g0, same);
      }
    }
  }

  @Test
  void facadesMatchScalarReference() {
    SplittableRandom random = new SplittableRandom(13);
    int n = 9;
    int m = 133;
    int c = 10;
    for (int bits : PackedReadReference.BITS) {
      Batch b = batch(random, n, m, bits);
      float[] wT = randomFloats(random, c * m);
      float[] y = new float[n * c];
      float[] yRef = new float[n * c];
      PackedProducts.forward(rows(b), wT, c, y);
      SCALAR.forward(MemorySegment.ofArray(b.bytes()), b.offset(), n, m, bits, b.lo(), b.step(), wT, c, yRef);
      // |lo| + step * code <= 3 |lo| = 3 sqrt(2/133) < 1 and |w|, |d| <= 1, so both bounds of the
      // class comment (scalar gamma_k, factored vector gamma_(k+3), gamma_(k+4)) are at most
      // gamma_(k+4) times the number of terms; the two bodies differ by at most twice that.
      assertArrayEquals(yRef, y, (float) (2 * PackedReadReference.gamma(m + 4) * m));
      float[] d = randomFloats(random, n * c);
      float[] g = new float[c * m];
      float[] gRef = new float[c * m];
      PackedProducts.accumulateTransposed(rows(b), d, c, g);
      SCALAR.accumulateTransposed(MemorySegment.ofArray(b.bytes()), b.offset(), n, m, bits, b.lo(), b.step(), d, c, gRef);
      assertArrayEquals(gRef, g, (float) (2 * PackedReadReference.gamma(n + 4) * n));
    }
    // Float rows through the float[] overload, starting at element 5.
    float[] x = randomFloats(random, 5 + n * m);
    float[] wT = randomFloats(random, c * m);
    float[] y = new float[n * c];
    FloatProducts.forward(x, 5, n, m, wT, c, y);
    for (int r = 0; r < n; r++) {
      for (int j = 0; j < c; j++) {
        double exact = 0;
        double abs = 0;
        for (int i = 0; i < m; i++) {
          exact += (double) x[5 + r * m + i] * wT[j * m + i];
          abs += Math.abs((double) x[5 + r * m + i] * wT[j * m + i]);
        }
        assertTrue(Math.abs(y[r * c + j] - exact) <= PackedReadReference.gamma(m) * abs);
      }
    }
    float[] d = randomFloats(random, n * c);
    float[] g = new float[c * m];
    FloatProducts.accumulateTransposed(x, 5, n, m, d, c, g);
    for (int j = 0; j < c; j++) {
      for (int i = 0; i < m; i++) {
        double exact = 0;
        double abs = 0;
        for (int r = 0; r < n; r++) {
          exact += (double) x[5 + r * m + i] * d[r * c + j];
          abs += Math.abs((double) x[5 + r * m + i] * d[r * c + j]);
        }
        assertTrue(Math.abs(g[j * m + i] - exact) <= PackedReadReference.gamma(n + 1) * abs);
      }
    }
  }

  @Test
  void badArgumentsAreRejectedByValue() {
    byte[] z = new byte[100];
    float[] wT = new float[40];
    float[] y = new float[100];
    QuantizationScale bytes = QuantizationScale.of(8, 0f, 1f);
    QuantizationScale nibbles = QuantizationScale.of(4, 0f, 1f);
    PackedRows one = PackedRows.of(z, 0, 1, 4, bytes);
    PackedRows many = PackedRows.of(z, 0, 25, 8, nibbles);
    assertMessage("bits is 3", () -> QuantizationScale.of(3, 0f, 1f));
    assertMessage("bits is 32", () -> QuantizationScale.of(32, 0f, 1f));
    assertMessage("step is NaN", () -> QuantizationScale.of(4, 0f, Float.NaN));
    assertMessage(
        "wT has length 39, expected at least c * m = 40 (c = 10, m = 4)",
        () -> PackedProducts.forward(one, new float[39], 10, y));
    assertMessage("c is 0", () -> PackedProducts.forward(one, wT, 0, y));
    assertMessage("c is -3", () -> PackedProducts.accumulateTransposed(one, wT, -3, y));
    assertMessage("rows is -1", () -> PackedRows.of(z, 0, -1, 4, bytes));
    assertMessage("features is -2", () -> PackedRows.of(z, 0, 1, -2, bytes));
    assertMessage("scale is null", () -> PackedRows.of(z, 0, 1, 4, null));
    assertMessage("src is null", () -> PackedRows.of(null, 0, 1, 4, bytes));
    assertMessage(
        "y has length 5, expected at least n * c = 6 (n = 3, c = 2)",
        () -> PackedProducts.forward(PackedRows.of(z, 0, 3, 4, bytes), wT, 2, new float[5]));
    // 26 rows of 4 bytes = 104 bytes > 100.
    assertMessage(
        "segment has 100 bytes, byteOffset 0 + 26 rows x 4 bytes (4 features of 8 bits)",
        () -> PackedRows.of(z, 0, 26, 4, bytes));
    assertMessage(
        "segment has 100 bytes, byteOffset 1 + 25 rows x 4 bytes",
        () -> PackedRows.of(z, 1, 25, 8, nibbles));
    assertMessage(
        "d has length 24, expected at least n * c = 25",
        () -> PackedProducts.accumulateTransposed(many, new float[24], 1, new float[8]));
    assertMessage(
        "gT has length 7, expected at least c * m = 8",
        () -> PackedProducts.accumulateTransposed(many, new float[25], 1, new float[7]));
    assertMessage(
        "x has 400 bytes, byteOffset 0 + 11 rows x 40 bytes (10 features of 32 bits)",
        () -> FloatProducts.forward(new float[100], 0, 11, 10, new float[10], 1, new float[11]));
    assertMessage(
        "byteOffset -4",
        () -> FloatProducts.accumulateTransposed(new float[100], -1, 1, 10, new float[1], 1, new float[10]));
    assertMessage(
        "c is -3",
        () -> FloatProducts.accumulateTransposed(new float[100], 0, 1, 10, new float[1], -3, new float[10]));
    assertMessage("x is null", () -> FloatProducts.forward((MemorySegment) null, 0, 1, 1, wT, 1, y));
  }

  // ------------------------------------------------------------------ codebook rows

  private static final int[] CODEBOOK_BITS = {1, 2, 4, 8};
  private static final int[] CODEBOOK_CLASSES = {1, 2, 3, 10};
  private static final int[] CODEBOOK_ROWS = {0, 1, 3, 33};

  private static int[] codebookSizes() {
    int lanes = VectorShape.floatLanes();
    return new int[] {0, 1, 2, 7, 8, 15, 16, 17, lanes - 1, lanes, lanes + 1, 100, 257, 1000};
  }

  /**
   * 2^b random levels in (-1, 1), sorted (a codebook is increasing) and so unevenly spaced: no
   * affine map of the codes gives them.
   */
  private static float[] randomLevels(SplittableRandom random, int bits) {
    float[] levels = randomFloats(random, 1 << bits);
    Arrays.sort(levels);
    return levels;
  }

  /** Forward of both bodies over codebook rows, against the double sum of levels times weights. */
  private static void checkForwardLevels(
      Batch b, MemorySegment z, float[] levels, int c, SplittableRandom random) {
    int n = b.n();
    int m = b.m();
    float[] wT = randomFloats(random, c * m + 1);
    float[] ys = new float[n * c + 1];
    float[] yv = new float[n * c + 1];
    Arrays.fill(ys, 99f);
    Arrays.fill(yv, 99f);
    SCALAR.forwardLevels(z, b.offset(), n, m, b.bits(), levels, wT, c, ys);
    VECTOR.forwardLevels(z, b.offset(), n, m, b.bits(), levels, wT, c, yv);
    double gamma = PackedReadReference.gamma(m);
    for (int r = 0; r < n; r++) {
      for (int j = 0; j < c; j++) {
        double exact = 0;
        double abs = 0;
        for (int i = 0; i < m; i++) {
          double p = (double) levels[b.codes()[r][i]] * wT[j * m + i];
          exact += p;
          abs += Math.abs(p);
        }
        double bound = gamma * abs;
        int at = r * c + j;
        String where = "codebook bits=" + b.bits() + " n=" + n + " m=" + m + " c=" + c + " r=" + r
            + " j=" + j;
        assertTrue(Math.abs(ys[at] - exact) <= bound, where + " scalar " + ys[at] + " vs " + exact);
        assertTrue(Math.abs(yv[at] - exact) <= bound, where + " vector " + yv[at] + " vs " + exact);
        assertTrue(Math.abs(yv[at] - ys[at]) <= 2 * bound, where);
      }
    }
    assertEquals(99f, ys[n * c], "scalar wrote past n*c");
    assertEquals(99f, yv[n * c], "vector wrote past n*c");
  }

  /** G += Z^T D of both bodies over codebook rows, G starting non-zero. */
  private static void checkAccumulateLevels(
      Batch b, MemorySegment z, float[] levels, int c, SplittableRandom random) {
    int n = b.n();
    int m = b.m();
    float[] d = randomFloats(random, n * c);
    float[] g0 = randomFloats(random, c * m + 1);
    float[] gs = g0.clone();
    float[] gv = g0.clone();
    SCALAR.accumulateTransposedLevels(z, b.offset(), n, m, b.bits(), levels, d, c, gs);
    VECTOR.accumulateTransposedLevels(z, b.offset(), n, m, b.bits(), levels, d, c, gv);
    double gamma = PackedReadReference.gamma(n + 1L);
    for (int j = 0; j < c; j++) {
      for (int i = 0; i < m; i++) {
        int at = j * m + i;
        double exact = g0[at];
        double abs = Math.abs(g0[at]);
        for (int r = 0; r < n; r++) {
          double p = (double) levels[b.codes()[r][i]] * d[r * c + j];
          exact += p;
          abs += Math.abs(p);
        }
        double bound = gamma * abs;
        String where = "codebook bits=" + b.bits() + " n=" + n + " m=" + m + " c=" + c + " i=" + i
            + " j=" + j;
        assertTrue(Math.abs(gs[at] - exact) <= bound, where + " scalar " + gs[at] + " vs " + exact);
        assertTrue(Math.abs(gv[at] - exact) <= bound, where + " vector " + gv[at] + " vs " + exact);
        assertTrue(Math.abs(gv[at] - gs[at]) <= 2 * bound, where);
      }
    }
    assertEquals(g0[c * m], gs[c * m], "scalar wrote past c*m");
    assertEquals(g0[c * m], gv[c * m], "vector wrote past c*m");
  }

  private static void codebookSweep(boolean forward) {
    SplittableRandom random = new SplittableRandom(forward ? 20 : 21);
    try (Arena arena = Arena.ofConfined()) {
      for (int bits : CODEBOOK_BITS) {
        for (int n : CODEBOOK_ROWS) {
          for (int m : codebookSizes()) {
            Batch b = batch(random, n, m, bits);
            MemorySegment z = PackedReadReference.segment(b.bytes(), (m + n) % 2 == 0, arena);
            for (int c : CODEBOOK_CLASSES) {
              float[] levels = randomLevels(random, bits);
              if (forward) {
                checkForwardLevels(b, z, levels, c, random);
              } else {
                checkAccumulateLevels(b, z, levels, c, random);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void codebookForwardWithinGammaBound() {
    codebookSweep(true);
  }

  @Test
  void codebookAccumulateWithinGammaBound() {
    codebookSweep(false);
  }

  /**
   * Each level must land on its own code: a level table in which one entry differs picks out a
   * decoding that reads a wrong lane (an off-by-one index, the second table register of 16 levels
   * on 8 lanes, a gather offset). Rows of one repeated code k, levels zero but level k: the
   * forward product is level k times the sum of the weights, and zero for every other table.
   */
  @Test
  void eachCodeSelectsItsOwnLevel() {
    int m = 3 * VectorShape.floatLanes() * 32 + 5; // whole groups of every width, then a tail
    int c = 2;
    float[] wT = new float[c * m];
    Arrays.fill(wT, 1f);
    for (int bits : CODEBOOK_BITS) {
      long rowBytes = PackedLayout.rowBytes(m, bits);
      for (int k = 0; k < 1 << bits; k++) {
        byte[] row = new byte[(int) rowBytes];
        for (int i = 0; i < m; i++) {
          for (int t = 0; t < bits; t++) { // bit i*b + t of the row, least significant first
            int at = i * bits + t;
            row[at >>> 3] |= (byte) ((k >>> t & 1) << (at & 7));
          }
        }
        MemorySegment z = MemorySegment.ofArray(row);
        assertEquals(k, PackedLayout.code(z, 0, bits, m - 1));
        for (int hot = 0; hot < 1 << bits; hot++) {
          float[] levels = new float[1 << bits];
          levels[hot] = 1f + hot;
          float expected = hot == k ? m * (1f + hot) : 0f;
          float[] y = new float[c];
          VECTOR.forwardLevels(z, 0, 1, m, bits, levels, wT, c, y);
          assertEquals(expected, y[0], 0f, "bits=" + bits + " code=" + k + " level=" + hot);
          assertEquals(expected, y[1], 0f, "bits=" + bits + " code=" + k + " level=" + hot);
          float[] g = new float[c * m];
          VECTOR.accumulateTransposedLevels(z, 0, 1, m, bits, levels, new float[] {1f, 2f}, c, g);
          for (int i = 0; i < m; i++) {
            assertEquals(hot == k ? 1f + hot : 0f, g[i], 0f, "bits=" + bits + " i=" + i);
            assertEquals(hot == k ? 2f * (1f + hot) : 0f, g[m + i], 0f, "bits=" + bits + " i=" + i);
          }
        }
      }
    }
  }

  /**
   * A codebook holding the affine grid's values, {@code levels[k] = fma(k, step, lo)}, gives the
   * affine products: bit for bit in the scalar body (the same floats summed in the same order),
   * within the sum of the two vector bounds of the class comment in the vector body (the affine
   * products factor the map out, the codebook ones do not).
   */
  @Test
  void affineGridCodebookMatchesAffineProducts() {
    SplittableRandom random = new SplittableRandom(22);
    for (int bits : CODEBOOK_BITS) {
      for (int m : new int[] {1, 17, 257, 1000}) {
        int n = 33;
        int c = 3;
        Batch b = batch(random, n, m, bits);
        MemorySegment z = MemorySegment.ofArray(b.bytes());
        float[] levels = new float[1 << bits];
        for (int k = 0; k < levels.length; k++) {
          levels[k] = PackedReadReference.value(k, b.lo(), b.step());
        }
        float[] wT = randomFloats(random, c * m);
        float[] d = randomFloats(random, n * c);
        float[] g0 = randomFloats(random, c * m);
        String where = "bits=" + bits + " m=" + m;
        float[] yAffine = new float[n * c];
        float[] yLevels = new float[n * c];
        SCALAR.forward(z, b.offset(), n, m, bits, b.lo(), b.step(), wT, c, yAffine);
        SCALAR.forwardLevels(z, b.offset(), n, m, bits, levels, wT, c, yLevels);
        assertArrayEquals(yAffine, yLevels, 0f, "scalar " + where);
        float[] gAffine = g0.clone();
        float[] gLevels = g0.clone();
        SCALAR.accumulateTransposed(z, b.offset(), n, m, bits, b.lo(), b.step(), d, c, gAffine);
        SCALAR.accumulateTransposedLevels(z, b.offset(), n, m, bits, levels, d, c, gLevels);
        assertArrayEquals(gAffine, gLevels, 0f, "scalar " + where);

        VECTOR.forward(z, b.offset(), n, m, bits, b.lo(), b.step(), wT, c, yAffine);
        VECTOR.forwardLevels(z, b.offset(), n, m, bits, levels, wT, c, yLevels);
        for (int r = 0; r < n; r++) {
          for (int j = 0; j < c; j++) {
            double abs = 0;
            double absFactored = 0;
            for (int i = 0; i < m; i++) {
              abs += Math.abs(b.z()[r][i] * wT[j * m + i]);
              absFactored += (b.step() * b.codes()[r][i] - b.lo()) * Math.abs(wT[j * m + i]);
            }
            double bound = PackedReadReference.gamma(m) * abs
                + PackedReadReference.gamma(m + 3L) * absFactored;
            int at = r * c + j;
            assertTrue(Math.abs(yAffine[at] - yLevels[at]) <= bound,
                "vector " + where + " r=" + r + " j=" + j + ": " + yAffine[at] + " vs "
                    + yLevels[at]);
          }
        }
        gAffine = g0.clone();
        gLevels = g0.clone();
        VECTOR.accumulateTransposed(z, b.offset(), n, m, bits, b.lo(), b.step(), d, c, gAffine);
        VECTOR.accumulateTransposedLevels(z, b.offset(), n, m, bits, levels, d, c, gLevels);
        for (int j = 0; j < c; j++) {
          for (int i = 0; i < m; i++) {
            double abs = Math.abs(g0[j * m + i]);
            double absFactored = abs;
            for (int r = 0; r < n; r++) {
              abs += Math.abs(b.z()[r][i] * d[r * c + j]);
              absFactored += (b.step() * b.codes()[r][i] - b.lo()) * Math.abs(d[r * c + j]);
            }
            double bound = PackedReadReference.gamma(n + 1L) * abs
                + PackedReadReference.gamma(n + 4L) * absFactored;
            int at = j * m + i;
            assertTrue(Math.abs(gAffine[at] - gLevels[at]) <= bound,
                "vector " + where + " i=" + i + " j=" + j + ": " + gAffine[at] + " vs "
                    + gLevels[at]);
          }
        }
      }
    }
  }

  @Test
  void codebookFacadesMatchScalarAndNameBadArguments() {
    SplittableRandom random = new SplittableRandom(23);
    int n = 9;
    int m = 133;
    int c = 10;
    for (int bits : CODEBOOK_BITS) {
      Batch b = batch(random, n, m, bits);
      float[] levels = randomLevels(random, bits);
      CodebookRows rows = new CodebookRows(
          MemorySegment.ofArray(b.bytes()), b.offset(), n, m, bits, levels);
      MemorySegment z = MemorySegment.ofArray(b.bytes());
      float[] wT = randomFloats(random, c * m);
      float[] y = new float[n * c];
      float[] yRef = new float[n * c];
      PackedProducts.forwardLevels(rows, wT, c, y);
      SCALAR.forwardLevels(z, b.offset(), n, m, bits, levels, wT, c, yRef);
      // |levels| < 1 and |w|, |d| <= 1: each body is within gamma_k times k of the exact sum.
      assertArrayEquals(yRef, y, (float) (2 * PackedReadReference.gamma(m) * m), "bits=" + bits);
      float[] d = randomFloats(random, n * c);
      float[] g = new float[c * m];
      float[] gRef = new float[c * m];
      PackedProducts.accumulateTransposedLevels(rows, d, c, g);
      SCALAR.accumulateTransposedLevels(z, b.offset(), n, m, bits, levels, d, c, gRef);
      assertArrayEquals(
          gRef, g, (float) (2 * PackedReadReference.gamma(n + 1) * n), "bits=" + bits);
    }
    MemorySegment z = MemorySegment.ofArray(new byte[100]);
    float[] four = {-1f, -0.2f, 0.2f, 1f};
    assertMessage("levels has no values, expected 2^2 = 4",
        () -> new CodebookRows(z, 0, 1, 4, 2, null));
    assertMessage("levels has 3 values, expected 2^2 = 4",
        () -> new CodebookRows(z, 0, 1, 4, 2, new float[3]));
    assertMessage("levels has 4 values, expected 2^4 = 16",
        () -> new CodebookRows(z, 0, 1, 4, 4, four));
    assertMessage("bits is 16; expected 1, 2, 4 or 8 for quantizer lloyd-max",
        () -> new CodebookRows(z, 0, 1, 4, 16, new float[1 << 16]));
    assertMessage("segment has 100 bytes",
        () -> new CodebookRows(z, 0, 101, 4, 2, four));
    CodebookRows one = new CodebookRows(z, 0, 3, 4, 2, four);
    assertMessage("wT has length 7, expected at least c * m = 8 (c = 2, m = 4)",
        () -> PackedProducts.forwardLevels(one, new float[7], 2, new float[6]));
    assertMessage("y has length 5, expected at least n * c = 6 (n = 3, c = 2)",
        () -> PackedProducts.forwardLevels(one, new float[8], 2, new float[5]));
    assertMessage("c is 0", () -> PackedProducts.forwardLevels(one, new float[8], 0, new float[6]));
    assertMessage("d has length 5, expected at least n * c = 6 (n = 3, c = 2)",
        () -> PackedProducts.accumulateTransposedLevels(one, new float[5], 2, new float[8]));
    assertMessage("gT has length 7, expected at least c * m = 8 (c = 2, m = 4)",
        () -> PackedProducts.accumulateTransposedLevels(one, new float[6], 2, new float[7]));
    assertMessage("gT is null",
        () -> PackedProducts.accumulateTransposedLevels(one, new float[6], 2, null));
  }
}
