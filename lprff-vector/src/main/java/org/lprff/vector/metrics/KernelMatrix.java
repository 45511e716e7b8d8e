package org.lprff.vector.metrics;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;
import org.ejml.data.DMatrixRMaj;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.simd.ParallelTasks;

/**
 * Dense kernel matrices in double: the exact K_ij = k(x_i, x_j) of a {@link KernelFunction}, the
 * cross matrix k(a_i, b_j), and the approximation K~ = Z Z^T of feature rows (float32, or b-bit
 * packed rows dequantized on the fly).
 *
 * <p>Meant for the evaluation subsample (n up to a few thousand: n = 4096 is 128 MiB of double).
 * Symmetric matrices are computed on the upper triangle (j >= i) and mirrored, so K is exactly
 * symmetric. Work is split into blocks of {@value #ROW_BLOCK} rows; with an {@link Executor} the
 * blocks run on it and on the calling thread. Every entry is accumulated in the same order whatever
 * the split, so the result is bit-identical with and without an executor.
 *
 * <p>Z Z^T goes through panels of {@value #PANEL} features: the panel (all n rows, dequantized to
 * double, row-major) is added to the upper triangle by dot products in register tiles of 4 x 2
 * entries. Entry (i, j) is the double sum over features f = 0, 1, ... of z_i[f] z_j[f], in feature
 * order (each panel continues the chains of the previous one); each product of two floats is
 * exact in double, so the only rounding is that of the m additions (relative error at most m u
 * ||z_i|| ||z_j||, u = 2^-53), and the result equals that plain loop bit for bit.
 */
public final class KernelMatrix {

  /** Rows per task and per tile. */
  static final int ROW_BLOCK = 16;

  /** Columns per tile: 64 panel rows of 256 doubles (128 KiB) stay in L2. */
  static final int COLUMN_TILE = 64;

  /** Features per panel; a multiple of 8 so that a packed panel starts on a byte. */
  static final int PANEL = 256;

  /** Largest n: n^2 must index a Java array. */
  public static final int MAX_N = 46_340;

  private KernelMatrix() {}

  // ---- exact kernel

  /** The exact n x n kernel matrix of rows {@code rows[i*d .. (i+1)*d)}, computed sequentially. */
  public static DMatrixRMaj exact(KernelFunction kernel, float[] rows, int n, int d) {
    return exact(kernel, rows, n, d, null);
  }

  /**
   * The exact n x n kernel matrix K_ij = {@code kernel.value(x_i, x_j)} (double), symmetric by
   * construction; blocks of rows run on {@code executor} (null: the calling thread only).
   *
   * @throws IllegalArgumentException naming the value if kernel or rows is null, n is not in [1,
   *     {@value #MAX_N}], d < 1, rows is shorter than n d, or an input is NaN or infinite
   */
  public static DMatrixRMaj exact(
      KernelFunction kernel, float[] rows, int n, int d, Executor executor) {
    checkKernel(kernel);
    checkCounts(n, d, "d");
    checkRows("rows", rows, n, d, "d");
    DMatrixRMaj k = new DMatrixRMaj(n, n);
    values(kernel, rows, n, rows, n, d, true, k.data, executor);
    mirrorUpper(k.data, n);
    return k;
  }

  /**
   * The na x nb cross matrix C_ij = k(a_i, b_j) (rows of d floats), for predictions and Nyström
   * features; blocks of rows of a run on {@code executor} (null: the calling thread only).
   *
   * @throws IllegalArgumentException naming the value for null or short arrays, na or nb < 1, d <
   *     1, na nb too large for an array, or non-finite inputs
   */
  public static DMatrixRMaj cross(
      KernelFunction kernel, float[] a, int na, float[] b, int nb, int d, Executor executor) {
    checkKernel(kernel);
    checkRows("a", a, na, d, "d");
    checkRows("b", b, nb, d, "d");
    if ((long) na * nb > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          "na * nb = " + na + " * " + nb + " = " + (long) na * nb + " exceeds the largest array");
    }
    DMatrixRMaj c = new DMatrixRMaj(na, nb);
    values(kernel, a, na, b, nb, d, false, c.data, executor);
    return c;
  }

  /**
   * out[i nb + j] = k(a_i, b_j), in blocks of rows of a on {@code executor}; only j >= i when
   * {@code upper} (a symmetric matrix, mirrored by the caller).
   */
  private static void values(KernelFunction kernel, float[] a, int na, float[] b, int nb, int d,
      boolean upper, double[] out, Executor executor) {
    ParallelTasks.run(
        blocks(na),
        executor,
        block -> {
          int i1 = Math.min(na, (block + 1) * ROW_BLOCK);
          for (int i = block * ROW_BLOCK; i < i1; i++) {
            for (int j = upper ? i : 0; j < nb; j++) {
              out[i * nb + j] = kernel.value(a, i * d, b, j * d, d);
            }
          }
        });
  }

  /** {@link #cross(KernelFunction, float[], int, float[], int, int, Executor)} sequentially. */
  public static DMatrixRMaj cross(
      KernelFunction kernel, float[] a, int na, float[] b, int nb, int d) {
    return cross(kernel, a, na, b, nb, d, null);
  }

  // ---- approximate kernel from features

  /** K~ = Z Z^T of n float32 rows of m features, computed sequentially. */
  public static DMatrixRMaj gram(float[] features, int n, int m) {
    return gram(features, n, m, null);
  }

  /**
   * K~ = Z Z^T (n x n, double) of the float32 feature rows {@code features[i*m .. (i+1)*m)}.
   *
   * @throws IllegalArgumentException naming the value if features is null or shorter than n m, n
   *     is not in [1, {@value #MAX_N}], m < 1, or a feature is NaN or infinite
   */
  public static DMatrixRMaj gram(float[] features, int n, int m, Executor executor) {
    checkCounts(n, m, "m");
    checkRows("features", features, n, m, "m");
    return accumulate(
        n,
        m,
        executor,
        (f0, count, panel) -> {
          for (int i = 0; i < n; i++) {
            int src = i * m + f0;
            for (int f = 0; f < count; f++) {
              panel[i * count + f] = features[src + f];
            }
          }
        });
  }

  /** {@link #gram(MemorySegment, long, int, int, QuantizationScale, Executor)} on a heap array. */
  public static DMatrixRMaj gram(
      byte[] packed, int n, int m, QuantizationScale scale, Executor executor) {
    if (packed == null) {
      throw new IllegalArgumentException("packed is null");
    }
    return gram(MemorySegment.ofArray(packed), 0, n, m, scale, executor);
  }

  /**
   * K~ = Z Z^T of n packed rows (DESIGN.md section 3) of m features at {@code scale.bits()} bits,
   * row i starting at byte {@code offset + i * scale.rowBytes(m)}; each value is {@code
   * scale.value(code)}, the float every unpacking kernel decodes ({@link PackedFeatures#unpack}).
   *
   * @throws IllegalArgumentException naming the value if packed or scale is null, n is not in [1,
   *     {@value #MAX_N}], m < 1, or the segment is too small
   */
  public static DMatrixRMaj gram(
      MemorySegment packed, long offset, int n, int m, QuantizationScale scale,
      Executor executor) {
    if (packed == null) {
      throw new IllegalArgumentException("packed is null");
    }
    if (scale == null) {
      throw new IllegalArgumentException("scale is null");
    }
    checkCounts(n, m, "m");
    long rowBytes = scale.rowBytes(m);
    long need = rowBytes * n;
    if (offset < 0 || offset > packed.byteSize() - need) {
      throw new IllegalArgumentException(
          "packed has " + packed.byteSize() + " bytes, needs offset + n * rowBytes = " + offset
              + " + " + n + " * " + rowBytes + " = " + (offset + need));
    }
    int bits = scale.bits();
    return accumulate(
        n,
        m,
        executor,
        (f0, count, panel) -> {
          float[] line = new float[count];
          for (int i = 0; i < n; i++) {
            // f0 is a multiple of 8, so feature f0 starts on byte f0 * bits / 8.
            PackedFeatures.unpack(
                packed, offset + i * rowBytes + (long) f0 / 8 * bits, scale, count, line, 0);
            for (int f = 0; f < count; f++) {
              panel[i * count + f] = line[f];
            }
          }
        });
  }

  /**
   * K~ = Z Z^T of n rows written by a featurizer of {@code spec}: little-endian float32 for b =
   * 32, packed codes on {@link FeaturizerSpec#scale()} otherwise, rows of {@link
   * FeaturizerSpec#rowBytes()} bytes from byte 0. Codes of a codebook (Lloyd-Max) and
   * Sigma-Delta codes are decoded as a model reads them ({@link FeatureRows#of(FeaturizerSpec,
   * MemorySegment, long, int)}: Sigma-Delta rows condensed to m / block features).
   */
  public static DMatrixRMaj gram(byte[] rows, int n, FeaturizerSpec spec, Executor executor) {
    if (spec == null) {
      throw new IllegalArgumentException("spec is null");
    }
    if (rows == null) {
      throw new IllegalArgumentException("rows is null");
    }
    int m = spec.features();
    if (spec.condensation().isPresent() || !spec.isFloat() && !spec.quantizer().affine()) {
      checkCounts(n, m, "m");
      FeatureRows decoded = FeatureRows.of(spec, MemorySegment.ofArray(rows), 0, n);
      int f = decoded.features();
      float[] values = new float[Math.multiplyExact(n, f)];
      for (int i = 0; i < n; i++) {
        decoded.decode(i, values, i * f);
      }
      return gram(values, n, f, executor);
    }
    if (!spec.isFloat()) {
      return gram(MemorySegment.ofArray(rows), 0, n, m, spec.scale(), executor);
    }
    checkCounts(n, m, "m");
    long need = 4L * m * n;
    if (rows.length < need) {
      throw new IllegalArgumentException(
          "rows has " + rows.length + " bytes, expected n * 4 m = " + n + " * " + 4L * m + " = "
              + need + " for float32 features");
    }
    MemorySegment segment = MemorySegment.ofArray(rows);
    return accumulate(
        n,
        m,
        executor,
        (f0, count, panel) -> {
          for (int i = 0; i < n; i++) {
            long src = 4L * ((long) i * m + f0);
            for (int f = 0; f < count; f++) {
              float v = segment.get(LittleEndian.FLOAT, src + 4L * f);
              if (!Float.isFinite(v)) {
                throw new IllegalArgumentException(
                    "feature " + (f0 + f) + " of row " + i + " is " + v + ", expected finite");
              }
              panel[i * count + f] = v;
            }
          }
        });
  }

  // ---- internals

  /** Fills panel[i * count + f] with feature f0 + f of row i, f < count. */
  @FunctionalInterface
  private interface PanelLoader {
    void load(int f0, int count, double[] panel);
  }

  private static DMatrixRMaj accumulate(int n, int m, Executor executor, PanelLoader loader) {
    DMatrixRMaj k = new DMatrixRMaj(n, n);
    double[] out = k.data;
    double[] panel = new double[Math.min(PANEL, m) * n];
    for (int f0 = 0; f0 < m; f0 += PANEL) {
      int count = Math.min(PANEL, m - f0);
      loader.load(f0, count, panel);
      ParallelTasks.run(blocks(n), executor, block -> addPanel(panel, count, n, block, out));
    }
    mirrorUpper(out, n);
    return k;
  }

  /**
   * Adds sum_f panel[i][f] panel[j][f] to out[i, j] for the rows i of one block and j >= i.
   *
   * <p>Register tiles of 4 rows x 2 columns: per feature 6 loads feed 8 independent FMA chains
   * (latency 4, 2 ports), 14 of the 16 registers. Each entry's chain starts from its current
   * value and adds the products in feature order, so the sum over all panels is the plain
   * sequential sum. Tiles that straddle the diagonal also compute a few entries below it; those
   * are overwritten by the final mirror. Column tiles of {@value #COLUMN_TILE} rows of the panel
   * stay in L2 while the block's 4 row groups pass over them.
   */
  private static void addPanel(double[] panel, int count, int n, int block, double[] out) {
    int i0 = block * ROW_BLOCK;
    int i1 = Math.min(n, i0 + ROW_BLOCK);
    for (int j0 = i0; j0 < n; j0 += COLUMN_TILE) {
      int j1 = Math.min(n, j0 + COLUMN_TILE);
      int i = i0;
      for (; i + 3 < i1; i += 4) {
        int j = Math.max(j0, i);
        for (; j + 1 < j1; j += 2) {
          tile4x2(panel, count, n, i, j, out);
        }
        if (j < j1) {
          for (int r = i; r < i + 4; r++) {
            dot(panel, count, n, r, j, out);
          }
        }
      }
      for (; i < i1; i++) {
        for (int j = Math.max(j0, i); j < j1; j++) {
          dot(panel, count, n, i, j, out);
        }
      }
    }
  }

  private static void tile4x2(double[] panel, int count, int n, int i, int j, double[] out) {
    int o0 = i * n + j;
    int o1 = o0 + n;
    int o2 = o1 + n;
    int o3 = o2 + n;
    double s00 = out[o0];
    double s01 = out[o0 + 1];
    double s10 = out[o1];
    double s11 = out[o1 + 1];
    double s20 = out[o2];
    double s21 = out[o2 + 1];
    double s30 = out[o3];
    double s31 = out[o3 + 1];
    int a0 = i * count;
    int a1 = a0 + count;
    int a2 = a1 + count;
    int a3 = a2 + count;
    int b0 = j * count;
    int b1 = b0 + count;
    for (int f = 0; f < count; f++) {
      double y0 = panel[b0 + f];
      double y1 = panel[b1 + f];
      double x0 = panel[a0 + f];
      s00 += x0 * y0;
      s01 += x0 * y1;
      double x1 = panel[a1 + f];
      s10 += x1 * y0;
      s11 += x1 * y1;
      double x2 = panel[a2 + f];
      s20 += x2 * y0;
      s21 += x2 * y1;
      double x3 = panel[a3 + f];
      s30 += x3 * y0;
      s31 += x3 * y1;
    }
    out[o0] = s00;
    out[o0 + 1] = s01;
    out[o1] = s10;
    out[o1 + 1] = s11;
    out[o2] = s20;
    out[o2 + 1] = s21;
    out[o3] = s30;
    out[o3 + 1] = s31;
  }

  private static void dot(double[] panel, int count, int n, int i, int j, double[] out) {
    double s = out[i * n + j];
    int a = i * count;
    int b = j * count;
    for (int f = 0; f < count; f++) {
      s += panel[a + f] * panel[b + f];
    }
    out[i * n + j] = s;
  }

  /** Copies the strict upper triangle onto the lower one. */
  static void mirrorUpper(double[] a, int n) {
    for (int i = 1; i < n; i++) {
      for (int j = 0; j < i; j++) {
        a[i * n + j] = a[j * n + i];
      }
    }
  }

  private static int blocks(int n) {
    return (n + ROW_BLOCK - 1) / ROW_BLOCK;
  }

  private static void checkKernel(KernelFunction kernel) {
    if (kernel == null) {
      throw new IllegalArgumentException("kernel is null");
    }
  }

  /** n in [1, MAX_N] (an n x n matrix) and width >= 1. */
  private static void checkCounts(int n, int width, String widthName) {
    if (n < 1 || n > MAX_N) {
      throw new IllegalArgumentException("n is " + n + ", expected in [1, " + MAX_N + "]");
    }
    if (width < 1) {
      throw new IllegalArgumentException(widthName + " is " + width + ", expected >= 1");
    }
  }

  /** Checks n >= 1 rows of width >= 1 floats: the length, and that all are finite. */
  static void checkRows(String name, float[] rows, int n, int width, String widthName) {
    if (rows == null) {
      throw new IllegalArgumentException(name + " is null");
    }
    if (n < 1) {
      throw new IllegalArgumentException(
          "the row count of " + name + " is " + n + ", expected >= 1");
    }
    if (width < 1) {
      throw new IllegalArgumentException(widthName + " is " + width + ", expected >= 1");
    }
    long need = (long) n * width;
    if (rows.length < need) {
      throw new IllegalArgumentException(
          name + " has " + rows.length + " floats, expected at least " + n + " * " + width + " = "
              + need);
    }
    for (int i = 0; i < (int) need; i++) {
      if (!Float.isFinite(rows[i])) {
        throw new IllegalArgumentException(
            name + "[" + i + "] (row " + i / width + ", column " + i % width + ") is " + rows[i]
                + ", expected finite values");
      }
    }
  }
}
