package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.arrow.FeatureTestData.FIRST_ROW_ID;
import static org.lprff.arrow.FeatureTestData.spec;
import static org.lprff.fixtures.Messages.assertMessage;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lprff.arrow.FeatureFileBatches.Access;
import org.lprff.arrow.FeatureFileBatches.Order;
import org.lprff.arrow.ipc.IpcFileLayout;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.products.FloatProducts;
import org.lprff.vector.products.PackedProducts;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource.Batches;

class FeatureFileBatchesTest extends ArrowTestBase {

  /** 7 record batches of 128 rows and one of 104; mini-batches of 32 (the last of the 104 is 8). */
  private static final int N = 1000;
  private static final int RECORD_BATCH = 128;
  private static final int BATCH = 32;

  @TempDir Path dir;

  /** A written file and what the featurizer and labels were for it. */
  private record Fixture(Path file, FeaturizerSpec spec, LabelType labelType, byte[] expected, float[] labels) {}

  private Fixture fixture(int bits, LabelType labelType) throws IOException {
    FeaturizerSpec spec = spec(bits);
    Path file = dir.resolve("b" + bits + "-" + labelType + ".arrow");
    FeatureTestData.write(file, spec, labelType, N, RECORD_BATCH, FeatureWriter.Format.FILE, null, allocator);
    float[] rows = FeatureTestData.rows(N, 7); // as FeatureTestData.write
    byte[] expected = Featurizer.of(spec).featurize(rows, N, FIRST_ROW_ID);
    return new Fixture(file, spec, labelType, expected, FeatureTestData.labels(labelType, N, 8));
  }

  private FeatureFileBatches open(Fixture f, Access access, Order order) throws IOException {
    return access == Access.MAPPED
        ? FeatureFileBatches.mapped(f.file(), order, false)
        : FeatureFileBatches.reader(f.file(), allocator, order, false);
  }

  private static byte[] row(FeatureRows rows, int i) {
    long rowBytes = rows.rowBytes();
    return rows.segment().asSlice(rows.byteOffset() + i * rowBytes, rowBytes)
        .toArray(ValueLayout.JAVA_BYTE);
  }

  /** Checks one epoch row by row against the fixture; returns the row ids in visiting order. */
  private static long[] checkEpoch(FeatureFileBatches source, int epoch, long seed, Fixture f) {
    boolean[] seen = new boolean[N];
    long[] visited = new long[N];
    int count = 0;
    int step = 0;
    try (Batches it = source.epoch(epoch, BATCH, seed)) {
      while (it.hasNext()) {
        MiniBatch mb = it.next();
        String what = source.access() + " " + source.order() + " epoch " + epoch + " step " + step++;
        assertTrue(mb.rows() >= 1 && mb.rows() <= BATCH, what + ": " + mb.rows() + " rows");
        assertEquals(f.spec().bits(), mb.features().bits(), what);
        long first = mb.rowIds()[0] - FIRST_ROW_ID;
        for (int i = 0; i < mb.rows(); i++) {
          long id = mb.rowIds()[i];
          int global = (int) (id - FIRST_ROW_ID);
          assertFalse(seen[global], what + ": row id " + id + " visited twice");
          seen[global] = true;
          visited[count++] = id;
          // Never across two record batches; consecutive rows (a slice) unless order ROWS.
          assertEquals(first / RECORD_BATCH, global / RECORD_BATCH, what);
          if (source.order() != Order.ROWS) {
            assertEquals(first + i, global, what);
          }
          assertArrayEquals(
              Arrays.copyOfRange(f.expected(), global * f.spec().rowBytes(), (global + 1) * f.spec().rowBytes()),
              row(mb.features(), i), what + ", row id " + id);
          if (f.labelType() == LabelType.NONE) {
            assertNull(mb.targets(), what);
            assertNull(mb.classes(), what);
          } else if (f.labelType() == LabelType.CLASSES) {
            assertNull(mb.targets(), what);
            assertEquals((int) f.labels()[global], mb.classes()[i], what);
          } else {
            assertNull(mb.classes(), what);
            assertEquals(f.labels()[global], mb.targets()[i], what);
          }
        }
      }
    }
    assertEquals(N, count, "rows visited in epoch " + epoch);
    return visited;
  }

  @Test
  void everyEpochVisitsEveryRowOnceWithItsBytesLabelsAndIds() throws IOException {
    List<Fixture> fixtures = List.of(
        fixture(4, LabelType.REGRESSION), fixture(32, LabelType.CLASSES), fixture(1, LabelType.NONE));
    for (Fixture f : fixtures) {
      for (Access access : Access.values()) {
        for (Order order : Order.values()) {
          try (FeatureFileBatches source = open(f, access, order)) {
            assertEquals(N, source.rows());
            assertEquals(8, source.recordBatchCount());
            assertEquals(f.spec(), source.spec());
            assertEquals(f.spec().features(), source.features());
            assertEquals(f.spec().bits(), source.bits());
            assertEquals(f.labelType(), source.labelType());
            for (int epoch = 0; epoch < 3; epoch++) {
              checkEpoch(source, epoch, 11, f);
            }
          }
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 4, 8, 32})
  void theDefaultSourceMapsAndShufflesRows(int bits) throws IOException {
    Fixture f = fixture(bits, LabelType.REGRESSION);
    try (FeatureFileBatches source = FeatureFileBatches.open(f.file())) {
      assertEquals(Access.MAPPED, source.access());
      assertEquals(Order.ROWS, source.order());
      for (int e = 0; e < 2; e++) {
        checkEpoch(source, e, 5, f);
      }
    }
  }

  @Test
  void shufflesDifferBetweenEpochsAndRepeatForTheSameSeed() throws IOException {
    Fixture f = fixture(4, LabelType.REGRESSION);
    long[] fileOrder = new long[N];
    for (int i = 0; i < N; i++) {
      fileOrder[i] = FIRST_ROW_ID + i;
    }
    for (Access access : Access.values()) {
      try (FeatureFileBatches sequential = open(f, access, Order.SEQUENTIAL)) {
        assertArrayEquals(fileOrder, checkEpoch(sequential, 0, 11, f));
        assertArrayEquals(fileOrder, checkEpoch(sequential, 1, 11, f));
      }
      for (Order order : new Order[] {Order.BLOCKS, Order.ROWS}) {
        long[] epoch0;
        long[] epoch1;
        try (FeatureFileBatches source = open(f, access, order)) {
          epoch0 = checkEpoch(source, 0, 11, f);
          epoch1 = checkEpoch(source, 1, 11, f);
          assertFalse(Arrays.equals(epoch0, fileOrder), order + ": epoch 0 not shuffled");
          assertFalse(Arrays.equals(epoch0, epoch1), order + ": epochs 0 and 1 in the same order");
          assertFalse(Arrays.equals(source.recordBatchOrder(0, 11), source.recordBatchOrder(1, 11)));
          assertArrayEquals(epoch0, checkEpoch(source, 0, 11, f), order + ": epoch 0 again");
          assertFalse(Arrays.equals(epoch1, checkEpoch(source, 1, 12, f)), order + ": another seed");
        }
        try (FeatureFileBatches again = open(f, access, order)) {
          assertArrayEquals(epoch1, checkEpoch(again, 1, 11, f), order + ": same seed, new source");
        }
      }
    }
  }

  @Test
  void mappedAndReaderPathsGiveIdenticalBatches() throws IOException {
    for (Fixture f : List.of(fixture(2, LabelType.REGRESSION), fixture(32, LabelType.CLASSES))) {
      for (Order order : Order.values()) {
        try (FeatureFileBatches mapped = open(f, Access.MAPPED, order);
            FeatureFileBatches reader = open(f, Access.READER, order)) {
          for (int epoch = 0; epoch < 2; epoch++) {
            try (Batches a = mapped.epoch(epoch, BATCH, 5); Batches b = reader.epoch(epoch, BATCH, 5)) {
              int steps = 0;
              while (a.hasNext()) {
                assertTrue(b.hasNext());
                MiniBatch x = a.next();
                MiniBatch y = b.next();
                String what = order + " epoch " + epoch + " step " + steps++;
                assertEquals(x.rows(), y.rows(), what);
                for (int i = 0; i < x.rows(); i++) {
                  assertArrayEquals(row(x.features(), i), row(y.features(), i), what);
                }
                assertArrayEquals(x.rowIds(), y.rowIds(), what);
                assertArrayEquals(x.targets(), y.targets(), what);
                assertArrayEquals(x.classes(), y.classes(), what);
              }
              assertFalse(b.hasNext());
              // 7 x 4 + 4 mini-batches of 32, 32, 32, 8
              assertEquals(32, steps);
            }
          }
        }
      }
    }
  }

  @Test
  void bytesCopiedPerEpochAreCountedAndZeroForMappedFeatures() throws IOException {
    Fixture f = fixture(8, LabelType.REGRESSION);
    long featureBytes = (long) N * f.spec().rowBytes();
    long bodyBytes;
    try (FeatureFile in = FeatureFile.open(f.file(), allocator)) {
      bodyBytes = in.layout().batches().stream().mapToLong(IpcFileLayout.Batch::bodyLength).sum();
    }
    long labelBytes = N * (4L + 8L);
    for (Order order : Order.values()) {
      long gatheredFeatures = order == Order.ROWS ? featureBytes : 0;
      try (FeatureFileBatches mapped = open(f, Access.MAPPED, order);
          FeatureFileBatches reader = open(f, Access.READER, order)) {
        for (int epoch = 0; epoch < 2; epoch++) {
          drain(mapped.epoch(epoch, BATCH, 3));
          assertEquals(new FeatureFileBatches.Copies(0, 0, gatheredFeatures, labelBytes),
              mapped.copies(), order + " mapped");
          drain(reader.epoch(epoch, BATCH, 3));
          assertEquals(new FeatureFileBatches.Copies(featureBytes, bodyBytes - featureBytes,
              gatheredFeatures, labelBytes), reader.copies(), order + " reader");
        }
      }
    }
  }

  private static int drain(Batches it) {
    int steps = 0;
    while (it.hasNext()) {
      it.next();
      steps++;
    }
    return steps;
  }

  @Test
  void miniBatchesFeedTheTrainingKernelsDirectly() throws IOException {
    int classes = 3;
    SplittableRandom random = new SplittableRandom(9);
    for (Fixture f : List.of(fixture(4, LabelType.REGRESSION), fixture(32, LabelType.REGRESSION))) {
      int m = f.spec().features();
      int rowBytes = f.spec().rowBytes();
      float[] wT = new float[classes * m];
      for (int i = 0; i < wT.length; i++) {
        wT[i] = (float) random.nextGaussian();
      }
      for (Access access : Access.values()) {
        try (FeatureFileBatches source = open(f, access, Order.ROWS);
            Batches it = source.epoch(0, BATCH, 4)) {
          int step = 0;
          while (it.hasNext()) {
            MiniBatch mb = it.next();
            int n = mb.rows();
            byte[] gathered = new byte[n * rowBytes];
            for (int i = 0; i < n; i++) {
              int global = (int) (mb.rowIds()[i] - FIRST_ROW_ID);
              System.arraycopy(f.expected(), global * rowBytes, gathered, i * rowBytes, rowBytes);
            }
            float[] got = new float[n * classes];
            float[] want = new float[n * classes];
            mb.features().forward(wT, classes, got);
            if (f.spec().isFloat()) {
              FloatProducts.forward(MemorySegment.ofArray(gathered), 0, n, m, wT, classes, want);
            } else {
              PackedProducts.forward(PackedRows.of(gathered, 0, n, m, f.spec().scale()), wT, classes, want);
            }
            // Same bytes, same kernel, same summation order: exactly equal.
            assertArrayEquals(want, got, access + " step " + step++);
          }
        }
      }
    }
  }

  /** The gather scratch of order ROWS follows the batch size asked for, epoch by epoch. */
  @Test
  void eachEpochMayAskForAnotherBatchSize() throws IOException {
    Fixture f = fixture(16, LabelType.REGRESSION);
    for (Access access : Access.values()) {
      try (FeatureFileBatches source = open(f, access, Order.ROWS)) {
        int epoch = 0;
        for (int batchSize : new int[] {8, 100, 3, RECORD_BATCH + 1}) {
          boolean[] seen = new boolean[N];
          int rows = 0;
          try (Batches it = source.epoch(epoch++, batchSize, 2)) {
            while (it.hasNext()) {
              MiniBatch mb = it.next();
              assertTrue(mb.rows() <= Math.min(batchSize, RECORD_BATCH), access + " " + batchSize);
              for (int i = 0; i < mb.rows(); i++) {
                int global = (int) (mb.rowIds()[i] - FIRST_ROW_ID);
                assertFalse(seen[global]);
                seen[global] = true;
                assertArrayEquals(Arrays.copyOfRange(f.expected(), global * f.spec().rowBytes(),
                    (global + 1) * f.spec().rowBytes()), row(mb.features(), i));
                assertEquals(f.labels()[global], mb.targets()[i]);
              }
              rows += mb.rows();
            }
          }
          assertEquals(N, rows, access + " batch size " + batchSize);
        }
      }
    }
  }

  @Test
  void startingAnotherEpochEndsTheCurrentOne() throws IOException {
    Fixture f = fixture(4, LabelType.NONE);
    try (FeatureFileBatches source = open(f, Access.MAPPED, Order.ROWS)) {
      Batches first = source.epoch(0, BATCH, 1);
      first.next();
      Batches second = source.epoch(1, BATCH, 1);
      assertThrows(ConcurrentModificationException.class, first::hasNext);
      assertThrows(ConcurrentModificationException.class, first::next);
      assertEquals(32, drain(second));
      assertThrows(NoSuchElementException.class, second::next);
    }
  }

  @Test
  void closingInvalidatesEveryMiniBatch() throws IOException {
    Fixture f = fixture(4, LabelType.REGRESSION);
    for (Access access : Access.values()) {
      for (Order order : new Order[] {Order.BLOCKS, Order.ROWS}) {
        FeatureFileBatches source = open(f, access, order);
        Batches it = source.epoch(0, BATCH, 1);
        MemorySegment features = it.next().features().segment();
        features.get(ValueLayout.JAVA_BYTE, 0);
        source.close();
        source.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> features.get(ValueLayout.JAVA_BYTE, 0),
            access + " " + order);
        assertThrows(IllegalStateException.class, it::hasNext);
        assertThrows(IllegalStateException.class, () -> source.epoch(1, BATCH, 1));
      }
    }
  }

  @Test
  void theMappedPathRefusesUnalignedOrShortBuffers() throws IOException {
    Path file = Path.of("/data/x.arrow");
    FeatureFileBatches.requireMappable(file, 0, "features", 64, 100, 100); // fine
    IOException unaligned = assertThrows(IOException.class,
        () -> FeatureFileBatches.requireMappable(file, 3, "features", 68, 100, 100));
    assertTrue(unaligned.getMessage().contains("file /data/x.arrow"), unaligned.getMessage());
    assertTrue(unaligned.getMessage().contains(
        "record batch 3 column features starts at file offset 68, not 8-byte aligned"), unaligned.getMessage());
    IOException shortBuffer = assertThrows(IOException.class,
        () -> FeatureFileBatches.requireMappable(file, 1, "label", 64, 12, 16));
    assertTrue(shortBuffer.getMessage().contains("buffer of 12 bytes, expected at least 16"),
        shortBuffer.getMessage());
  }

  @Test
  void argumentsAreValidated() throws IOException {
    Fixture f = fixture(4, LabelType.NONE);
    assertMessage("order is null",
        () -> FeatureFileBatches.reader(f.file(), allocator, null, false));
    assertMessage("allocator is null",
        () -> FeatureFileBatches.reader(f.file(), null, Order.ROWS, false));
    assertMessage("file is null",
        () -> FeatureFileBatches.mapped(null, Order.ROWS, false));
    try (FeatureFileBatches source = open(f, Access.MAPPED, Order.ROWS)) {
      assertMessage("batchSize is 0, expected >= 1", () -> source.epoch(0, 0, 1));
      assertMessage("epoch is -1, expected >= 0", () -> source.epoch(-1, BATCH, 1));
      MiniBatch mb = source.epoch(0, BATCH, 1).next();
      assertNull(mb.targets());
      assertNull(mb.classes());
    }
  }

  @Test
  void anEmptyFileHasNoMiniBatches() throws IOException {
    FeaturizerSpec spec = spec(4);
    Path file = dir.resolve("empty.arrow");
    FeatureWriter.builder(file, Featurizer.of(spec), FeatureSchema.of(spec, LabelType.NONE, false), allocator)
        .write(() -> null);
    for (Access access : Access.values()) {
      try (FeatureFileBatches source = access == Access.MAPPED
          ? FeatureFileBatches.mapped(file, Order.ROWS, false)
          : FeatureFileBatches.reader(file, allocator, Order.ROWS, false)) {
        assertEquals(0, source.rows());
        assertFalse(source.epoch(0, 8, 1).hasNext());
      }
    }
  }

  @Test
  void intLabelsAreClassesAndFloatLabelsCanBeClasses() throws IOException {
    Fixture classes = fixture(8, LabelType.CLASSES);
    try (FeatureFileBatches s = open(classes, Access.MAPPED, Order.SEQUENTIAL);
        Batches it = s.epoch(0, 50, 1)) {
      MiniBatch b = it.next();
      assertNull(b.targets());
      assertNotNull(b.classes());
      for (int i = 0; i < b.rows(); i++) {
        assertEquals((int) classes.labels()[i], b.classes()[i]);
      }
    }
    // float labels are normal deviates: not integers, refused with the file, row and value
    Fixture reals = fixture(8, LabelType.REGRESSION);
    try (FeatureFileBatches s = FeatureFileBatches.mapped(reals.file(), Order.SEQUENTIAL, true);
        Batches it = s.epoch(0, 50, 1)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, it::next);
      float first = reals.labels()[0];
      assertTrue(e.getMessage().startsWith(reals.file() + ": label of row id " + FIRST_ROW_ID
          + " is " + first), e.getMessage());
    }
  }

  /** Sums every feature byte of an epoch: a read of each page the mapping holds. */
  private static long touchEpoch(FeatureFileBatches source, int epoch) {
    long sum = 0;
    try (Batches it = source.epoch(epoch, BATCH, 1)) {
      while (it.hasNext()) {
        FeatureRows rows = it.next().features();
        MemorySegment seg = rows.segment();
        long end = rows.byteOffset() + rows.rows() * rows.rowBytes();
        for (long k = rows.byteOffset(); k < end; k++) {
          sum += seg.get(ValueLayout.JAVA_BYTE, k);
        }
      }
    }
    return sum;
  }

  /**
   * A mapped file truncated to a third between two epochs of a run: the second epoch's read of a
   * lost page fails (the JVM's InternalError of a faulting unsafe access), and throwIfChanged
   * turns that failure into an IOException naming the file and both sizes; nothing shows for an
   * unchanged file, and a rewrite of the same size shows by its modification time.
   */
  @Test
  void aFileTruncatedUnderItsMappingIsNamedWithItsSizes() throws Exception {
    Fixture f = fixture(8, LabelType.REGRESSION);
    long size = java.nio.file.Files.size(f.file());
    try (FeatureFileBatches source = FeatureFileBatches.mapped(f.file(), Order.SEQUENTIAL, false)) {
      long first = touchEpoch(source, 0);
      assertNull(source.changeSinceOpened());
      FeatureFileBatches.throwIfChanged(new IllegalStateException("unrelated"), source, null);
      try (var channel = java.nio.channels.FileChannel.open(
          f.file(), java.nio.file.StandardOpenOption.WRITE)) {
        channel.truncate(size / 3);
      }
      Throwable failure = null;
      try {
        assertEquals(first, touchEpoch(source, 1), "an epoch read whole after the truncation");
      } catch (Throwable t) {
        failure = t;
      }
      assertNotNull(failure, "reading pages past the new end of the file must fail");
      Throwable cause = failure;
      IOException named = assertThrows(IOException.class,
          () -> FeatureFileBatches.throwIfChanged(cause, null, source));
      String expected = f.file() + " changed while it was being read: it was " + size
          + " bytes when opened and is " + size / 3 + " bytes now";
      assertTrue(named.getMessage().startsWith(expected), named.getMessage());
      assertEquals(failure, named.getCause());
    }
    // The same size written again: the modification time names the change.
    Fixture g = fixture(4, LabelType.REGRESSION);
    try (FeatureFileBatches source = FeatureFileBatches.mapped(g.file(), Order.SEQUENTIAL, false)) {
      java.nio.file.Files.setLastModifiedTime(g.file(), java.nio.file.attribute.FileTime.fromMillis(
          java.nio.file.Files.getLastModifiedTime(g.file()).toMillis() + 60_000));
      assertTrue(source.changeSinceOpened().startsWith("it was modified at "),
          source.changeSinceOpened());
    }
  }
}
