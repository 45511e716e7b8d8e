package org.lprff.vector.simd.panama;

import static org.lprff.vector.simd.spi.GramBody.BLOCK;
import static org.lprff.vector.simd.spi.GramBody.FLOAT_BLOCK;
import static org.lprff.vector.simd.spi.GramBody.TILE_ROWS;
import static org.lprff.vector.simd.spi.GramBody.at;
import static org.lprff.vector.simd.spi.GramBody.atCols;
import static org.lprff.vector.simd.spi.GramBody.atRows;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.spi.GramBody;

/**
 * Vector API Gram panels: tiles of 4 rows x 2 vectors of columns of G, each entry summed over the
 * chunk's rows in row order with one fused multiply-add per row, as the scalar reference does.
 *
 * <p>The float tiles run BLIS's loop order on the two packings of a chunk: the column side of a
 * tile (k x 2 vectors, 16 KiB at k = 256 on 8 lanes) stays in L1 while the tiles of up to {@value
 * #ROW_BLOCK} rows of G pass over it, their row sides (k x 4 floats each) streamed from L2.
 */
public final class VectorGram implements GramBody {

  static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
  static final int L = D.length();
  /** 4 rows x 2 vectors of columns per tile: 8 accumulators cover FMA latency 4 on 2 ports. */
  static final int UNIT = Math.max(4, 2 * L);

  /** Columns [jp, jEnd) of the upper triangle; jp and jEnd are multiples of the tile width. */
  @Override
  public void accumulatePanel(double[] c, int k, int stride, double[] g, int jp, int jEnd) {
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
  
  @Override
  public int unit() {
    return UNIT;
  }

  static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  static final int LF = F.length();
  /** Float tile: TILE_ROWS rows x 2 vectors, 8 accumulators as in the double tile. */
  static final int FLOAT_UNIT = 2 * LF;
  /** Rows of G whose row sides (ROW_BLOCK x k floats, 128 KiB at k = 256) stay in L2. */
  static final int ROW_BLOCK = 128;

  @Override
  public int floatUnit() {
    return FLOAT_UNIT;
  }

  @Override
  public void accumulatePanel(
      float[] rows, float[] cols, int k, int stride, double[] g, int jp, int jEnd) {
    float[] sums = new float[TILE_ROWS * FLOAT_UNIT];
    for (int ib = 0; ib < jEnd; ib += ROW_BLOCK) {
      for (int j0 = jp; j0 < jEnd; j0 += FLOAT_UNIT) {
        // Tiles whose rows reach the upper triangle of this column tile.
        int iEnd = Math.min(ib + ROW_BLOCK, j0 + FLOAT_UNIT);
        for (int i0 = ib; i0 < iEnd; i0 += TILE_ROWS) {
          tile(rows, cols, k, i0, j0, sums);
          addRows(sums, g, i0 * stride + j0, stride);
        }
      }
    }
  }

  /** The float sums of the tile (i0.., j0..) into {@code sums}, TILE_ROWS rows of 2 vectors. */
  private static void tile(float[] rows, float[] cols, int k, int i0, int j0, float[] sums) {
    FloatVector a00 = FloatVector.zero(F);
    FloatVector a01 = FloatVector.zero(F);
    FloatVector a10 = FloatVector.zero(F);
    FloatVector a11 = FloatVector.zero(F);
    FloatVector a20 = FloatVector.zero(F);
    FloatVector a21 = FloatVector.zero(F);
    FloatVector a30 = FloatVector.zero(F);
    FloatVector a31 = FloatVector.zero(F);
    int x = atRows(k, 0, i0);
    int b0At = atCols(k, 0, j0);
    int b1At = atCols(k, 0, j0 + LF);
    for (int r = 0; r < k; r++, x += TILE_ROWS, b0At += FLOAT_BLOCK, b1At += FLOAT_BLOCK) {
      FloatVector b0 = FloatVector.fromArray(F, cols, b0At);
      FloatVector b1 = FloatVector.fromArray(F, cols, b1At);
      FloatVector x0 = FloatVector.broadcast(F, rows[x]);
      FloatVector x1 = FloatVector.broadcast(F, rows[x + 1]);
      FloatVector x2 = FloatVector.broadcast(F, rows[x + 2]);
      FloatVector x3 = FloatVector.broadcast(F, rows[x + 3]);
      a00 = x0.fma(b0, a00);
      a01 = x0.fma(b1, a01);
      a10 = x1.fma(b0, a10);
      a11 = x1.fma(b1, a11);
      a20 = x2.fma(b0, a20);
      a21 = x2.fma(b1, a21);
      a30 = x3.fma(b0, a30);
      a31 = x3.fma(b1, a31);
    }
    a00.intoArray(sums, 0);
    a01.intoArray(sums, LF);
    a10.intoArray(sums, 2 * LF);
    a11.intoArray(sums, 3 * LF);
    a20.intoArray(sums, 4 * LF);
    a21.intoArray(sums, 5 * LF);
    a30.intoArray(sums, 6 * LF);
    a31.intoArray(sums, 7 * LF);
  }

  /** G's tile rows += the float sums, widened to double. */
  private static void addRows(float[] sums, double[] g, int at, int stride) {
    for (int i = 0; i < TILE_ROWS; i++, at += stride) {
      for (int q = 0; q < FLOAT_UNIT; q++) {
        g[at + q] += sums[i * FLOAT_UNIT + q];
      }
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(D);
  }
}
