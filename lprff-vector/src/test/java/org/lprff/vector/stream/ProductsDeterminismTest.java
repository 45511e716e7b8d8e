package org.lprff.vector.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;
import org.lprff.vector.train.TrainData;

/**
 * Reproducible training needs products whose bits do not depend on how warm the JIT is. Lane sums
 * with {@code reduceLanes(ADD)} broke this (the interpreter, C1 and C2 add the lanes in different
 * orders; seen as changed bits after ~150 and ~800 calls); the kernels now sum lanes in a fixed
 * order. This runs each product 1500 times from a cold start (when this class runs first in its
 * JVM) through the tier transitions and requires every result to equal the first, bit for bit. If
 * earlier tests already compiled the kernels the check is weaker (it then compares C2 with C2),
 * but it cannot pass on a wrong kernel that it would have failed on cold.
 */
class ProductsDeterminismTest {

  private static final int CALLS = 1500;

  @Test
  void productsDoNotChangeWithJitWarmUp() {
    int n = 250;
    int m = 69; // groups, vector tiles and a scalar tail
    float[] x = TrainData.gaussian(n, 3, 8);
    for (int bits : new int[] {4, 8, 32}) { // grouped, micro-kernel and float paths
      FeatureRows z = TrainData.featurize(TrainData.spec(3, m, bits, 1.0, 2), x, n);
      for (int c : new int[] {1, 10}) {
        float[] wT = TrainData.gaussian(c, m, bits + c);
        float[] d = TrainData.gaussian(n, c, 3 * bits + c);
        float[] y = new float[n * c];
        float[] g = new float[c * m];
        float[] firstY = null;
        float[] firstG = null;
        for (int call = 0; call < CALLS; call++) {
          z.forward(wT, c, y);
          java.util.Arrays.fill(g, 0f);
          z.accumulateTransposed(d, c, g);
          if (firstY == null) {
            firstY = y.clone();
            firstG = g.clone();
          } else if (call % 50 == 0 || call == CALLS - 1) {
            assertArrayEquals(firstY, y, "forward, b " + bits + ", c " + c + ", call " + call);
            assertArrayEquals(firstG, g, "accumulate, b " + bits + ", c " + c + ", call " + call);
          }
        }
      }
    }
  }
}
