package org.lprff.vector.transform;

import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.FwhtBody;

/**
 * In-place fast Walsh–Hadamard transform of float32 data whose length is a power of two.
 *
 * <p>Natural (Hadamard/Sylvester) order: {@code H_1 = [1]}, {@code H_2k = [[H_k, H_k], [H_k,
 * -H_k]]}, so {@code (Hx)_i = sum_j (-1)^popcount(i & j) x_j}. {@code transform} computes the
 * unnormalized {@code H x} (entries ±1, {@code H H = n I}); {@code transformNormalized} computes the
 * orthonormal {@code H x / sqrt(n)}, which is its own inverse. Sizes from 2 to 2^30 are accepted.
 *
 * <p>The scalar and Vector API bodies use the same butterfly tree, so results are identical
 * whichever one {@link VectorizationProvider#active()} selects. All methods are thread-safe for disjoint arrays.
 */
public final class Fwht {

  /** Largest accepted transform length, 2^30. */
  public static final int MAX_LENGTH = 1 << 30;

  private static final FwhtBody BODY = VectorizationProvider.get().fwht();

  private Fwht() {}

  /** Replaces {@code x} by {@code H x}; {@code x.length} must be a power of two in [2, 2^30]. */
  public static void transform(float[] x) {
    BODY.transform(x, 0, checkWhole(x));
  }

  /** Replaces {@code x[offset, offset + n)} by its transform; the rest is untouched. */
  public static void transform(float[] x, int offset, int n) {
    checkWindow(x, offset, n, 1, "rowCount");
    BODY.transform(x, offset, n);
  }

  /** Replaces {@code x} by {@code H x / sqrt(x.length)}. */
  public static void transformNormalized(float[] x) {
    BODY.transformNormalized(x, 0, checkWhole(x));
  }

  /** Replaces {@code x[offset, offset + n)} by {@code H x / sqrt(n)}; the rest is untouched. */
  public static void transformNormalized(float[] x, int offset, int n) {
    checkWindow(x, offset, n, 1, "rowCount");
    BODY.transformNormalized(x, offset, n);
  }

  /**
   * Transforms {@code rowCount} contiguous rows of length {@code n}, the first starting at {@code
   * offset}: row r is {@code rows[offset + r n, offset + (r + 1) n)}.
   */
  public static void transformRows(float[] rows, int offset, int n, int rowCount) {
    checkWindow(rows, offset, n, rowCount, "rowCount");
    for (int r = 0; r < rowCount; r++) {
      BODY.transform(rows, offset + r * n, n);
    }
  }

  /** Like {@link #transformRows} with every row normalized by {@code 1 / sqrt(n)}. */
  public static void transformRowsNormalized(float[] rows, int offset, int n, int rowCount) {
    checkWindow(rows, offset, n, rowCount, "rowCount");
    for (int r = 0; r < rowCount; r++) {
      BODY.transformNormalized(rows, offset + r * n, n);
    }
  }

  /**
   * Transforms {@code width} vectors of length {@code n} stored interleaved: element i of vector c
   * is {@code x[offset + i * width + c]}. Each vector gets exactly the bits {@link #transform}
   * would give it in contiguous layout; with width a multiple of the lane count every level is
   * whole-register arithmetic, the fast layout for many short transforms.
   */
  public static void transformInterleaved(float[] x, int offset, int n, int width) {
    checkInterleaved(x, offset, n, width);
    BODY.transformInterleaved(x, offset, n, width, false);
  }

  /** Like {@link #transformInterleaved} with every output multiplied by {@code 1 / sqrt(n)}. */
  public static void transformInterleavedNormalized(float[] x, int offset, int n, int width) {
    checkInterleaved(x, offset, n, width);
    BODY.transformInterleaved(x, offset, n, width, true);
  }

  private static void checkInterleaved(float[] x, int offset, int n, int width) {
    if (width < 1) {
      throw new IllegalArgumentException("width = " + width + ", expected >= 1");
    }
    checkWindow(x, offset, n, width, "width");
  }

  private static int checkWhole(float[] x) {
    if (x == null) {
      throw new IllegalArgumentException("x is null");
    }
    if (!FwhtBody.isValidSize(x.length) || x.length > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "x has length " + x.length + ", expected a power of two in [2, 2^30]");
    }
    return x.length;
  }

  private static void checkWindow(
      float[] x, int offset, int n, int rowCount, String countName) {
    if (x == null) {
      throw new IllegalArgumentException("array is null");
    }
    if (!FwhtBody.isValidSize(n) || n > MAX_LENGTH) {
      throw new IllegalArgumentException("n = " + n + ", expected a power of two in [2, 2^30]");
    }
    if (rowCount < 0) {
      throw new IllegalArgumentException(countName + " = " + rowCount + " is negative");
    }
    long end = offset + (long) n * rowCount;
    if (offset < 0 || end > x.length) {
      String rows = rowCount == 1 ? "" : " and " + countName + " = " + rowCount;
      throw new IllegalArgumentException(
          "offset = " + offset + " with n = " + n + rows + " needs elements [" + offset + ", "
              + end + ") but the array has length " + x.length);
    }
  }
}
