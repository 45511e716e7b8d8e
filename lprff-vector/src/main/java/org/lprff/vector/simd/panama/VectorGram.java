package org.lprff.vector.simd.panama;

import static org.lprff.vector.simd.spi.GramBody.BLOCK;
import static org.lprff.vector.simd.spi.GramBody.at;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.spi.GramBody;

/**
 * Vector API Gram panels: tiles of 4 rows x 2 vectors of columns of G, each entry summed over the
 * chunk's rows in row order with one fused multiply-add per row, as the scalar reference does.
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

  @Override
  public String shape() {
    return VectorShape.describe(D);
  }
}
