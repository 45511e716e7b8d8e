package org.lprff.vector.products;

import org.lprff.vector.codec.CodebookRows;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.ProductsBody;

/**
 * Products of a batch of n packed feature rows Z ({@link PackedRows}: n x m, b bits per feature,
 * values {@code fma(code, step, lo)}; DESIGN.md section 3) with the weights or gradients of a
 * linear model with c outputs. Features are decoded in registers: no float copy of the batch is
 * made.
 *
 * <p>Matrices with m rows are passed class-major (transposed): {@code wT[j*m + i] = W[i][j]}.
 * Matrices with n rows are row-major: {@code y[r*c + j]}, {@code d[r*c + j]}.
 */
public final class PackedProducts {

  static final ProductsBody BODY = VectorizationProvider.get().products();

  private PackedProducts() {}

  /** Forward pass {@code Y = Z W}: {@code y[r*c + j] = sum_i z[r][i] * wT[j*m + i]}, overwriting y. */
  public static void forward(PackedRows z, float[] wT, int c, float[] y) {
    int n = z.rows();
    int m = z.features();
    checkForward(n, m, wT, c, y);
    QuantizationScale s = z.scale();
    BODY.forward(z.segment(), z.byteOffset(), n, m, s.bits(), s.lo(), s.step(), wT, c, y);
  }

  /**
   * Gradient accumulation {@code G += Z^T D}: {@code gT[j*m + i] += sum_r z[r][i] * d[r*c + j]}.
   * Adds to {@code gT}; it does not overwrite it.
   */
  public static void accumulateTransposed(PackedRows z, float[] d, int c, float[] gT) {
    int n = z.rows();
    int m = z.features();
    checkAccumulate(n, m, d, c, gT);
    QuantizationScale s = z.scale();
    BODY.accumulateTransposed(
        z.segment(), z.byteOffset(), n, m, s.bits(), s.lo(), s.step(), d, c, gT);
  }

  /** {@link #forward} for rows whose codes index a codebook ({@link CodebookRows}: Lloyd-Max). */
  public static void forwardLevels(CodebookRows z, float[] wT, int c, float[] y) {
    int n = z.rows();
    int m = z.features();
    checkForward(n, m, wT, c, y);
    BODY.forwardLevels(z.segment(), z.byteOffset(), n, m, z.bits(), z.levels(), wT, c, y);
  }

  /** {@link #accumulateTransposed} for rows whose codes index a codebook. */
  public static void accumulateTransposedLevels(CodebookRows z, float[] d, int c, float[] gT) {
    int n = z.rows();
    int m = z.features();
    checkAccumulate(n, m, d, c, gT);
    BODY.accumulateTransposedLevels(
        z.segment(), z.byteOffset(), n, m, z.bits(), z.levels(), d, c, gT);
  }

  private static void checkForward(int n, int m, float[] wT, int c, float[] y) {
    checkClasses(c);
    checkLength("wT", wT, (long) c * m, "c * m", c, m);
    checkLength("y", y, (long) n * c, "n * c", n, c);
  }

  private static void checkAccumulate(int n, int m, float[] d, int c, float[] gT) {
    checkClasses(c);
    checkLength("d", d, (long) n * c, "n * c", n, c);
    checkLength("gT", gT, (long) c * m, "c * m", c, m);
  }

  static void checkClasses(int c) {
    if (c < 1) {
      throw new IllegalArgumentException("c is " + c + ", expected >= 1");
    }
  }

  /**
   * Checks that n rows of m features fit in {@code z} from {@code byteOffset} on; {@code bits} is
   * already valid (or 32 for float rows). Messages call the segment {@code name}.
   */

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
