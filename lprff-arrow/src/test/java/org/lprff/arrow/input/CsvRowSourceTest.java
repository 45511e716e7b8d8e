package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMentions;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.fixtures.Diamonds;

class CsvRowSourceTest {

  @TempDir Path dir;

  private Path write(String name, String content) throws IOException {
    Path path = dir.resolve(name);
    Files.writeString(path, content, StandardCharsets.UTF_8);
    return path;
  }

  private Drained read(Path path, LabelColumn label, int batch) throws IOException {
    try (CsvRowSource source = CsvRowSource.open(path, label, batch)) {
      return Drained.of(source);
    }
  }

  private InputFormatException failure(Path path, LabelColumn label) {
    return assertThrows(
        InputFormatException.class,
        () -> {
          try (CsvRowSource source = CsvRowSource.open(path, label, 4)) {
            Drained.of(source);
          }
        });
  }

  @Test
  void valuesAndLabelsAreExact() throws IOException {
    Path path =
        write(
            "small.csv",
            "\"carat\", cut ,\"de\"\"pth\",price\r\n"
                + "0.23,5,61.5,326\r\n"
                + "\"0.21\", 4 ,\t59.8\t, \"326\"\r\n"
                + "-1.5e-3,+7,1E2,3.4028235e38\n"
                + "\n"
                + "  \n");
    try (CsvRowSource source = CsvRowSource.open(path, LabelColumn.LAST, 10)) {
      assertEquals(List.of("carat", "cut", "de\"pth"), source.columnNames());
      assertEquals(List.of("carat", "cut", "de\"pth", "price"), source.header());
      assertEquals(3, source.columns());
      assertEquals(3, source.labelIndex());
      assertEquals(LabelKind.PRESENT, source.label());
      Drained all = Drained.of(source);
      Drained.assertSameArray(
          new float[] {0.23f, 5f, 61.5f, 0.21f, 4f, 59.8f, -1.5e-3f, 7f, 100f}, all.values());
      Drained.assertSameArray(new float[] {326f, 326f, 3.4028235e38f}, all.labels());
    }
  }

  @Test
  void labelColumnChoicesPickTheRightColumn() throws IOException {
    Path path = write("choices.csv", "a,b,c\n1,2,3\n4,5,6\n");
    record Case(String label, List<String> names, float[] values, float[] labels) {}
    List<Case> cases =
        List.of(
            new Case("none", List.of("a", "b", "c"), new float[] {1, 2, 3, 4, 5, 6}, null),
            new Case("first", List.of("b", "c"), new float[] {2, 3, 5, 6}, new float[] {1, 4}),
            new Case("last", List.of("a", "b"), new float[] {1, 2, 4, 5}, new float[] {3, 6}),
            new Case("b", List.of("a", "c"), new float[] {1, 3, 4, 6}, new float[] {2, 5}),
            new Case("1", List.of("a", "c"), new float[] {1, 3, 4, 6}, new float[] {2, 5}),
            new Case("#2", List.of("a", "b"), new float[] {1, 2, 4, 5}, new float[] {3, 6}));
    for (Case c : cases) {
      try (CsvRowSource source = CsvRowSource.open(path, LabelColumn.parse(c.label()), 5)) {
        assertEquals(c.names(), source.columnNames(), c.label());
        Drained all = Drained.of(source);
        Drained.assertSameArray(c.values(), all.values());
        Drained.assertSameArray(c.labels(), all.labels());
      }
    }
  }

  @Test
  void batchSizesGiveTheSameRowsAndRowIds() throws IOException {
    SplittableRandom random = new SplittableRandom(11L);
    int rows = 50;
    int d = 4;
    StringBuilder csv = new StringBuilder("w,x,y,z,label\n");
    float[] expected = new float[rows * d];
    float[] expectedLabels = new float[rows];
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c <= d; c++) {
        String cell = Float.toString((float) random.nextGaussian() * 1000f);
        csv.append(cell).append(c < d ? "," : "\n");
        if (c < d) {
          expected[r * d + c] = Float.parseFloat(cell);
        } else {
          expectedLabels[r] = Float.parseFloat(cell);
        }
      }
    }
    Path path = write("random.csv", csv.toString());
    for (int batch : new int[] {1, 7, rows, 1000}) {
      Drained all = read(path, LabelColumn.LAST, batch);
      Drained.assertSameArray(expected, all.values());
      Drained.assertSameArray(expectedLabels, all.labels());
      assertEquals((rows + batch - 1) / batch, all.batchSizes().size(), "batches of " + batch);
    }
  }

  @Test
  void otherSeparators() throws IOException {
    Path semicolon = write("semi.csv", "a;b\n1,5;2\n");
    try (CsvRowSource source = CsvRowSource.open(semicolon, LabelColumn.NONE, ';', 3)) {
      InputFormatException e = assertThrows(InputFormatException.class, source::next);
      assertMentions(e, "line 2", "column 'a' (index 0)", "'1,5'", "not a number");
    }
    Path tab = write("tab.tsv", "a\tb\tc\n1\t2\t3\n");
    try (CsvRowSource source = CsvRowSource.open(tab, LabelColumn.named("b"), '\t', 3)) {
      Drained all = Drained.of(source);
      Drained.assertSameArray(new float[] {1, 3}, all.values());
      Drained.assertSameArray(new float[] {2}, all.labels());
    }
    assertThrows(
        IllegalArgumentException.class, () -> CsvRowSource.open(tab, LabelColumn.NONE, '"', 3));
  }

  @Test
  void gzipByteOrderMarkAndUnicodeNames() throws IOException {
    Path path = dir.resolve("data.bin"); // gzip is recognized by content, not by name
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(path))) {
      out.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
      out.write("größe,\"prix €\"\n1.5,2\n".getBytes(StandardCharsets.UTF_8));
    }
    try (CsvRowSource source = CsvRowSource.open(path, LabelColumn.named("prix €"), 2)) {
      assertEquals(List.of("größe"), source.columnNames());
      Drained all = Drained.of(source);
      Drained.assertSameArray(new float[] {1.5f}, all.values());
      Drained.assertSameArray(new float[] {2f}, all.labels());
    }
  }

  @Test
  void blankLinesAreSkippedButCounted() throws IOException {
    Path path = write("blank.csv", "\na,b\n1,2\n\n   \n3,x\n");
    InputFormatException e = failure(path, LabelColumn.NONE);
    assertMentions(e, path.toString(), "line 6", "column 'b' (index 1)", "'x'", "not a number");
  }

  @Test
  void raggedRowsNameLineAndCounts() throws IOException {
    StringBuilder csv = new StringBuilder("a,b,c\n");
    for (int i = 0; i < 15; i++) {
      csv.append("1,2,3\n");
    }
    Path longer = write("longer.csv", csv + "1,2,3,4\n");
    assertMentions(failure(longer, LabelColumn.NONE), "line 17 has 4 cells, header has 3");
    Path shorter = write("shorter.csv", csv + "1,2\n");
    assertMentions(failure(shorter, LabelColumn.NONE), "line 17 has 2 cells, header has 3");
    Path trailingSeparator = write("trailing.csv", "a,b\n1,2,\n");
    assertMentions(
        failure(trailingSeparator, LabelColumn.NONE), "line 2 has 3 cells, header has 2");
    // A bad cell in a ragged row: the cell count is the better explanation.
    Path shifted = write("shifted.csv", "a,b\n1,x,3\n");
    assertMentions(failure(shifted, LabelColumn.NONE), "line 2 has 3 cells, header has 2");
  }

  @Test
  void badCellsNameLineColumnAndText() throws IOException {
    String[][] cases = {
      {"abc", "'abc' is not a number"},
      {"NaN", "'NaN' is not a finite number"},
      {"-Infinity", "'-Infinity' is not a finite number"},
      {"inf", "'inf' is not a finite number"},
      {"1e39", "'1e39' overflows float"},
      {"", "'' is empty"},
      {"\"\"", "'' is empty"},
      {"  ", "'' is empty"},
      {"\"1\"x", "'\"1\"x' has text after its closing quote"},
      {"\"1", "'\"1,400' has no closing quote"},
    };
    for (String[] c : cases) {
      Path path = write("bad.csv", "carat,depth,price\n0.2,61,326\n0.3," + c[0] + ",400\n");
      InputFormatException e = failure(path, LabelColumn.LAST);
      assertMentions(e, path.toString(), "line 3", "column 'depth' (index 1)", c[1]);
    }
    Path badLabel = write("label.csv", "carat,price\n0.2,NaN\n");
    assertMentions(
        failure(badLabel, LabelColumn.LAST), "line 2", "column 'price' (index 1)", "'NaN'");
  }

  @Test
  void longBadCellsAreShortenedInMessages() throws IOException {
    String cell = "x".repeat(10_000);
    Path path = write("long.csv", "a\n" + cell + "\n");
    InputFormatException e = failure(path, LabelColumn.NONE);
    assertMentions(e, "line 2", "xxx...");
    assertTrue(e.getMessage().length() < 300, e.getMessage());
  }

  @Test
  void labelColumnErrors() throws IOException {
    Path path = write("h.csv", "carat,depth,price\n1,2,3\n");
    assertMentions(
        failure(path, LabelColumn.named("prices")),
        path.toString(),
        "no column named 'prices'",
        "carat, depth, price");
    assertMentions(
        failure(path, LabelColumn.index(3)), "label column index 3 is out of range", "(0..2)");
    Path duplicate = write("dup.csv", "a,a,b\n1,2,3\n");
    assertMentions(failure(duplicate, LabelColumn.named("a")), "appears 2 times", "[0, 1]");
    Path single = write("single.csv", "y\n1\n");
    assertMentions(failure(single, LabelColumn.LAST), "no feature columns", "'y'");
  }

  @Test
  void emptyFilesAndHeaderOnly() throws IOException {
    Path empty = write("empty.csv", "");
    assertMentions(failure(empty, LabelColumn.NONE), empty.toString(), "is empty");
    Path blank = write("blank.csv", "\n  \n\n");
    assertMentions(failure(blank, LabelColumn.NONE), "is empty");
    Path header = write("header.csv", "a,b\n\n\n");
    assertMentions(failure(header, LabelColumn.NONE), header.toString(), "no data rows", "line 1");
    Path unterminated = write("quote.csv", "\"a,b\n1,2\n");
    assertMentions(failure(unterminated, LabelColumn.NONE), "line 1 (header)", "no closing quote");
  }

  @Test
  void longLinesGrowTheBuffer() throws IOException {
    int d = 30_000; // about 120 KiB per line, beyond the initial 64 KiB buffer
    StringBuilder csv = new StringBuilder();
    for (int c = 0; c < d; c++) {
      csv.append(c == 0 ? "" : ",").append("c").append(c);
    }
    csv.append('\n');
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < d; c++) {
        csv.append(c == 0 ? "" : ",").append(r * d + c);
      }
      csv.append('\n');
    }
    Drained all = read(write("wide.csv", csv.toString()), LabelColumn.NONE, 2);
    assertEquals(3, all.rows());
    for (int i = 0; i < 3 * d; i++) {
      assertEquals((float) i, all.values()[i], "value " + i);
    }
  }

  @Test
  void diamondsHasItsKnownShapeAndValues() throws IOException {
    Path path = Diamonds.copyTo(dir);
    try (CsvRowSource source = CsvRowSource.open(path, LabelColumn.named("price"), 4096)) {
      assertEquals(
          List.of("carat", "cut", "color", "clarity", "depth", "table", "x", "y", "z"),
          source.columnNames());
      RowBatch first = source.next();
      assertArrayEquals(
          new float[] {0.23f, 5, 2, 2, 61.5f, 55, 3.95f, 3.98f, 2.43f},
          java.util.Arrays.copyOf(first.values(), 9));
      assertEquals(326f, first.label(0));
      assertEquals(0L, first.firstRowId());
    }
    Drained all = read(path, LabelColumn.LAST, 4096);
    assertEquals(Diamonds.ROWS, all.rows());
    int last = Diamonds.ROWS - 1;
    assertArrayEquals(
        new float[] {0.75f, 5, 1, 2, 62.2f, 55, 5.83f, 5.87f, 3.64f},
        java.util.Arrays.copyOfRange(all.values(), last * 9, last * 9 + 9));
    assertEquals(2757f, all.labels()[last]);
    // Another batch size, the same rows.
    all.assertSameRows(read(path, LabelColumn.LAST, 7));
  }
}
