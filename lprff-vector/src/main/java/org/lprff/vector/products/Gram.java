package org.lprff.vector.products;

import java.util.concurrent.Executor;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.GramBody;

/**
 * The Gram matrix of the closed-form solver, {@code G += C^T C} for a chunk C of k rows, in double.
 *
 * <p>Layout of C: <em>packed in column blocks</em> of {@value #BLOCK} columns, each block k rows x
 * {@value #BLOCK} contiguous: entry (r, i) at {@link #at at(k, r, i)}. A tile's loop over the rows
 * then streams two contiguous blocks. (Row-major C, whose rows are m doubles apart, maps every row
 * of a column range to the same L1 and L2 sets at m = 4096 and thrashes them.) {@link #pack} makes
 * the layout from row-major rows. G is row-major stride x stride; {@code stride} is m rounded up
 * to {@link #strideUnit()} with zero columns, so that the vector tiles need no tails. Only the
 * entries i <= j (upper triangle) are guaranteed; tiles that cross the diagonal also write some
 * entries below it, which {@link #finish} overwrites with the mirror of the upper triangle.
 *
 * <p>Each entry is summed over the chunk's rows in row order with one fused multiply-add per row,
 * starting from 0, then added to G: the scalar and vector bodies give identical bits.
 *
 * <p>Codes (b <= 8 bits): the products of two codes are integers up to (2^b - 1)^2, so a float
 * sum of up to {@link #exactRows} of them is exact (every partial sum stays below 2^24). The float
 * form ({@link #accumulateUpper(float[], float[], int, int, double[], Executor)}) sums such a
 * chunk of code rows in float, at twice the double lanes, and adds it to G in double: G = C^T C
 * exactly, whatever the order. {@link #affineUpper} then maps it to the Gram of the values lo +
 * step code. The float chunk is packed twice ({@link #putRow}): column blocks of {@link
 * GramBody#FLOAT_BLOCK} for the vector side, blocks of {@link GramBody#TILE_ROWS} for the
 * broadcast side of a tile.
 *
 * <p>Parallel form: G's columns are cut into panels of {@link #PANEL} columns, and a panel (every
 * row of G up to the panel's last column) is one task. Each entry belongs to exactly one panel, so
 * the bits do not depend on the thread count.
 */
public final class Gram {

  private static final GramBody BODY = VectorizationProvider.get().gram();

  /** Columns per packed block (see {@link GramBody#BLOCK}). */
  public static final int BLOCK = GramBody.BLOCK;

  /**
   * Columns per panel task: a multiple of every tile width, and C's panel (k x 64 doubles, 256 KiB
   * at k = 512) stays in L2 while the rows of G pass over it.
   */
  static final int PANEL = 64;

  private Gram() {}

  /**
   * Rows per float chunk: the column side of a tile (256 x 2 vectors, 16 KiB on 8 lanes) stays in
   * L1, and the sums of 8-bit codes stay exact ({@link #exactRows}(255) = 258).
   */
  public static final int FLOAT_ROWS = 256;

  /**
   * The multiple m is padded to: a multiple of the blocks and of the vector tiles (4 rows, 2
   * vectors of columns) for every vector of up to 8 doubles or 16 floats, whichever body runs.
   */
  public static int strideUnit() {
    return Math.max(GramBody.FLOAT_BLOCK, Math.max(BODY.unit(), BODY.floatUnit()));
  }

  /**
   * The most rows whose float sum of products of codes up to {@code maxCode} is exact: k maxCode^2
   * <= 2^24, so every partial sum is an integer float represents (225 per product at 4 bits: 74,565
   * rows; 65,025 at 8 bits: 258).
   */
  public static int exactRows(int maxCode) {
    long square = (long) maxCode * maxCode;
    return (int) Math.min(Integer.MAX_VALUE, (1L << 24) / Math.max(1, square));
  }

  public static int stride(int m) {
    int unit = strideUnit();
    return (m + unit - 1) / unit * unit;
  }

  /** Index of entry (row r, column i) of a packed chunk of k rows. */
  public static int at(int k, int r, int i) {
    return GramBody.at(k, r, i);
  }

  /** Packs row-major rows ({@code rows[r*stride + i]}, k x stride) into the block layout. */
  public static double[] pack(double[] rows, int k, int stride) {
    double[] c = new double[k * stride];
    for (int r = 0; r < k; r++) {
      for (int i = 0; i < stride; i++) {
        c[at(k, r, i)] = rows[r * stride + i];
      }
    }
    return c;
  }

  public static void accumulateUpper(double[] c, int k, int stride, double[] g) {
    accumulateUpper(c, k, stride, g, null);
  }

  /** As the serial form, with the panels run on {@code executor} and the caller (null: serial). */
  public static void accumulateUpper(double[] c, int k, int stride, double[] g, Executor executor) {
    int panels = (stride + PANEL - 1) / PANEL;
    // Panel p costs ~ p + 1 row passes: hand out the costly ones first so the tail balances.
    ParallelTasks.run(panels, executor, t -> {
      int jp = (panels - 1 - t) * PANEL;
      int jEnd = Math.min(stride, jp + PANEL);
      BODY.accumulatePanel(c, k, stride, g, jp, jEnd);
    });
  }

  /**
   * Writes row r of a float chunk of k rows into both packings: {@code values[0..m)}, then zeros up
   * to {@code stride} (the padding's place moves with k).
   */
  public static void putRow(float[] values, int m, int stride, int k, int r, float[] rows,
      float[] cols) {
    putRow(values, 0, m, stride, k, r, rows, cols);
  }

  /**
   * As {@link #putRow(float[], int, int, int, int, float[], float[])}, from {@code
   * values[off..]}.
   */
  public static void putRow(float[] values, int off, int m, int stride, int k, int r,
      float[] rows, float[] cols) {
    for (int i = 0; i < stride; i++) {
      float v = i < m ? values[off + i] : 0f;
      rows[GramBody.atRows(k, r, i)] = v;
      cols[GramBody.atCols(k, r, i)] = v;
    }
  }

  /**
   * G += C^T C for a float chunk of k rows packed by {@link #putRow}, each entry summed in float
   * and added in double; panels on {@code executor} and the caller (null: serial).
   */
  public static void accumulateUpper(float[] rows, float[] cols, int k, int stride, double[] g,
      Executor executor) {
    int panels = (stride + PANEL - 1) / PANEL;
    ParallelTasks.run(panels, executor, t -> {
      int jp = (panels - 1 - t) * PANEL;
      BODY.accumulatePanel(rows, cols, k, stride, g, jp, Math.min(stride, jp + PANEL));
    });
  }

  /**
   * Maps the upper triangle of G = C^T C over n rows of codes to the Gram of their values lo +
   * step c: Z^T Z = step^2 C^T C + lo step (s 1^T + 1 s^T) + n lo^2 1 1^T, s the column sums of
   * the codes ({@code codeSums}, exact integers in double).
   */
  public static void affineUpper(double[] g, int m, int stride, long n, double[] codeSums,
      double lo, double step) {
    double squared = step * step;
    double cross = lo * step;
    double constant = n * lo * lo;
    for (int i = 0; i < m; i++) {
      for (int j = i; j < m; j++) {
        g[i * stride + j] =
            squared * g[i * stride + j] + cross * (codeSums[i] + codeSums[j]) + constant;
      }
    }
  }

  /**
   * The panels in order on {@code body}: for tests that hold the bodies against each other (and
   * jmh, through a class of this package on its class path); not API.
   */
  static void accumulateUpperWith(GramBody body, double[] c, int k, int stride, double[] g) {
    assert stride % body.unit() == 0;
    for (int jp = 0; jp < stride; jp += PANEL) {
      body.accumulatePanel(c, k, stride, g, jp, Math.min(stride, jp + PANEL));
    }
  }

  /** The float panels in order on {@code body}, as {@link #accumulateUpperWith} (not API). */
  static void accumulateUpperWith(GramBody body, float[] rows, float[] cols, int k, int stride,
      double[] g) {
    assert stride % body.floatUnit() == 0;
    for (int jp = 0; jp < stride; jp += PANEL) {
      body.accumulatePanel(rows, cols, k, stride, g, jp, Math.min(stride, jp + PANEL));
    }
  }


  /**
   * Mirrors the upper triangle of the stride x stride G onto the lower one and compacts the
   * leading m x m block to row stride m at the front of {@code g} (in place: every entry moves to
   * a lower index, so a forward pass never overwrites an entry it still needs).
   */
  public static void finish(double[] g, int m, int stride) {
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < i; j++) {
        g[i * stride + j] = g[j * stride + i];
      }
    }
    if (stride != m) {
      for (int i = 0; i < m; i++) {
        System.arraycopy(g, i * stride, g, i * m, m);
      }
    }
  }
}
