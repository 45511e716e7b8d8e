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

  /**
   * The fused products of one full-batch pass at weights {@code wT} (c outputs) over affine packed
   * rows ({@code bits} <= 16) or float32 rows: the weights are prepared once (the vector body
   * permutes and scales them for its kernels), then the pass runs block by block, each block of
   * at most {@link RowBlocks#blockRows()} rows read by {@link RowBlocks#forward}, then the
   * caller's per-row step, then {@link RowBlocks#accumulate} while its rows are still in L1.
   */
  RowBlocks rowBlocks(int m, int bits, float lo, float step, float[] wT, int c);

  /**
   * A pass's prepared weights: immutable, shared by threads; each thread brings its own {@link
   * #work()} array (its sums of the transposed products in the body's order, and scratch).
   */
  interface RowBlocks {

    /** Most rows one call of {@link #forward} or {@link #accumulate} takes. */
    int blockRows();

    /** A new zeroed work array for one thread. */
    float[] work();

    /** {@code y[r*c + j] = sum_i z[r][i] * wT[j*m + i]}, r < n <= blockRows (overwrites). */
    void forward(MemorySegment z, long offset, int n, float[] y, float[] work);

    /** Adds {@code sum_r z[r][i] * d[r*c + j]}, r < n <= blockRows, to the sums in work. */
    void accumulate(MemorySegment z, long offset, int n, float[] d, float[] work);

    /** {@code gT[j*m + i] +=} the sums in work, which it zeroes. */
    void drain(float[] work, float[] gT);
  }

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
