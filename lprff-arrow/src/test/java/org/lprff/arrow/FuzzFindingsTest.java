package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.arrow.model.FittedModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.input.IdxRowSource;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.fixtures.Idx;

/**
 * The inputs the fuzz module (fuzz/, Jazzer) found crashing a reader, each now an error naming
 * the file. The files are the fuzzer's own (resources fuzz-findings/), copied from the fuzz
 * corpus where they also stay.
 */
class FuzzFindingsTest {

  @TempDir Path dir;

  private Path finding(String name) throws IOException {
    try (InputStream in = FuzzFindingsTest.class.getResourceAsStream("fuzz-findings/" + name)) {
      return Files.write(dir.resolve("finding-" + name), in.readAllBytes());
    }
  }

  private static void drain(RowSource rows) throws IOException {
    for (RowBatch b = rows.next(); b != null; b = rows.next()) {
      assertTrue(b.rows() >= 0);
    }
  }

  private static void assertNames(Path file, Exception e) {
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
  }

  /** A record batch whose field node claims more than INT_MAX values: refused at open, no leak. */
  @Test
  void featureFileNodeLength() throws IOException {
    Path file = finding("feature-node-length");
    try (BufferAllocator allocator = new RootAllocator(64 << 20)) {
      IOException e = assertThrows(IOException.class, () -> {
        try (FeatureFile f = FeatureFile.open(file, allocator)) {
          for (int i = 0; i < f.batchCount(); i++) {
            f.read(i);
          }
        }
      });
      assertNames(file, e);
      assertEquals(0, allocator.getAllocatedMemory(), "Arrow's body buffer leaked");
    }
  }

  /**
   * An Arrow stream whose record batch Arrow's reader fails to load after reading its body: the
   * body it read must not stay allocated in the caller's allocator.
   */
  @Test
  void arrowRowsCorruptBatchLeavesNoMemory() throws IOException {
    Path file = finding("arrow-rows-leak");
    try (BufferAllocator allocator = new RootAllocator(64 << 20)) {
      for (String label : new String[] {"none", "last"}) {
        RowSources.Options options = RowSources.Options.defaults()
            .withFormat(RowSources.Format.ARROW).withAllocator(allocator).withMaxBatchRows(5)
            .withLabel(label);
        Exception e = assertThrows(Exception.class, () -> {
          try (RowSource rows = RowSources.open(file, options)) {
            drain(rows);
          }
        });
        assertTrue(e instanceof IOException || e instanceof IllegalArgumentException, e.toString());
        assertNames(file, e);
        assertEquals(0, allocator.getAllocatedMemory(), label + ": " + e);
      }
    }
  }

  /** A feature file the fuzzer found leaving 512 bytes in the caller's allocator. */
  @Test
  void featureFileReaderLeavesNoMemory() throws IOException {
    Path file = finding("feature-reader-leak");
    try (BufferAllocator allocator = new RootAllocator(64 << 20)) {
      Exception e = assertThrows(Exception.class, () -> {
        try (FeatureFile f = FeatureFile.open(file, allocator)) {
          for (int i = 0; i < f.batchCount(); i++) {
            f.read(i);
          }
        }
      });
      assertTrue(e instanceof IOException || e instanceof IllegalArgumentException, e.toString());
      assertNames(file, e);
      assertEquals(0, allocator.getAllocatedMemory(), e.toString());
    }
  }

  /** An Arrow stream whose message length is negative ("capacity < 0" inside Arrow). */
  @Test
  void arrowRowsNegativeMessageLength() throws IOException {
    Path file = finding("arrow-rows-capacity");
    try (BufferAllocator allocator = new RootAllocator(64 << 20)) {
      RowSources.Options options = RowSources.Options.defaults()
          .withFormat(RowSources.Format.ARROW).withAllocator(allocator).withMaxBatchRows(5)
          .withLabel(Files.size(file) % 2 == 0 ? "none" : "last");
      Exception e = assertThrows(Exception.class, () -> {
        try (RowSource rows = RowSources.open(file, options)) {
          drain(rows);
        }
      });
      assertTrue(e instanceof IOException || e instanceof IllegalArgumentException, e.toString());
      assertNames(file, e);
    }
  }

  /** A model whose record batch claims ~2^28 rows: a bounded allocator, not direct-memory OOM. */
  @Test
  void modelHugeRowCount() throws IOException {
    Path file = finding("model-rows");
    IOException e = assertThrows(IOException.class, () -> FittedModel.load(file));
    assertNames(file, e);
  }

  /** Corrupt gzip data (bad block type, bad trailer) in the text and IDX readers. */
  @Test
  void corruptGzipNamesTheFile() throws IOException {
    for (String name : new String[] {"csv-gzip", "libsvm-gzip"}) {
      Path file = finding(name);
      RowSources.Format format =
          name.startsWith("csv") ? RowSources.Format.CSV : RowSources.Format.LIBSVM;
      Exception e = assertThrows(Exception.class, () -> {
        for (String label : new String[] {"none", "last"}) {
          RowSources.Options options = RowSources.Options.defaults().withFormat(format)
              .withMaxBatchRows(5);
          if (format == RowSources.Format.CSV) {
            options = options.withLabel(label);
          }
          try (RowSource rows = RowSources.open(file, options)) {
            drain(rows);
          }
        }
      });
      assertTrue(e instanceof IOException || e instanceof IllegalArgumentException, e.toString());
      assertNames(file, e);
    }
    Path images = finding("idx-images-gzip");
    Path labels = Files.write(dir.resolve("labels-idx1-ubyte"),
        Idx.file(Idx.LABELS, new int[] {3}, new byte[] {0, 1, 2}));
    Exception e = assertThrows(Exception.class, () -> {
      for (Path l : new Path[] {null, labels}) {
        try (RowSource rows = IdxRowSource.open(images, l, 1.0 / 255, 2)) {
          drain(rows);
        }
      }
    });
    assertNames(images, e);
    Path validImages = Files.write(dir.resolve("images-idx3-ubyte"),
        Idx.file(Idx.IMAGES, new int[] {3, 2, 2}, new byte[12]));
    Path badLabels = finding("idx-labels-gzip");
    e = assertThrows(Exception.class, () -> {
      try (RowSource rows = IdxRowSource.open(validImages, badLabels, 1.0 / 255, 2)) {
        drain(rows);
      }
    });
    assertNames(badLabels, e);
  }
}
