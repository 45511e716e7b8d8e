package org.lprff.properties;

import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.simd.spi.CosineCodes;

/** The cosines a featurizer codes, recomputed from its projection and phases. */
final class Cosines {

  private Cosines() {}

  /** The b-bit cosines ({@link CosineCodes#cosine}) of n rows of {@code f}'s input width. */
  static float[][] of(Featurizer f, float[] rows, int n) {
    int d = f.spec().inputDim();
    int m = f.spec().features();
    float[] phases = f.phases();
    float[] t = new float[m];
    float[][] c = new float[n][m];
    for (int r = 0; r < n; r++) {
      f.projection().project(rows, r * d, 1, 0, m, t, 0);
      for (int i = 0; i < m; i++) {
        c[r][i] = CosineCodes.cosine(t[i] + phases[i], f.spec().bits());
      }
    }
    return c;
  }
}
