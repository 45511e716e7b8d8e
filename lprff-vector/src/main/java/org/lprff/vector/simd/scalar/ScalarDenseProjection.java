package org.lprff.vector.simd.scalar;

import org.lprff.vector.simd.spi.DenseProjectionBody;

/**
 * Reference projection: the plain triple loop, one float accumulator per output, products added
 * in j order ({@code s += w * x}, a rounded product then a rounded sum).
 */
public final class ScalarDenseProjection implements DenseProjectionBody {

  @Override
  public void project(
      float[] wT,
      int stride,
      int d,
      float[] rows,
      int rowOffset,
      int n,
      int firstFeature,
      int count,
      float[] out,
      int outOffset) {
    for (int r = 0; r < n; r++) {
      int x = rowOffset + r * d;
      int o = outOffset + r * count;
      for (int k = 0; k < count; k++) {
        int i = firstFeature + k;
        float s = 0f;
        for (int j = 0; j < d; j++) {
          s += wT[j * stride + i] * rows[x + j];
        }
        out[o + k] = s;
      }
    }
  }
}
