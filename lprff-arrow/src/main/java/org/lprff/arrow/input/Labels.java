package org.lprff.arrow.input;

/** Checks on labels before they are used as class indices. */
public final class Labels {

  private Labels() {}

  /** The largest class index accepted: every integer up to 2^24 is exact in float. */
  public static final int MAX_CLASS_INDEX = 1 << 24;

  /**
   * Checks that the first {@code n} labels are class indices (non-negative integers up to {@link
   * #MAX_CLASS_INDEX}) and returns the number of classes they imply, largest index + 1.
   *
   * @param firstRowId the source row id of {@code labels[0]}, for messages
   * @throws IllegalArgumentException naming the row id and the value of the first bad label
   */
  public static int requireClassIndices(float[] labels, int n, long firstRowId) {
    if (labels == null) {
      throw new IllegalArgumentException("labels is null: the source has no label column");
    }
    if (n < 0 || n > labels.length) {
      throw new IllegalArgumentException(
          "n is " + n + ", expected 0.." + labels.length + " (the labels' length)");
    }
    int largest = -1;
    for (int r = 0; r < n; r++) {
      float label = labels[r];
      if (!(label >= 0 && label <= MAX_CLASS_INDEX && label == Math.rint(label))) {
        throw new IllegalArgumentException(
            "label of row "
                + (firstRowId + r)
                + " is "
                + label
                + ", not a class index (an integer in 0.."
                + MAX_CLASS_INDEX
                + ")");
      }
      largest = Math.max(largest, (int) label);
    }
    return largest + 1;
  }

  /** {@link #requireClassIndices(float[], int, long)} on a batch's labels. */
  public static int requireClassIndices(RowBatch batch) {
    return requireClassIndices(batch.labels(), batch.rows(), batch.firstRowId());
  }
}
