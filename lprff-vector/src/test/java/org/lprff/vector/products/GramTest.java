package org.lprff.vector.products;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.lprff.vector.testing.ProviderTestBase;

class GramTest extends ProviderTestBase {

  private static final int[] SIZES = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 100, 130};

  /** Row-major k x stride Gaussian rows, zero padding columns. */
  private static double[] rows(int k, int m, int stride, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] c = new double[k * stride];
    for (int r = 0; r < k; r++) {
      for (int i = 0; i < m; i++) {
        c[r * stride + i] = random.nextGaussian();
      }
    }
    return c;
  }

  /** The same rows in the packed block layout Gram reads. */
  private static double[] chunk(int k, int m, int stride, long seed) {
    return Gram.pack(rows(k, m, stride, seed), k, stride);
  }

  /** The block layout puts every entry in its own place: a permutation of the row-major one. */
  @Test
  void packIsAPermutationWithBlocksOfContiguousRows() {
    int k = 5;
    int stride = Gram.stride(40);
    double[] rowMajor = new double[k * stride];
    for (int q = 0; q < rowMajor.length; q++) {
      rowMajor[q] = q;
    }
    double[] packed = Gram.pack(rowMajor, k, stride);
    boolean[] seen = new boolean[packed.length];
    for (int r = 0; r < k; r++) {
      for (int i = 0; i < stride; i++) {
        int at = Gram.at(k, r, i);
        assertEquals(r * stride + i, packed[at], 0.0, "(" + r + ", " + i + ")");
        assertEquals(false, seen[at], "two entries at " + at);
        seen[at] = true;
        // the next row of a block is BLOCK entries later, the next column of a block 1 later
        if (r + 1 < k) {
          assertEquals(at + Gram.BLOCK, Gram.at(k, r + 1, i));
        }
      }
    }
  }

  /**
   * The vector body and the scalar reference sum each entry in the same order with the same fused
   * multiply-adds: identical bits on the upper triangle, over two chunks (accumulation).
   */
  @Test
  void vectorMatchesScalarExactly() {
    for (int m : SIZES) {
      for (int k : new int[] {1, 3, 128}) {
        int stride = Gram.stride(m);
        double[] vector = new double[stride * stride];
        double[] scalar = new double[stride * stride];
        for (long seed = 1; seed <= 2; seed++) {
          double[] c = chunk(k, m, stride, seed * 1000 + m);
          Gram.accumulateUpperWith(VECTOR.gram(), c, k, stride, vector);
          Gram.accumulateUpperWith(SCALAR.gram(), c, k, stride, scalar);
        }
        for (int i = 0; i < stride; i++) {
          for (int j = i; j < stride; j++) {
            assertEquals(
                scalar[i * stride + j], vector[i * stride + j], 0.0,
                "m " + m + ", k " + k + ", (" + i + ", " + j + ")");
          }
        }
      }
    }
  }

  /** The facade picks one of the two bodies: identical to the reference. */
  @Test
  void facadeMatchesScalar() {
    int m = 70;
    int stride = Gram.stride(m);
    double[] c = chunk(50, m, stride, 5);
    double[] viaFacade = new double[stride * stride];
    double[] scalar = new double[stride * stride];
    Gram.accumulateUpper(c, 50, stride, viaFacade);
    Gram.accumulateUpperWith(SCALAR.gram(), c, 50, stride, scalar);
    for (int i = 0; i < stride; i++) {
      for (int j = i; j < stride; j++) {
        assertEquals(scalar[i * stride + j], viaFacade[i * stride + j], 0.0);
      }
    }
  }

  /**
   * Panels on a pool of 3 threads (plus the caller) write disjoint entries in the serial order of
   * each entry: identical bits to the serial call, on sizes that span one and many panels.
   */
  @Test
  void parallelPanelsMatchSerialExactly() {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      for (int m : new int[] {1, 63, 64, 65, 130, 300}) {
        int stride = Gram.stride(m);
        double[] c = chunk(40, m, stride, 7 + m);
        double[] serial = new double[stride * stride];
        double[] parallel = new double[stride * stride];
        Gram.accumulateUpper(c, 40, stride, serial);
        Gram.accumulateUpper(c, 40, stride, parallel, pool);
        Gram.accumulateUpper(c, 40, stride, serial);
        Gram.accumulateUpper(c, 40, stride, parallel, pool);
        for (int i = 0; i < stride; i++) {
          for (int j = i; j < stride; j++) {
            assertEquals(serial[i * stride + j], parallel[i * stride + j], 0.0,
                "m " + m + " (" + i + ", " + j + ")");
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The finished matrix against C^T C by definition (plain double sums): the two differ only in
   * rounding, |error| <= gamma_k sum_r |c_ri c_rj| with gamma_k ~ k 2^-53, so 1e-12 relative to
   * the sum of magnitudes is generous for k <= 256.
   */
  @Test
  void finishedMatrixIsTheGramMatrix() {
    for (int m : SIZES) {
      int k = 200;
      int stride = Gram.stride(m);
      double[] c = rows(k, m, stride, m);
      double[] g = new double[stride * stride];
      double[] head = Gram.pack(java.util.Arrays.copyOf(c, 128 * stride), 128, stride);
      Gram.accumulateUpper(head, 128, stride, g);
      double[] rest = new double[(k - 128) * stride];
      System.arraycopy(c, 128 * stride, rest, 0, rest.length);
      Gram.accumulateUpper(Gram.pack(rest, k - 128, stride), k - 128, stride, g);
      Gram.finish(g, m, stride);
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
          double sum = 0;
          double magnitude = 0;
          for (int r = 0; r < k; r++) {
            sum += c[r * stride + i] * c[r * stride + j];
            magnitude += Math.abs(c[r * stride + i] * c[r * stride + j]);
          }
          assertEquals(sum, g[i * m + j], 1e-12 * magnitude, "m " + m + " (" + i + ", " + j + ")");
        }
      }
    }
  }
}
