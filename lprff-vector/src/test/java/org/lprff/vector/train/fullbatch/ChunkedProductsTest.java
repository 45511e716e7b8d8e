package org.lprff.vector.train.fullbatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.train.TrainData;
import org.lprff.vector.train.loss.SquaredLoss;

/**
 * A pass's sums are a pure function of the rows and the fixed chunks: the calling thread alone
 * and the caller with 1 or 3 helpers give the same bits, for CG's {@code addNormal} and
 * L-BFGS's {@code addLossGradient}, on 1- and 4-bit rows (the grouped kernels, c = 1) and 8-bit
 * rows, over a batch of several chunks whose last one is short.
 */
class ChunkedProductsTest {

  private static final int N = 3 * ChunkedProducts.CHUNK + 37;
  private static final int M = 320; // 1-bit groups of 256 (8 lanes) and a remainder
  private static ExecutorService one;
  private static ExecutorService three;

  @BeforeAll
  static void startHelpers() {
    one = Executors.newFixedThreadPool(1);
    three = Executors.newFixedThreadPool(3);
  }

  @AfterAll
  static void stopHelpers() {
    one.shutdownNow();
    three.shutdownNow();
  }

  private static FeatureRows rows(int bits) {
    float[] x = TrainData.gaussian(N, 5, 7);
    return TrainData.featurize(TrainData.spec(5, M, bits, 1.0, 3), x, N);
  }

  @Test
  void normalProductDoesNotDependOnThreads() {
    for (int bits : new int[] {1, 4, 8}) {
      FeatureRows z = rows(bits);
      float[] v = TrainData.gaussian(1, M, 11);
      double[] alone = normal(z, v, null);
      assertNotEquals(0.0, Arrays.stream(alone).map(Math::abs).sum(), "bits " + bits);
      assertArrayEquals(alone, normal(z, v, one), "bits " + bits + ", 1 helper");
      assertArrayEquals(alone, normal(z, v, three), "bits " + bits + ", 3 helpers");
    }
  }

  @Test
  void lossGradientDoesNotDependOnThreads() {
    for (int bits : new int[] {1, 4, 8}) {
      FeatureRows z = rows(bits);
      float[] targets = TrainData.gaussian(N, 1, 13);
      MiniBatch batch = new MiniBatch(z, targets, null, null);
      float[] wT = TrainData.gaussian(1, M, 17);
      double[] alone = new double[M + 1];
      double loss = lossGradient(batch, wT, null, alone);
      for (ExecutorService helpers : new ExecutorService[] {one, three}) {
        double[] grad = new double[M + 1];
        assertEquals(loss, lossGradient(batch, wT, helpers, grad), "bits " + bits);
        assertArrayEquals(alone, grad, "bits " + bits);
      }
    }
  }

  private static double[] normal(FeatureRows z, float[] v, ExecutorService helpers) {
    double[] into = new double[M];
    new ChunkedProducts(M, 1, N, helpers).addNormal(z, v, into);
    return into;
  }

  private static double lossGradient(
      MiniBatch batch, float[] wT, ExecutorService helpers, double[] grad) {
    return new ChunkedProducts(M, 1, N, helpers)
        .addLossGradient(batch, SquaredLoss.instance(), wT, new double[] {0.25}, grad);
  }
}
