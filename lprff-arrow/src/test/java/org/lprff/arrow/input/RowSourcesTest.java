package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.input.RowSources.Format;
import org.lprff.arrow.input.RowSources.Options;
import org.lprff.fixtures.Diamonds;
import org.lprff.fixtures.Idx;
import org.lprff.fixtures.TestFiles;

class RowSourcesTest {

  @TempDir Path dir;

  private Path write(String name, byte[] content, boolean gzip) throws IOException {
    return TestFiles.write(dir.resolve(name), content, gzip);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static final byte[] IDX_IMAGES = {0, 0, 8, 3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 5, 6};

  private Path arrow(String name, boolean fileFormat, BufferAllocator allocator)
      throws IOException {
    Path path = dir.resolve(name);
    Schema schema =
        new Schema(
            List.of(
                new Field(
                    "x",
                    FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                    null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FileChannel channel =
            FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ArrowWriter writer =
            fileFormat
                ? new ArrowFileWriter(root, null, channel)
                : new ArrowStreamWriter(root, null, channel)) {
      writer.start();
      ((Float4Vector) root.getVector("x")).setSafe(0, 2.5f);
      root.setRowCount(1);
      writer.writeBatch();
      writer.end();
    }
    return path;
  }

  @Test
  void contentWinsOverTheName() throws IOException {
    try (RootAllocator allocator = new RootAllocator()) {
      assertEquals(Format.ARROW, RowSources.detect(arrow("a.csv", true, allocator)));
      assertEquals(Format.ARROW, RowSources.detect(arrow("b.data", false, allocator)));
    }
    assertEquals(Format.IDX, RowSources.detect(write("images.csv", IDX_IMAGES, false)));
    assertEquals(Format.IDX, RowSources.detect(write("images.bin", IDX_IMAGES, true)));
  }

  @Test
  void namesWhenTheContentDoesNotTell() throws IOException {
    String[][] cases = {
      {"d.csv", "CSV"},
      {"D.CSV", "CSV"},
      {"d.csv.gz", "CSV"},
      {"d.libsvm", "LIBSVM"},
      {"d.svm", "LIBSVM"},
      {"d.txt", "LIBSVM"},
      {"d.txt.gz", "LIBSVM"},
      {"d.idx", "IDX"},
      {"train-labels-idx1-ubyte", "IDX"},
      {"t10k-labels-idx1-ubyte.gz", "IDX"},
      {"d.arrow", "ARROW"},
      {"d.arrows", "ARROW"},
      {"d.feather", "ARROW"},
    };
    for (String[] c : cases) {
      Path path = write(c[0], utf8("x"), c[0].endsWith(".gz"));
      assertEquals(Format.valueOf(c[1]), RowSources.detect(path), c[0]);
    }
    for (String name : new String[] {"d.dat", "d", "d.gz", "d.json"}) {
      Path path = write(name, utf8("x"), false);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> RowSources.detect(path));
      assertTrue(e.getMessage().contains("cannot tell the format of " + path), e.getMessage());
      assertTrue(e.getMessage().contains(".csv, .libsvm, .svm, .txt"), e.getMessage());
    }
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class, () -> RowSources.detect(dir.resolve("absent.csv")));
    assertTrue(missing.getMessage().contains("absent.csv is not a readable file"));
  }

  @Test
  void openPicksTheReaderAndPassesTheOptions() throws IOException {
    Path csv = write("d.csv", utf8("a;b\n1;2\n"), false);
    Options options = Options.defaults().withSeparator(';').withLabel("b").withMaxBatchRows(3);
    try (RowSource source = RowSources.open(csv, options)) {
      assertInstanceOf(CsvRowSource.class, source);
      assertEquals(List.of("a"), source.columnNames());
      assertEquals(3, source.maxBatchRows());
      assertEquals(2f, source.next().label(0));
    }
    Path svm = write("d.svm", utf8("1 2:3\n"), false);
    try (RowSource source = RowSources.open(svm, Options.defaults().withLibsvmDimension(4))) {
      assertInstanceOf(LibsvmRowSource.class, source);
      assertEquals(4, source.columns());
    }
    Path images = write("images", IDX_IMAGES, true);
    Path labels = write("labels", new byte[] {0, 0, 8, 1, 0, 0, 0, 1, 7}, false);
    try (RowSource source =
        RowSources.open(images, Options.defaults().withIdxLabels(labels).withIdxScale(2))) {
      assertInstanceOf(IdxRowSource.class, source);
      RowBatch batch = source.next();
      assertEquals(10f, batch.value(0, 0));
      assertEquals(12f, batch.value(0, 1));
      assertEquals(7f, batch.label(0));
    }
    try (RootAllocator root = new RootAllocator();
        BufferAllocator child = root.newChildAllocator("test", 0, Long.MAX_VALUE)) {
      Path file = arrow("x.arrow", true, child);
      try (RowSource source = RowSources.open(file, Options.defaults().withAllocator(child))) {
        assertInstanceOf(ArrowRowSource.class, source);
        assertEquals(2.5f, source.next().value(0, 0));
      }
      assertEquals(0, child.getAllocatedMemory());
    }
    Path forced = write("d.dat", utf8("a\n1\n"), false);
    try (RowSource source = RowSources.open(forced, Options.defaults().withFormat(Format.CSV))) {
      assertEquals(1f, source.next().value(0, 0));
    }
  }

  @Test
  void optionsAreValidated() {
    assertThrows(IllegalArgumentException.class, () -> Options.defaults().withMaxBatchRows(0));
    assertThrows(IllegalArgumentException.class, () -> Options.defaults().withLibsvmDimension(-1));
    assertThrows(IllegalArgumentException.class, () -> Options.defaults().withIdxScale(Double.NaN));
    assertThrows(
        IllegalArgumentException.class, () -> Options.defaults().withLabel((LabelColumn) null));
    assertThrows(IllegalArgumentException.class, () -> Options.defaults().withFormat(null));
  }

  /** Diamonds as shipped, and gzipped IDX files under Fashion-MNIST's names (synthetic images). */
  @Test
  void dataSetFilesThroughDetection() throws IOException {
    try (RowSource source =
        RowSources.open(Diamonds.copyTo(dir), Options.defaults().withLabel("price"))) {
      assertInstanceOf(CsvRowSource.class, source);
      assertEquals(9, source.columns());
      assertEquals(Diamonds.ROWS, Drained.of(source).rows());
    }
    Idx.Images images = Idx.Images.fashionLike(100, 2);
    Idx.Files files = images.write(dir, "t10k", true);
    try (RowSource source =
        RowSources.open(files.images(), Options.defaults().withIdxLabels(files.labels()))) {
      assertInstanceOf(IdxRowSource.class, source);
      RowBatch first = source.next();
      assertEquals(images.label(0), first.label(0));
      assertEquals(images.label(1), first.label(1));
    }
  }
}
