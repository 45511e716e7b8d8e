package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.arrow.FeatureTestData.D;
import static org.lprff.arrow.FeatureTestData.FIRST_ROW_ID;
import static org.lprff.arrow.FeatureTestData.spec;
import static org.lprff.fixtures.Messages.assertMessage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.memory.ArrowSegments;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowBatches;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;

class FeatureWriterTest extends ArrowTestBase {


  private static ExecutorService pool;

  @TempDir Path dir;

  @BeforeAll
  static void startPool() {
    pool = Executors.newFixedThreadPool(2);
  }

  @AfterAll
  static void stopPool() {
    pool.shutdown();
  }

  /** What a reader saw: per batch row counts, and all rows' bytes, labels and ids. */
  private record ReadBack(
      FeatureSchema schema, List<Integer> batchRows, byte[] features, float[] labels, long[] rowIds) {}

  private static ReadBack readFile(Path file, FeatureSchema expectSchema, BufferAllocator allocator)
      throws IOException {
    try (FeatureFile in = FeatureFile.open(file, allocator)) {
      List<Integer> sizes = new ArrayList<>();
      Accumulator acc = new Accumulator(in.featureSchema().labelType());
      for (int i = 0; i < in.batchCount(); i++) {
        FeatureFile.Batch batch = in.read(i);
        assertEquals(in.batchRows(i), batch.rows());
        sizes.add(batch.rows());
        acc.add(batch.rows(), batch.features(), batch.labels(), batch.rowIds());
      }
      assertEquals(acc.rows, in.rowCount());
      assertEquals(expectSchema, in.featureSchema());
      return acc.result(in.featureSchema(), sizes);
    }
  }

  private static ReadBack readStream(Path file, BufferAllocator allocator) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        ArrowStreamReader reader = new ArrowStreamReader(channel, allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      FeatureSchema schema = FeatureSchema.from(root.getSchema());
      List<Integer> sizes = new ArrayList<>();
      Accumulator acc = new Accumulator(schema.labelType());
      while (reader.loadNextBatch()) {
        sizes.add(root.getRowCount());
        MemorySegment features = root.getVector("features") instanceof FixedSizeListVector list
            ? ArrowSegments.rows(list)
            : ArrowSegments.rows((FixedSizeBinaryVector) root.getVector("features"));
        MemorySegment labels = schema.labelType() == LabelType.NONE
            ? null : ArrowSegments.values((BaseFixedWidthVector) root.getVector("label"));
        MemorySegment ids = ArrowSegments.values((BaseFixedWidthVector) root.getVector("row_id"));
        acc.add(root.getRowCount(), features, labels, ids);
      }
      return acc.result(schema, sizes);
    }
  }

  private static final class Accumulator {
    final LabelType type;
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<Float> labels = new ArrayList<>();
    final List<Long> ids = new ArrayList<>();
    long rows;

    Accumulator(LabelType type) {
      this.type = type;
    }

    void add(int n, MemorySegment features, MemorySegment labelColumn, MemorySegment idColumn) {
      bytes.writeBytes(features.toArray(ValueLayout.JAVA_BYTE));
      for (int r = 0; r < n; r++) {
        if (labelColumn != null) {
          labels.add(type == LabelType.CLASSES
              ? (float) labelColumn.get(LittleEndian.INT, 4L * r) : labelColumn.get(LittleEndian.FLOAT, 4L * r));
        }
        ids.add(idColumn.get(LittleEndian.LONG, 8L * r));
      }
      rows += n;
    }

    ReadBack result(FeatureSchema schema, List<Integer> sizes) {
      float[] l = new float[labels.size()];
      for (int i = 0; i < l.length; i++) {
        l[i] = labels.get(i);
      }
      return new ReadBack(schema, sizes, bytes.toByteArray(), labels.isEmpty() ? null : l,
          ids.stream().mapToLong(Long::longValue).toArray());
    }
  }

  @Test
  void everyBitWidthFormatAndBatchSizeRoundTripsTheFeaturizerBytes() throws IOException {
    int n = 300;
    float[] rows = FeatureTestData.rows(n, 7);
    int[] batchSizes = {1, 7, 250, n};
    for (int b = 0; b < FeatureTestData.BITS.length; b++) {
      int bits = FeatureTestData.BITS[b];
      FeaturizerSpec spec = spec(bits);
      Featurizer featurizer = Featurizer.of(spec);
      byte[] expected = featurizer.featurize(rows, n, FIRST_ROW_ID);
      LabelType labelType = LabelType.values()[b % 3];
      float[] labels = FeatureTestData.labels(labelType, n, 8);
      Map<String, String> extra = Map.of("lprff.standardize.mean", "0.25", "origin", "test " + bits);
      FeatureSchema schema = FeatureSchema.of(spec, labelType, true, extra);
      for (FeatureWriter.Format format : FeatureWriter.Format.values()) {
        for (int batchSize : batchSizes) {
          String what = "bits " + bits + ", " + format + ", batch size " + batchSize;
          Path file = dir.resolve("b" + bits + "-" + format + "-" + batchSize + ".arrow");
          FeatureWriter.Summary summary = FeatureWriter.builder(file, featurizer, schema, allocator)
              .format(format)
              .batchSize(batchSize)
              .executor(batchSize == 250 ? pool : null)
              .write(FeatureTestData.source(rows, labels, 13));
          assertEquals(n, summary.rows(), what);
          assertEquals((n + batchSize - 1) / batchSize, summary.recordBatches(), what);
          assertEquals(Files.size(file), summary.bytes(), what);
          ReadBack back = format == FeatureWriter.Format.FILE
              ? readFile(file, schema, allocator) : readStream(file, allocator);
          assertEquals(schema, back.schema(), what);
          assertEquals(spec, back.schema().spec(), what);
          assertEquals(extra, back.schema().extraMetadata(), what);
          for (int i = 0; i < back.batchRows().size(); i++) {
            int expectedRows = Math.min(batchSize, n - i * batchSize);
            assertEquals(expectedRows, back.batchRows().get(i), what + ", record batch " + i);
          }
          assertArrayEquals(expected, back.features(), what);
          assertArrayEquals(labels, back.labels(), what);
          for (int r = 0; r < n; r++) {
            assertEquals(FIRST_ROW_ID + r, back.rowIds()[r], what);
          }
          assertDequantizedEqual(spec, expected, back.features(), n, what);
        }
      }
    }
  }

  /**
   * Rows featurized elsewhere (a Spark partition's packed column) make the same file, byte for
   * byte, as the writer featurizing them, whatever chunks they come in; bad ids or short labels
   * are refused, naming them, and leave no file.
   */
  @Test
  void featurizedRowsWriteTheSameFileAsFeaturizing() throws IOException {
    int n = 300;
    float[] rows = FeatureTestData.rows(n, 3);
    for (int bits : new int[] {1, 4, 32}) {
      FeaturizerSpec spec = spec(bits);
      Featurizer featurizer = Featurizer.of(spec);
      float[] labels = FeatureTestData.labels(LabelType.CLASSES, n, 5);
      FeatureSchema schema = FeatureSchema.of(spec, LabelType.CLASSES, true);
      Path featurized = dir.resolve("featurized-" + bits + ".arrow");
      FeatureWriter.builder(featurized, featurizer, schema, allocator).batchSize(128)
          .write(FeatureTestData.source(rows, labels, 13));
      byte[] bytes = featurizer.featurize(rows, n, FIRST_ROW_ID);
      long[] ids = new long[n];
      for (int r = 0; r < n; r++) {
        ids[r] = FIRST_ROW_ID + r;
      }
      Path copied = dir.resolve("copied-" + bits + ".arrow");
      try (FeatureWriter w = FeatureWriter.builder(copied, featurizer, schema, allocator)
          .batchSize(128).open()) {
        int rowBytes = spec.rowBytes();
        for (int from = 0; from < n; from += 77) {
          int k = Math.min(77, n - from);
          w.writeFeaturized(bytes, from * rowBytes, k,
              java.util.Arrays.copyOfRange(labels, from, from + k),
              java.util.Arrays.copyOfRange(ids, from, from + k));
        }
        w.finish();
      }
      assertArrayEquals(Files.readAllBytes(featurized), Files.readAllBytes(copied), "b " + bits);
    }
    FeatureSchema schema = FeatureSchema.of(spec(4), LabelType.REGRESSION, true);
    Path bad = dir.resolve("bad.arrow");
    byte[] bytes = Featurizer.of(spec(4)).featurize(rows, 2, 0);
    for (long[] ids : new long[][] {{0, -3}, {0}}) {
      try (FeatureWriter w = FeatureWriter.builder(bad, Featurizer.of(spec(4)), schema, allocator)
          .open()) {
        assertMessage(ids.length == 1 ? "ids hold fewer than n = 2" : "row id -3 (row 1)",
            () -> w.writeFeaturized(bytes, 0, 2, new float[] {1, 2}, ids));
      }
      assertFalse(Files.exists(bad));
    }
  }

  /** The values the training code sees: unpacking the read bytes equals unpacking the written. */
  private static void assertDequantizedEqual(
      FeaturizerSpec spec, byte[] expected, byte[] read, int n, String what) {
    int m = spec.features();
    int rowBytes = spec.rowBytes();
    float[] want = new float[m];
    float[] got = new float[m];
    float s = (float) Math.sqrt(2.0 / m);
    for (int r = 0; r < n; r++) {
      if (spec.isFloat()) {
        MemorySegment.copy(MemorySegment.ofArray(expected), LittleEndian.FLOAT, (long) r * rowBytes, want, 0, m);
        MemorySegment.copy(MemorySegment.ofArray(read), LittleEndian.FLOAT, (long) r * rowBytes, got, 0, m);
      } else {
        PackedFeatures.unpack(expected, r * rowBytes, spec.scale(), m, want, 0);
        PackedFeatures.unpack(read, r * rowBytes, spec.scale(), m, got, 0);
      }
      assertArrayEquals(want, got, what + ", row " + r);
      for (float v : got) {
        // |z| <= s: quantized levels span [-s, s]; float32 cosines times s stay within s (1 ulp).
        assertTrue(Math.abs(v) <= Math.nextUp(s), what + ": value " + v + " beyond s = " + s);
      }
    }
  }

  @Test
  void progressIsReportedPerBatchWithTheAnnouncedTotal() throws IOException {
    FeaturizerSpec spec = spec(4);
    List<long[]> calls = new ArrayList<>();
    float[] rows = FeatureTestData.rows(20, 1);
    FeatureWriter.builder(dir.resolve("p.arrow"), Featurizer.of(spec),
            FeatureSchema.of(spec, LabelType.NONE, false), allocator)
        .batchSize(8)
        .totalRows(20)
        .progress((written, total) -> calls.add(new long[] {written, total}))
        .write(FeatureTestData.source(rows, null, 3));
    assertEquals(3, calls.size());
    assertArrayEquals(new long[] {8, 20}, calls.get(0));
    assertArrayEquals(new long[] {16, 20}, calls.get(1));
    assertArrayEquals(new long[] {20, 20}, calls.get(2));
  }

  @Test
  void anEmptyInputGivesAValidFileWithNoRows() throws IOException {
    FeaturizerSpec spec = spec(8);
    FeatureSchema schema = FeatureSchema.of(spec, LabelType.NONE, true);
    Path file = dir.resolve("empty.arrow");
    FeatureWriter.Summary summary = FeatureWriter.builder(file, Featurizer.of(spec), schema, allocator)
        .write(() -> null);
    assertEquals(0, summary.rows());
    try (FeatureFile in = FeatureFile.open(file, allocator)) {
      assertEquals(0, in.rowCount());
      assertEquals(0, in.batchCount());
      assertEquals(spec, in.spec());
    }
  }

  // ---- atomicity

  private List<Path> listing() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }

  private FeatureWriter.Builder builder(Path target) {
    FeaturizerSpec spec = spec(4);
    return FeatureWriter.builder(target, Featurizer.of(spec),
        FeatureSchema.of(spec, LabelType.REGRESSION, true), allocator).batchSize(7);
  }

  @Test
  void aSourceFailureMidwayLeavesNeitherTargetNorTemporaryFile() throws IOException {
    for (FeatureWriter.Format format : FeatureWriter.Format.values()) {
      Path target = dir.resolve("out-" + format + ".arrow");
      float[] rows = FeatureTestData.rows(13, 1);
      IOException boom = new IOException("input broke at line 40");
      RowBatches failing = new RowBatches() {
        int calls;

        @Override
        public RowBatch next() throws IOException {
          if (++calls == 4) {
            throw boom;
          }
          return new RowBatch(rows, 13, D, new float[13], calls * 13L);
        }
      };
      FeatureWriter.Builder builder = builder(target).format(format);
      IOException thrown = assertThrows(IOException.class, () -> builder.write(failing));
      assertSame(boom, thrown);
      assertFalse(Files.exists(target), format + ": target exists");
      assertEquals(List.of(), listing(), format + ": files left behind");
    }
  }

  @Test
  void aFeaturizerFailureMidwayLeavesNothingAndNamesTheRow() throws IOException {
    Path target = dir.resolve("nan.arrow");
    float[] rows = FeatureTestData.rows(30, 1);
    rows[20 * D + 3] = Float.NaN;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> builder(target).write(FeatureTestData.source(rows, new float[30], 30)));
    assertTrue(e.getMessage().contains("row id " + (FIRST_ROW_ID + 20)), e.getMessage());
    assertEquals(List.of(), listing());
  }

  @Test
  void closeWithoutFinishDeletesTheTemporaryFile() throws IOException {
    Path target = dir.resolve("unfinished.arrow");
    Path temp;
    try (FeatureWriter writer = builder(target).open()) {
      temp = writer.temporaryFile();
      writer.write(new RowBatch(FeatureTestData.rows(20, 1), 20, D, new float[20], 0));
      assertEquals(14, writer.rowsWritten());
      assertTrue(Files.exists(temp));
      assertEquals(temp.getParent(), target.toAbsolutePath().getParent());
      assertTrue(temp.getFileName().toString().startsWith(".unfinished.arrow.tmp-"), temp.toString());
      assertFalse(Files.exists(target));
    }
    assertFalse(Files.exists(temp));
    assertEquals(List.of(), listing());
  }

  @Test
  void aThrowingProgressListenerFailsTheWriterAndLeavesNothing() throws IOException {
    Path target = dir.resolve("listener.arrow");
    RuntimeException boom = new IllegalStateException("listener broke");
    RuntimeException thrown = assertThrows(RuntimeException.class,
        () -> builder(target).progress((w, t) -> { throw boom; })
            .write(FeatureTestData.source(FeatureTestData.rows(10, 1), new float[10], 10)));
    assertSame(boom, thrown);
    assertEquals(List.of(), listing());
  }

  @Test
  void aFailedWriterRefusesFurtherUse() throws IOException {
    Path target = dir.resolve("failed.arrow");
    try (FeatureWriter writer = builder(target).open()) {
      assertThrows(IllegalArgumentException.class,
          () -> writer.write(new RowBatch(new float[2 * (D - 1)], 2, D - 1, new float[2], 0)));
      IllegalStateException e = assertThrows(IllegalStateException.class, writer::finish);
      assertTrue(e.getMessage().contains("failed or closed"), e.getMessage());
    }
    assertEquals(List.of(), listing());
  }

  @Test
  void successReplacesAnExistingTargetAndFailureLeavesItUntouched() throws IOException {
    Path target = dir.resolve("existing.arrow");
    Files.writeString(target, "old contents");
    float[] rows = FeatureTestData.rows(10, 1);
    assertThrows(IOException.class, () -> builder(target).write(() -> {
      throw new IOException("no input");
    }));
    assertEquals("old contents", Files.readString(target));
    assertEquals(List.of(target), listing());
    builder(target).write(FeatureTestData.source(rows, new float[10], 4));
    assertEquals(List.of(target), listing());
    try (FeatureFile in = FeatureFile.open(target, allocator)) {
      assertEquals(10, in.rowCount());
    }
  }

  @Test
  void aMissingDirectoryFailsAtOpenWithoutLeaking() {
    Path target = dir.resolve("no-such-dir").resolve("x.arrow");
    assertThrows(IOException.class, () -> builder(target).open());
  }

  @Test
  void batchesOfAnotherWidthAreRefusedWithTheirSizes() throws IOException {
    Path target = dir.resolve("short.arrow");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> builder(target).write(new RowBatches() {
          boolean done;

          @Override
          public RowBatch next() {
            if (done) {
              return null;
            }
            done = true;
            return new RowBatch(new float[8], 2, 4, new float[2], 5);
          }
        }));
    assertTrue(e.getMessage().contains(
        "row batch (first row id 5) has 4 columns, expected the featurizer's input dimension d = 5"),
        e.getMessage());
    assertEquals(List.of(), listing());
  }

  @Test
  void builderAndRowBatchValidateArguments() {
    FeaturizerSpec spec = spec(4);
    FeatureSchema schema = FeatureSchema.of(spec, LabelType.NONE, false);
    Featurizer featurizer = Featurizer.of(spec);
    assertMessage("batchSize is 0, expected >= 1",
        () -> FeatureWriter.builder(dir.resolve("x"), featurizer, schema, allocator).batchSize(0));
    assertMessage("differs from the schema's",
        () -> FeatureWriter.builder(dir.resolve("x"), Featurizer.of(spec(8)), schema, allocator));
    assertMessage("totalRows is -2",
        () -> FeatureWriter.builder(dir.resolve("x"), featurizer, schema, allocator).totalRows(-2));
    assertMessage("rows is -1, expected >= 0", () -> new RowBatch(new float[0], -1, D, null, 0));
    assertMessage("labels has length 1, expected at least rows = 2",
        () -> new RowBatch(new float[10], 2, D, new float[1], 0));
    assertMessage("firstRowId is -3", () -> new RowBatch(new float[10], 2, D, null, -3));
  }
}
