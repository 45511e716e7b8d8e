package org.lprff.vector.simd.scalar;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.spi.ProductsBody;

/**
 * Reference products: plain loops, each feature value computed once per row and used for every
 * class, no copy of the batch.
 */
public final class ScalarProducts implements ProductsBody {

  @Override
  public void forward(
      MemorySegment z,
      long offset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] wT,
      int c,
      float[] y) {
    long rowBytes = PackedLayout.rowBytes(m, bits);
    float[] acc = new float[c];
    for (int r = 0; r < n; r++) {
      long row = offset + r * rowBytes;
      java.util.Arrays.fill(acc, 0f);
      for (int i = 0; i < m; i++) {
        float zi = PackedLayout.value(z, row, bits, i, lo, step);
        for (int j = 0; j < c; j++) {
          acc[j] += zi * wT[j * m + i];
        }
      }
      System.arraycopy(acc, 0, y, r * c, c);
    }
  }

  @Override
  public void accumulateTransposed(
      MemorySegment z,
      long offset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      float[] gT) {
    long rowBytes = PackedLayout.rowBytes(m, bits);
    for (int r = 0; r < n; r++) {
      long row = offset + r * rowBytes;
      for (int i = 0; i < m; i++) {
        float zi = PackedLayout.value(z, row, bits, i, lo, step);
        for (int j = 0; j < c; j++) {
          gT[j * m + i] += zi * d[r * c + j];
        }
      }
    }
  }
  @Override
  public void forwardLevels(
      MemorySegment z, long offset, int n, int m, int bits, float[] levels, float[] wT, int c,
      float[] y) {
    long rowBytes = PackedLayout.rowBytes(m, bits);
    float[] acc = new float[c];
    for (int r = 0; r < n; r++) {
      long row = offset + r * rowBytes;
      java.util.Arrays.fill(acc, 0f);
      for (int i = 0; i < m; i++) {
        float zi = levels[PackedLayout.code(z, row, bits, i)];
        for (int j = 0; j < c; j++) {
          acc[j] += zi * wT[j * m + i];
        }
      }
      System.arraycopy(acc, 0, y, r * c, c);
    }
  }

  @Override
  public void accumulateTransposedLevels(
      MemorySegment z, long offset, int n, int m, int bits, float[] levels, float[] d, int c,
      float[] gT) {
    long rowBytes = PackedLayout.rowBytes(m, bits);
    for (int r = 0; r < n; r++) {
      long row = offset + r * rowBytes;
      for (int i = 0; i < m; i++) {
        float zi = levels[PackedLayout.code(z, row, bits, i)];
        for (int j = 0; j < c; j++) {
          gT[j * m + i] += zi * d[r * c + j];
        }
      }
    }
  }
}
