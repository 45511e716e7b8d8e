package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource.Batches;

class ArrowBatchesTest extends ArrowTestBase {

  private static final int N = 1000;
  private static final int RECORD_BATCH = 128;

  @TempDir Path dir;

  private Path write(int bits, LabelType type) throws IOException {
    Path file = dir.resolve("b" + bits + "-" + type + ".arrow");
    FeatureTestData.write(file, FeatureTestData.spec(bits), type, N, RECORD_BATCH,
        FeatureWriter.Format.FILE, null, allocator);
    return file;
  }

  /** One epoch as (row id -> feature bytes, label) collected from the core's batches. */
  private static List<long[]> epoch(ArrowBatches source, int epoch, int batch, long seed,
      byte[][] bytesById, float[] labelById) {
    List<long[]> order = new ArrayList<>();
    try (Batches it = source.epoch(epoch, batch, seed)) {
      while (it.hasNext()) {
        MiniBatch b = it.next();
        assertTrue(b.rows() >= 1 && b.rows() <= batch);
        long rowBytes = b.features().rowBytes();
        for (int i = 0; i < b.rows(); i++) {
          int id = (int) (b.rowIds()[i] - FeatureTestData.FIRST_ROW_ID);
          order.add(new long[] {id});
          if (bytesById != null) {
            bytesById[id] = b.features().segment().asSlice(
                b.features().byteOffset() + i * rowBytes, rowBytes).toArray(
                java.lang.foreign.ValueLayout.JAVA_BYTE);
            labelById[id] = b.targets() != null ? b.targets()[i] : b.classes()[i];
          }
        }
      }
    }
    return order;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 4, 8, 32})
  void everyRowOncePerEpochWithTheFilesBytesAndLabels(int bits) throws IOException {
    Path file = write(bits, LabelType.REGRESSION);
    FeaturizerSpec spec = FeatureTestData.spec(bits);
    byte[] expected = Featurizer.of(spec).featurize(FeatureTestData.rows(N, 7), N,
        FeatureTestData.FIRST_ROW_ID);
    float[] labels = FeatureTestData.labels(LabelType.REGRESSION, N, 8);
    try (ArrowBatches source = ArrowBatches.open(file)) {
      assertEquals(N, source.rows());
      assertEquals(bits, source.bits());
      for (int e = 0; e < 2; e++) {
        byte[][] bytes = new byte[N][];
        float[] got = new float[N];
        List<long[]> order = epoch(source, e, 32, 5, bytes, got);
        assertEquals(N, order.size());
        int rowBytes = spec.rowBytes();
        for (int id = 0; id < N; id++) {
          assertNotNull(bytes[id], "row " + id + " missing in epoch " + e);
          assertArrayEquals(Arrays.copyOfRange(expected, id * rowBytes, (id + 1) * rowBytes),
              bytes[id], "row " + id);
        }
        assertArrayEquals(labels, got);
      }
    }
  }

  @Test
  void orderIsDeterministicFromSeedAndEpochAndShuffles() throws IOException {
    Path file = write(4, LabelType.CLASSES);
    try (ArrowBatches a = ArrowBatches.open(file); ArrowBatches b = ArrowBatches.open(file)) {
      long[] first = ids(epoch(a, 3, 32, 9, null, null));
      assertArrayEquals(first, ids(epoch(b, 3, 32, 9, null, null)));
      assertArrayEquals(first, ids(epoch(a, 3, 32, 9, null, null)));
      long[] other = ids(epoch(a, 4, 32, 9, null, null));
      assertTrue(!Arrays.equals(first, other), "epochs 3 and 4 gave the same order");
      long[] sorted = first.clone();
      Arrays.sort(sorted);
      assertTrue(!Arrays.equals(first, sorted), "order ROWS did not shuffle");
    }
  }

  @Test
  void intLabelsAreClassesAndFloatLabelsCanBeClasses() throws IOException {
    try (ArrowBatches s = ArrowBatches.open(write(8, LabelType.CLASSES));
        Batches it = s.epoch(0, 50, 1)) {
      MiniBatch b = it.next();
      assertNull(b.targets());
      assertNotNull(b.classes());
    }
    // float labels are normal deviates: not integers, refused with row and value
    Path file = write(8, LabelType.REGRESSION);
    try (ArrowBatches s = ArrowBatches.open(file, MiniBatchSource.Order.SEQUENTIAL, true);
        Batches it = s.epoch(0, 50, 1)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, it::next);
      float first = FeatureTestData.labels(LabelType.REGRESSION, N, 8)[0];
      assertTrue(e.getMessage().contains("row id " + FeatureTestData.FIRST_ROW_ID + " is " + first),
          e.getMessage());
    }
  }

  private static long[] ids(List<long[]> order) {
    return order.stream().mapToLong(x -> x[0]).toArray();
  }

}
