package org.lprff.vector.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

/**
 * {@link FeatureRows#of(FeaturizerSpec, MemorySegment, long, int)}: every quantizer's rows decode
 * as its spec says, and the products (codebook lookups, Sigma-Delta's weights expanded and
 * gradients condensed) equal the products of the decoded rows.
 */
class FeatureRowsTest {

  private static final int N = 37;
  private static final int D = 5;

  @Test
  void productsOfEveryQuantizersRowsEqualThoseOfTheDecodedRows() {
    Random random = new Random(17);
    float[] x = new float[N * D];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) random.nextGaussian();
    }
    for (Quantizer q : new Quantizer[] {Quantizer.STOCHASTIC, Quantizer.SHARED_THRESHOLD,
        Quantizer.LLOYD_MAX, Quantizer.sigmaDelta(1, 4), Quantizer.sigmaDelta(2, 8)}) {
      for (int bits : new int[] {2, 4, 8, 32}) {
        FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1.3), D, 96, bits,
            "circulant", 3, q);
        byte[] bytes = Featurizer.of(spec).featurize(x, N, 0);
        FeatureRows rows = FeatureRows.of(spec, MemorySegment.ofArray(bytes), 0, N);
        String what = q + " at " + bits + " bits";
        int f = spec.modelFeatures();
        assertEquals(f, rows.features(), what);
        if (q instanceof Quantizer.SigmaDelta) {
          assertInstanceOf(FeatureRows.Condensed.class, rows, what);
        } else if (q == Quantizer.LLOYD_MAX && bits < 32) {
          assertInstanceOf(FeatureRows.Coded.class, rows, what);
        }
        float[] z = new float[N * f];
        for (int r = 0; r < N; r++) {
          rows.decode(r, z, r * f);
        }
        int c = 3;
        float[] wT = new float[c * f];
        for (int i = 0; i < wT.length; i++) {
          wT[i] = (float) random.nextGaussian();
        }
        float[] y = new float[N * c];
        rows.forward(wT, c, y);
        float[] d = new float[N * c];
        for (int i = 0; i < d.length; i++) {
          d[i] = (float) random.nextGaussian();
        }
        float[] g = new float[c * f];
        rows.accumulateTransposed(d, c, g);
        for (int r = 0; r < N; r++) {
          for (int j = 0; j < c; j++) {
            double want = 0;
            double scale = 0;
            for (int i = 0; i < f; i++) {
              want += (double) z[r * f + i] * wT[j * f + i];
              scale += Math.abs((double) z[r * f + i] * wT[j * f + i]);
            }
            assertEquals(want, y[r * c + j], 1e-5 * scale + 1e-6, what + " forward");
          }
        }
        for (int j = 0; j < c; j++) {
          for (int i = 0; i < f; i++) {
            double want = 0;
            double scale = 0;
            for (int r = 0; r < N; r++) {
              want += (double) z[r * f + i] * d[r * c + j];
              scale += Math.abs((double) z[r * f + i] * d[r * c + j]);
            }
            assertEquals(want, g[j * f + i], 1e-5 * scale + 1e-6, what + " gradient");
          }
        }
      }
    }
  }
}
