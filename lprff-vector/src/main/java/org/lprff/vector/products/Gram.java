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
   * The multiple m is padded to: a multiple of the block and of the vector tile (4 rows, 2 vectors
   * of columns) for every double vector of up to 8 lanes, whichever body runs.
   */
  public static int strideUnit() {
    return Math.max(16, BODY.unit());
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
   * The panels in order on {@code body}: for tests that hold the bodies against each other (and
   * jmh, through a class of this package on its class path); not API.
   */
  static void accumulateUpperWith(GramBody body, double[] c, int k, int stride, double[] g) {
    assert stride % body.unit() == 0;
    for (int jp = 0; jp < stride; jp += PANEL) {
      body.accumulatePanel(c, k, stride, g, jp, Math.min(stride, jp + PANEL));
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
