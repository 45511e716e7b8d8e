package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.lprff.arrow.FeatureTestData.D;
import static org.lprff.arrow.FeatureTestData.rows;
import static org.lprff.arrow.FeatureTestData.spec;
import static org.lprff.fixtures.Messages.assertMessage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.junit.jupiter.api.Test;
import org.lprff.arrow.memory.ArrowSegments;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;

class FeatureBatchTest extends ArrowTestBase {

  @Test
  void appendWritesTheFeaturizerBytesInPlaceWithValidityLabelsAndRowIds() {
    for (int bits : FeatureTestData.BITS) {
      FeaturizerSpec spec = spec(bits);
      Featurizer featurizer = Featurizer.of(spec);
      int n = 50;
      float[] rows = rows(n, bits);
      float[] labels = FeatureTestData.labels(LabelType.REGRESSION, n, 3);
      byte[] expected = featurizer.featurize(rows, n, 500);
      FeatureSchema schema = FeatureSchema.of(spec, LabelType.REGRESSION, true);
      try (FeatureBatch batch = FeatureBatch.allocate(featurizer, schema, 64, allocator)) {
        batch.append(Arrays.copyOfRange(rows, 0, 20 * D), 20, Arrays.copyOfRange(labels, 0, 20), 500);
        batch.append(Arrays.copyOfRange(rows, 20 * D, n * D), n - 20,
            Arrays.copyOfRange(labels, 20, n), 520);
        assertEquals(n, batch.rows());
        assertEquals(64 - n, batch.remaining());
        VectorSchemaRoot root = batch.root();
        assertEquals(n, root.getRowCount());
        assertArrayEquals(expected, batch.features().toArray(ValueLayout.JAVA_BYTE), "bits " + bits);
        int rowBytes = spec.rowBytes();
        if (bits == 32) {
          FixedSizeListVector list = (FixedSizeListVector) root.getVector("features");
          Float4Vector values = (Float4Vector) list.getDataVector();
          // In place: the segment the featurizer wrote is the Arrow data buffer itself.
          assertEquals(values.getDataBuffer().memoryAddress(), batch.features().address());
          ByteBuffer le = ByteBuffer.wrap(expected).order(ByteOrder.LITTLE_ENDIAN);
          for (int r = 0; r < n; r++) {
            assertFalse(list.isNull(r));
            for (int i = 0; i < spec.features(); i++) {
              int at = r * spec.features() + i;
              assertFalse(values.isNull(at));
              assertEquals(le.getFloat(4 * at), values.get(at));
            }
          }
        } else {
          FixedSizeBinaryVector binary = (FixedSizeBinaryVector) root.getVector("features");
          assertEquals(binary.getDataBuffer().memoryAddress(), batch.features().address());
          for (int r = 0; r < n; r++) {
            assertFalse(binary.isNull(r), "row " + r);
            assertArrayEquals(Arrays.copyOfRange(expected, r * rowBytes, (r + 1) * rowBytes),
                binary.get(r), "row " + r);
          }
        }
        Float4Vector label = (Float4Vector) root.getVector("label");
        BigIntVector rowId = (BigIntVector) root.getVector("row_id");
        for (int r = 0; r < n; r++) {
          assertEquals(labels[r], label.get(r));
          assertEquals(500 + r, rowId.get(r));
        }
      }
    }
  }

  @Test
  void clearEmptiesTheBatchForReuse() {
    FeaturizerSpec spec = spec(4);
    Featurizer featurizer = Featurizer.of(spec);
    FeatureSchema schema = FeatureSchema.of(spec, LabelType.CLASSES, false);
    float[] rows = rows(30, 1);
    try (FeatureBatch batch = FeatureBatch.allocate(featurizer, schema, 30, allocator)) {
      batch.append(rows, 30, FeatureTestData.labels(LabelType.CLASSES, 30, 2), 0);
      batch.clear();
      assertEquals(0, batch.rows());
      assertEquals(0, batch.root().getRowCount());
      assertEquals(0, batch.features().byteSize());
      FixedSizeBinaryVector features = (FixedSizeBinaryVector) batch.root().getVector("features");
      assertEquals(0, features.getValidityBuffer().getByte(0), "validity cleared");
      float[] classes = {3, 1, 4, 1, 5};
      batch.append(Arrays.copyOfRange(rows, 0, 5 * D), 5, classes, 77);
      assertArrayEquals(featurizer.featurize(rows, 5, 77), batch.features().toArray(ValueLayout.JAVA_BYTE));
      IntVector label = (IntVector) batch.root().getVector("label");
      for (int r = 0; r < 5; r++) {
        assertEquals((int) classes[r], label.get(r));
      }
    }
  }

  @Test
  void parallelAppendGivesTheSameBytes() {
    FeaturizerSpec spec = spec(2, 300);
    Featurizer featurizer = Featurizer.of(spec);
    FeatureSchema schema = FeatureSchema.of(spec, LabelType.NONE, false);
    int n = 700; // more than 2 tasks of Featurizer.MIN_TASK_ROWS
    float[] rows = rows(n, 5);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (FeatureBatch batch = FeatureBatch.allocate(featurizer, schema, n, allocator)) {
      batch.append(rows, n, null, 3, pool);
      assertArrayEquals(featurizer.featurize(rows, n, 3), batch.features().toArray(ValueLayout.JAVA_BYTE));
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void invalidAppendsNameTheValueAndWriteNothing() {
    FeaturizerSpec spec = spec(8);
    Featurizer featurizer = Featurizer.of(spec);
    float[] rows = rows(10, 1);
    try (FeatureBatch classes = FeatureBatch.allocate(
            featurizer, FeatureSchema.of(spec, LabelType.CLASSES, false), 8, allocator);
        FeatureBatch none = FeatureBatch.allocate(
            featurizer, FeatureSchema.of(spec, LabelType.NONE, false), 8, allocator)) {
      assertMessage("n is 10, but the batch has 8 free rows of 8",
          () -> classes.append(rows, 10, new float[10], 0));
      assertMessage("labels is null, but the schema's label type is CLASSES",
          () -> classes.append(rows, 2, null, 0));
      assertMessage("labels has length 1, expected at least n = 2",
          () -> classes.append(rows, 2, new float[1], 0));
      assertMessage("labels[1] is 2.5, expected an integer class index",
          () -> classes.append(rows, 2, new float[] {1, 2.5f}, 0));
      assertMessage("labels[0] is NaN, expected finite",
          () -> classes.append(rows, 2, new float[] {Float.NaN, 1}, 0));
      assertMessage("labels were given, but the schema has no label column",
          () -> none.append(rows, 2, new float[2], 0));
      float[] nan = rows.clone();
      nan[D + 2] = Float.NaN;
      assertMessage("(row 1, row id 11, column 2) is NaN", () -> none.append(nan, 2, null, 10));
      assertMessage("firstRowId is -1", () -> none.append(rows, 2, null, -1));
      assertEquals(0, classes.rows());
      assertEquals(0, none.rows());
    }
  }

  @Test
  void allocateValidatesItsArguments() {
    FeaturizerSpec spec = spec(8);
    Featurizer featurizer = Featurizer.of(spec);
    FeatureSchema schema = FeatureSchema.of(spec, LabelType.NONE, false);
    assertMessage("capacity is 0, expected >= 1",
        () -> FeatureBatch.allocate(featurizer, schema, 0, allocator));
    assertMessage("differs from the schema's",
        () -> FeatureBatch.allocate(Featurizer.of(spec(4)), schema, 1, allocator));
    assertMessage("capacity * rowBytes = 100000000 * 37 = 3700000000 bytes",
        () -> FeatureBatch.allocate(featurizer, schema, 100_000_000, allocator));
    assertMessage("allocator is null", () -> FeatureBatch.allocate(featurizer, schema, 1, null));
  }

  @Test
  void aClosedBatchRefusesUse() {
    FeaturizerSpec spec = spec(8);
    FeatureBatch batch = FeatureBatch.allocate(
        Featurizer.of(spec), FeatureSchema.of(spec, LabelType.NONE, false), 4, allocator);
    batch.close();
    batch.close(); // idempotent
    assertThrows(IllegalStateException.class, batch::root);
    assertThrows(IllegalStateException.class, () -> batch.append(new float[D], 1, null, 0));
  }

  @Test
  void rowsViewOfAFloatListColumnIsInPlace() {
    FeaturizerSpec spec = spec(32, 3);
    FeatureSchema schema = FeatureSchema.of(spec, LabelType.NONE, false);
    float[] rows = rows(2, 4);
    try (FeatureBatch batch = FeatureBatch.allocate(Featurizer.of(spec), schema, 2, allocator)) {
      batch.append(rows, 2, null, 0);
      FixedSizeListVector list = (FixedSizeListVector) batch.root().getVector("features");
      MemorySegment view = ArrowSegments.rows(list);
      assertEquals(2 * 3 * 4, view.byteSize());
      assertEquals(batch.features().address(), view.address());
      float first = ((Float4Vector) list.getDataVector()).get(0);
      assertEquals(first, view.get(LittleEndian.FLOAT, 0));
    }
  }
}
