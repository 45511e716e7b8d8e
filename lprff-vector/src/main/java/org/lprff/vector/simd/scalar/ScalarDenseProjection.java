package org.lprff.vector.simd.scalar;

import org.lprff.vector.simd.spi.DenseProjectionBody;

/**
 * Reference projection: the plain triple loop, one float accumulator per output, products added
 * in j order ({@code s += w * x}, a rounded product then a rounded sum).
 */
public final class ScalarDenseProjection implements DenseProjectionBody {

  /** Any width serves the triple loop; 16 features is one cache line of a panel's row. */
  @Override
  public int panelWidth() {
    return 16;
  }

  @Override
  public void project(
      float[] panels,
      int panel,
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
        // Feature i's weights: every panel-th float from (its panel's start + its column).
        int w = DenseProjectionBody.at(panel, d, i, 0);
        float s = 0f;
        for (int j = 0; j < d; j++) {
          s += panels[w + j * panel] * rows[x + j];
        }
        out[o + k] = s;
      }
    }
  }
}
