package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.arrow.FeatureTestData.spec;
import static org.lprff.fixtures.Messages.assertMentions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lprff.arrow.FeatureFileBatches.Order;
import org.lprff.arrow.ipc.IpcFileLayout;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.stream.MiniBatchSource.Batches;

/**
 * Every record batch carries the CRC32C of its body; verification finds any damaged byte of any
 * body, names the first damaged batch, and files without checksums stay readable.
 */
class BatchChecksumsTest extends ArrowTestBase {

  /** 7 record batches of 64 rows and one of 53 (odd, so buffers are padded). */
  private static final int N = 501;
  private static final int RECORD_BATCH = 64;

  @TempDir Path dir;

  private Path write(String name, int bits, FeatureWriter.Format format) throws IOException {
    Path file = dir.resolve(name);
    FeatureTestData.write(file, spec(bits), LabelType.REGRESSION, N, RECORD_BATCH, format, null,
        allocator);
    return file;
  }

  /** Without row ids the label buffer (4 bytes a row, 53 rows) ends the last body: padded. */
  private Path writeWithoutRowIds(String name, int bits) throws IOException {
    Path file = dir.resolve(name);
    FeatureWriter.builder(file, Featurizer.of(spec(bits)),
            FeatureSchema.of(spec(bits), LabelType.REGRESSION, false), allocator)
        .batchSize(RECORD_BATCH)
        .write(FeatureTestData.source(FeatureTestData.rows(N, 7),
            FeatureTestData.labels(LabelType.REGRESSION, N, 8), 13));
    return file;
  }

  /** The record batch blocks as Arrow's own reader finds them. */
  private List<ArrowBlock> blocks(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
      return reader.getRecordBlocks();
    }
  }

  @Test
  void theStoredChecksumIsTheCrc32cOfTheBodyBytesInTheFile() throws IOException {
    for (int bits : new int[] {-1, 1, 2, 16, 32}) {
      Path file = bits < 0
          ? writeWithoutRowIds("no-ids.arrow", 4)
          : write("b" + bits + ".arrow", bits, FeatureWriter.Format.FILE);
      byte[] bytes = Files.readAllBytes(file);
      List<ArrowBlock> blocks = blocks(file);
      List<IpcFileLayout.Batch> batches;
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
        batches = IpcFileLayout.read(file, channel).batches();
      }
      assertEquals(8, blocks.size());
      for (int i = 0; i < blocks.size(); i++) {
        ArrowBlock block = blocks.get(i);
        // Computed here from the file's bytes, independently of the writer's own computation.
        CRC32C crc = new CRC32C();
        crc.update(bytes, (int) (block.getOffset() + block.getMetadataLength()),
            (int) block.getBodyLength());
        assertEquals(crc.getValue(), batches.get(i).checksum(), "b " + bits + " batch " + i);
      }
      BatchChecksums.Report report = BatchChecksums.verify(file);
      assertEquals(8, report.recordBatches());
      assertEquals(8, report.checked());
      assertTrue(report.complete());
    }
  }

  @ParameterizedTest
  @EnumSource(FeatureWriter.Format.class)
  void aFlippedBitInAnyBodyNamesTheFirstDamagedBatch(FeatureWriter.Format format)
      throws IOException {
    Path clean = write("clean.arrow", 4, format);
    byte[] original = Files.readAllBytes(clean);
    boolean mappable = format == FeatureWriter.Format.FILE;
    BatchChecksums.Report report = BatchChecksums.verify(clean);
    assertEquals(8, report.checked());
    long[][] bodies = bodies(clean, original, format);
    for (int batch : new int[] {0, 3, 7}) {
      long start = bodies[batch][0];
      long length = bodies[batch][1];
      // The first byte, a middle byte and the last byte (alignment padding) of the body.
      for (long at : new long[] {start, start + length / 2, start + length - 1}) {
        byte[] damaged = original.clone();
        damaged[(int) at] ^= 1 << (at % 8);
        Path file = dir.resolve("damaged.arrow");
        Files.write(file, damaged);
        BatchChecksums.DamagedBatchException e =
            assertThrows(BatchChecksums.DamagedBatchException.class,
                () -> BatchChecksums.verify(file), format + " batch " + batch + " byte " + at);
        assertEquals(batch, e.batch());
        long firstRow = (long) batch * RECORD_BATCH;
        assertMentions(e, file.toString(), "record batch " + batch + " (rows " + firstRow
            + " to ", "fails its CRC32C check", "featurize it again");
        if (mappable) {
          for (boolean mapped : new boolean[] {true, false}) {
            try (FeatureFileBatches source = mapped
                ? FeatureFileBatches.mapped(file, Order.SEQUENTIAL, false)
                : FeatureFileBatches.reader(file, allocator, Order.SEQUENTIAL, false)) {
              BatchChecksums.DamagedBatchException again =
                  assertThrows(BatchChecksums.DamagedBatchException.class, source::verify);
              assertEquals(batch, again.batch());
            }
          }
        }
      }
    }
  }

  /** [offset, length] of each record batch body, found from the encapsulated messages. */
  private static long[][] bodies(Path file, byte[] bytes, FeatureWriter.Format format) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    long position = format == FeatureWriter.Format.FILE ? 8 : 0;
    long[][] out = new long[8][];
    int found = -1; // the schema message comes first
    while (found < 8) {
      assertEquals(-1, b.getInt((int) position), file + ": continuation at " + position);
      int metadata = b.getInt((int) position + 4);
      Message message = Message.getRootAsMessage(
          b.slice((int) position + 8, metadata).order(ByteOrder.LITTLE_ENDIAN));
      long body = position + 8 + metadata;
      if (found >= 0) {
        out[found] = new long[] {body, message.bodyLength()};
      }
      found++;
      position = body + message.bodyLength();
    }
    return out;
  }

  @Test
  void theMappedAndReaderSourcesVerifyAnIntactFile() throws IOException {
    Path file = write("ok.arrow", 2, FeatureWriter.Format.FILE);
    try (FeatureFileBatches mapped = FeatureFileBatches.mapped(file, Order.ROWS, false);
        FeatureFileBatches reader = FeatureFileBatches.reader(file, allocator, Order.ROWS, false)) {
      assertEquals(BatchChecksums.verify(file), mapped.verify());
      assertEquals(BatchChecksums.verify(file), reader.verify());
      assertEquals(8, mapped.verify().checked());
    }
  }

  @Test
  void aFileWrittenWithoutChecksumsStaysReadableAndSaysSo() throws IOException {
    Path ours = write("ours.arrow", 4, FeatureWriter.Format.FILE);
    // Arrow's own writer, as files written before checksums (and by other tools) are.
    Path old = dir.resolve("old.arrow");
    try (FileChannel in = FileChannel.open(ours, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(in, allocator);
        FileChannel out = FileChannel.open(old, StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      try (ArrowFileWriter writer = new ArrowFileWriter(root, null, out)) {
        writer.start();
        while (reader.loadNextBatch()) {
          writer.writeBatch();
        }
        writer.end();
      }
    }
    BatchChecksums.Report report = BatchChecksums.verify(old);
    assertEquals(8, report.recordBatches());
    assertEquals(0, report.checked());
    assertFalse(report.complete());
    try (FeatureFileBatches source = FeatureFileBatches.mapped(old, Order.SEQUENTIAL, false)) {
      assertEquals(0, source.verify().checked());
      int rows = 0;
      try (Batches it = source.epoch(0, 100, 0)) {
        while (it.hasNext()) {
          rows += it.next().rows();
        }
      }
      assertEquals(N, rows);
    }
  }

  @Test
  void aChecksumThatIsNotHexIsRefusedAtOpenNamingTheKey() throws IOException {
    Path file = write("bad.arrow", 4, FeatureWriter.Format.FILE);
    byte[] bytes = Files.readAllBytes(file);
    byte[] key = BatchChecksums.KEY.getBytes(StandardCharsets.US_ASCII);
    // Flatbuffers are built back to front: the value string lies just before or after its key.
    int keyAt = indexOf(bytes, key, 0);
    assertTrue(keyAt > 0);
    int valueAt = -1;
    for (int i = 0; i < 64 && valueAt < 0; i++) {
      int at = keyAt - 64 + i;
      if (at > 0 && isHex8(bytes, at)) {
        valueAt = at;
      }
    }
    if (valueAt < 0) {
      for (int at = keyAt + key.length; at < keyAt + key.length + 64; at++) {
        if (isHex8(bytes, at)) {
          valueAt = at;
          break;
        }
      }
    }
    assertTrue(valueAt > 0, "the checksum's 8 hex digits are near its key");
    bytes[valueAt] = 'g';
    Files.write(file, bytes);
    IOException e = assertThrows(IOException.class,
        () -> FeatureFileBatches.mapped(file, Order.SEQUENTIAL, false));
    assertMentions(e, file.toString(), "record batch 0", BatchChecksums.KEY, "expected 8 hex digits");
  }

  private static boolean isHex8(byte[] bytes, int at) {
    if (at < 4 || at + 9 > bytes.length) {
      return false;
    }
    for (int i = 0; i < 8; i++) {
      if (Character.digit(bytes[at + i], 16) < 0) {
        return false;
      }
    }
    // Flatbuffer strings are length-prefixed (uint32 8) and NUL-terminated.
    return bytes[at - 4] == 8 && bytes[at - 3] == 0 && bytes[at + 8] == 0;
  }

  private static int indexOf(byte[] haystack, byte[] needle, int from) {
    outer:
    for (int i = from; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Test
  void aSecondThreadCannotStartAnEpochWhileOneIsOpen() throws Exception {
    Path file = write("shared.arrow", 4, FeatureWriter.Format.FILE);
    try (FeatureFileBatches source = FeatureFileBatches.mapped(file, Order.ROWS, false)) {
      try (Batches mine = source.epoch(0, 32, 1)) {
        mine.next();
        Throwable[] seen = new Throwable[1];
        Thread other = new Thread(() -> {
          try {
            source.epoch(0, 32, 1);
          } catch (Throwable t) {
            seen[0] = t;
          }
        }, "second-trainer");
        other.start();
        other.join();
        assertTrue(seen[0] instanceof IllegalStateException, String.valueOf(seen[0]));
        assertMentions(seen[0], file.toString(), "\"" + Thread.currentThread().getName() + "\"",
            "\"second-trainer\"", "open one per thread");
        mine.next(); // this thread's epoch goes on
      }
      // Once closed, another thread may read it.
      Throwable[] seen = new Throwable[1];
      int[] rows = new int[1];
      Thread after = new Thread(() -> {
        try (Batches it = source.epoch(1, 32, 1)) {
          while (it.hasNext()) {
            rows[0] += it.next().rows();
          }
        } catch (Throwable t) {
          seen[0] = t;
        }
      });
      after.start();
      after.join();
      assertEquals(null, seen[0]);
      assertEquals(N, rows[0]);
    }
  }
}
