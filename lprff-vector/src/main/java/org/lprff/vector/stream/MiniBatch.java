package org.lprff.vector.stream;

/**
 * One mini-batch: the features of n rows and their labels. A view: nothing is copied, and a
 * source may reuse the arrays and bytes for its next batch, so a batch is valid until the
 * iterator that produced it advances (or is closed).
 *
 * @param features n rows, packed or float32
 * @param targets float targets (regression), at least n long, or null
 * @param classes int class labels (classification), at least n long, or null
 * @param rowIds the ids of the rows (their index in the data set, the featurizer's row id), at
 *     least n long, or null when the source does not know them
 */
public record MiniBatch(FeatureRows features, float[] targets, int[] classes, long[] rowIds) {

  public MiniBatch {
    if (features == null) {
      throw new IllegalArgumentException("features is null");
    }
    int n = features.rows();
    check("targets", targets == null ? -1 : targets.length, n);
    check("classes", classes == null ? -1 : classes.length, n);
    check("rowIds", rowIds == null ? -1 : rowIds.length, n);
  }

  /** Rows n. */
  public int rows() {
    return features.rows();
  }

  /**
   * Checks this batch against what its reader asked for: m features (the model's) and at most
   * {@code batchSize} rows; {@code name} names the source in the messages ("train", "heldout").
   *
   * @throws IllegalArgumentException if the batch has other than m features
   * @throws IllegalStateException if the source returned more rows than asked for
   */
  public void checkFits(int m, int batchSize, String name) {
    if (features.features() != m) {
      throw new IllegalArgumentException(
          "a " + name + " batch has " + features.features() + " features, the model has " + m);
    }
    if (rows() > batchSize) {
      throw new IllegalStateException(
          "the " + name + " source returned a batch of " + rows() + " rows, more than the "
              + batchSize + " asked for");
    }
  }

  private static void check(String name, int length, int n) {
    if (length >= 0 && length < n) {
      throw new IllegalArgumentException(
          name + " has length " + length + ", expected at least the batch's " + n + " rows");
    }
  }
}
