package org.lprff.vector.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.lprff.vector.train.TrainData;

/** {@link InMemoryBatches}: coverage, shuffling, gathering, views. */
class MiniBatchSourceTest {

  private static final int N = 1003; // not a multiple of the batch size
  private static final int M = 37; // rows of 4 bits end mid-byte

  private static final FeatureRows PACKED =
      TrainData.featurize(TrainData.spec(3, M, 4, 1.0, 9), TrainData.gaussian(N, 3, 4), N);
  private static final FeatureRows FLOATS =
      TrainData.featurize(TrainData.spec(3, M, 32, 1.0, 9), TrainData.gaussian(N, 3, 4), N);

  private static float[] targets() {
    float[] t = new float[N];
    for (int r = 0; r < N; r++) {
      t[r] = r + 0.5f;
    }
    return t;
  }

  /** The row ids of an epoch, batch by batch, checking features and labels against the store. */
  private static List<long[]> epoch(InMemoryBatches source, int epoch, int batchSize, long seed) {
    List<long[]> ids = new ArrayList<>();
    FeatureRows stored = source.featureRows();
    float[] expected = new float[M];
    float[] actual = new float[M];
    try (MiniBatchSource.Batches batches = source.epoch(epoch, batchSize, seed)) {
      while (batches.hasNext()) {
        MiniBatch batch = batches.next();
        assertTrue(batch.rows() >= 1 && batch.rows() <= batchSize);
        long[] batchIds = Arrays.copyOf(batch.rowIds(), batch.rows());
        for (int k = 0; k < batch.rows(); k++) {
          int row = (int) batchIds[k];
          assertEquals(row + 0.5f, batch.targets()[k], "label follows its row");
          stored.decode(row, expected, 0);
          batch.features().decode(k, actual, 0);
          assertArrayEquals(expected, actual, "features of row " + row);
        }
        ids.add(batchIds);
      }
      assertThrows(NoSuchElementException.class, batches::next);
    }
    return ids;
  }

  private static long[] flat(List<long[]> batches) {
    return batches.stream().flatMapToLong(Arrays::stream).toArray();
  }

  @Test
  void everyRowOncePerEpochInFullBatches() {
    for (FeatureRows rows : List.of(PACKED, FLOATS)) {
      InMemoryBatches source = InMemoryBatches.of(rows, targets());
      List<long[]> batches = epoch(source, 0, 100, 1);
      assertEquals(11, batches.size());
      for (int b = 0; b < 10; b++) {
        assertEquals(100, batches.get(b).length);
      }
      assertEquals(3, batches.get(10).length);
      long[] all = flat(batches);
      Arrays.sort(all);
      for (int r = 0; r < N; r++) {
        assertEquals(r, all[r]);
      }
    }
  }

  @Test
  void shuffleIsAFunctionOfSeedAndEpoch() {
    InMemoryBatches source = InMemoryBatches.of(PACKED, targets());
    long[] e0 = flat(epoch(source, 0, 250, 1));
    assertArrayEquals(e0, flat(epoch(source, 0, 250, 1)), "same seed and epoch, same order");
    assertArrayEquals(e0, flat(epoch(source, 0, 7, 1)), "the batch size cuts the same order");
    long[] e1 = flat(epoch(source, 1, 250, 1));
    long[] otherSeed = flat(epoch(source, 0, 250, 2));
    assertFalse(Arrays.equals(e0, e1), "epochs differ");
    assertFalse(Arrays.equals(e0, otherSeed), "seeds differ");
    // Batch composition changes too: the first batch of epoch 1 is not a permutation of epoch 0's.
    long[] first0 = Arrays.copyOf(e0, 250);
    long[] first1 = Arrays.copyOf(e1, 250);
    Arrays.sort(first0);
    Arrays.sort(first1);
    assertNotEquals(Arrays.toString(first0), Arrays.toString(first1));
    // Stored order would start 0, 1, 2, ...: a shuffle of 1003 rows fixing its first 5 has
    // probability 1003^-5 ~ 1e-15.
    assertFalse(e0[0] == 0 && e0[1] == 1 && e0[2] == 2 && e0[3] == 3 && e0[4] == 4);
  }

  @Test
  void orderedBatchesAreViewsInStoredOrder() {
    InMemoryBatches source = InMemoryBatches.of(FLOATS, targets()).ordered().withFirstRowId(1000);
    assertFalse(source.shuffles());
    try (MiniBatchSource.Batches batches = source.epoch(3, 400, 99)) {
      MiniBatch first = batches.next();
      assertSame(FLOATS.segment(), first.features().segment(), "no copy of the features");
      assertEquals(1000, first.rowIds()[0]);
      MiniBatch second = batches.next();
      assertEquals(FLOATS.byteOffset() + 400 * FLOATS.rowBytes(), second.features().byteOffset());
      assertEquals(1400, second.rowIds()[0]);
      assertEquals(400.5f, second.targets()[0]);
      assertEquals(203, batches.next().rows());
      assertFalse(batches.hasNext());
    }
    assertEquals(M, source.features());
    assertEquals(32, source.bits());
    assertEquals(N, source.rows());
  }

  @Test
  void refusesBadArguments() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> InMemoryBatches.of(PACKED, new float[3]));
    assertEquals("targets has length 3, expected one label per row: 1003", e.getMessage());
    InMemoryBatches source = InMemoryBatches.of(PACKED, targets());
    e = assertThrows(IllegalArgumentException.class, () -> source.epoch(-1, 10, 0));
    assertEquals("epoch is -1, expected >= 0", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> source.epoch(0, 0, 0));
    assertEquals("batchSize is 0, expected >= 1", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PACKED.slice(1000, 4));
    assertEquals("rows [1000, 1004) are outside [0, 1003)", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new MiniBatch(PACKED, new float[5], null, null));
    assertEquals(
        "targets has length 5, expected at least the batch's 1003 rows", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> FeatureRows.float32(new float[10], 0, 3, 4));
    assertEquals(
        "segment has 40 bytes, byteOffset 0 + 3 rows x 16 bytes (4 float32 features) does not fit",
        e.getMessage());
  }
}
