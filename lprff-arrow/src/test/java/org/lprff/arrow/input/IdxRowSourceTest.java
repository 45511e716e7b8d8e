package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.lprff.fixtures.Messages.assertMentions;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.fixtures.Idx;
import org.lprff.fixtures.TestFiles;

class IdxRowSourceTest {

  @TempDir Path dir;

  private Path write(String name, byte[] content, boolean gzip) throws IOException {
    return TestFiles.write(dir.resolve(name), content, gzip);
  }

  private static byte[] pixels(int count) {
    byte[] data = new byte[count];
    for (int i = 0; i < count; i++) {
      data[i] = (byte) (i * 37 + 11);
    }
    return data;
  }

  @Test
  void pixelsAndLabelsPlainAndGzipped() throws IOException {
    int count = 5;
    byte[] data = pixels(count * 6);
    byte[] labelBytes = {9, 0, 3, 255 - 256, 7};
    for (boolean gzip : new boolean[] {false, true}) {
      // Names without .gz: gzip is recognized by its magic bytes.
      Path images =
          write("images" + gzip, Idx.file(Idx.IMAGES, new int[] {count, 2, 3}, data), gzip);
      Path labels =
          write("labels" + gzip, Idx.file(Idx.LABELS, new int[] {count}, labelBytes), gzip);
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
    Path images = write("all", Idx.file(Idx.IMAGES, new int[] {256, 1, 1}, all), false);
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
    Path images =
        write("i", Idx.file(Idx.IMAGES, new int[] {count, 3, 2}, pixels(count * 6)), true);
    byte[] labelBytes = Arrays.copyOf(pixels(count), count);
    Path labels = write("l", Idx.file(Idx.LABELS, new int[] {count}, labelBytes), false);
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
    Path labels = write("l", Idx.file(Idx.LABELS, new int[] {3}, new byte[3]), false);
    Path images = write("i", Idx.file(Idx.IMAGES, new int[] {2, 2, 2}, new byte[8]), false);
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
    Path empty = write("e", Idx.file(Idx.IMAGES, new int[] {0, 28, 28}, new byte[0]), false);
    assertMentions(
        assertThrows(InputFormatException.class, () -> IdxRowSource.open(empty, null, 1, 4)),
        "no data rows");
    Path negative = write("n", Idx.file(Idx.IMAGES, new int[] {-1, 28, 28}, new byte[0]), false);
    assertMentions(
        assertThrows(InputFormatException.class, () -> IdxRowSource.open(negative, null, 1, 4)),
        "dimension 0",
        "4294967295");
    assertThrows(IllegalArgumentException.class, () -> IdxRowSource.open(images, null, 0, 4));
    assertThrows(IllegalArgumentException.class, () -> IdxRowSource.open(images, null, 1, 0));
  }

  /**
   * A gzipped header promising images of 2^31 - 9 pixels over a few bytes of data (found by the
   * fuzzer: the batch was allocated from the header, an OutOfMemoryError): refused as truncated
   * before any batch is allocated, as an uncompressed one is by its size.
   */
  @Test
  void aGzippedHeaderPromisingHugeImagesIsTruncatedNotAnAllocation() throws IOException {
    byte[] claim = Idx.file(Idx.IMAGES, new int[] {3, 46340, 46340}, new byte[40]);
    for (boolean gzip : new boolean[] {false, true}) {
      Path images = write("huge" + gzip, claim, gzip);
      InputFormatException e = assertThrows(InputFormatException.class,
          () -> IdxRowSource.open(images, null, 1, 1));
      assertMentions(e, images.toString(), "truncated", "found 56");
    }
  }

  @Test
  void truncatedAndOverlongFilesNameExpectedAndActualBytes() throws IOException {
    // 4 images of 2x2 promise 16 + 16 bytes; 10 pixel bytes are there.
    byte[] truncated = Idx.file(Idx.IMAGES, new int[] {4, 2, 2}, new byte[10]);
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
    byte[] full = Idx.file(Idx.IMAGES, new int[] {4, 2, 2}, pixels(16));
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
    Path longer = write("long", Idx.file(Idx.IMAGES, new int[] {2, 2, 2}, new byte[9]), false);
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

  /**
   * A Fashion-MNIST-sized set in many batches: 6,000 gzipped 28 x 28 images (the synthetic
   * stand-in of lprff-test-fixtures), read in batches of 1024 with contiguous row ids, every
   * pixel p / 255 of the written byte, every label the written class, 600 of each class.
   */
  @Test
  void aFashionMnistShapedSetInManyBatches() throws IOException {
    Idx.Images written = Idx.Images.fashionLike(6000, 1);
    Idx.Files files = written.write(dir, "train", true);
    try (IdxRowSource source =
        IdxRowSource.open(files.images(), files.labels(), IdxRowSource.DEFAULT_SCALE, 1024)) {
      assertEquals(6000, source.imageCount());
      assertEquals(784, source.columns());
      assertEquals(28, source.imageRows());
      long rows = 0;
      int[] perClass = new int[10];
      for (RowBatch b = source.next(); b != null; b = source.next()) {
        assertEquals(rows, b.firstRowId());
        Labels.requireClassIndices(b);
        for (int r = 0; r < b.rows(); r++) {
          int image = (int) rows + r;
          assertEquals(written.label(image), b.label(r), "label of image " + image);
          perClass[(int) b.label(r)]++;
          for (int i = 0; i < 784; i++) {
            assertEquals(written.pixel(image, i) / 255f, b.value(r, i), () -> "image " + image);
          }
        }
        rows += b.rows();
      }
      assertEquals(6000, rows);
      for (int c = 0; c < 10; c++) {
        assertEquals(600, perClass[c], "class " + c);
      }
    }
  }
}
