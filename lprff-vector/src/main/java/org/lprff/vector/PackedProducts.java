package org.lprff.vector;

import java.lang.foreign.MemorySegment;

/**
 * Products of a batch of n packed feature rows Z (n x m, {@code bits} bits per feature, values
 * {@code fma(code, step, lo)}; DESIGN.md section 3) with the weights or gradients of a linear
 * model with c outputs. Rows are contiguous, row r starting at {@code byteOffset + r *
 * ceil(m * bits / 8)}. Features are decoded in registers: no float copy of the batch is made.
 *
 * <p>Matrices with m rows are passed class-major (transposed): {@code wT[j*m + i] = W[i][j]}.
 * Matrices with n rows are row-major: {@code y[r*c + j]}, {@code d[r*c + j]}.
 */
public final class PackedProducts {

  static final ProductsKernel KERNEL =
      Kernels.active() == KernelImplementation.VECTOR
          ? new VectorProducts()
          : new ScalarProducts();

  private PackedProducts() {}

  /** Forward pass {@code Y = Z W}: {@code y[r*c + j] = sum_i z[r][i] * wT[j*m + i]}. */
  public static void forward(
      MemorySegment z,
      long byteOffset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] wT,
      int c,
      float[] y) {
    PackedFeatures.checkBits(bits);
    PackedFeatures.checkScale(lo, step);
    checkShape(z, byteOffset, n, m, bits, c);
    checkLength("wT", wT, (long) c * m, "c * m", c, m);
    checkLength("y", y, (long) n * c, "n * c", n, c);
    KERNEL.forward(z, byteOffset, n, m, bits, lo, step, wT, c, y);
  }

  /** {@link #forward(MemorySegment, long, int, int, int, float, float, float[], int, float[])}. */
  public static void forward(
      byte[] z,
      int byteOffset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] wT,
      int c,
      float[] y) {
    forward(PackedFeatures.ofArray(z), byteOffset, n, m, bits, lo, step, wT, c, y);
  }

  /**
   * Gradient accumulation {@code G += Z^T D}: {@code gT[j*m + i] += sum_r z[r][i] * d[r*c + j]}.
   * Adds to {@code gT}; it does not overwrite it.
   */
  public static void accumulateTransposed(
      MemorySegment z,
      long byteOffset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      float[] gT) {
    PackedFeatures.checkBits(bits);
    PackedFeatures.checkScale(lo, step);
    checkShape(z, byteOffset, n, m, bits, c);
    checkLength("d", d, (long) n * c, "n * c", n, c);
    checkLength("gT", gT, (long) c * m, "c * m", c, m);
    KERNEL.accumulateTransposed(z, byteOffset, n, m, bits, lo, step, d, c, gT);
  }

  /** {@link #accumulateTransposed(MemorySegment, long, int, int, int, float, float, float[], int, float[])}. */
  public static void accumulateTransposed(
      byte[] z,
      int byteOffset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      float[] gT) {
    accumulateTransposed(PackedFeatures.ofArray(z), byteOffset, n, m, bits, lo, step, d, c, gT);
  }

  /** Checks z, offsets and sizes; {@code bits} is already valid (or 32 for float rows). */
  static void checkShape(MemorySegment z, long byteOffset, int n, int m, int bits, int c) {
    if (z == null) {
      throw new IllegalArgumentException("z is null");
    }
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    if (m < 0) {
      throw new IllegalArgumentException("m is " + m + ", expected >= 0");
    }
    if (c < 1) {
      throw new IllegalArgumentException("c is " + c + ", expected >= 1");
    }
    long rowBytes = ProductsKernel.rowBytes(m, bits);
    long need = Math.multiplyHigh(n, rowBytes) == 0 ? n * rowBytes : Long.MAX_VALUE;
    if (byteOffset < 0 || need < 0 || byteOffset > z.byteSize() - need) {
      throw new IllegalArgumentException(
          "z has "
              + z.byteSize()
              + " bytes, byteOffset "
              + byteOffset
              + " + n "
              + n
              + " rows x "
              + rowBytes
              + " bytes ("
              + m
              + " features of "
              + bits
              + " bits) does not fit");
    }
  }

  static void checkLength(
      String name, float[] a, long need, String formula, int first, int second) {
    if (need > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          formula + " = " + need + " exceeds the largest array (" + first + ", " + second + ")");
    }
    if (a == null) {
      throw new IllegalArgumentException(name + " is null");
    }
    if (a.length < need) {
      throw new IllegalArgumentException(
          name
              + " has length "
              + a.length
              + ", expected at least "
              + formula
              + " = "
              + need
              + " ("
              + formula.charAt(0)
              + " = "
              + first
              + ", "
              + formula.charAt(formula.length() - 1)
              + " = "
              + second
              + ")");
    }
  }
}
