package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.LabelColumn;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.arrow.input.Standardization;
import org.lprff.fixtures.Diamonds;
import org.lprff.fixtures.Idx;
import org.lprff.vector.featurize.Featurizer;

/**
 * End to end on the two data sets' shapes: diamonds as shipped (53,940 rows, 9 columns and the
 * price) and IDX images as Fashion-MNIST comes (gzipped 28 x 28, 10 balanced classes; synthetic
 * images from lprff-test-fixtures, the real set is scripts/fashion-mnist.sh's).
 */
class DataSetsTest {

  @TempDir Path dir;

  /** All rows of a source, read with the library's reader, and their labels. */
  private record Rows(float[] values, float[] labels, int n, int columns) {
    static Rows read(RowSource source) throws IOException {
      float[] values = new float[0];
      float[] labels = new float[0];
      int n = 0;
      for (RowBatch batch = source.next(); batch != null; batch = source.next()) {
        values = Arrays.copyOf(values, (n + batch.rows()) * source.columns());
        labels = Arrays.copyOf(labels, n + batch.rows());
        System.arraycopy(batch.values(), 0, values, n * source.columns(),
            batch.rows() * source.columns());
        System.arraycopy(batch.labels(), 0, labels, n, batch.rows());
        n += batch.rows();
      }
      return new Rows(values, labels, n, source.columns());
    }
  }

  /**
   * The example on diamonds (m = 1024 to keep the test short): 53,940 rows, 9 features
   * standardized; every row's bytes equal the Featurizer's on the rows standardized with the
   * stored statistics; --like on the same input reproduces the file byte for byte.
   */
  @Test
  void diamonds() throws IOException {
    Path csv = Diamonds.copyTo(dir);
    Path train = dir.resolve("train.arrow");
    Cli.Result result = Cli.ok("featurize", "--input", csv.toString(), "--label-column", "last",
        "--standardize", "--kernel", "gaussian", "--sigma", "2.0", "--features", "1024",
        "--bits", "4", "--projection", "circulant", "--seed", "1", "--output", train.toString());
    assertTrue(result.err().contains("wrote " + train + ": 53,940 rows, 9 -> 1,024 features at"
        + " 4 bits"), result.err());

    String info = Cli.ok("info", train.toString()).out();
    for (String line : List.of("rows             53,940", "input dim (d)    9",
        "record batches   53", "bytes per row    512",
        "standardization  9 columns: carat, cut, color, clarity, depth, table, x, y, z")) {
      assertTrue(info.contains(line), "missing '" + line + "' in\n" + info);
    }

    FeatureRows rows = FeatureRows.read(train);
    assertEquals(Diamonds.ROWS, rows.rows());
    assertEquals(LabelType.REGRESSION, rows.schema().labelType());
    Rows raw;
    try (RowSource source = RowSources.open(csv,
        RowSources.Options.defaults().withLabel(LabelColumn.LAST))) {
      raw = Rows.read(source);
    }
    Standardization stored = Standardization.fromMap(rows.schema().metadata());
    for (int r = 0; r < raw.n(); r++) {
      assertEquals(raw.labels()[r], (float) rows.labels()[r]);
    }
    // Apply the stored statistics the documented way, then featurize every row.
    float[] standardized = raw.values().clone();
    for (int r = 0; r < raw.n(); r++) {
      for (int c = 0; c < 9; c++) {
        int i = r * 9 + c;
        standardized[i] = (float) ((raw.values()[i] - stored.mean(c)) / stored.std(c));
      }
    }
    // The stored mean of carat against a direct sum in double: streaming merges agree to 1e-12.
    double carat = 0;
    for (int r = 0; r < raw.n(); r++) {
      carat += raw.values()[r * 9];
    }
    assertEquals(carat / raw.n(), stored.mean(0), 1e-12);
    assertArrayEquals(Featurizer.of(rows.schema().spec()).featurize(standardized, raw.n(), 0),
        rows.concatenated());

    Path heldout = dir.resolve("heldout.arrow");
    Cli.ok("featurize", "--input", csv.toString(), "--like", train.toString(), "--output",
        heldout.toString(), "-q");
    assertArrayEquals(java.nio.file.Files.readAllBytes(train),
        java.nio.file.Files.readAllBytes(heldout));
  }

  /**
   * A Fashion-MNIST-shaped test set, 2,000 gzipped images with their labels under the real
   * names: IDX → classes as Int32, m = 1024, pixels / 255.
   */
  @Test
  void fashionMnistShapedTestSet() throws IOException {
    Idx.Files files = Idx.Images.fashionLike(2000, 2).write(dir, "t10k", true);
    Path images = files.images();
    Path labels = files.labels();
    Path out = dir.resolve("fashion.arrow");
    Cli.ok("featurize", "--input", images.toString(), "--idx-labels", labels.toString(),
        "--sigma", "8", "--features", "1024", "--bits", "2", "--projection", "fastfood",
        "--seed", "3", "--output", out.toString(), "-q");
    FeatureRows rows = FeatureRows.read(out);
    assertEquals(2000, rows.rows());
    assertEquals(784, rows.schema().spec().inputDim());
    assertEquals(LabelType.CLASSES, rows.schema().labelType());
    assertTrue(rows.intLabels());
    Rows raw;
    try (RowSource source = RowSources.open(images,
        RowSources.Options.defaults().withIdxLabels(labels))) {
      raw = Rows.read(source);
    }
    int[] counts = new int[10];
    for (int r = 0; r < raw.n(); r++) {
      assertEquals(raw.labels()[r], rows.labels()[r]);
      counts[(int) rows.labels()[r]]++;
    }
    int[] balanced = new int[10];
    Arrays.fill(balanced, 200);
    assertArrayEquals(balanced, counts, "the set has 200 images of each class");
    assertArrayEquals(Featurizer.of(rows.schema().spec()).featurize(raw.values(), raw.n(), 0),
        rows.concatenated());
  }
}
