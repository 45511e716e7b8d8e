package org.lprff.vector.simd.scalar;

import static org.lprff.vector.simd.spi.GramBody.at;

import org.lprff.vector.simd.spi.GramBody;

/** The reference Gram panel: every i <= j, a fused multiply-add per row in row order. */
public final class ScalarGram implements GramBody {

  @Override
  public int unit() {
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
}
