package org.lprff.vector.products;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.spi.ProductsBody;

/**
 * The products of one full-batch pass, fused block by block: {@code Y = Z W} for a block of rows
 * ({@link #forward}), then the caller's per-row step (the scores' loss gradient D, or for CG D =
 * Y), then {@code G += Z^T D} for the same rows ({@link #accumulate}) while their codes are
 * still in L1, so each row is read from memory once per pass. The weights are prepared once per
 * pass (immutable: threads share one instance); each thread sums into its own {@link #work()}
 * array, which {@link #drain} adds to a class-major {@code gT} (c x m) and zeroes. Rows are
 * affine packed ({@code fma(code, step, lo)}) or float32, c outputs; matrices as in {@link
 * PackedProducts}.
 */
public final class BlockProducts {

  private final ProductsBody.RowBlocks body;
  private final int m;
  private final int c;
  private final long rowBytes;
  private final int workLength;

  private BlockProducts(ProductsBody.RowBlocks body, int m, int bits, int c) {
    this.body = body;
    this.m = m;
    this.c = c;
    this.rowBytes = PackedLayout.rowBytes(m, bits);
    this.workLength = body.work().length;
  }

  /** The blocks of packed rows of m features on {@code scale}'s grid at weights {@code wT}. */
  public static BlockProducts packed(int m, QuantizationScale scale, float[] wT, int c) {
    check(m, wT, c);
    return new BlockProducts(
        PackedProducts.BODY.rowBlocks(m, scale.bits(), scale.lo(), scale.step(), wT, c), m,
        scale.bits(), c);
  }

  /** The blocks of float32 rows of m features at weights {@code wT}. */
  public static BlockProducts float32(int m, float[] wT, int c) {
    check(m, wT, c);
    int bits = PackedLayout.FLOAT_BITS;
    return new BlockProducts(PackedProducts.BODY.rowBlocks(m, bits, 0f, 1f, wT, c), m, bits, c);
  }

  private static void check(int m, float[] wT, int c) {
    if (m < 1) {
      throw new IllegalArgumentException("m is " + m + ", expected >= 1");
    }
    PackedProducts.checkClasses(c);
    PackedProducts.checkLength("wT", wT, (long) c * m, "c * m", c, m);
  }

  /** Most rows of one {@link #forward} or {@link #accumulate} (a block; may be huge). */
  public int blockRows() {
    return body.blockRows();
  }

  /** A new zeroed work array, one per thread. */
  public float[] work() {
    return body.work();
  }

  /** {@code y[r*c + j] = sum_i z[r][i] wT[j*m + i]} for the n rows at {@code offset}. */
  public void forward(MemorySegment z, long offset, int n, float[] y, float[] work) {
    checkBlock(z, offset, n, work);
    PackedProducts.checkLength("y", y, (long) n * c, "n * c", n, c);
    body.forward(z, offset, n, y, work);
  }

  /** Adds {@code sum_r z[r][i] d[r*c + j]} over the n rows at {@code offset} to work. */
  public void accumulate(MemorySegment z, long offset, int n, float[] d, float[] work) {
    checkBlock(z, offset, n, work);
    PackedProducts.checkLength("d", d, (long) n * c, "n * c", n, c);
    body.accumulate(z, offset, n, d, work);
  }

  /** {@code gT[j*m + i] +=} work's sums; zeroes work. */
  public void drain(float[] work, float[] gT) {
    checkWork(work);
    PackedProducts.checkLength("gT", gT, (long) c * m, "c * m", c, m);
    body.drain(work, gT);
  }

  private void checkBlock(MemorySegment z, long offset, int n, float[] work) {
    if (z == null) {
      throw new IllegalArgumentException("z is null");
    }
    if (n < 1 || n > body.blockRows()) {
      throw new IllegalArgumentException(
          "n is " + n + ", expected in [1, " + body.blockRows() + "]");
    }
    if (offset < 0 || offset > z.byteSize() - n * rowBytes) {
      throw new IllegalArgumentException("z has " + z.byteSize() + " bytes, offset " + offset
          + " + " + n + " rows x " + rowBytes + " bytes does not fit");
    }
    checkWork(work);
  }

  private void checkWork(float[] work) {
    if (work == null || work.length != workLength) {
      throw new IllegalArgumentException("work is " + (work == null ? "null" : "of length "
          + work.length) + ", expected an array of this pass's work() (length " + workLength
          + ")");
    }
  }
}
