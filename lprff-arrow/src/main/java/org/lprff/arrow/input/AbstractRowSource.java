package org.lprff.arrow.input;

import java.io.IOException;

/**
 * The common base of the row readers: it owns what every format shares, the batch buffers (reused
 * by every {@link #next()}), the row ids (0-based, running on without gaps) and the end of the
 * input, so that a format only parses rows ({@link #read}).
 *
 * <p>A subclass's constructor checks its input's header and then calls {@link #shape} once with
 * the row width; {@link #values} and {@link #labels} are the buffers {@link #read} fills.
 */
public abstract class AbstractRowSource implements RowSource {

  /** Row-major values of the current batch, {@code maxBatchRows * columns} long. */
  protected float[] values;

  /** Labels of the current batch, {@code maxBatchRows} long, or null without a label. */
  protected float[] labels;

  private int columns = -1;
  private int maxBatchRows;
  private long rowsRead;
  private boolean finished;

  /**
   * Sets the row width and allocates the batch buffers; called once by the constructor.
   *
   * @param source the input, for messages
   * @throws IllegalArgumentException if maxBatchRows < 1 or a batch does not fit in one array
   */
  protected final void shape(int columns, int maxBatchRows, boolean labelled, String source) {
    if (maxBatchRows < 1) {
      throw new IllegalArgumentException("maxBatchRows is " + maxBatchRows + ", expected >= 1");
    }
    if ((long) maxBatchRows * Math.max(1, columns) > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(source + ": a batch of " + maxBatchRows + " rows x "
          + columns + " columns does not fit in one float array; use a smaller batch");
    }
    this.columns = columns;
    this.maxBatchRows = maxBatchRows;
    try {
      this.values = new float[maxBatchRows * columns];
    } catch (OutOfMemoryError e) {
      // One array too large for the heap (e.g. a LIBSVM index of 266,666,666 found by
      // TextInputFuzzTest): refused by name; the failed allocation left the heap as it was.
      throw new IllegalArgumentException(source + ": a batch of " + maxBatchRows + " rows x "
          + columns + " columns (" + (4L * maxBatchRows * columns >> 20) + " MiB) does not fit"
          + " in this JVM's heap; check the column count (a LIBSVM index that large is likely a"
          + " typo), or read smaller batches", e);
    }
    this.labels = labelled ? new float[maxBatchRows] : null;
  }

  /**
   * Parses up to {@code maxRows} rows into {@link #values} and {@link #labels} from row 0 on and
   * returns how many it read. Fewer than {@code maxRows} means the input ended: it is not called
   * again, so a format checks what must follow its last row (a trailer, the end of the file) there.
   */
  protected abstract int read(int maxRows) throws IOException;

  /** Rows handed out before the current batch: the id of its first row. */
  protected final long rowsRead() {
    return rowsRead;
  }

  @Override
  public final int columns() {
    return columns;
  }

  @Override
  public final int maxBatchRows() {
    return maxBatchRows;
  }

  @Override
  public final LabelKind label() {
    return labels != null ? LabelKind.PRESENT : LabelKind.NONE;
  }

  @Override
  public final RowBatch next() throws IOException {
    if (finished) {
      return null;
    }
    int n = read(maxBatchRows);
    if (n < maxBatchRows) {
      finished = true;
    }
    if (n == 0) {
      return null;
    }
    RowBatch batch = new RowBatch(values, n, columns, labels, rowsRead);
    rowsRead += n;
    return batch;
  }
}
