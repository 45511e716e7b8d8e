package org.lprff.vector.train;

import java.util.concurrent.Executor;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.KernelImplementation;
import org.lprff.vector.Kernels;
import org.lprff.vector.ParallelTasks;

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
final class Gram {

  static final boolean VECTOR = Kernels.active() == KernelImplementation.VECTOR;

  /** Columns per packed block: a vector of up to 8 doubles never straddles two blocks. */
  static final int BLOCK = 8;

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
  static int strideUnit() {
    return VECTOR ? Math.max(16, VectorGram.UNIT) : 16;
  }

  static int stride(int m) {
    int unit = strideUnit();
    return (m + unit - 1) / unit * unit;
  }

  /** Index of entry (row r, column i) of a packed chunk of k rows. */
  static int at(int k, int r, int i) {
    return (i / BLOCK) * (k * BLOCK) + r * BLOCK + i % BLOCK;
  }

  /** Packs row-major rows ({@code rows[r*stride + i]}, k x stride) into the block layout. */
  static double[] pack(double[] rows, int k, int stride) {
    double[] c = new double[k * stride];
    for (int r = 0; r < k; r++) {
      for (int i = 0; i < stride; i++) {
        c[at(k, r, i)] = rows[r * stride + i];
      }
    }
    return c;
  }

  static void accumulateUpper(double[] c, int k, int stride, double[] g) {
    accumulateUpper(c, k, stride, g, null);
  }

  /** As the serial form, with the panels run on {@code executor} and the caller (null: serial). */
  static void accumulateUpper(double[] c, int k, int stride, double[] g, Executor executor) {
    int panels = (stride + PANEL - 1) / PANEL;
    // Panel p costs ~ p + 1 row passes: hand out the costly ones first so the tail balances.
    ParallelTasks.run(panels, executor, t -> {
      int jp = (panels - 1 - t) * PANEL;
      int jEnd = Math.min(stride, jp + PANEL);
      if (VECTOR) {
        VectorGram.accumulatePanel(c, k, stride, g, jp, jEnd);
      } else {
        scalarAccumulatePanel(c, k, stride, g, jp, jEnd);
      }
    });
  }

  /** The Vector API body (stride a multiple of its tile width, see {@link #strideUnit()}). */
  static void vectorAccumulateUpper(double[] c, int k, int stride, double[] g) {
    assert stride % VectorGram.UNIT == 0;
    for (int jp = 0; jp < stride; jp += PANEL) {
      VectorGram.accumulatePanel(c, k, stride, g, jp, Math.min(stride, jp + PANEL));
    }
  }

  /** The reference: every i <= j, a fused multiply-add per row in row order. */
  static void scalarAccumulateUpper(double[] c, int k, int stride, double[] g) {
    scalarAccumulatePanel(c, k, stride, g, 0, stride);
  }

  /** The reference on columns [jp, jEnd). */
  private static void scalarAccumulatePanel(
      double[] c, int k, int stride, double[] g, int jp, int jEnd) {
    for (int i = 0; i < jEnd; i++) {
      for (int j = Math.max(i, jp); j < jEnd; j++) {
        double sum = 0;
        for (int r = 0; r < k; r++) {
          sum = Math.fma(c[at(k, r, i)], c[at(k, r, j)], sum);
        }
        g[i * stride + j] += sum;
      }
    }
  }

  /**
   * Mirrors the upper triangle of the stride x stride G onto the lower one and compacts the
   * leading m x m block to row stride m at the front of {@code g} (in place: every entry moves to
   * a lower index, so a forward pass never overwrites an entry it still needs).
   */
  static void finish(double[] g, int m, int stride) {
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

  /** Kept apart so that the incubator classes load only on the vector path. */
  private static final class VectorGram {
    static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    static final int L = D.length();
    /** 4 rows x 2 vectors of columns per tile: 8 accumulators cover FMA latency 4 on 2 ports. */
    static final int UNIT = Math.max(4, 2 * L);

    /** Columns [jp, jEnd) of the upper triangle; jp and jEnd are multiples of the tile width. */
    static void accumulatePanel(double[] c, int k, int stride, double[] g, int jp, int jEnd) {
      for (int i0 = 0; i0 < jEnd; i0 += 4) {
        // The column tile holding i0 holds i0 + 1 .. i0 + 3 too (UNIT is a multiple of 4).
        int first = Math.max(jp, i0 / (2 * L) * (2 * L));
        for (int j0 = first; j0 < jEnd; j0 += 2 * L) {
          tile(c, k, stride, g, i0, j0);
        }
      }
    }

    private static void tile(double[] c, int k, int stride, double[] g, int i0, int j0) {
      DoubleVector a00 = DoubleVector.zero(D);
      DoubleVector a01 = DoubleVector.zero(D);
      DoubleVector a10 = DoubleVector.zero(D);
      DoubleVector a11 = DoubleVector.zero(D);
      DoubleVector a20 = DoubleVector.zero(D);
      DoubleVector a21 = DoubleVector.zero(D);
      DoubleVector a30 = DoubleVector.zero(D);
      DoubleVector a31 = DoubleVector.zero(D);
      // Row r of a block is BLOCK doubles after row r - 1: both operands stream contiguously.
      int x = at(k, 0, i0);
      int b0At = at(k, 0, j0);
      int b1At = at(k, 0, j0 + L);
      for (int r = 0; r < k; r++, x += BLOCK, b0At += BLOCK, b1At += BLOCK) {
        DoubleVector b0 = DoubleVector.fromArray(D, c, b0At);
        DoubleVector b1 = DoubleVector.fromArray(D, c, b1At);
        DoubleVector x0 = DoubleVector.broadcast(D, c[x]);
        DoubleVector x1 = DoubleVector.broadcast(D, c[x + 1]);
        DoubleVector x2 = DoubleVector.broadcast(D, c[x + 2]);
        DoubleVector x3 = DoubleVector.broadcast(D, c[x + 3]);
        a00 = x0.fma(b0, a00);
        a01 = x0.fma(b1, a01);
        a10 = x1.fma(b0, a10);
        a11 = x1.fma(b1, a11);
        a20 = x2.fma(b0, a20);
        a21 = x2.fma(b1, a21);
        a30 = x3.fma(b0, a30);
        a31 = x3.fma(b1, a31);
      }
      add(g, i0 * stride + j0, a00, a01);
      add(g, (i0 + 1) * stride + j0, a10, a11);
      add(g, (i0 + 2) * stride + j0, a20, a21);
      add(g, (i0 + 3) * stride + j0, a30, a31);
    }

    private static void add(double[] g, int at, DoubleVector v0, DoubleVector v1) {
      DoubleVector.fromArray(D, g, at).add(v0).intoArray(g, at);
      DoubleVector.fromArray(D, g, at + L).add(v1).intoArray(g, at + L);
    }
  }
}
