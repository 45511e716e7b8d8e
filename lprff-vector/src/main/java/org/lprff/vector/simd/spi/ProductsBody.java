package org.lprff.vector.simd.spi;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.layout.PackedLayout;

/**
 * Products of a batch of n feature rows Z (n x m) with a small dense matrix, the core of training
 * on packed features. Rows are contiguous from {@code offset}; {@code bits} is 1, 2, 4, 8 or 16
 * for packed rows (values {@code fma(code, step, lo)}) or {@link #FLOAT_BITS} for plain
 * little-endian float32 rows ({@code lo}, {@code step} ignored). Arguments are validated by
 * {@code PackedProducts} and {@code FloatProducts}.
 */
public interface ProductsBody extends Body {

  /** {@code bits} value meaning plain float32 features. */
  int FLOAT_BITS = 32;

  /** {@code y[r*c + j] = sum_i z[r][i] * wT[j*m + i]} (overwrites y[0, n*c)). */
  void forward(
      MemorySegment z,
      long offset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] wT,
      int c,
      float[] y);

  /** {@code gT[j*m + i] += sum_r z[r][i] * d[r*c + j]}. */
  void accumulateTransposed(
      MemorySegment z,
      long offset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      float[] gT);

  /**
   * {@link #forward} for packed rows whose codes index a table: feature value {@code
   * levels[code]} (a codebook of 2^b levels, b in {1, 2, 4, 8}).
   */
  void forwardLevels(
      MemorySegment z, long offset, int n, int m, int bits, float[] levels, float[] wT, int c,
      float[] y);

  /** {@link #accumulateTransposed} for rows whose feature value is {@code levels[code]}. */
  void accumulateTransposedLevels(
      MemorySegment z, long offset, int n, int m, int bits, float[] levels, float[] d, int c,
      float[] gT);

  /** Bytes of one row. */
  static long rowBytes(int m, int bits) {
    return bits == FLOAT_BITS ? 4L * m : PackedLayout.rowBytes(m, bits);
  }

  /** Value of feature i of the row at {@code rowOffset}. */
  static float feature(MemorySegment z, long rowOffset, int bits, int i, float lo, float step) {
    return bits == FLOAT_BITS
        ? z.get(LittleEndian.FLOAT, rowOffset + 4L * i)
        : PackedLayout.value(z, rowOffset, bits, i, lo, step);
  }
}
