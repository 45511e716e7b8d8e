package org.lprff.arrow.input;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;
import org.lprff.vector.stream.RowSplit;

/**
 * Labelled rows read whole into memory: n rows of d floats, row-major, one label each, and the
 * names of the d feature columns. What a Java user fits a model on ({@code FittedModel.fit}),
 * and how {@code compare}, {@code experiment} and {@code train --redraw} hold raw rows.
 *
 * @param x n*d values, row-major
 * @param y n labels: targets, or class indices as floats
 */
public record RowTable(float[] x, float[] y, int n, int d, List<String> names) {

  public RowTable {
    if (x == null || y == null || names == null) {
      throw new IllegalArgumentException((x == null ? "x" : y == null ? "y" : "names") + " is null");
    }
    if (n < 0 || d < 0 || (long) n * d > x.length || n > y.length || names.size() != d) {
      throw new IllegalArgumentException("a table of " + n + " rows of " + d + " columns needs "
          + (long) n * d + " values, " + n + " labels and " + d + " names; got " + x.length
          + ", " + y.length + " and " + names.size());
    }
    names = List.copyOf(names);
  }

  /**
   * Every row of {@code file} with its labels, read with {@code options} (format, label column,
   * IDX labels...).
   *
   * @throws IllegalArgumentException if the file has no labels or no rows, or more values than
   *     one array holds
   */
  public static RowTable read(Path file, RowSources.Options options) throws IOException {
    try (RowSource source = RowSources.open(file, options)) {
      return read(file, source);
    }
  }

  /**
   * Every row of a CSV file with a header, its label the column {@code labelColumn} (a name, a
   * 0-based index, {@code first} or {@code last}).
   */
  public static RowTable readCsv(Path file, String labelColumn) throws IOException {
    return read(file, RowSources.Options.defaults().withFormat(RowSources.Format.CSV)
        .withLabel(labelColumn));
  }

  /** The rest of {@code source}, read from {@code file} (for messages), to its end. */
  public static RowTable read(Path file, RowSource source) throws IOException {
    if (source.label() != LabelKind.PRESENT) {
      throw new IllegalArgumentException(file + " has no labels (name the label column, or give"
          + " IDX images their labels file)");
    }
    int d = source.columns();
    float[] x = new float[Math.max(1, d) * 1024];
    float[] y = new float[1024];
    int n = 0;
    for (RowBatch b = source.next(); b != null; b = source.next()) {
      long need = (long) n + b.rows();
      if (need * d > Integer.MAX_VALUE - 16) {
        throw new IllegalArgumentException(file + " has more than " + n + " rows of " + d
            + " values: too many to hold in one array");
      }
      while (y.length < need) {
        y = Arrays.copyOf(y, (int) Math.min(Integer.MAX_VALUE - 16L, 2L * y.length));
        x = Arrays.copyOf(x, (int) Math.min(Integer.MAX_VALUE - 16L, (long) y.length * d));
      }
      System.arraycopy(b.values(), 0, x, n * d, b.rows() * d);
      System.arraycopy(b.labels(), 0, y, n, b.rows());
      n += b.rows();
    }
    if (n == 0) {
      throw new IllegalArgumentException(file + " has no data rows");
    }
    return new RowTable(Arrays.copyOf(x, n * d), Arrays.copyOf(y, n), n, d, source.columnNames());
  }

  /** Rows {@code indices} of this table, in that order. */
  public RowTable select(int[] indices) {
    float[] sx = new float[indices.length * d];
    float[] sy = new float[indices.length];
    for (int k = 0; k < indices.length; k++) {
      System.arraycopy(x, indices[k] * d, sx, k * d, d);
      sy[k] = y[indices[k]];
    }
    return new RowTable(sx, sy, indices.length, d, names);
  }

  /**
   * {train, heldout}: row i is heldout iff {@link RowSplit#heldout}(seed, i), about 20% (the
   * demo's and compare's split).
   *
   * @throws IllegalArgumentException if either part would be empty
   */
  public RowTable[] split(long seed) {
    int[][] parts = partition(n, i -> RowSplit.heldout(seed, i));
    if (parts[1].length == 0 || parts[0].length == 0) {
      throw new IllegalArgumentException("the seeded 80/20 split of " + n + " rows left "
          + (parts[1].length == 0 ? "no heldout" : "no training") + " rows; give more rows or a"
          + " separate --heldout file");
    }
    return new RowTable[] {select(parts[0]), select(parts[1])};
  }

  /** {indices i in [0, n) where {@code second} is false, those where it is true}, ascending. */
  public static int[][] partition(int n, IntPredicate second) {
    int count = 0;
    for (int i = 0; i < n; i++) {
      if (second.test(i)) {
        count++;
      }
    }
    int[] no = new int[n - count];
    int[] yes = new int[count];
    for (int i = 0, a = 0, b = 0; i < n; i++) {
      if (second.test(i)) {
        yes[b++] = i;
      } else {
        no[a++] = i;
      }
    }
    return new int[][] {no, yes};
  }

  /**
   * y := ln(y) in place (e.g. prices), every label checked first to be finite and > 0.
   *
   * @param set the table's name in messages ("train", "heldout")
   * @return this table
   */
  public RowTable logLabels(String set) {
    for (int i = 0; i < n; i++) {
      if (!(y[i] > 0) || Float.isInfinite(y[i])) {
        throw new IllegalArgumentException("the label of " + set + " row " + i + " is " + y[i]
            + ", expected finite and > 0");
      }
    }
    for (int i = 0; i < n; i++) {
      y[i] = (float) Math.log(y[i]);
    }
    return this;
  }

  /**
   * The labels as class indices, each checked to be an integer >= 0 (the message names the row
   * and value).
   */
  public int[] classes() {
    Labels.requireClassIndices(y, n, 0);
    int[] c = new int[n];
    for (int i = 0; i < n; i++) {
      c[i] = (int) y[i];
    }
    return c;
  }

  /**
   * The mean and sample standard deviation of each column, as {@code featurize --standardize}
   * computes them (nothing is applied).
   */
  public Standardization standardization() {
    return new Standardization.Accumulator(d).add(batch()).finish(names);
  }

  /** The rows as one batch (row ids 0..n-1) over this table's arrays: changes write through. */
  public RowBatch batch() {
    return new RowBatch(x, n, d, y, 0);
  }
}
