package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.arrow.FeatureTestData.spec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.ipc.IpcFileLayout;
import org.lprff.vector.featurize.FeaturizerSpec;

class FeatureFileTest extends ArrowTestBase {

  private static final int ROWS = 40;

  @TempDir Path dir;
  private Path good;
  private byte[] goodBytes;
  private byte[] goodFeatures;

  @BeforeEach
  void writeAGoodFile() throws IOException {
    good = dir.resolve("good.arrow");
    FeatureTestData.write(good, spec(4), LabelType.REGRESSION, ROWS, 16, FeatureWriter.Format.FILE,
        null, allocator);
    goodBytes = Files.readAllBytes(good);
    goodFeatures = readAllFeatures(good);
  }

  private byte[] readAllFeatures(Path file) throws IOException {
    try (FeatureFile in = FeatureFile.open(file, allocator)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (int i = 0; i < in.batchCount(); i++) {
        out.writeBytes(in.read(i).features().toArray(ValueLayout.JAVA_BYTE));
      }
      return out.toByteArray();
    }
  }

  private Path variant(String name, byte[] bytes) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, bytes);
    return file;
  }

  /** Opening fails with an IOException whose message names the file. */
  private IOException assertRefused(Path file) {
    IOException e = assertThrows(IOException.class, () -> {
      try (FeatureFile in = FeatureFile.open(file, allocator)) {
        for (int i = 0; i < in.batchCount(); i++) {
          in.read(i);
        }
      }
    });
    assertTrue(e.getMessage().contains(file.toString()), "message does not name the file: " + e.getMessage());
    return e;
  }

  /**
   * Rows of 4,096 and 8,192 bytes (m = 4096 at 8 and 16 bits): wider than the short in which
   * Arrow's buffer layout keeps a width in bits, which the layout check must not trust.
   */
  @Test
  void wideRowsOpenMappedReadAndVerified() throws IOException {
    for (int bits : new int[] {8, 16}) {
      Path file = dir.resolve("wide" + bits + ".arrow");
      FeatureTestData.write(file, spec(bits, 4096), LabelType.REGRESSION, 40, 16,
          FeatureWriter.Format.FILE, null, allocator);
      try (FeatureFile f = FeatureFile.open(file, allocator)) {
        assertEquals(40, f.rowCount());
        assertEquals(4096 * bits / 8, f.featureSchema().rowBytes());
        for (int i = 0; i < f.batchCount(); i++) {
          f.read(i);
        }
      }
      try (FeatureFileBatches mapped =
          FeatureFileBatches.mapped(file, FeatureFileBatches.Order.SEQUENTIAL, false)) {
        assertEquals(3, mapped.verify().checked());
      }
    }
  }

  /**
   * A schema nested deeper than IpcFileLayout.MAX_NESTING (Arrow's conversion recurses per level;
   * a fuzzed file whose fields nest without end overflowed the stack) is refused by name, in the
   * file framing's footer and schema message alike, before Arrow converts it; one level less
   * passes the check.
   */
  @Test
  void aSchemaNestedBeyondTheLimitIsRefusedByName() throws IOException {
    for (int levels : new int[] {64, 65}) {
      Field field = new Field("leaf", FieldType.nullable(new ArrowType.Int(32, true)), null);
      for (int k = 1; k < levels; k++) {
        field = new Field("s" + k, FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(field));
      }
      Path nested = dir.resolve("nested-" + levels + ".arrow");
      try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(field)), allocator);
          FileChannel out = FileChannel.open(nested, StandardOpenOption.CREATE,
              StandardOpenOption.WRITE);
          ArrowFileWriter writer = new ArrowFileWriter(root, null, out)) {
        writer.start();
        writer.end();
      }
      try (FileChannel in = FileChannel.open(nested)) {
        if (levels <= IpcFileLayout.MAX_NESTING) {
          IpcFileLayout.read(nested, in);
        } else {
          IOException e = assertThrows(IOException.class, () -> IpcFileLayout.read(nested, in));
          assertTrue(e.getMessage().contains(nested.toString())
              && e.getMessage().contains("nests fields more than 64"), e.getMessage());
        }
      }
    }
  }

  @Test
  void opensTheWrittenFileAndReportsItsShape() throws IOException {
    try (FeatureFile in = FeatureFile.open(good, allocator)) {
      assertEquals(spec(4), in.spec());
      assertEquals(ROWS, in.rowCount());
      assertEquals(3, in.batchCount());
      assertEquals(List.of(16, 16, 8), List.of(in.batchRows(0), in.batchRows(1), in.batchRows(2)));
      assertEquals(goodBytes.length, in.fileSize());
      assertEquals("2", in.metadata().get("lprff.format.version"));
      assertEquals(LabelType.REGRESSION, in.featureSchema().labelType());
      assertThrows(IndexOutOfBoundsException.class, () -> in.read(3));
      FeatureFile.Batch batch = in.read(2);
      assertEquals(8, batch.rows());
      assertEquals(8L * spec(4).rowBytes(), batch.features().byteSize());
      assertEquals(32, batch.labels().byteSize());
      assertEquals(64, batch.rowIds().byteSize());
      // Read batches in any order: the same bytes.
      byte[] last = batch.features().toArray(ValueLayout.JAVA_BYTE);
      in.read(0);
      assertArrayEquals(last, in.read(2).features().toArray(ValueLayout.JAVA_BYTE));
    }
  }

  @Test
  void aReplacedBatchsSegmentsFailInsteadOfReadingFreedMemory() throws IOException {
    MemorySegment stale;
    try (FeatureFile in = FeatureFile.open(good, allocator)) {
      stale = in.read(0).features();
      stale.get(ValueLayout.JAVA_BYTE, 0); // fine while loaded
      in.read(1);
      assertThrows(IllegalStateException.class, () -> stale.get(ValueLayout.JAVA_BYTE, 0));
      MemorySegment current = in.read(2).features();
      in.close();
      assertThrows(IllegalStateException.class, () -> current.get(ValueLayout.JAVA_BYTE, 0));
      assertThrows(IllegalStateException.class, () -> in.read(0));
    }
  }

  @Test
  void nonNullableColumnsAreWrittenWithoutValidityBitmapsAndReadAsValid() throws IOException {
    Path file = dir.resolve("floats.arrow");
    FeatureTestData.write(file, spec(32), LabelType.CLASSES, 20, 20, FeatureWriter.Format.FILE,
        null, allocator);
    try (FeatureFile in = FeatureFile.open(file, allocator)) {
      IpcFileLayout.Batch batch = in.layout().batches().get(0);
      // features: list validity; Float32 child: validity, values; label: validity, values;
      // row_id: validity, values.
      long[] lengths = batch.bufferLengths();
      assertEquals(7, lengths.length);
      for (int validity : new int[] {0, 1, 3, 5}) {
        assertEquals(0, lengths[validity], "validity buffer " + validity);
      }
      assertEquals(20L * 37 * 4, lengths[2]);
      assertEquals(80, lengths[4]);
      assertEquals(160, lengths[6]);
      VectorSchemaRoot root = in.read(0).root();
      for (var vector : root.getFieldVectors()) {
        assertEquals(0, vector.getNullCount(), vector.getName());
        for (int r = 0; r < 20; r++) {
          assertTrue(!vector.isNull(r), vector.getName() + " row " + r);
        }
      }
    }
  }

  @Test
  void requireCompatibleNamesTheFile() throws IOException {
    try (FeatureFile in = FeatureFile.open(good, allocator)) {
      in.requireCompatible(spec(4));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> in.requireCompatible(spec(8)));
      assertTrue(e.getMessage().startsWith("file " + good + " has lprff.bits=4, expected 8"), e.getMessage());
      IllegalArgumentException labels = assertThrows(IllegalArgumentException.class,
          () -> in.featureSchema().requireLabelType(LabelType.CLASSES));
      assertTrue(labels.getMessage().contains("file " + good + " has Float32 labels"), labels.getMessage());
    }
  }

  @Test
  void truncatedFilesAreRefusedNamingTheFile() throws IOException {
    int n = goodBytes.length;
    for (int length : new int[] {0, 5, 17, 100, n / 2, n - 11, n - 10, n - 1}) {
      Path file = variant("truncated-" + length + ".arrow", Arrays.copyOf(goodBytes, length));
      assertRefused(file);
      IOException mapped = assertThrows(IOException.class,
          () -> FeatureFileBatches.mapped(file, FeatureFileBatches.Order.ROWS, false).close());
      assertTrue(mapped.getMessage().contains(file.toString()), mapped.getMessage());
    }
  }

  @Test
  void aFlippedFooterIsRefusedNamingTheFile() throws IOException {
    int n = goodBytes.length;
    int footerLength = ByteBuffer.wrap(goodBytes, n - 10, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int footerStart = n - 10 - footerLength;
    byte[] flipped = goodBytes.clone();
    for (int i = footerStart; i < n - 10; i++) {
      flipped[i] ^= (byte) 0xFF;
    }
    assertRefused(variant("footer-flipped.arrow", flipped));
    byte[] length = goodBytes.clone();
    length[n - 10] ^= 0x40; // footer length
    assertRefused(variant("footer-length.arrow", length));
    byte[] magic = goodBytes.clone();
    magic[n - 1] ^= 0x01;
    IOException e = assertRefused(variant("magic.arrow", magic));
    assertTrue(e.getMessage().contains("does not end with the Arrow file magic"), e.getMessage());
  }

  /**
   * Each footer byte flipped in turn: the file either is refused with an IOException naming it,
   * or opens and reads back the same rows (a flip in padding or in a value nothing checks). No
   * other exception type escapes.
   */
  @Test
  void everySingleFooterByteFlipIsRefusedOrHarmless() throws IOException {
    int n = goodBytes.length;
    int footerLength = ByteBuffer.wrap(goodBytes, n - 10, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int footerStart = n - 10 - footerLength;
    Path file = dir.resolve("flip.arrow");
    int refused = 0;
    for (int i = footerStart; i < n; i++) {
      byte[] bytes = goodBytes.clone();
      bytes[i] ^= 0x5A;
      Files.write(file, bytes);
      try {
        byte[] features = readAllFeatures(file);
        assertArrayEquals(goodFeatures, features, "flip at " + i + " opened with other features");
      } catch (IOException e) {
        assertTrue(e.getMessage().contains(file.toString()), "flip at " + i + ": " + e.getMessage());
        refused++;
      }
    }
    // Most of the footer is meaningful: offsets, lengths, types, names and metadata.
    assertTrue(refused > (n - footerStart) / 2, refused + " of " + (n - footerStart) + " flips refused");
  }

  @Test
  void filesThatAreNotFeatureFilesAreRefused() throws IOException {
    IOException text = assertRefused(variant("text.arrow", "hello, not arrow at all\n".repeat(4).getBytes()));
    assertTrue(text.getMessage().contains("does not start with the Arrow file magic"), text.getMessage());

    Path stream = dir.resolve("stream.arrow");
    FeatureTestData.write(stream, spec(4), LabelType.NONE, 10, 4, FeatureWriter.Format.STREAM, null, allocator);
    assertTrue(assertRefused(stream).getMessage().contains("an IPC stream"));

    Path plain = dir.resolve("plain.arrow");
    Schema schema = new Schema(List.of(new Field("x", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FileChannel channel = FileChannel.open(plain, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        ArrowFileWriter writer = new ArrowFileWriter(root, null, channel)) {
      ((IntVector) root.getVector("x")).allocateNew(1);
      ((IntVector) root.getVector("x")).set(0, 7);
      root.setRowCount(1);
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    IOException notOurs = assertRefused(plain);
    assertTrue(notOurs.getMessage().contains("has no lprff.format.version"), notOurs.getMessage());
  }

  @Test
  void nullsInAColumnOfAForeignFileAreRefusedByBothPaths() throws IOException {
    FeaturizerSpec spec = spec(8);
    Schema ours = FeatureSchema.of(spec, LabelType.REGRESSION, false).arrowSchema();
    Field nullableLabel = new Field("label", FieldType.nullable(ours.getFields().get(1).getType()), null);
    Schema foreign = new Schema(List.of(ours.getFields().get(0), nullableLabel), ours.getCustomMetadata());
    Path file = dir.resolve("nulls.arrow");
    try (VectorSchemaRoot root = VectorSchemaRoot.create(foreign, allocator);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        ArrowFileWriter writer = new ArrowFileWriter(root, null, channel)) {
      FixedSizeBinaryVector features = (FixedSizeBinaryVector) root.getVector("features");
      features.allocateNew(2);
      features.set(0, new byte[spec.rowBytes()]);
      features.set(1, new byte[spec.rowBytes()]);
      Float4Vector label = (Float4Vector) root.getVector("label");
      label.allocateNew(2);
      label.set(0, 1f);
      label.setNull(1);
      root.setRowCount(2);
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    IOException reader = assertRefused(file);
    assertTrue(reader.getMessage().contains("column label has 1 nulls"), reader.getMessage());
    IOException mapped = assertThrows(IOException.class,
        () -> FeatureFileBatches.mapped(file, FeatureFileBatches.Order.SEQUENTIAL, false).close());
    assertTrue(mapped.getMessage().contains("column label has 2 values and 1 nulls"), mapped.getMessage());
  }

  @Test
  void aFileWrittenWithOtherMetadataIsRefusedByTheCompatibilityCheck() throws IOException {
    Path file = dir.resolve("b8.arrow");
    FeaturizerSpec b8 = spec(8);
    FeatureTestData.write(file, b8, LabelType.NONE, 5, 5, FeatureWriter.Format.FILE, null, allocator);
    try (FeatureFile in = FeatureFile.open(file, allocator)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> in.requireCompatible(spec(4)));
      assertTrue(e.getMessage().contains("has lprff.bits=8, expected 4"), e.getMessage());
    }
  }
}
