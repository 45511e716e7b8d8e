package org.lprff.arrow.input;

import java.io.IOException;
import java.util.List;

/**
 * A stream of rows of {@link #columns()} floats, read in batches of at most {@link #maxBatchRows()}
 * rows. Memory is bounded by the batch size (and, for text formats, the longest line; for Arrow,
 * the file's own record batch), whatever the size of the input.
 *
 * <p>Every batch but the last has exactly {@link #maxBatchRows()} rows; batch ids run on without
 * gaps ({@link RowBatch#firstRowId()} of a batch is the previous one's plus its rows). A source is
 * read once: open it again for a second pass (e.g. after {@link Standardization#fit}).
 *
 * <p>Malformed input raises {@link InputFormatException} (unchecked) naming the place and the text;
 * I/O failures raise {@link IOException}. Not thread-safe.
 */
public interface RowSource extends RowBatches, AutoCloseable {

  /** Feature values per row (the label is not counted). */
  int columns();

  /** One name per feature column, in row order (the label column excluded). */
  List<String> columnNames();

  /** Whether batches carry labels. */
  LabelKind label();

  /** The most rows a batch holds, as given at construction. */
  int maxBatchRows();

  /**
   * The next batch, or null at the end. The returned batch's arrays are reused by the following
   * call: copy ({@link RowBatch#copy()}) what must outlive it.
   */
  @Override
  RowBatch next() throws IOException;

  @Override
  void close() throws IOException;
}
