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

  /** k rows of random codes 0..maxCode (row-major k x m, as ints) and both float packings. */
  private static int[] codes(int k, int m, int maxCode, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int[] c = new int[k * m];
    for (int q = 0; q < c.length; q++) {
      c[q] = random.nextInt(maxCode + 1);
    }
    return c;
  }

  private static float[][] floatChunk(int[] codes, int k, int m, int stride) {
    float[] rows = new float[k * stride];
    float[] cols = new float[k * stride];
    float[] row = new float[m];
    for (int r = 0; r < k; r++) {
      for (int i = 0; i < m; i++) {
        row[i] = codes[r * m + i];
      }
      Gram.putRow(row, m, stride, k, r, rows, cols);
    }
    return new float[][] {rows, cols};
  }

  @Test
  void exactRowsKeepsEveryPartialSumBelow2To24() {
    assertEquals(74_565, Gram.exactRows(15));
    assertEquals(258, Gram.exactRows(255));
    assertEquals(true, Gram.FLOAT_ROWS <= Gram.exactRows(255));
    assertEquals(true, 258L * 255 * 255 <= 1 << 24);
    assertEquals(true, 259L * 255 * 255 > 1 << 24);
  }

  /**
   * The float form on codes of every width up to 8 bits, at the most rows that stay exact (8 bits:
   * 258, where the sums come within 0.8% of 2^24), equals the long-integer Gram bit for bit, on
   * both bodies, over two chunks.
   */
  @Test
  void floatFormOfCodesIsTheExactIntegerGram() {
    for (int bits : new int[] {1, 2, 4, 8}) {
      int maxCode = (1 << bits) - 1;
      int k = Math.min(300, Gram.exactRows(maxCode));
      for (int m : new int[] {1, 17, 33, 100}) {
        int stride = Gram.stride(m);
        long[] exact = new long[m * m];
        double[] vector = new double[stride * stride];
        double[] scalar = new double[stride * stride];
        for (long seed = 1; seed <= 2; seed++) {
          int[] c = codes(k, m, maxCode, seed * 31 + m + bits);
          // the extreme codes in one column: the sums reach k maxCode^2
          for (int r = 0; r < k; r++) {
            c[r * m] = maxCode;
          }
          for (int r = 0; r < k; r++) {
            for (int i = 0; i < m; i++) {
              for (int j = 0; j < m; j++) {
                exact[i * m + j] += (long) c[r * m + i] * c[r * m + j];
              }
            }
          }
          float[][] chunk = floatChunk(c, k, m, stride);
          Gram.accumulateUpperWith(VECTOR.gram(), chunk[0], chunk[1], k, stride, vector);
          Gram.accumulateUpperWith(SCALAR.gram(), chunk[0], chunk[1], k, stride, scalar);
        }
        for (int i = 0; i < m; i++) {
          for (int j = i; j < m; j++) {
            String at = bits + " bits, m " + m + " (" + i + ", " + j + ")";
            assertEquals((double) exact[i * m + j], vector[i * stride + j], 0.0, at);
            assertEquals((double) exact[i * m + j], scalar[i * stride + j], 0.0, at);
          }
        }
      }
    }
  }

  /** On floats (inexact sums) the bodies still agree bit for bit: same order, same FMAs. */
  @Test
  void floatVectorMatchesScalarExactly() {
    for (int m : SIZES) {
      for (int k : new int[] {1, 3, 130}) {
        int stride = Gram.stride(m);
        SplittableRandom random = new SplittableRandom(m * 7L + k);
        float[] rows = new float[k * stride];
        float[] cols = new float[k * stride];
        float[] row = new float[m];
        for (int r = 0; r < k; r++) {
          for (int i = 0; i < m; i++) {
            row[i] = (float) random.nextGaussian();
          }
          Gram.putRow(row, m, stride, k, r, rows, cols);
        }
        double[] vector = new double[stride * stride];
        double[] scalar = new double[stride * stride];
        Gram.accumulateUpperWith(VECTOR.gram(), rows, cols, k, stride, vector);
        Gram.accumulateUpperWith(SCALAR.gram(), rows, cols, k, stride, scalar);
        for (int i = 0; i < stride; i++) {
          for (int j = i; j < stride; j++) {
            assertEquals(scalar[i * stride + j], vector[i * stride + j], 0.0,
                "m " + m + ", k " + k + ", (" + i + ", " + j + ")");
          }
        }
      }
    }
  }

  /** Float panels on a pool of 3 threads give the serial bits (floats, so inexact sums). */
  @Test
  void floatParallelPanelsMatchSerialExactly() {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      for (int m : new int[] {63, 130, 300}) {
        int stride = Gram.stride(m);
        SplittableRandom random = new SplittableRandom(m);
        int k = 40;
        float[] rows = new float[k * stride];
        float[] cols = new float[k * stride];
        float[] row = new float[m];
        for (int r = 0; r < k; r++) {
          for (int i = 0; i < m; i++) {
            row[i] = (float) random.nextGaussian();
          }
          Gram.putRow(row, m, stride, k, r, rows, cols);
        }
        double[] serial = new double[stride * stride];
        double[] parallel = new double[stride * stride];
        Gram.accumulateUpper(rows, cols, k, stride, serial, null);
        Gram.accumulateUpper(rows, cols, k, stride, parallel, pool);
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

  /** The affine map of the codes' Gram against the Gram of the values lo + step c in BigDecimal. */
  @Test
  void affineMapGivesTheGramOfTheValues() {
    int m = 20;
    int k = 50;
    int maxCode = 15;
    float lo = -0.0221f;
    float step = 0.00295f;
    int[] c = codes(k, m, maxCode, 3);
    int stride = Gram.stride(m);
    float[][] chunk = floatChunk(c, k, m, stride);
    double[] g = new double[stride * stride];
    Gram.accumulateUpper(chunk[0], chunk[1], k, stride, g, null);
    double[] sums = new double[m];
    for (int r = 0; r < k; r++) {
      for (int i = 0; i < m; i++) {
        sums[i] += c[r * m + i];
      }
    }
    Gram.affineUpper(g, m, stride, k, sums, lo, step);
    Gram.finish(g, m, stride);
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < m; j++) {
        java.math.BigDecimal exact = java.math.BigDecimal.ZERO;
        double magnitude = 0;
        for (int r = 0; r < k; r++) {
          java.math.BigDecimal vi = new java.math.BigDecimal(lo)
              .add(new java.math.BigDecimal(step).multiply(java.math.BigDecimal.valueOf(c[r * m + i])));
          java.math.BigDecimal vj = new java.math.BigDecimal(lo)
              .add(new java.math.BigDecimal(step).multiply(java.math.BigDecimal.valueOf(c[r * m + j])));
          exact = exact.add(vi.multiply(vj));
          magnitude += Math.abs(vi.doubleValue() * vj.doubleValue());
        }
        // a few roundings of terms of size k lo^2: relative 1e-15 of the magnitudes
        assertEquals(exact.doubleValue(), g[i * m + j], 1e-14 * magnitude, "(" + i + ", " + j + ")");
      }
    }
  }
}
