package org.lprff.arrow.input;

import java.util.Arrays;

/**
 * One batch of raw input rows, from a {@link RowSource} or any {@link RowBatches}: {@code rows}
 * rows of {@code columns} floats, row-major in {@code values} (row r, column c at {@code
 * values[r * columns + c]}), ready for {@code Featurizer.featurize(values, rows, firstRowId, ...)}
 * or a {@code FeatureWriter}. Row ids select the rounding randomness of each row.
 *
 * <p><b>Reused buffers.</b> A source hands out the same arrays on every call of {@link
 * RowSource#next()}: {@code values} and {@code labels} may be longer than the batch and are
 * overwritten by the next call. Use {@link #copy()} to keep a batch.
 *
 * <p>Equality compares the batch's content (the first {@code rows * columns} values and {@code
 * rows} labels, as {@link Float#equals}), not the array identities.
 *
 * @param values row-major values, at least {@code rows * columns} long
 * @param rows number of rows in this batch
 * @param columns values per row
 * @param labels one label per row (at least {@code rows} long), or null when the source has none
 * @param firstRowId 0-based index of this batch's first row in the source
 */
public record RowBatch(float[] values, int rows, int columns, float[] labels, long firstRowId) {

  public RowBatch {
    if (values == null) {
      throw new IllegalArgumentException("values is null");
    }
    if (rows < 0) {
      throw new IllegalArgumentException("rows is " + rows + ", expected >= 0");
    }
    if (columns < 0) {
      throw new IllegalArgumentException("columns is " + columns + ", expected >= 0");
    }
    if ((long) rows * columns > values.length) {
      throw new IllegalArgumentException(
          "values has length "
              + values.length
              + ", expected at least rows * columns = "
              + rows
              + " * "
              + columns
              + " = "
              + (long) rows * columns);
    }
    if (labels != null && labels.length < rows) {
      throw new IllegalArgumentException(
          "labels has length " + labels.length + ", expected at least rows = " + rows);
    }
    if (firstRowId < 0 || firstRowId > Long.MAX_VALUE - rows) {
      throw new IllegalArgumentException(
          "firstRowId is " + firstRowId + ", expected in [0, Long.MAX_VALUE - rows] for rows = "
              + rows);
    }
  }

  /** Whether the batch has labels. */
  public boolean hasLabels() {
    return labels != null;
  }

  /** The value of row {@code row}, column {@code column} (0-based, within this batch). */
  public float value(int row, int column) {
    if (row < 0 || row >= rows || column < 0 || column >= columns) {
      throw new IndexOutOfBoundsException(
          "row " + row + ", column " + column + " outside " + rows + " x " + columns);
    }
    return values[row * columns + column];
  }

  /** The label of row {@code row} (0-based, within this batch). */
  public float label(int row) {
    if (labels == null) {
      throw new IllegalStateException("this batch has no labels");
    }
    if (row < 0 || row >= rows) {
      throw new IndexOutOfBoundsException("row " + row + " outside 0.." + (rows - 1));
    }
    return labels[row];
  }

  /** The source row id one past this batch's last row. */
  public long endRowId() {
    return firstRowId + rows;
  }

  /**
   * A batch with its own arrays, trimmed to exactly {@code rows * columns} values and rows labels.
   */
  public RowBatch copy() {
    return new RowBatch(
        Arrays.copyOf(values, rows * columns),
        rows,
        columns,
        labels == null ? null : Arrays.copyOf(labels, rows),
        firstRowId);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RowBatch b
        && rows == b.rows
        && columns == b.columns
        && firstRowId == b.firstRowId
        && (labels == null) == (b.labels == null)
        && Arrays.equals(values, 0, rows * columns, b.values, 0, rows * columns)
        && (labels == null || Arrays.equals(labels, 0, rows, b.labels, 0, rows));
  }

  @Override
  public int hashCode() {
    int h = Long.hashCode(firstRowId) * 31 + rows * 17 + columns;
    for (int i = 0, n = rows * columns; i < n; i++) {
      h = 31 * h + Float.floatToIntBits(values[i]);
    }
    if (labels != null) {
      for (int r = 0; r < rows; r++) {
        h = 31 * h + Float.floatToIntBits(labels[r]);
      }
    }
    return h;
  }

  @Override
  public String toString() {
    return "RowBatch[rows="
        + rows
        + ", columns="
        + columns
        + ", firstRowId="
        + firstRowId
        + ", labels="
        + (labels != null)
        + "]";
  }
}
