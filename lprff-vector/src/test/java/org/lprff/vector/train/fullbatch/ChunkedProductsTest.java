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
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.TrainData;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.SoftmaxLoss;
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

  /**
   * Windows of batches (an ordered source, whose features outlive a batch) and one batch per
   * fork/join (the same source wrapped) give the same bits, with 0, 1 and 3 helpers, for batches
   * of 300 rows (a full and a short chunk each, the last batch shorter), odd rows, and softmax
   * with 3, 10 and 26 outputs (c > 1 blocks) beside the squared loss (c = 1, quad blocks).
   */
  @Test
  void windowsAndThreadsGiveTheSameBits() {
    int n = 5 * 300 + 37;
    float[] x = TrainData.gaussian(n, 5, 7);
    for (int bits : new int[] {2, 4, 32}) {
      FeatureRows z = TrainData.featurize(TrainData.spec(5, M, bits, 1.0, 3), x, n);
      for (int c : new int[] {1, 3, 10, 26}) {
        Loss loss = c == 1 ? SquaredLoss.instance() : new SoftmaxLoss(c);
        float[] targets = TrainData.gaussian(n, 1, 13);
        int[] classes = new int[n];
        for (int r = 0; r < n; r++) {
          classes[r] = Math.floorMod(r * 7 + 3, c);
        }
        InMemoryBatches stored = c == 1
            ? InMemoryBatches.of(z, targets).ordered() : InMemoryBatches.of(z, classes).ordered();
        float[] wT = TrainData.gaussian(c, M, 17);
        double[] bias = new double[c];
        bias[0] = 0.25;
        FullBatchObjective.Sums alone =
            new ChunkedProducts(M, c, 300, null).lossGradient(stored, loss, wT, bias);
        assertNotEquals(0.0, Arrays.stream(alone.gradient()).map(Math::abs).sum());
        assertEquals(n, alone.rows());
        for (MiniBatchSource source : new MiniBatchSource[] {stored, oneBatchAtATime(stored)}) {
          for (ExecutorService helpers : new ExecutorService[] {null, one, three}) {
            String where = "bits " + bits + ", c " + c + ", window "
                + source.featuresOutliveBatch() + ", helpers " + helpers;
            FullBatchObjective.Sums sums =
                new ChunkedProducts(M, c, 300, helpers).lossGradient(source, loss, wT, bias);
            assertEquals(alone.loss(), sums.loss(), where);
            assertArrayEquals(alone.gradient(), sums.gradient(), where);
          }
        }
        if (c == 1) {
          double[] normal = new ChunkedProducts(M, 1, 300, null).normal(stored, wT);
          assertArrayEquals(normal, new ChunkedProducts(M, 1, 300, three).normal(stored, wT));
          assertArrayEquals(
              normal, new ChunkedProducts(M, 1, 300, one).normal(oneBatchAtATime(stored), wT));
        }
      }
    }
  }

  /** {@code source} as a source whose features are valid only until the iterator advances. */
  private static MiniBatchSource oneBatchAtATime(MiniBatchSource source) {
    return new MiniBatchSource() {
      @Override
      public int features() {
        return source.features();
      }

      @Override
      public int bits() {
        return source.bits();
      }

      @Override
      public long rows() {
        return source.rows();
      }

      @Override
      public Batches epoch(int epoch, int batchSize, long seed) {
        return source.epoch(epoch, batchSize, seed);
      }
    };
  }

  private static double[] normal(FeatureRows z, float[] v, ExecutorService helpers) {
    return new ChunkedProducts(M, 1, N, helpers).normal(source(z, null), v);
  }

  private static double lossGradient(
      MiniBatch batch, float[] wT, ExecutorService helpers, double[] grad) {
    FullBatchObjective.Sums sums = new ChunkedProducts(M, 1, N, helpers).lossGradient(
        source(batch.features(), batch.targets()), SquaredLoss.instance(), wT,
        new double[] {0.25});
    System.arraycopy(sums.gradient(), 0, grad, 0, grad.length);
    return sums.loss();
  }

  private static MiniBatchSource source(FeatureRows z, float[] targets) {
    return InMemoryBatches.of(z, targets != null ? targets : new float[z.rows()]).ordered();
  }
}
