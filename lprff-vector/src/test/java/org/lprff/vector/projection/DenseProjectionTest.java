package org.lprff.vector.projection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.lprff.vector.simd.spi.DenseProjectionBody;
import org.lprff.vector.testing.ProviderTestBase;

/**
 * Dense projection against the exact product computed in double.
 *
 * <p>Tolerance (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 3.1): a
 * float32 sum of d products, in any order and with or without fused multiply-adds, satisfies
 * |computed - exact| <= gamma_d * sum_j |w_ij x_rj|, gamma_d = d u / (1 - d u), u = 2^-24, since
 * every term passes through at most d roundings. The reference multiplies the floats in double
 * (exact: 24 x 24 bits fit in 53) and sums in double, which is itself off by at most gamma_d(2^-53)
 * * sum |w x|; that is added to the tolerance. The scalar body (product then sum, 2 roundings
 * per term but the product rounding counts as one of the d) and the vector body (FMA chains)
 * both meet it, so they differ by at most twice the bound.
 */
class DenseProjectionTest extends ProviderTestBase {

  private static final DenseProjectionBody SCALAR = ProviderTestBase.SCALAR.denseProjection();
  private static final DenseProjectionBody VECTOR = ProviderTestBase.VECTOR.denseProjection();
  private static final int[] FEATURES = {1, 7, 8, 9, 1024};
  private static final int[] DIMS = {1, 2, 3, 7, 8, 9, 17, 90, 784};
  private static final int[] ROWS = {0, 1, 3, 4, 5, 17};
  private static final float SENTINEL = -12345.5f;
  private static final int ROW_OFFSET = 3;
  private static final int OUT_OFFSET = 5;

  private static double gamma(int d, double u) {
    return d * u / (1 - d * u);
  }

  private static float[] random(SplittableRandom random, int size) {
    float[] a = new float[size];
    for (int k = 0; k < a.length; k++) {
      a[k] = (float) random.nextDouble(-1, 1);
    }
    return a;
  }

  /** (firstFeature, count) pairs: whole, empty, shifted, short and odd-length blocks. */
  private static List<int[]> blocks(int m) {
    List<int[]> blocks = new ArrayList<>();
    blocks.add(new int[] {0, m});
    blocks.add(new int[] {0, 0});
    blocks.add(new int[] {m - 1, 1});
    if (m > 1) {
      blocks.add(new int[] {1, m - 1});
      blocks.add(new int[] {m / 3, Math.min(m - m / 3, 17)});
    }
    if (m >= 1024) {
      blocks.add(new int[] {256, 256});
      blocks.add(new int[] {3, 9});
      blocks.add(new int[] {500, 300});
      blocks.add(new int[] {1000, 24});
    }
    return blocks;
  }

  /** Runs the kernel into an out array filled with a sentinel; checks the sentinel survives. */
  private static float[] run(
      DenseProjectionBody kernel, float[] panels, int panel, int d, float[] rows, int n, int first,
      int count) {
    float[] out = new float[OUT_OFFSET + n * count + 7];
    Arrays.fill(out, SENTINEL);
    kernel.project(panels, panel, d, rows, ROW_OFFSET, n, first, count, out, OUT_OFFSET);
    for (int k = 0; k < out.length; k++) {
      if (k < OUT_OFFSET || k >= OUT_OFFSET + n * count) {
        assertEquals(SENTINEL, out[k], "out[" + k + "] outside the block was written");
      }
    }
    return out;
  }

  @Test
  void bothBodiesMeetHighamBoundAndAgree() {
    SplittableRandom random = new SplittableRandom(20261122);
    for (int m : FEATURES) {
      for (int d : DIMS) {
        float[] w = random(random, m * d);
        DenseProjection projection = new DenseProjection(w, m, d);
        float[] panels = projection.packedWeights();
        int panel = projection.panel();
        for (int n : ROWS) {
          // rows live at ROW_OFFSET with garbage on both sides.
          float[] rows = random(random, ROW_OFFSET + n * d + 4);
          for (int[] block : blocks(m)) {
            int first = block[0], count = block[1];
            String where = "m=" + m + " d=" + d + " n=" + n + " first=" + first + " count=" + count;
            float[] scalar = run(SCALAR, panels, panel, d, rows, n, first, count);
            float[] vector = run(VECTOR, panels, panel, d, rows, n, first, count);
            double tolerance = gamma(d, 0x1p-24) + gamma(d, 0x1p-53);
            for (int r = 0; r < n; r++) {
              for (int k = 0; k < count; k++) {
                int i = first + k;
                double exact = 0, abs = 0;
                for (int j = 0; j < d; j++) {
                  double p = (double) w[i * d + j] * rows[ROW_OFFSET + r * d + j];
                  exact += p;
                  abs += Math.abs(p);
                }
                double bound = tolerance * abs;
                int o = OUT_OFFSET + r * count + k;
                String at = where + " r=" + r + " k=" + k;
                assertTrue(Math.abs(scalar[o] - exact) <= bound,
                    "scalar " + scalar[o] + " vs exact " + exact + " bound " + bound + " " + at);
                assertTrue(Math.abs(vector[o] - exact) <= bound,
                    "vector " + vector[o] + " vs exact " + exact + " bound " + bound + " " + at);
                assertTrue(Math.abs(vector[o] - scalar[o]) <= 2 * bound,
                    "vector " + vector[o] + " vs scalar " + scalar[o] + " " + at);
              }
            }
          }
        }
      }
    }
  }

  /** d = 1: one product per output, exactly rounded by both bodies (no sum to round). */
  @Test
  void oneCoordinateIsOneRoundedProduct() {
    SplittableRandom random = new SplittableRandom(7);
    int m = 37;
    float[] w = random(random, m);
    float[] rows = random(random, ROW_OFFSET + 5 + 4);
    DenseProjection p = new DenseProjection(w, m, 1);
    for (DenseProjectionBody kernel : List.of(SCALAR, VECTOR)) {
      float[] out = run(kernel, p.packedWeights(), p.panel(), 1, rows, 5, 2, 33);
      for (int r = 0; r < 5; r++) {
        for (int k = 0; k < 33; k++) {
          assertEquals(w[2 + k] * rows[ROW_OFFSET + r], out[OUT_OFFSET + r * 33 + k]);
        }
      }
    }
  }

  /**
   * The vector body's summation order: each output is one FMA chain over j = 0, 1, ..., d - 1
   * from 0, whatever the micro-kernel, tile, panel width, block or row count; so its results are
   * exactly those of this loop (and of the kernel over W transposed before W was packed, which
   * keeps the feature files' digests). Sizes: the tails of every kernel (rows n mod 6 and mod 4,
   * features mod LANES, blocks starting inside a panel), coordinate tiles (127..129, 257, 2003).
   */
  @Test
  void vectorBodyIsOneFmaChainPerOutputInCoordinateOrder() {
    SplittableRandom random = new SplittableRandom(20261125);
    int lanes = VECTOR.panelWidth();
    List<Integer> dims = new ArrayList<>();
    for (int d = 1; d <= 17; d++) {
      dims.add(d);
    }
    dims.addAll(List.of(31, 127, 128, 129, 257, 784, 2003));
    int[] features = {1, 9, 17, 63, 65, 200};
    int[] rowCounts = {0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 17, 33};
    int[] panelWidths = {lanes, 1, 8, 24, 2 * lanes};
    for (int d : dims) {
      for (int m : features) {
        float[] w = random(random, m * d);
        for (int panel : panelWidths) {
          float[] panels = DenseProjection.pack(w, m, d, panel);
          for (int n : rowCounts) {
            float[] rows = random(random, ROW_OFFSET + n * d + 4);
            for (int[] block : blocks(m)) {
              int first = block[0], count = block[1];
              float[] vector = run(VECTOR, panels, panel, d, rows, n, first, count);
              for (int r = 0; r < n; r++) {
                for (int k = 0; k < count; k++) {
                  float s = 0f;
                  for (int j = 0; j < d; j++) {
                    s = Math.fma(w[(first + k) * d + j], rows[ROW_OFFSET + r * d + j], s);
                  }
                  int o = OUT_OFFSET + r * count + k;
                  if (s != vector[o]) {
                    assertEquals(s, vector[o], "d=" + d + " m=" + m + " panel=" + panel + " n="
                        + n + " first=" + first + " count=" + count + " r=" + r + " k=" + k);
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /** The scalar body reads any panel width, and agrees with itself across widths. */
  @Test
  void scalarBodyReadsAnyPanelWidth() {
    SplittableRandom random = new SplittableRandom(3);
    int m = 37, d = 11, n = 5;
    float[] w = random(random, m * d);
    float[] rows = random(random, ROW_OFFSET + n * d + 4);
    float[] expected = run(SCALAR, DenseProjection.pack(w, m, d, m), m, d, rows, n, 3, 30);
    for (int panel : new int[] {1, 2, 7, 16, 36, 64}) {
      assertArrayEquals(expected,
          run(SCALAR, DenseProjection.pack(w, m, d, panel), panel, d, rows, n, 3, 30),
          "panel " + panel);
    }
  }

  @Test
  void packLaysOutPanelsPaddedWithZeros() {
    int m = 5, d = 3, panel = 2;
    float[] w = new float[m * d];
    for (int k = 0; k < w.length; k++) {
      w[k] = k + 1; // W[i][j] = 3 i + j + 1
    }
    // Panel 0: features 0, 1; panel 1: 2, 3; panel 2: feature 4 and a zero column.
    assertArrayEquals(
        new float[] {1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12, 13, 0, 14, 0, 15, 0},
        DenseProjection.pack(w, m, d, panel));
    DenseProjection p = new DenseProjection(w, m, d);
    assertEquals(DenseProjection.BODY.panelWidth(), p.panel());
    assertArrayEquals(DenseProjection.pack(w, m, d, p.panel()), p.packedWeights());
  }

  @Test
  void facadeUsesTheActiveBodyAndKeepsWeights() {
    SplittableRandom random = new SplittableRandom(11);
    int m = 100, d = 13, n = 6;
    float[] w = random(random, m * d);
    DenseProjection p = new DenseProjection(w, m, d);
    assertEquals(m, p.features());
    assertEquals(d, p.inputDim());
    assertArrayEquals(w, p.weights());
    w[0] = 99f; // the projection holds a copy
    assertEquals(false, p.weights()[0] == 99f);
    float[] rows = random(random, n * d);
    float[] viaFacade = new float[n * 40];
    p.project(rows, 0, n, 50, 40, viaFacade, 0);
    float[] direct = new float[n * 40];
    DenseProjection.BODY.project(
        p.packedWeights(), p.panel(), d, rows, 0, n, 50, 40, direct, 0);
    assertArrayEquals(direct, viaFacade);
  }

  @Test
  void concurrentCallsGiveIdenticalResults() throws Exception {
    SplittableRandom random = new SplittableRandom(5);
    int m = 1024, d = 90, n = 33;
    DenseProjection p = new DenseProjection(random(random, m * d), m, d);
    float[] rows = random(random, n * d);
    float[][] expected = new float[m / 256][n * 256];
    for (int b = 0; b < expected.length; b++) {
      p.project(rows, 0, n, b * 256, 256, expected[b], 0);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int shift = t;
        results.add(pool.submit(() -> {
          float[] out = new float[n * 256];
          int mismatches = 0;
          for (int it = 0; it < 50; it++) {
            int b = (it + shift) % expected.length;
            p.project(rows, 0, n, b * 256, 256, out, 0);
            mismatches += Arrays.equals(out, expected[b]) ? 0 : 1;
          }
          return mismatches;
        }));
      }
      for (Future<Integer> f : results) {
        assertEquals(0, f.get(), "results differ from the single-threaded ones");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void rejectsBadArguments() {
    assertMessage("features is 0", () -> new DenseProjection(new float[0], 0, 3));
    assertMessage("inputDim is -1", () -> new DenseProjection(new float[0], 3, -1));
    assertMessage("weights is null", () -> new DenseProjection(null, 2, 3));
    assertMessage(
        "weights has length 5, expected features * inputDim = 2 * 3 = 6",
        () -> new DenseProjection(new float[5], 2, 3));
    assertMessage(
        "features * inputDim = 65536 * 65536 = 4294967296",
        () -> new DenseProjection(new float[1], 65536, 65536));
    float[] bad = new float[6];
    bad[4] = Float.NaN;
    assertMessage("weights[4] (W[1][1]) is NaN", () -> new DenseProjection(bad, 2, 3));
    bad[4] = Float.NEGATIVE_INFINITY;
    assertMessage("weights[4] (W[1][1]) is -Infinity", () -> new DenseProjection(bad, 2, 3));

    DenseProjection p = new DenseProjection(new float[6], 2, 3);
    float[] rows = new float[9];
    float[] out = new float[6];
    assertMessage("n is -1", () -> p.project(rows, 0, -1, 0, 2, out, 0));
    assertMessage("rows is null", () -> p.project(null, 0, 1, 0, 2, out, 0));
    assertMessage(
        "rows has length 9, rowOffset 1 + n * inputDim = 3 * 3 = 9 does not fit",
        () -> p.project(rows, 1, 3, 0, 2, out, 0));
    assertMessage(
        "rows has length 9, rowOffset -1", () -> p.project(rows, -1, 1, 0, 2, out, 0));
    assertMessage(
        "firstFeature is 3, expected in [0, 2]", () -> p.project(rows, 0, 1, 3, 0, out, 0));
    assertMessage(
        "firstFeature is -1, expected in [0, 2]", () -> p.project(rows, 0, 1, -1, 1, out, 0));
    assertMessage(
        "count is 2, expected in [0, features - firstFeature = 2 - 1 = 1]",
        () -> p.project(rows, 0, 1, 1, 2, out, 0));
    assertMessage(
        "count is -1", () -> p.project(rows, 0, 1, 0, -1, out, 0));
    assertMessage("out is null", () -> p.project(rows, 0, 1, 0, 2, null, 0));
    assertMessage(
        "out has length 6, outOffset 1 + n * count = 3 * 2 = 6 does not fit",
        () -> p.project(rows, 0, 3, 0, 2, out, 1));
    assertMessage("out has length 6, outOffset -2", () -> p.project(rows, 0, 1, 0, 2, out, -2));
    // Empty batches and blocks are fine and write nothing.
    Arrays.fill(out, 1f);
    p.project(rows, 9, 0, 0, 2, out, 6);
    p.project(rows, 0, 3, 2, 0, out, 6);
    assertArrayEquals(new float[] {1f, 1f, 1f, 1f, 1f, 1f}, out);
  }
}
