package org.lprff.vector.products;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.ProductsBody;

/**
 * The products of {@link PackedProducts} on plain float32 rows (b = 32, full precision): row r
 * of n x m little-endian floats starts at {@code byteOffset + 4 * m * r}. Same kernels, same
 * blocking, the features loaded instead of decoded: the reference the packed products are
 * measured against.
 */
public final class FloatProducts {

  private static final ProductsBody PRODUCTS = VectorizationProvider.get().products();

  private FloatProducts() {}

  /** {@code y[r*c + j] = sum_i x[r][i] * wT[j*m + i]}. */
  public static void forward(
      MemorySegment x, long byteOffset, int n, int m, float[] wT, int c, float[] y) {
    PackedLayout.checkRows("x", x, byteOffset, n, m, PackedLayout.FLOAT_BITS);
    PackedProducts.checkClasses(c);
    PackedProducts.checkLength("wT", wT, (long) c * m, "c * m", c, m);
    PackedProducts.checkLength("y", y, (long) n * c, "n * c", n, c);
    PRODUCTS.forward(
        x, byteOffset, n, m, PackedLayout.FLOAT_BITS, 0f, 0f, wT, c, y);
  }

  /** {@link #forward(MemorySegment, long, int, int, float[], int, float[])} on {@code x[off..]}. */
  public static void forward(float[] x, int off, int n, int m, float[] wT, int c, float[] y) {
    forward(ofArray(x), 4L * off, n, m, wT, c, y);
  }

  /** {@code gT[j*m + i] += sum_r x[r][i] * d[r*c + j]} (adds; does not overwrite). */
  public static void accumulateTransposed(
      MemorySegment x, long byteOffset, int n, int m, float[] d, int c, float[] gT) {
    PackedLayout.checkRows("x", x, byteOffset, n, m, PackedLayout.FLOAT_BITS);
    PackedProducts.checkClasses(c);
    PackedProducts.checkLength("d", d, (long) n * c, "n * c", n, c);
    PackedProducts.checkLength("gT", gT, (long) c * m, "c * m", c, m);
    PRODUCTS.accumulateTransposed(
        x, byteOffset, n, m, PackedLayout.FLOAT_BITS, 0f, 0f, d, c, gT);
  }

  /** {@link #accumulateTransposed(MemorySegment, long, int, int, float[], int, float[])} on {@code x[off..]}. */
  public static void accumulateTransposed(
      float[] x, int off, int n, int m, float[] d, int c, float[] gT) {
    accumulateTransposed(ofArray(x), 4L * off, n, m, d, c, gT);
  }

  /**
   * A heap float array as a segment. Its bytes are in native order and the kernels read
   * little-endian, so this needs a little-endian platform (every Vector API target in practice:
   * x86-64, AArch64).
   */
  private static MemorySegment ofArray(float[] x) {
    if (x == null) {
      throw new IllegalArgumentException("x is null");
    }
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new UnsupportedOperationException(
          "float[] rows need a little-endian platform, this one is " + ByteOrder.nativeOrder());
    }
    return MemorySegment.ofArray(x);
  }
}
