package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.Standardization;
import org.lprff.cli.output.Progress;
import org.lprff.fixtures.Idx;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

/** featurize → the file's bytes, labels, row ids and metadata, for every b and both framings. */
class FeaturizeCommandTest {

  @TempDir Path dir;

  static Stream<Arguments> bitsAndFraming() {
    return IntStream.of(1, 2, 4, 8, 16, 32).boxed()
        .flatMap(b -> Stream.of(Arguments.of(b, "file"), Arguments.of(b, "stream")));
  }

  /**
   * 29 rows of 6 columns, standardized, m = 37 (not a multiple of 8: the last byte is partial),
   * record batches of 8 rows: the file holds exactly the Featurizer's bytes of the rows
   * standardized with the stored statistics, which equal the directly computed ones.
   */
  @ParameterizedTest(name = "b={0}, ipc={1}")
  @MethodSource("bitsAndFraming")
  void featuresEqualTheFeaturizersOfTheStandardizedRows(int bits, String ipc) throws IOException {
    Inputs.Table table = Inputs.Table.random(29, 6, 11);
    Path csv = table.writeCsv(dir.resolve("train.csv"));
    Path out = dir.resolve("train.arrow");
    Cli.Result result = Cli.ok("featurize", "--input", csv.toString(), "--standardize",
        "--sigma", "1.5", "--features", "37", "--bits", Integer.toString(bits),
        "--projection", "dense", "--seed", "7", "--ipc", ipc, "--batch-size", "8", "--row-ids",
        "--output", out.toString());
    assertEquals("", result.out());
    assertTrue(result.err().contains("wrote " + out + ": 29 rows, 6 -> 37 features at " + bits
        + " bits"), result.err());

    FeatureRows rows = FeatureRows.read(out);
    FeaturizerSpec expectedSpec = new FeaturizerSpec(new KernelFunction.Gaussian(1.5), 6, 37,
        bits, "dense", 7, Quantizer.STOCHASTIC);
    assertEquals(expectedSpec, rows.schema().spec());
    assertEquals(LabelType.REGRESSION, rows.schema().labelType());
    assertEquals(29, rows.rows());
    assertEquals(4, rows.recordBatches(), "ceil(29 / 8) record batches");
    assertArrayEquals(rowIds(29), rows.rowIds());
    for (int r = 0; r < 29; r++) {
      assertEquals(table.labels()[r], (float) rows.labels()[r], "label of row " + r);
    }

    Standardization stored = Standardization.fromMap(rows.schema().metadata());
    double[] mean = new double[6];
    double[] std = new double[6];
    double[] directMean = table.means();
    double[] directStd = table.stds();
    for (int c = 0; c < 6; c++) {
      mean[c] = stored.mean(c);
      std[c] = stored.std(c);
      // Streaming (Chan) and direct two-pass statistics of 29 rows agree to a few ulps.
      assertEquals(directMean[c], mean[c], 1e-12 * Math.max(1, Math.abs(directMean[c])));
      assertEquals(directStd[c], std[c], 1e-12 * directStd[c]);
    }
    assertEquals(List.of("c0", "c1", "c2", "c3", "c4", "c5"), stored.columns());
    byte[] expected = Featurizer.of(expectedSpec).featurize(table.standardized(mean, std), 29, 0);
    assertArrayEquals(expected, rows.concatenated());
  }

  private static long[] rowIds(int n) {
    return java.util.stream.LongStream.range(0, n).toArray();
  }

  /** Without --standardize the raw rows are featurized and no statistics are stored. */
  @Test
  void withoutStandardizeTheRawRowsAreFeaturized() throws IOException {
    Inputs.Table table = Inputs.Table.random(10, 3, 5);
    Path csv = table.writeCsv(dir.resolve("x.csv"));
    Path out = dir.resolve("x.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--kernel", "laplacian", "--sigma", "3",
        "-m", "16", "-b", "2", "--quantizer", "nearest", "-o", out.toString(), "--quiet");
    FeatureRows rows = FeatureRows.read(out);
    FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Laplacian(3), 3, 16, 2, "dense",
        0, Quantizer.NEAREST);
    assertEquals(spec, rows.schema().spec());
    assertFalse(rows.schema().metadata().containsKey(Standardization.KEY_MEAN));
    assertNull(rows.rowIds());
    assertArrayEquals(Featurizer.of(spec).featurize(table.values(), 10, 0), rows.concatenated());
  }

  /** The matern kernel takes --nu and --length-scale. */
  @Test
  void maternKernel() throws IOException {
    Path csv = Inputs.Table.random(5, 4, 2).writeCsv(dir.resolve("x.csv"));
    Path out = dir.resolve("x.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--kernel", "matern", "--nu", "1.5",
        "--length-scale", "2.5", "-m", "8", "-o", out.toString(), "-q");
    assertEquals(new KernelFunction.Matern(1.5, 2.5), FeatureRows.read(out).schema().spec().kernel());
  }

  /** The bytes do not depend on the thread count or the batch size. */
  @Test
  void threadsAndBatchSizeDoNotChangeTheBytes() throws IOException {
    Path csv = Inputs.Table.random(300, 5, 3).writeCsv(dir.resolve("x.csv"));
    byte[] reference = null;
    for (String[] variant : new String[][] {{"1", "1000"}, {"3", "7"}, {"2", "64"}}) {
      Path out = dir.resolve("x-" + variant[0] + "-" + variant[1] + ".arrow");
      Cli.ok("featurize", "-i", csv.toString(), "--sigma", "2", "-m", "200", "-b", "4",
          "--projection", "circulant", "--threads", variant[0], "--batch-size", variant[1],
          "-o", out.toString(), "-q");
      byte[] bytes = FeatureRows.read(out).concatenated();
      if (reference == null) {
        reference = bytes;
      } else {
        assertArrayEquals(reference, bytes, "threads " + variant[0] + ", batch " + variant[1]);
      }
    }
  }

  /** --label-type classes writes Int32 labels; --label-column picks by name or index, or none. */
  @Test
  void labelColumnAndType() throws IOException {
    Inputs.Table table = Inputs.Table.random(12, 3, 9).withClassLabels(4);
    Path csv = table.writeCsv(dir.resolve("x.csv"));
    Path classes = dir.resolve("classes.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--label-column", "label", "--label-type",
        "classes", "--sigma", "1", "-m", "8", "-o", classes.toString(), "-q");
    FeatureRows rows = FeatureRows.read(classes);
    assertEquals(LabelType.CLASSES, rows.schema().labelType());
    assertTrue(rows.intLabels());
    for (int r = 0; r < 12; r++) {
      assertEquals(r % 4, rows.labels()[r]);
    }

    // The label as the first column (index 0): the features are the other columns.
    Path byIndex = dir.resolve("first.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--label-column", "0", "--sigma", "1", "-m", "8",
        "-o", byIndex.toString(), "-q");
    FeatureRows first = FeatureRows.read(byIndex);
    assertEquals(3, first.schema().spec().inputDim());
    for (int r = 0; r < 12; r++) {
      assertEquals(table.values()[r * 3], first.labels()[r], "c0 is the label");
    }

    Path none = dir.resolve("none.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--label-column", "none", "--sigma", "1",
        "-m", "8", "-o", none.toString(), "-q");
    FeatureRows unlabelled = FeatureRows.read(none);
    assertEquals(LabelType.NONE, unlabelled.schema().labelType());
    assertEquals(4, unlabelled.schema().spec().inputDim(), "the label column became a feature");
  }

  /** IDX images with labels: classes by default, pixels / 255; --label-column none drops them. */
  @Test
  void idxImagesWithLabels() throws IOException {
    int n = 13;
    int pixels = 4 * 3;
    byte[] image = new byte[n * pixels];
    byte[] classes = new byte[n];
    for (int i = 0; i < image.length; i++) {
      image[i] = (byte) (i * 37);
    }
    for (int r = 0; r < n; r++) {
      classes[r] = (byte) (r % 10);
    }
    Path images = dir.resolve("images-idx3-ubyte");
    Path labels = dir.resolve("labels-idx1-ubyte");
    new Idx.Images(n, 4, 3, image, classes).write(images, labels, false);
    Path out = dir.resolve("idx.arrow");
    Cli.ok("featurize", "-i", images.toString(), "--idx-labels", labels.toString(),
        "--sigma", "4", "-m", "32", "-b", "8", "--projection", "fastfood", "-o", out.toString(),
        "-q");
    FeatureRows rows = FeatureRows.read(out);
    assertEquals(LabelType.CLASSES, rows.schema().labelType());
    float[] values = new float[image.length];
    for (int i = 0; i < image.length; i++) {
      values[i] = (float) ((image[i] & 0xff) * (1.0 / 255.0));
    }
    assertArrayEquals(Featurizer.of(rows.schema().spec()).featurize(values, n, 0),
        rows.concatenated());
    for (int r = 0; r < n; r++) {
      assertEquals(r % 10, rows.labels()[r]);
    }

    Path dropped = dir.resolve("dropped.arrow");
    Cli.ok("featurize", "-i", images.toString(), "--idx-labels", labels.toString(),
        "--label-column", "none", "--sigma", "4", "-m", "32", "-o", dropped.toString(), "-q");
    assertEquals(LabelType.NONE, FeatureRows.read(dropped).schema().labelType());
  }

  /** LIBSVM input: labels first on each line, regression by default. */
  @Test
  void libsvmInput() throws IOException {
    Path svm = Files.writeString(dir.resolve("x.libsvm"), "1.5 1:0.5 3:2\n-2 2:1\n0 1:1 2:1 3:1\n");
    Path out = dir.resolve("x.arrow");
    Cli.ok("featurize", "-i", svm.toString(), "--sigma", "1", "-m", "8", "-o", out.toString(),
        "-q");
    FeatureRows rows = FeatureRows.read(out);
    assertEquals(3, rows.schema().spec().inputDim());
    assertArrayEquals(new double[] {1.5, -2, 0}, rows.labels());
    float[] values = {0.5f, 0, 2, 0, 1, 0, 1, 1, 1};
    assertArrayEquals(Featurizer.of(rows.schema().spec()).featurize(values, 3, 0),
        rows.concatenated());
  }

  /** The listener reports at most every 0.5 s of its clock: rows, rate and the percentage. */
  @Test
  void progressIsThrottledAndShowsPercentWhenTheTotalIsKnown() {
    java.io.StringWriter text = new java.io.StringWriter();
    long[] now = {0};
    Progress progress = new Progress(new java.io.PrintWriter(text), "featurizing", false,
        () -> now[0]);
    now[0] = 100_000_000L;
    progress.rowsWritten(100, 1000); // 0.1 s: too early
    now[0] = 500_000_000L;
    progress.rowsWritten(500, 1000); // 0.5 s: reported
    now[0] = 700_000_000L;
    progress.rowsWritten(700, 1000); // 0.2 s after the last: too early
    now[0] = 2_000_000_000L;
    progress.rowsWritten(2000, -1); // unknown total
    assertEquals(
        "featurizing: 500 of 1,000 rows (50%), 1,000 rows/s\n"
            + "featurizing: 2,000 rows, 1,000 rows/s\n",
        text.toString().replace(System.lineSeparator(), "\n"));
  }

  /** On a terminal each report overwrites the last, and finish() clears the line. */
  @Test
  void progressOnATerminalOverwritesItsLine() {
    java.io.StringWriter text = new java.io.StringWriter();
    long[] now = {0};
    Progress progress = new Progress(new java.io.PrintWriter(text), "x", true, () -> now[0]);
    now[0] = 1_000_000_000L;
    progress.rowsWritten(10_000, -1);
    now[0] = 2_000_000_000L;
    progress.rowsWritten(10_001, -1);
    progress.finish();
    String first = "x: 10,000 rows, 10,000 rows/s";
    String second = "x: 10,001 rows, 5,001 rows/s";
    assertEquals("\r" + first + "\r" + second + " ".repeat(first.length() - second.length())
        + "\r" + " ".repeat(second.length()) + "\r", text.toString());
  }
}
