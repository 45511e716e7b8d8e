package org.lprff.arrow;

/**
 * A batch of raw input rows for {@link FeatureWriter}: {@code rows} rows of d floats each, row r
 * at {@code values[r d .. (r + 1) d)} with id {@code firstRowId + r}, and optionally one label per
 * row. The arrays are the caller's and are not copied; d is checked by the writer, which knows
 * the featurizer's input width.
 *
 * @param values the rows, row-major, at least rows * d floats
 * @param rows number of rows, >= 0
 * @param labels one label per row (at least rows floats), or null when there are none
 * @param firstRowId the id of row 0, >= 0; ids select the rounding randomness of each row
 */
public record RawBatch(float[] values, int rows, float[] labels, long firstRowId) {

  public RawBatch {
    if (values == null) {
      throw new IllegalArgumentException("values is null");
    }
    if (rows < 0) {
      throw new IllegalArgumentException("rows is " + rows + ", expected >= 0");
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
}
