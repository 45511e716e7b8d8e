package org.lprff.bench.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.products.Gram;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.transform.CirculantPlan;

/**
 * {@link BodySeams} reaches lprff-vector's package-private seams, and they run the body they are
 * given: on this JVM's own bodies they give what the facades give, bit for bit.
 */
class BodySeamsTest {

  private static final VectorizationProvider PROVIDER = VectorizationProvider.get();

  @Test
  void theCirculantSeamRunsTheBodyItIsGiven() {
    int n = 256;
    SplittableRandom random = new SplittableRandom(7);
    float[] g = new float[n];
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      g[i] = (float) random.nextGaussian();
      x[i] = (float) random.nextGaussian();
    }
    CirculantPlan plan = new CirculantPlan(g);
    float[] facade = new float[n];
    plan.multiply(x, facade, new float[plan.scratchLength()]);
    float[] seam = new float[n];
    BodySeams.multiplyWith(plan, PROVIDER.fft(), x, seam, new float[plan.scratchLength()]);
    assertArrayEquals(facade, seam);
  }

  @Test
  void theGramSeamRunsTheBodyItIsGiven() {
    int k = 40;
    int m = 150;
    int stride = Gram.stride(m);
    SplittableRandom random = new SplittableRandom(8);
    double[] rows = new double[k * stride];
    for (int r = 0; r < k; r++) {
      for (int i = 0; i < m; i++) {
        rows[r * stride + i] = random.nextGaussian();
      }
    }
    double[] c = Gram.pack(rows, k, stride);
    double[] facade = new double[stride * stride];
    Gram.accumulateUpper(c, k, stride, facade);
    double[] seam = new double[stride * stride];
    BodySeams.accumulateUpperWith(PROVIDER.gram(), c, k, stride, seam);
    assertArrayEquals(facade, seam);
  }
}
