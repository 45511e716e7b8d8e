package org.lprff.vector.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.train.TrainData;

class OnTheFlyBatchesTest {

  private static final int N = 700;
  private static final int D = 6;
  private static final float[] X = TrainData.gaussian(N, D, 21);
  private static final float[] T = TrainData.smoothTargets(X, N, D, 0.0, 1);

  /** The bytes of row k of a batch. */
  private static byte[] batchRow(MiniBatch batch, int k) {
    FeatureRows z = batch.features();
    long at = z.byteOffset() + k * z.rowBytes();
    return z.segment().asSlice(at, z.rowBytes()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
  }

  /**
   * Every row of every batch, bit for bit, against Featurizer.featurize of all rows with the same
   * row ids and draw = epoch: b in {1, 2, 4, 8, 16, 32}, stochastic and nearest rounding, dense
   * and circulant projections, shuffled, with and without an executor.
   */
  @Test
  void batchesEqualTheFeaturizerWithDrawEpoch() {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      for (int bits : new int[] {1, 2, 4, 8, 16, 32}) {
        for (Quantizer q : new Quantizer[] {Quantizer.STOCHASTIC, Quantizer.NEAREST}) {
          for (String projection : new String[] {"dense", "circulant"}) {
            FeaturizerSpec spec =
                new FeaturizerSpec(
                    new KernelFunction.Gaussian(2.0), D, 100, bits, projection, 77, q);
            Featurizer f = Featurizer.of(spec);
            long firstId = 5000;
            for (int epoch = 0; epoch < 2; epoch++) {
              byte[] expected = new byte[N * f.rowBytes()];
              f.featurize(X, N, firstId, expected, 0, epoch);
              OnTheFlyBatches plain = OnTheFlyBatches.of(f, X, N, T).withFirstRowId(firstId);
              for (OnTheFlyBatches source : new OnTheFlyBatches[] {plain, plain.withExecutor(pool)}) {
                int seen = 0;
                try (MiniBatchSource.Batches batches = source.epoch(epoch, 250, 3)) {
                  while (batches.hasNext()) {
                    MiniBatch batch = batches.next();
                    for (int k = 0; k < batch.rows(); k++) {
                      int row = (int) (batch.rowIds()[k] - firstId);
                      byte[] want =
                          Arrays.copyOfRange(
                              expected, row * f.rowBytes(), (row + 1) * f.rowBytes());
                      String where = spec + ", epoch " + epoch + ", row " + row;
                      assertTrue(Arrays.equals(want, batchRow(batch, k)), where);
                      assertEquals(T[row], batch.targets()[k], where);
                      seen++;
                    }
                  }
                }
                assertEquals(N, seen);
              }
            }
          }
        }
      }
    } finally {
      pool.shutdown();
    }
  }

  /**
   * Epoch 1 rounds afresh: its bytes differ from epoch 0's, and it stays unbiased. For 4-bit
   * stochastic rounding, entries whose float value lies in the lower half of its interval (frac
   * in (0, 1/2)) have errors Q(z) - z in [-frac step, (1 - frac) step], mean 0, independent across
   * entries (counter-based RNG). Hoeffding over N' ~ 35000 such entries of range step: P(|mean| >=
   * t) <= 2 exp(-2 N' t^2 / step^2) = 1e-9 at t = 0.0245 step. Round-to-nearest, the biased
   * alternative, has mean -frac step ~ -step/4 there, and the same check rejects it.
   */
  @Test
  void freshDrawsPerEpochStayUnbiased() {
    int m = 100;
    FeaturizerSpec spec = TrainData.spec(D, m, 4, 2.0, 5);
    Featurizer floats = Featurizer.of(spec.withBits(32));
    float[] z = new float[N * m];
    floats.featurize(X, N, 0, MemorySegment.ofArray(z), 0, 0);
    double step = spec.scale().step();
    double lo = spec.scale().lo();
    for (Quantizer q : new Quantizer[] {Quantizer.STOCHASTIC, Quantizer.NEAREST}) {
      Featurizer f = Featurizer.of(spec.withQuantizer(q));
      OnTheFlyBatches source = OnTheFlyBatches.of(f, X, N, T).ordered();
      float[][] decoded = new float[2][N * m];
      for (int epoch = 0; epoch < 2; epoch++) {
        try (MiniBatchSource.Batches batches = source.epoch(epoch, N, 0)) {
          MiniBatch batch = batches.next();
          for (int r = 0; r < N; r++) {
            batch.features().decode(r, decoded[epoch], r * m);
          }
        }
      }
      double sum = 0;
      int count = 0;
      for (int k = 0; k < N * m; k++) {
        double position = (z[k] - lo) / step;
        double frac = position - Math.floor(position);
        if (frac > 0 && frac < 0.5) {
          sum += (decoded[1][k] - z[k]) / step;
          count++;
        }
      }
      double mean = sum / count;
      double bound = Math.sqrt(Math.log(2 / 1e-9) / (2.0 * count));
      assertTrue(count > 30000, "count " + count);
      if (q == Quantizer.STOCHASTIC) {
        assertFalse(Arrays.equals(decoded[0], decoded[1]), "epoch 1 uses fresh draws");
        assertTrue(Math.abs(mean) < bound, "mean error " + mean + " steps, bound " + bound);
      } else {
        assertTrue(Arrays.equals(decoded[0], decoded[1]), "nearest rounding has no draws");
        assertTrue(mean < -bound, "nearest rounding is biased: mean " + mean + " steps");
      }
    }
  }

  @Test
  void refusesBadInputs() {
    Featurizer f = Featurizer.of(TrainData.spec(D, 16, 4, 1.0, 1));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> OnTheFlyBatches.of(f, X, N - 1, T));
    assertEquals(
        "inputs has 4200 floats, expected n * d = 699 * 6 = 4194 (d is the featurizer's input"
            + " width)",
        e.getMessage());
    float[] bad = X.clone();
    bad[13] = Float.NaN;
    e = assertThrows(IllegalArgumentException.class, () -> OnTheFlyBatches.of(f, bad, N, T));
    assertEquals("inputs[13] (row 2, column 1) is NaN, expected finite inputs", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> OnTheFlyBatches.of(f, X, N, new int[N - 1]));
    assertEquals("classes has length 699, expected one label per row: 700", e.getMessage());
    OnTheFlyBatches source = OnTheFlyBatches.of(f, X, N, T);
    assertEquals(16, source.features());
    assertEquals(4, source.bits());
    assertEquals(N, source.rows());
  }
}
