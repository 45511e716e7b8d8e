package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.lprff.fixtures.Messages.assertMentions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.fixtures.TestFiles;

class LibsvmRowSourceTest {

  @TempDir Path dir;

  private Path write(String name, String content) throws IOException {
    Path path = dir.resolve(name);
    Files.writeString(path, content, StandardCharsets.UTF_8);
    return path;
  }

  private static Drained read(Path path, int dimension, int batch) throws IOException {
    try (LibsvmRowSource source = LibsvmRowSource.open(path, dimension, batch)) {
      return Drained.of(source);
    }
  }

  private static InputFormatException failure(Path path, int dimension) {
    return assertThrows(InputFormatException.class, () -> read(path, dimension, 3));
  }

  private static final String SMALL =
      "# a comment line\n"
          + "1 1:0.5 3:2\n"
          + "-1\t2:1.5   # trailing comment\r\n"
          + "\n"
          + "+1\n"
          + "0.25 1:-3e-2 2:7 3:1e3\n"
          + "\n";

  @Test
  void dimensionFromAFirstPassAndDenseRows() throws IOException {
    Path path = write("small.libsvm", SMALL);
    try (LibsvmRowSource source = LibsvmRowSource.open(path, 0, 10)) {
      assertEquals(3, source.columns());
      assertEquals(List.of("f1", "f2", "f3"), source.columnNames());
      assertEquals(LabelKind.PRESENT, source.label());
      Drained all = Drained.of(source);
      Drained.assertSameArray(
          new float[] {0.5f, 0, 2, 0, 1.5f, 0, 0, 0, 0, -3e-2f, 7, 1e3f}, all.values());
      Drained.assertSameArray(new float[] {1, -1, 1, 0.25f}, all.labels());
    }
  }

  @Test
  void givenDimensionPadsWithZeros() throws IOException {
    Drained all = read(write("small.svm", SMALL), 5, 2);
    assertEquals(5, all.columns());
    Drained.assertSameArray(
        new float[] {0.5f, 0, 2, 0, 0, 0, 1.5f, 0, 0, 0, 0, 0, 0, 0, 0, -3e-2f, 7, 1e3f, 0, 0},
        all.values());
  }

  @Test
  void batchSizesGiveTheSameRowsAndRowIds() throws IOException {
    SplittableRandom random = new SplittableRandom(3L);
    int rows = 40;
    int d = 12;
    StringBuilder text = new StringBuilder();
    float[] expected = new float[rows * d];
    float[] labels = new float[rows];
    for (int r = 0; r < rows; r++) {
      labels[r] = random.nextInt(3);
      text.append((int) labels[r]);
      for (int c = 0; c < d; c++) {
        if (random.nextInt(3) == 0) {
          float v = (float) random.nextGaussian();
          expected[r * d + c] = Float.parseFloat(Float.toString(v));
          text.append(' ').append(c + 1).append(':').append(v);
        }
      }
      text.append('\n');
    }
    text.append("0 ").append(d).append(":0\n"); // pins the scanned dimension to d
    Path path = write("random.txt", text.toString());
    Drained reference = read(path, d, rows + 1);
    assertEquals(rows + 1, reference.rows());
    for (int i = 0; i < rows * d; i++) {
      assertEquals(expected[i], reference.values()[i], "value " + i);
    }
    for (int r = 0; r < rows; r++) {
      assertEquals(labels[r], reference.labels()[r], "label " + r);
    }
    for (int batch : new int[] {1, 7, rows + 1}) {
      reference.assertSameRows(read(path, 0, batch));
      reference.assertSameRows(read(path, d, batch));
    }
  }

  @Test
  void gzippedInput() throws IOException {
    Path path =
        TestFiles.write(dir.resolve("small.libsvm.gz"), SMALL.getBytes(StandardCharsets.UTF_8), true);
    read(write("plain.libsvm", SMALL), 0, 4).assertSameRows(read(path, 0, 4));
  }

  @Test
  void badTokensNameLineAndToken() throws IOException {
    String[][] cases = {
      {"1 0:1", "token 2 '0:1' has index 0: indices are 1-based"},
      {"1 2:1 2:3", "token 3 '2:3' has index 2 after index 2: indices must increase"},
      {"1 3:1 2:3", "token 3 '2:3' has index 2 after index 3"},
      {"1 2:x", "token 2 '2:x' has a value 'x' that is not a number"},
      {"1 2:NaN", "token 2 '2:NaN' has a value 'NaN' that is not a finite number"},
      {"1 2:", "token 2 '2:' has a value '' that is empty"},
      {"1 2.5", "token 2 '2.5' is not index:value"},
      {"1 a:1", "token 2 'a:1' has an index that is not a whole number"},
      {"1 :1", "token 2 ':1' has no index before ':'"},
      {"1 99999999999:1", "token 2 '99999999999:1' has an index beyond 2147483647"},
      {"1:2 3:4", "token 1 '1:2' should be the label"},
      {"abc 1:2", "token 1 'abc' has a label 'abc' that is not a number"},
      {"1,2 1:2", "token 1 '1,2' has a label '1,2' that is not a number"},
    };
    for (String[] c : cases) {
      Path path = write("bad.libsvm", "0 1:1\n\n" + c[0] + "\n");
      assertMentions(failure(path, 0), path.toString(), "line 3, ", c[1]);
      assertMentions(failure(path, 4), path.toString(), "line 3, ", c[1]);
    }
  }

  @Test
  void indicesBeyondAGivenDimension() throws IOException {
    Path path = write("wide.libsvm", "1 1:1 7:2\n");
    assertMentions(failure(path, 5), "line 1, token 3 '7:2' has index 7 beyond the dimension 5");
    assertEquals(7, read(path, 0, 1).columns());
  }

  @Test
  void emptyInputs() throws IOException {
    assertMentions(failure(write("empty.libsvm", ""), 0), "no data rows");
    assertMentions(
        failure(write("comments.libsvm", "# only\n  # comments\n\n"), 0), "no data rows");
    assertMentions(failure(write("comments2.libsvm", "# only\n"), 3), "no data rows");
    assertMentions(failure(write("labels.libsvm", "1\n2\n"), 0), "dimension is unknown");
    assertThrows(
        IllegalArgumentException.class,
        () -> LibsvmRowSource.open(write("x.libsvm", "1 1:1\n"), -1, 3));
  }
}
