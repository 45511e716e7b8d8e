package org.lprff.vector.simd.scalar;

import static org.lprff.vector.simd.spi.GramBody.at;
import static org.lprff.vector.simd.spi.GramBody.atCols;
import static org.lprff.vector.simd.spi.GramBody.atRows;

import org.lprff.vector.simd.spi.GramBody;

/** The reference Gram panels: every i <= j, a fused multiply-add per row in row order. */
public final class ScalarGram implements GramBody {

  @Override
  public int unit() {
    return 1;
  }

  @Override
  public int floatUnit() {
    return 1;
  }

  @Override
  public void accumulatePanel(double[] c, int k, int stride, double[] g, int jp, int jEnd) {
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

  @Override
  public void accumulatePanel(
      float[] rows, float[] cols, int k, int stride, double[] g, int jp, int jEnd) {
    for (int i = 0; i < jEnd; i++) {
      for (int j = Math.max(i, jp); j < jEnd; j++) {
        float sum = 0;
        for (int r = 0; r < k; r++) {
          sum = Math.fma(rows[atRows(k, r, i)], cols[atCols(k, r, j)], sum);
        }
        g[i * stride + j] += sum;
      }
    }
  }
}
