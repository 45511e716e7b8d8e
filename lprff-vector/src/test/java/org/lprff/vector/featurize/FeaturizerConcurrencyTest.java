package org.lprff.vector.featurize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.kernel.KernelFunction;

/**
 * One {@link Featurizer} shared by several threads at once: every call's bytes equal a
 * single-threaded reference, bit for bit (issue 19, load). A featurizer is immutable after
 * construction and each call allocates its own scratch; these tests would catch scratch or state
 * shared between calls (checked by moving the projection scratch {@code t} of {@code run} into a
 * field: the test then failed at its first case, dense 1-bit).
 */
class FeaturizerConcurrencyTest {

  private static final int THREADS = 6;
  private static final int REPEATS = 4;
  /** Rows per call: several chunks and, for featurizeParallel, several tasks. */
  private static final int N = 300;
  private static final int D = 13;
  private static final int M = 200;

  @Test
  void sharedFeaturizerGivesTheReferenceBytesOnEveryThread() throws Exception {
    float[] rows = FeaturizerTest.gaussianRows(N, D, 17);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      for (String projection : new String[] {"dense", "circulant"}) {
        for (int bits : new int[] {1, 4, 32}) {
          for (Quantizer q : new Quantizer[] {Quantizer.STOCHASTIC, Quantizer.NEAREST}) {
            FeaturizerSpec spec = new FeaturizerSpec(
                new KernelFunction.Gaussian(1.5), D, M, bits, projection, 5, q);
            Featurizer shared = Featurizer.of(spec);
            byte[] reference = Featurizer.of(spec).featurize(rows, N, 100);
            String what = projection + " bits " + bits + " " + q;
            check(pool, shared, rows, reference, what);
          }
        }
      }
    } finally {
      pool.shutdown();
      pool.awaitTermination(1, TimeUnit.MINUTES);
    }
  }

  /** THREADS threads released together, each featurizing the rows REPEATS times both ways. */
  private static void check(
      ExecutorService pool, Featurizer shared, float[] rows, byte[] reference, String what)
      throws Exception {
    CountDownLatch ready = new CountDownLatch(THREADS);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<byte[]>>> futures = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      boolean parallel = t % 2 == 1;
      futures.add(pool.submit(() -> {
        ready.countDown();
        go.await();
        List<byte[]> outs = new ArrayList<>();
        for (int k = 0; k < REPEATS; k++) {
          byte[] out = new byte[reference.length];
          if (parallel) {
            shared.featurizeParallel(rows, N, 100, out, 0, 0); // on the common pool
          } else {
            shared.featurize(rows, N, 100, out, 0);
          }
          outs.add(out);
        }
        return outs;
      }));
    }
    ready.await();
    go.countDown();
    for (int t = 0; t < THREADS; t++) {
      List<byte[]> outs = futures.get(t).get(1, TimeUnit.MINUTES);
      assertEquals(REPEATS, outs.size());
      for (int k = 0; k < REPEATS; k++) {
        assertArrayEquals(reference, outs.get(k), what + ", thread " + t + ", repeat " + k);
      }
    }
  }
}
