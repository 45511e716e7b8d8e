package org.lprff.vector.simd.scalar;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.spi.ProductsBody;

/**
 * Reference products: plain loops, each feature value computed once per row and used for every
 * class, no copy of the batch. A feature's value is {@code fma(code, step, lo)} (or the float of a
 * float32 row), or {@code levels[code]} for codebook rows.
 */
public final class ScalarProducts implements ProductsBody {

  @Override
  public void forward(
      MemorySegment z, long offset, int n, int m, int bits, float lo, float step, float[] wT,
      int c, float[] y) {
    forward(z, offset, n, m, bits, lo, step, null, wT, c, y);
  }

  @Override
  public void forwardLevels(
      MemorySegment z, long offset, int n, int m, int bits, float[] levels, float[] wT, int c,
      float[] y) {
    forward(z, offset, n, m, bits, 0f, 0f, levels, wT, c, y);
  }

  @Override
  public void accumulateTransposed(
      MemorySegment z, long offset, int n, int m, int bits, float lo, float step, float[] d,
      int c, float[] gT) {
    accumulateTransposed(z, offset, n, m, bits, lo, step, null, d, c, gT);
  }

  @Override
  public void accumulateTransposedLevels(
      MemorySegment z, long offset, int n, int m, int bits, float[] levels, float[] d, int c,
      float[] gT) {
    accumulateTransposed(z, offset, n, m, bits, 0f, 0f, levels, d, c, gT);
  }

  /**
   * Blocks of {@value #BLOCK_ROWS} rows over the plain loops; work holds the sums in gT's order.
   */
  @Override
  public RowBlocks rowBlocks(int m, int bits, float lo, float step, float[] wT, int c) {
    float[] w = wT.clone();
    return new RowBlocks() {
      @Override
      public int blockRows() {
        return BLOCK_ROWS;
      }

      @Override
      public float[] work() {
        return new float[c * m];
      }

      @Override
      public void forward(MemorySegment z, long offset, int n, float[] y, float[] work) {
        ScalarProducts.forward(z, offset, n, m, bits, lo, step, null, w, c, y);
      }

      @Override
      public void accumulate(MemorySegment z, long offset, int n, float[] d, float[] work) {
        accumulateTransposed(z, offset, n, m, bits, lo, step, null, d, c, work);
      }

      @Override
      public void drain(float[] work, float[] gT) {
        for (int k = 0; k < c * m; k++) {
          gT[k] += work[k];
        }
        Arrays.fill(work, 0f);
      }
    };
  }

  /** Rows of a block: small, so that the drivers' block loops and short last blocks are tested. */
  private static final int BLOCK_ROWS = 4;

  private static void forward(
      MemorySegment z, long offset, int n, int m, int bits, float lo, float step, float[] levels,
      float[] wT, int c, float[] y) {
    long rowBytes = PackedLayout.rowBytes(m, bits);
    float[] acc = new float[c];
    for (int r = 0; r < n; r++) {
      long row = offset + r * rowBytes;
      Arrays.fill(acc, 0f);
      for (int i = 0; i < m; i++) {
        float zi = value(z, row, bits, i, lo, step, levels);
        for (int j = 0; j < c; j++) {
          acc[j] += zi * wT[j * m + i];
        }
      }
      System.arraycopy(acc, 0, y, r * c, c);
    }
  }

  private static void accumulateTransposed(
      MemorySegment z, long offset, int n, int m, int bits, float lo, float step, float[] levels,
      float[] d, int c, float[] gT) {
    long rowBytes = PackedLayout.rowBytes(m, bits);
    for (int r = 0; r < n; r++) {
      long row = offset + r * rowBytes;
      for (int i = 0; i < m; i++) {
        float zi = value(z, row, bits, i, lo, step, levels);
        for (int j = 0; j < c; j++) {
          gT[j * m + i] += zi * d[r * c + j];
        }
      }
    }
  }

  /** Feature i: {@code levels[code]} for codebook rows (levels non-null), else the grid's value. */
  private static float value(
      MemorySegment z, long row, int bits, int i, float lo, float step, float[] levels) {
    return levels != null
        ? levels[PackedLayout.code(z, row, bits, i)]
        : PackedLayout.value(z, row, bits, i, lo, step);
  }
}
