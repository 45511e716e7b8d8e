package org.lprff.vector.products;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.spi.ProductsBody;
import org.lprff.vector.testing.PackedReadReference;
import org.lprff.vector.testing.ProviderTestBase;

/**
 * The fused row blocks of a pass ({@link ProductsBody#rowBlocks}) of both bodies against the
 * double reference, within PackedProductsTest's bounds: forward as the plain forward (vector,
 * packed: gamma_(m+3) of the factored sums), the transposed sums over all n rows of the blocks
 * then drained onto a non-zero G as the plain accumulate (gamma_(n+4) factored, gamma_(n+1)
 * otherwise). Rows run block by block, the last block short, at a 3-byte unaligned offset; one,
 * 3, 10 and 26 outputs; widths with and without whole groups and a tail.
 */
class BlockProductsTest extends ProviderTestBase {

  private static final int FLOAT = PackedLayout.FLOAT_BITS;

  @Test
  void blocksMatchTheReference() {
    SplittableRandom random = new SplittableRandom(31);
    for (ProductsBody body :
        new ProductsBody[] {ProviderTestBase.SCALAR.products(), ProviderTestBase.VECTOR.products()}) {
      boolean vector = body == ProviderTestBase.VECTOR.products();
      for (int bits : new int[] {1, 2, 4, 8, FLOAT}) {
        for (int m : new int[] {7, 64, 320, 1100}) {
          for (int c : new int[] {1, 3, 10, 26}) {
            for (int n : new int[] {1, 2, 3, 5, 11}) {
              check(body, vector, random, bits, m, c, n);
            }
          }
        }
      }
    }
  }

  private static void check(
      ProductsBody body, boolean vector, SplittableRandom random, int bits, int m, int c, int n) {
    long offset = 3;
    long rowBytes = PackedLayout.rowBytes(m, bits);
    byte[] bytes = new byte[(int) (offset + n * rowBytes)];
    double[][] z = new double[n][m];
    int[][] codes = new int[n][m];
    float lo = PackedReadReference.lo(m);
    float step = bits == FLOAT ? 0f : PackedReadReference.step(m, bits);
    MemorySegment s = MemorySegment.ofArray(bytes);
    random.nextBytes(bytes);
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < m; i++) {
        if (bits == FLOAT) {
          float v = (float) random.nextDouble(-1, 1);
          PackedReadReference.putFloatLe(s, offset + r * rowBytes + 4L * i, v);
          z[r][i] = v;
        } else {
          codes[r][i] = PackedReadReference.bitByBitCode(bytes, (int) (offset + r * rowBytes), bits, i);
          z[r][i] = PackedReadReference.value(codes[r][i], lo, step);
        }
      }
    }
    float[] wT = floats(random, c * m);
    float[] d = floats(random, n * c);
    float[] g0 = floats(random, c * m);
    ProductsBody.RowBlocks blocks = body.rowBlocks(m, bits, lo, step, wT, c);
    float[] work = blocks.work();
    float[] y = new float[n * c];
    int size = Math.min(blocks.blockRows(), n);
    float[] yb = new float[size * c];
    float[] db = new float[size * c];
    for (int b = 0; b < n; b += size) {
      int rows = Math.min(size, n - b);
      blocks.forward(s, offset + b * rowBytes, rows, yb, work);
      System.arraycopy(yb, 0, y, b * c, rows * c);
      System.arraycopy(d, b * c, db, 0, rows * c);
      blocks.accumulate(s, offset + b * rowBytes, rows, db, work);
    }
    float[] g = g0.clone();
    blocks.drain(work, g);
    boolean factored = vector && bits != FLOAT;
    String where = (vector ? "vector" : "scalar") + " bits=" + bits + " m=" + m + " c=" + c
        + " n=" + n;
    for (int r = 0; r < n; r++) {
      for (int j = 0; j < c; j++) {
        double exact = 0, abs = 0, absFactored = 0;
        for (int i = 0; i < m; i++) {
          exact += z[r][i] * wT[j * m + i];
          abs += Math.abs(z[r][i] * wT[j * m + i]);
          absFactored += (step * codes[r][i] - lo) * Math.abs(wT[j * m + i]);
        }
        double bound = factored ? PackedReadReference.gamma(m + 3L) * absFactored
            : PackedReadReference.gamma(m) * abs;
        assertTrue(Math.abs(y[r * c + j] - exact) <= bound,
            where + " forward r=" + r + " j=" + j + ": " + y[r * c + j] + " vs " + exact);
      }
    }
    for (int j = 0; j < c; j++) {
      for (int i = 0; i < m; i++) {
        double exact = g0[j * m + i], abs = Math.abs(exact), absFactored = abs;
        for (int r = 0; r < n; r++) {
          exact += z[r][i] * d[r * c + j];
          abs += Math.abs(z[r][i] * d[r * c + j]);
          absFactored += (step * codes[r][i] - lo) * Math.abs(d[r * c + j]);
        }
        double bound = factored ? PackedReadReference.gamma(n + 4L) * absFactored
            : PackedReadReference.gamma(n + 1L) * abs;
        assertTrue(Math.abs(g[j * m + i] - exact) <= bound,
            where + " accumulate i=" + i + " j=" + j + ": " + g[j * m + i] + " vs " + exact);
        assertTrue(work[j * m + i] == 0f, where + ": drain left work[" + (j * m + i) + "]");
      }
    }
  }

  private static float[] floats(SplittableRandom random, int length) {
    float[] a = new float[length];
    for (int i = 0; i < length; i++) {
      a[i] = (float) random.nextDouble(-1, 1);
    }
    return a;
  }
}
