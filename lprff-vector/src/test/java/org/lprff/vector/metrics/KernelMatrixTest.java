package org.lprff.vector.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lprff.fixtures.Messages.assertMessage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

class KernelMatrixTest {

  /** Sizes around the row block (16), the column tile (256) and the panel (256). */
  private static final int[] SIZES = {1, 2, 15, 16, 17, 33, 255, 257, 300};

  private static final KernelFunction[] KERNELS = {
    new KernelFunction.Gaussian(1.3), new KernelFunction.Laplacian(2.0),
    new KernelFunction.Matern(1.5, 0.8)
  };

  static float[] randomRows(int n, int d, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] rows = new float[n * d];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = (float) random.nextGaussian();
    }
    return rows;
  }

  @Test
  void exactIsTheKernelEntryByEntryAndSymmetric() {
    // Exact equality: each entry is the same kernel.value call on the same operands.
    for (KernelFunction kernel : KERNELS) {
      for (int n : new int[] {1, 2, 17, 40}) {
        int d = 5;
        float[] rows = randomRows(n, d, n);
        DMatrixRMaj k = KernelMatrix.exact(kernel, rows, n, d);
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < n; j++) {
            float[] xi = java.util.Arrays.copyOfRange(rows, i * d, (i + 1) * d);
            float[] xj = java.util.Arrays.copyOfRange(rows, j * d, (j + 1) * d);
            double expected = kernel.value(i <= j ? xi : xj, i <= j ? xj : xi);
            assertEquals(expected, k.get(i, j), 0, kernel + " n " + n + " entry " + i + "," + j);
            assertEquals(k.get(j, i), k.get(i, j), 0);
          }
          assertEquals(1.0, k.get(i, i), 0, "k(x, x) = 1 for these kernels");
        }
      }
    }
  }

  @Test
  void exactAndCrossDoNotDependOnTheExecutor() {
    KernelFunction kernel = KERNELS[0];
    int n = 301;
    int d = 7;
    float[] rows = randomRows(n, d, 3);
    DMatrixRMaj sequential = KernelMatrix.exact(kernel, rows, n, d);
    DMatrixRMaj parallel = KernelMatrix.exact(kernel, rows, n, d, ForkJoinPool.commonPool());
    assertArrayEquals(sequential.data, parallel.data);
    float[] other = randomRows(45, d, 4);
    DMatrixRMaj c1 = KernelMatrix.cross(kernel, other, 45, rows, n, d);
    DMatrixRMaj c2 = KernelMatrix.cross(kernel, other, 45, rows, n, d, ForkJoinPool.commonPool());
    assertArrayEquals(c1.data, c2.data);
    assertEquals(45, c1.numRows);
    assertEquals(n, c1.numCols);
    for (int i = 0; i < 45; i += 11) {
      for (int j = 0; j < n; j += 37) {
        double expected =
            kernel.value(
                java.util.Arrays.copyOfRange(other, i * d, (i + 1) * d),
                java.util.Arrays.copyOfRange(rows, j * d, (j + 1) * d));
        assertEquals(expected, c1.get(i, j), 0);
      }
    }
  }

  /**
   * The Gram matrix in feature order from 0: a product of two floats is exact in double, so the
   * blocked accumulation must equal this plain loop bit for bit.
   */
  static double[] naiveGram(float[] z, int n, int m) {
    double[] k = new double[n * n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int f = 0; f < m; f++) {
          s += (double) z[i * m + f] * z[j * m + f];
        }
        k[i * n + j] = s;
      }
    }
    return k;
  }

  @Test
  void gramOfFloatRowsEqualsThePlainSumExactly() {
    for (int n : SIZES) {
      for (int m : new int[] {1, 7, 256, 257, 600}) {
        if ((long) n * n * m > 30_000_000L) {
          continue; // keep the naive triple loop fast
        }
        float[] z = randomRows(n, m, 31L * n + m);
        DMatrixRMaj k = KernelMatrix.gram(z, n, m);
        assertArrayEquals(naiveGram(z, n, m), k.data, 0, "n " + n + " m " + m);
      }
    }
  }

  @Test
  void gramOfPackedRowsEqualsTheDecodedSumExactly() {
    SplittableRandom random = new SplittableRandom(5);
    for (int bits : new int[] {1, 2, 4, 8, 16}) {
      for (int m : new int[] {1, 13, 264, 300}) {
        int n = 37;
        QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
        int rowBytes = scale.rowBytes(m);
        int offset = 3;
        byte[] packed = new byte[offset + n * rowBytes];
        float[] decoded = new float[n * m];
        int[] codes = new int[m];
        for (int i = 0; i < n; i++) {
          for (int f = 0; f < m; f++) {
            codes[f] = random.nextInt(scale.levels());
            // Independent of the unpacking kernels: the grid's own value(code).
            decoded[i * m + f] = scale.value(codes[f]);
          }
          PackedFeatures.packCodes(codes, 0, m, bits, packed, offset + i * rowBytes);
        }
        DMatrixRMaj k =
            KernelMatrix.gram(
                java.lang.foreign.MemorySegment.ofArray(packed), offset, n, m, scale, null);
        assertArrayEquals(naiveGram(decoded, n, m), k.data, 0, "bits " + bits + " m " + m);
        DMatrixRMaj parallel =
            KernelMatrix.gram(
                java.lang.foreign.MemorySegment.ofArray(packed), offset, n, m, scale,
                ForkJoinPool.commonPool());
        assertArrayEquals(k.data, parallel.data);
      }
    }
  }

  @Test
  void gramOfFeaturizerOutputMatchesBothPaths() {
    KernelFunction kernel = new KernelFunction.Gaussian(2);
    int d = 6;
    int n = 70;
    float[] x = randomRows(n, d, 8);
    for (int bits : new int[] {32, 4, 1}) {
      FeaturizerSpec spec = new FeaturizerSpec(kernel, d, 100, bits, "dense", 9, Quantizer.STOCHASTIC);
      byte[] rows = Featurizer.of(spec).featurize(x, n, 0);
      DMatrixRMaj k = KernelMatrix.gram(rows, n, spec, null);
      DMatrixRMaj expected;
      if (bits == 32) {
        float[] z = new float[n * 100];
        ByteBuffer.wrap(rows).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(z);
        expected = KernelMatrix.gram(z, n, 100);
      } else {
        expected = KernelMatrix.gram(rows, n, 100, spec.scale(), null);
      }
      assertArrayEquals(expected.data, k.data, 0, "bits " + bits);
      assertArrayEquals(
          k.data, KernelMatrix.gram(rows, n, spec, ForkJoinPool.commonPool()).data, 0);
    }
  }

  @Test
  void gramDoesNotDependOnTheExecutor() {
    int n = 300;
    int m = 700;
    float[] z = randomRows(n, m, 12);
    assertArrayEquals(
        KernelMatrix.gram(z, n, m).data,
        KernelMatrix.gram(z, n, m, ForkJoinPool.commonPool()).data,
        0);
  }

  @Test
  void rejectsBadArgumentsNamingTheValue() {
    KernelFunction kernel = KERNELS[0];
    float[] rows = randomRows(4, 3, 1);
    assertMessage("kernel is null", () -> KernelMatrix.exact(null, rows, 4, 3));
    assertMessage("rows is null", () -> KernelMatrix.exact(kernel, null, 4, 3));
    assertMessage("n is 0", () -> KernelMatrix.exact(kernel, rows, 0, 3));
    assertMessage("n is 46341", () -> KernelMatrix.exact(kernel, rows, 46_341, 3));
    assertMessage("d is 0", () -> KernelMatrix.exact(kernel, rows, 4, 0));
    assertMessage("rows has 12 floats", () -> KernelMatrix.exact(kernel, rows, 5, 3));
    float[] bad = rows.clone();
    bad[7] = Float.NaN;
    assertMessage("rows[7] (row 2, column 1) is NaN", () -> KernelMatrix.exact(kernel, bad, 4, 3));
    assertMessage("b has 12 floats", () -> KernelMatrix.cross(kernel, rows, 4, rows, 5, 3));
    assertMessage("features is null", () -> KernelMatrix.gram((float[]) null, 4, 3));
    assertMessage("m is 0", () -> KernelMatrix.gram(rows, 4, 0));
    float[] inf = rows.clone();
    inf[0] = Float.POSITIVE_INFINITY;
    assertMessage("features[0] (row 0, column 0) is Infinity", () -> KernelMatrix.gram(inf, 4, 3));
    QuantizationScale scale = QuantizationScale.forFeatures(10, 2);
    assertMessage(
        "packed has 5 bytes, needs offset + n * rowBytes = 0 + 2 * 3 = 6",
        () -> KernelMatrix.gram(new byte[5], 2, 10, scale, null));
    assertMessage("scale is null", () -> KernelMatrix.gram(new byte[6], 2, 10, null, null));
    FeaturizerSpec spec =
        new FeaturizerSpec(kernel, 3, 10, 32, "dense", 1, Quantizer.STOCHASTIC);
    assertMessage(
        "rows has 79 bytes, expected n * 4 m = 2 * 40 = 80",
        () -> KernelMatrix.gram(new byte[79], 2, spec, null));
  }

}
