package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdxRowSourceTest {

  @TempDir Path dir;

  /** An IDX file's bytes: magic, sizes, then data. */
  private static byte[] idx(int magic, int[] sizes, byte[] data) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes); // big-endian, as IDX
    out.writeInt(magic);
    for (int size : sizes) {
      out.writeInt(size);
    }
    out.write(data);
    return bytes.toByteArray();
  }

  private Path write(String name, byte[] content, boolean gzip) throws IOException {
    Path path = dir.resolve(name);
    try (OutputStream out =
        gzip ? new GZIPOutputStream(Files.newOutputStream(path)) : Files.newOutputStream(path)) {
      out.write(content);
    }
    return path;
  }

  private static byte[] pixels(int count) {
    byte[] data = new byte[count];
    for (int i = 0; i < count; i++) {
      data[i] = (byte) (i * 37 + 11);
    }
    return data;
  }

  private static void assertMentions(Exception e, String... parts) {
    for (String part : parts) {
      assertTrue(
          e.getMessage().contains(part), "message '" + e.getMessage() + "' lacks '" + part + "'");
    }
  }

  @Test
  void pixelsAndLabelsPlainAndGzipped() throws IOException {
    int count = 5;
    byte[] data = pixels(count * 6);
    byte[] labelBytes = {9, 0, 3, 255 - 256, 7};
    for (boolean gzip : new boolean[] {false, true}) {
      // Names without .gz: gzip is recognized by its magic bytes.
      Path images = write("images" + gzip, idx(0x803, new int[] {count, 2, 3}, data), gzip);
      Path labels = write("labels" + gzip, idx(0x801, new int[] {count}, labelBytes), gzip);
      try (IdxRowSource source = IdxRowSource.open(images, labels, IdxRowSource.DEFAULT_SCALE, 2)) {
        assertEquals(6, source.columns());
        assertEquals(2, source.imageRows());
        assertEquals(3, source.imageColumns());
        assertEquals(count, source.imageCount());
        assertEquals("pixel5", source.columnNames().get(5));
        assertEquals(LabelKind.PRESENT, source.label());
        Drained all = Drained.of(source);
        float[] expected = new float[data.length];
        for (int i = 0; i < data.length; i++) {
          expected[i] = (data[i] & 0xff) / 255f; // float division: correctly rounded p / 255
        }
        Drained.assertSameArray(expected, all.values());
        Drained.assertSameArray(new float[] {9, 0, 3, 255, 7}, all.labels());
      }
    }
  }

  /** (float) (p * (1.0 / 255)) is the correctly rounded p / 255 for all 256 bytes. */
  @Test
  void defaultScaleIsExactlyDivisionBy255() throws IOException {
    byte[] all = new byte[256];
    for (int p = 0; p < 256; p++) {
      all[p] = (byte) p;
    }
    Path images = write("all", idx(0x803, new int[] {256, 1, 1}, all), false);
    try (IdxRowSource source = IdxRowSource.open(images, null, IdxRowSource.DEFAULT_SCALE, 300)) {
      assertEquals(LabelKind.NONE, source.label());
      RowBatch batch = source.next();
      assertNull(batch.labels());
      for (int p = 0; p < 256; p++) {
        assertEquals(
            Float.floatToIntBits(p / 255f), Float.floatToIntBits(batch.value(p, 0)), "p=" + p);
      }
    }
    try (IdxRowSource source = IdxRowSource.open(images, null, 1.0, 300)) {
      RowBatch batch = source.next();
      for (int p = 0; p < 256; p++) {
        assertEquals(p, batch.value(p, 0));
      }
    }
  }

  @Test
  void batchSizesGiveTheSameRowsAndRowIds() throws IOException {
    int count = 23;
    Path images = write("i", idx(0x803, new int[] {count, 3, 2}, pixels(count * 6)), true);
    byte[] labelBytes = Arrays.copyOf(pixels(count), count);
    Path labels = write("l", idx(0x801, new int[] {count}, labelBytes), false);
    Drained reference;
    try (IdxRowSource source = IdxRowSource.open(images, labels, 1.0, count)) {
      reference = Drained.of(source);
    }
    for (int batch : new int[] {1, 7, count, 100}) {
      try (IdxRowSource source = IdxRowSource.open(images, labels, 1.0, batch)) {
        reference.assertSameRows(Drained.of(source));
      }
    }
  }

  @Test
  void headerErrors() throws IOException {
    Path labels = write("l", idx(0x801, new int[] {3}, new byte[3]), false);
    Path images = write("i", idx(0x803, new int[] {2, 2, 2}, new byte[8]), false);
    InputFormatException swapped =
        assertThrows(InputFormatException.class, () -> IdxRowSource.open(labels, null, 1, 4));
    assertMentions(swapped, labels.toString(), "0x00000801", "expected 0x00000803", "labels file");
    InputFormatException wrongLabels =
        assertThrows(InputFormatException.class, () -> IdxRowSource.open(images, images, 1, 4));
    assertMentions(wrongLabels, "0x00000803", "expected 0x00000801", "images file");
    InputFormatException counts =
        assertThrows(InputFormatException.class, () -> IdxRowSource.open(images, labels, 1, 4));
    assertMentions(counts, "has 2 images", "has 3 labels", images.toString(), labels.toString());
    Path shortHeader = write("h", new byte[] {0, 0, 8, 3, 0, 0}, false);
    assertMentions(
        assertThrows(InputFormatException.class, () -> IdxRowSource.open(shortHeader, null, 1, 4)),
        "truncated",
        "16-byte IDX header",
        "found 6 bytes");
    Path empty = write("e", idx(0x803, new int[] {0, 28, 28}, new byte[0]), false);
    assertMentions(
        assertThrows(InputFormatException.class, () -> IdxRowSource.open(empty, null, 1, 4)),
        "no data rows");
    Path negative = write("n", idx(0x803, new int[] {-1, 28, 28}, new byte[0]), false);
    assertMentions(
        assertThrows(InputFormatException.class, () -> IdxRowSource.open(negative, null, 1, 4)),
        "dimension 0",
        "4294967295");
    assertThrows(IllegalArgumentException.class, () -> IdxRowSource.open(images, null, 0, 4));
    assertThrows(IllegalArgumentException.class, () -> IdxRowSource.open(images, null, 1, 0));
  }

  @Test
  void truncatedAndOverlongFilesNameExpectedAndActualBytes() throws IOException {
    // 4 images of 2x2 promise 16 + 16 bytes; 10 pixel bytes are there.
    byte[] truncated = idx(0x803, new int[] {4, 2, 2}, new byte[10]);
    for (boolean gzip : new boolean[] {false, true}) {
      Path images = write("t" + gzip, truncated, gzip);
      InputFormatException e =
          assertThrows(
              InputFormatException.class,
              () -> {
                try (IdxRowSource source = IdxRowSource.open(images, null, 1, 3)) {
                  Drained.of(source);
                }
              });
      assertMentions(e, images.toString(), "truncated", "promises 32 bytes", "found 26");
    }
    // A gzip stream cut in the middle (no trailer): the deflate stream ends early.
    byte[] full = idx(0x803, new int[] {4, 2, 2}, pixels(16));
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(gz)) {
      out.write(full);
    }
    byte[] cut = Arrays.copyOf(gz.toByteArray(), gz.size() - 12);
    Path cutPath = write("cut", cut, false);
    InputFormatException e =
        assertThrows(
            InputFormatException.class,
            () -> {
              try (IdxRowSource source = IdxRowSource.open(cutPath, null, 1, 1)) {
                Drained.of(source);
              }
            });
    assertMentions(e, "truncated", "promises 32 bytes");
    Path longer = write("long", idx(0x803, new int[] {2, 2, 2}, new byte[9]), false);
    InputFormatException overlong =
        assertThrows(
            InputFormatException.class,
            () -> {
              try (IdxRowSource source = IdxRowSource.open(longer, null, 1, 3)) {
                Drained.of(source);
              }
            });
    assertMentions(overlong, "longer than its header says", "expected 24 bytes");
  }

  @Test
  void fashionMnistTrainingSet() throws IOException {
    Path images = TestData.fashion("train-images-idx3-ubyte.gz");
    Path labels = TestData.fashion("train-labels-idx1-ubyte.gz");
    try (IdxRowSource source =
        IdxRowSource.open(images, labels, IdxRowSource.DEFAULT_SCALE, 4096)) {
      assertEquals(TestData.FASHION_TRAIN_ROWS, source.imageCount());
      assertEquals(784, source.columns());
      RowBatch first = source.next();
      assertEquals(9f, first.label(0), "first label (ankle boot)");
      assertEquals(0f, first.label(1));
      // First image: pixel bytes sum to 76247 (python: sum(gzip.open(f).read()[16:800])).
      long sum = 0;
      int firstLit = -1;
      for (int i = 0; i < 784; i++) {
        float v = first.value(0, i);
        assertTrue(v >= 0f && v <= 1f, "pixel " + i + " = " + v);
        sum += Math.round(v * 255f);
        if (firstLit < 0 && v > 0) {
          firstLit = i;
        }
      }
      assertEquals(76247, sum);
      assertEquals(96, firstLit);
      long rows = first.rows();
      int[] perClass = new int[10];
      for (int r = 0; r < first.rows(); r++) {
        perClass[(int) first.label(r)]++;
      }
      for (RowBatch b = source.next(); b != null; b = source.next()) {
        assertEquals(rows, b.firstRowId());
        rows += b.rows();
        Labels.requireClassIndices(b);
        for (int r = 0; r < b.rows(); r++) {
          perClass[(int) b.label(r)]++;
        }
      }
      assertEquals(TestData.FASHION_TRAIN_ROWS, rows);
      for (int c = 0; c < 10; c++) {
        assertEquals(6000, perClass[c], "class " + c);
      }
    }
  }
}
