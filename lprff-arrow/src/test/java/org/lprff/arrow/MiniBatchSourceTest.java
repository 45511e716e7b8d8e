package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.MiniBatchSource.Access;
import org.lprff.arrow.MiniBatchSource.Order;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.products.FloatProducts;
import org.lprff.vector.products.PackedProducts;

class MiniBatchSourceTest extends ArrowTestBase {

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

  private MiniBatchSource open(Fixture f, Access access, Order order, long seed) throws IOException {
    return access == Access.MAPPED
        ? MiniBatchSource.mapped(f.file(), BATCH, order, seed)
        : MiniBatchSource.reader(f.file(), allocator, BATCH, order, seed);
  }

  /** Checks one epoch row by row against the fixture; returns the row ids in visiting order. */
  private static long[] checkEpoch(MiniBatchSource source, int epoch, Fixture f) {
    int rowBytes = f.spec().rowBytes();
    boolean[] seen = new boolean[N];
    long[] visited = new long[N];
    int count = 0;
    int step = 0;
    for (Iterator<MiniBatch> it = source.epoch(epoch); it.hasNext(); ) {
      MiniBatch mb = it.next();
      String what = source.access() + " " + source.order() + " epoch " + epoch + " step " + step;
      assertEquals(step++, mb.step(), what);
      assertEquals(epoch, mb.epoch(), what);
      assertTrue(mb.rows() >= 1 && mb.rows() <= BATCH, what + ": " + mb.rows() + " rows");
      assertEquals((long) mb.rows() * rowBytes, mb.features().byteSize(), what);
      assertEquals(source.order() == Order.ROWS, mb.gathered(), what);
      if (!mb.gathered()) {
        // A slice of the record batch, not a copy.
        assertEquals(mb.recordBatchFeatures().address() + (long) mb.rowIndex(0) * rowBytes,
            mb.features().address(), what);
      }
      for (int i = 0; i < mb.rows(); i++) {
        long id = mb.rowId(i);
        int global = (int) (id - FIRST_ROW_ID);
        assertFalse(seen[global], what + ": row id " + id + " visited twice");
        seen[global] = true;
        visited[count++] = id;
        assertEquals(global - mb.recordBatch() * RECORD_BATCH, mb.rowIndex(i), what);
        assertArrayEquals(
            Arrays.copyOfRange(f.expected(), global * rowBytes, (global + 1) * rowBytes),
            mb.features().asSlice((long) i * rowBytes, rowBytes).toArray(ValueLayout.JAVA_BYTE),
            what + ", row id " + id);
        if (f.labelType() == LabelType.NONE) {
          assertNull(mb.labels(), what);
        } else {
          assertEquals(f.labels()[global], mb.label(i), what);
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
          try (MiniBatchSource source = open(f, access, order, 11)) {
            assertEquals(N, source.rowCount());
            assertEquals(8, source.recordBatchCount());
            assertEquals(f.spec(), source.spec());
            assertEquals(f.labelType(), source.labelType());
            for (int epoch = 0; epoch < 3; epoch++) {
              checkEpoch(source, epoch, f);
            }
          }
        }
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
      try (MiniBatchSource sequential = open(f, access, Order.SEQUENTIAL, 11)) {
        assertArrayEquals(fileOrder, checkEpoch(sequential, 0, f));
        assertArrayEquals(fileOrder, checkEpoch(sequential, 1, f));
      }
      for (Order order : new Order[] {Order.BLOCKS, Order.ROWS}) {
        long[] epoch0;
        long[] epoch1;
        try (MiniBatchSource source = open(f, access, order, 11)) {
          epoch0 = checkEpoch(source, 0, f);
          epoch1 = checkEpoch(source, 1, f);
          assertFalse(Arrays.equals(epoch0, fileOrder), order + ": epoch 0 not shuffled");
          assertFalse(Arrays.equals(epoch0, epoch1), order + ": epochs 0 and 1 in the same order");
          assertFalse(Arrays.equals(source.recordBatchOrder(0), source.recordBatchOrder(1)));
          assertArrayEquals(epoch0, checkEpoch(source, 0, f), order + ": epoch 0 again");
        }
        try (MiniBatchSource again = open(f, access, order, 11);
            MiniBatchSource other = open(f, access, order, 12)) {
          assertArrayEquals(epoch1, checkEpoch(again, 1, f), order + ": same seed, new source");
          assertFalse(Arrays.equals(epoch1, checkEpoch(other, 1, f)), order + ": another seed");
        }
      }
    }
  }

  @Test
  void mappedAndReaderPathsGiveIdenticalBytes() throws IOException {
    for (Fixture f : List.of(fixture(2, LabelType.REGRESSION), fixture(32, LabelType.CLASSES))) {
      for (Order order : Order.values()) {
        try (MiniBatchSource mapped = open(f, Access.MAPPED, order, 5);
            MiniBatchSource reader = open(f, Access.READER, order, 5)) {
          for (int epoch = 0; epoch < 2; epoch++) {
            Iterator<MiniBatch> a = mapped.epoch(epoch);
            Iterator<MiniBatch> b = reader.epoch(epoch);
            int steps = 0;
            while (a.hasNext()) {
              assertTrue(b.hasNext());
              MiniBatch x = a.next();
              MiniBatch y = b.next();
              String what = order + " epoch " + epoch + " step " + steps++;
              assertEquals(x.recordBatch(), y.recordBatch(), what);
              assertArrayEquals(x.rowOrder(), y.rowOrder(), what);
              assertArrayEquals(bytes(x.features()), bytes(y.features()), what);
              assertArrayEquals(bytes(x.labels()), bytes(y.labels()), what);
              assertArrayEquals(bytes(x.rowIds()), bytes(y.rowIds()), what);
            }
            assertFalse(b.hasNext());
            // 7 x 4 + 4 mini-batches of 32, 32, 32, 8
            assertEquals(32, steps);
          }
        }
      }
    }
  }

  private static byte[] bytes(MemorySegment segment) {
    return segment.toArray(ValueLayout.JAVA_BYTE);
  }

  @Test
  void bytesCopiedPerEpochAreCountedAndZeroForMappedFeatures() throws IOException {
    Fixture f = fixture(8, LabelType.REGRESSION);
    long featureBytes = (long) N * f.spec().rowBytes();
    long bodyBytes;
    try (FeatureFile in = FeatureFile.open(f.file(), allocator)) {
      bodyBytes = in.layout().batches().stream().mapToLong(IpcFileLayout.Batch::bodyLength).sum();
    }
    for (Order order : Order.values()) {
      long gatheredFeatures = order == Order.ROWS ? featureBytes : 0;
      long gatheredOther = order == Order.ROWS ? N * (4L + 8L) : 0;
      try (MiniBatchSource mapped = open(f, Access.MAPPED, order, 3);
          MiniBatchSource reader = open(f, Access.READER, order, 3)) {
        for (int epoch = 0; epoch < 2; epoch++) {
          drain(mapped.epoch(epoch));
          assertEquals(new MiniBatchSource.Copies(0, 0, gatheredFeatures, gatheredOther),
              mapped.copies(), order + " mapped");
          drain(reader.epoch(epoch));
          assertEquals(new MiniBatchSource.Copies(featureBytes, bodyBytes - featureBytes,
              gatheredFeatures, gatheredOther), reader.copies(), order + " reader");
        }
      }
    }
  }

  private static int drain(Iterator<MiniBatch> it) {
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
        try (MiniBatchSource source = open(f, access, Order.ROWS, 4)) {
          for (Iterator<MiniBatch> it = source.epoch(0); it.hasNext(); ) {
            MiniBatch mb = it.next();
            int n = mb.rows();
            byte[] gathered = new byte[n * rowBytes];
            for (int i = 0; i < n; i++) {
              int global = (int) (mb.rowId(i) - FIRST_ROW_ID);
              System.arraycopy(f.expected(), global * rowBytes, gathered, i * rowBytes, rowBytes);
            }
            float[] got = new float[n * classes];
            float[] want = new float[n * classes];
            if (f.spec().isFloat()) {
              assertThrows(IllegalStateException.class, mb::packedRows);
              FloatProducts.forward(mb.features(), 0, n, m, wT, classes, got);
              FloatProducts.forward(MemorySegment.ofArray(gathered), 0, n, m, wT, classes, want);
            } else {
              PackedProducts.forward(mb.packedRows(), wT, classes, got);
              PackedProducts.forward(PackedRows.of(gathered, 0, n, m, f.spec().scale()), wT, classes, want);
            }
            // Same bytes, same kernel, same summation order: exactly equal.
            assertArrayEquals(want, got, access + " step " + mb.step());
          }
        }
      }
    }
  }

  @Test
  void startingAnotherEpochEndsTheCurrentOne() throws IOException {
    Fixture f = fixture(4, LabelType.NONE);
    try (MiniBatchSource source = open(f, Access.MAPPED, Order.ROWS, 1)) {
      Iterator<MiniBatch> first = source.epoch(0);
      first.next();
      Iterator<MiniBatch> second = source.epoch(1);
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
        MiniBatchSource source = open(f, access, order, 1);
        Iterator<MiniBatch> it = source.epoch(0);
        MiniBatch mb = it.next();
        mb.features().get(ValueLayout.JAVA_BYTE, 0);
        source.close();
        source.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> mb.features().get(ValueLayout.JAVA_BYTE, 0),
            access + " " + order);
        assertThrows(IllegalStateException.class, it::hasNext);
        assertThrows(IllegalStateException.class, () -> source.epoch(1));
      }
    }
  }

  @Test
  void theMappedPathRefusesUnalignedOrShortBuffers() throws IOException {
    Path file = Path.of("/data/x.arrow");
    MiniBatchSource.requireMappable(file, 0, "features", 64, 100, 100); // fine
    IOException unaligned = assertThrows(IOException.class,
        () -> MiniBatchSource.requireMappable(file, 3, "features", 68, 100, 100));
    assertTrue(unaligned.getMessage().contains("file /data/x.arrow"), unaligned.getMessage());
    assertTrue(unaligned.getMessage().contains(
        "record batch 3 column features starts at file offset 68, not 8-byte aligned"), unaligned.getMessage());
    IOException shortBuffer = assertThrows(IOException.class,
        () -> MiniBatchSource.requireMappable(file, 1, "label", 64, 12, 16));
    assertTrue(shortBuffer.getMessage().contains("buffer of 12 bytes, expected at least 16"),
        shortBuffer.getMessage());
  }

  @Test
  void argumentsAreValidated() throws IOException {
    Fixture f = fixture(4, LabelType.NONE);
    assertMessage("batchSize is 0, expected >= 1",
        () -> MiniBatchSource.mapped(f.file(), 0, Order.ROWS, 1));
    assertMessage("order is null",
        () -> MiniBatchSource.reader(f.file(), allocator, 4, null, 1));
    assertMessage("allocator is null",
        () -> MiniBatchSource.reader(f.file(), null, 4, Order.ROWS, 1));
    try (MiniBatchSource source = open(f, Access.MAPPED, Order.ROWS, 1)) {
      assertMessage("epoch is -1, expected >= 0", () -> source.epoch(-1));
      MiniBatch mb = source.epoch(0).next();
      assertThrows(IllegalStateException.class, () -> mb.label(0));
      assertThrows(IndexOutOfBoundsException.class, () -> mb.rowIndex(mb.rows()));
    }
  }

  @Test
  void anEmptyFileHasNoMiniBatches() throws IOException {
    FeaturizerSpec spec = spec(4);
    Path file = dir.resolve("empty.arrow");
    FeatureWriter.builder(file, Featurizer.of(spec), FeatureSchema.of(spec, LabelType.NONE, false), allocator)
        .write(() -> null);
    for (Access access : Access.values()) {
      try (MiniBatchSource source = access == Access.MAPPED
          ? MiniBatchSource.mapped(file, 8, Order.ROWS, 1)
          : MiniBatchSource.reader(file, allocator, 8, Order.ROWS, 1)) {
        assertEquals(0, source.rowCount());
        assertFalse(source.epoch(0).hasNext());
      }
    }
  }

  // ---- the permutations

  /**
   * Chi-square goodness of fit of the 24 orders of 4 items over 24,000 epochs (expected 1,000
   * each; 23 degrees of freedom). Bound 72: the Wilson-Hilferty approximation of the chi-square
   * quantile at 1 - 1e-6 is 71.2, so a correct shuffle fails with probability about 1e-6 (the
   * seed is fixed, so the outcome is in fact deterministic). The naive shuffle (swap each
   * position with any position) is biased, and the same statistic exceeds the bound on it.
   */
  @Test
  void shufflesAreUniformOverPermutations() {
    int samples = 24_000;
    long[] counts = new long[24];
    for (int epoch = 0; epoch < samples; epoch++) {
      counts[rank(Shuffle.permutation(4, 17, epoch, -1))]++;
    }
    assertTrue(chiSquare(counts, samples) < 72, "chi-square " + chiSquare(counts, samples));

    long[] naive = new long[24];
    SplittableRandom random = new SplittableRandom(17);
    for (int s = 0; s < samples; s++) {
      int[] order = {0, 1, 2, 3};
      for (int i = 0; i < 4; i++) {
        int j = random.nextInt(4);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      naive[rank(order)]++;
    }
    assertTrue(chiSquare(naive, samples) > 72, "the test cannot see the naive shuffle's bias");
  }

  @Test
  void permutationsArePermutationsAndDependOnEveryInput() {
    int[] base = Shuffle.permutation(100, 1, 2, 3);
    int[] sorted = base.clone();
    Arrays.sort(sorted);
    assertArrayEquals(Shuffle.identity(100), sorted);
    assertArrayEquals(base, Shuffle.permutation(100, 1, 2, 3));
    assertNotEquals(Arrays.toString(base), Arrays.toString(Shuffle.permutation(100, 9, 2, 3)));
    assertNotEquals(Arrays.toString(base), Arrays.toString(Shuffle.permutation(100, 1, 9, 3)));
    assertNotEquals(Arrays.toString(base), Arrays.toString(Shuffle.permutation(100, 1, 2, 9)));
    assertEquals(0, Shuffle.permutation(0, 1, 2, 3).length);
    assertArrayEquals(new int[] {0}, Shuffle.permutation(1, 1, 2, 3));
  }

  /** The lexicographic rank of a permutation of 0..3 (Lehmer code). */
  private static int rank(int[] p) {
    int rank = 0;
    List<Integer> left = new ArrayList<>(List.of(0, 1, 2, 3));
    int[] factorial = {6, 2, 1, 1};
    for (int i = 0; i < 4; i++) {
      int index = left.indexOf(p[i]);
      rank += index * factorial[i];
      left.remove(index);
    }
    return rank;
  }

  private static double chiSquare(long[] counts, int samples) {
    double expected = (double) samples / counts.length;
    double sum = 0;
    for (long c : counts) {
      sum += (c - expected) * (c - expected) / expected;
    }
    return sum;
  }

  @Test
  void labelsOfClassFilesAreInt32LittleEndian() throws IOException {
    Fixture f = fixture(8, LabelType.CLASSES);
    try (MiniBatchSource source = open(f, Access.MAPPED, Order.SEQUENTIAL, 0)) {
      MiniBatch mb = source.epoch(0).next();
      for (int i = 0; i < mb.rows(); i++) {
        int expected = (int) f.labels()[i];
        assertEquals(expected, mb.classIndex(i));
        assertEquals(expected,
            mb.labels().get(LittleEndian.INT, 4L * i));
      }
    }
  }
}
