package org.lprff.cli.options;

import java.io.IOException;
import java.util.List;
import org.lprff.arrow.input.LabelKind;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowSource;

/**
 * {@code featurize --rows FROM:TO}: the input rows with 0-based index in [from, to), e.g. a
 * validation split of a training file. Row ids stay the input's row indices, so a row featurized
 * from a range gets the same bits (the rounding depends on its id) as in the whole file.
 *
 * @param from the first row taken, >= 0
 * @param to one past the last row taken, > from; {@link Long#MAX_VALUE} for "to the end"
 */
public record RowRange(long from, long to) {

  public RowRange {
    if (from < 0 || to <= from) {
      throw new UsageException(
          "--rows " + from + ":" + to + ": expected 0 <= FROM < TO");
    }
  }

  /** Parses {@code FROM:TO} or {@code FROM:} (to the end); a usage error names the text. */
  public static RowRange parse(String text) {
    int colon = text.indexOf(':');
    if (colon < 0) {
      throw new UsageException(
          "--rows is '" + text + "', expected FROM:TO (0-based, TO exclusive) or FROM:");
    }
    long from;
    long to;
    try {
      from = Long.parseLong(text.substring(0, colon).strip());
      String end = text.substring(colon + 1).strip();
      to = end.isEmpty() ? Long.MAX_VALUE : Long.parseLong(end);
    } catch (NumberFormatException e) {
      throw new UsageException(
          "--rows is '" + text + "', expected FROM:TO with integers (0-based, TO exclusive)");
    }
    if (from < 0 || to <= from) {
      throw new UsageException(
          "--rows is '" + text + "', expected 0 <= FROM < TO");
    }
    return new RowRange(from, to);
  }

  boolean toEnd() {
    return to == Long.MAX_VALUE;
  }

  /** The rows selected from an input of {@code inputRows} rows (a known count). */
  public long rowsOf(long inputRows, String input) {
    requireWithin(inputRows, input);
    return Math.min(to, inputRows) - from;
  }

  /** Refuses a range that reaches past an input of {@code inputRows} rows. */
  void requireWithin(long inputRows, String input) {
    if (from >= inputRows || (!toEnd() && to > inputRows)) {
      throw new IllegalArgumentException(
          "--rows " + this + " reaches past the end of " + input + ", which has "
              + inputRows + " data rows (rows 0:" + inputRows + ")");
    }
  }

  /** {@code source}'s rows in this range, in batches of its batch size; see {@link Source}. */
  public RowSource select(RowSource source, String input) {
    return new Source(source, input);
  }

  @Override
  public String toString() {
    return from + ":" + (toEnd() ? "" : Long.toString(to));
  }

  /**
   * The rows of the range, copied into full batches (every batch but the last has {@link
   * #maxBatchRows()} rows, as a source promises); rows before the range are read and dropped,
   * reading stops at its end. At the end of an input shorter than the range, fails naming both.
   */
  private final class Source implements RowSource {

    private final RowSource source;
    private final String input;
    private final float[] values;
    private final float[] labels;
    private RowBatch pending;
    private int pendingOffset;
    private long position; // input index of the next unread row of the source
    private boolean done;

    Source(RowSource source, String input) {
      this.source = source;
      this.input = input;
      int rows = source.maxBatchRows();
      this.values = new float[Math.multiplyExact(rows, source.columns())];
      this.labels = source.label() == LabelKind.PRESENT ? new float[rows] : null;
    }

    @Override
    public int columns() {
      return source.columns();
    }

    @Override
    public List<String> columnNames() {
      return source.columnNames();
    }

    @Override
    public LabelKind label() {
      return source.label();
    }

    @Override
    public int maxBatchRows() {
      return source.maxBatchRows();
    }

    @Override
    public RowBatch next() throws IOException {
      int columns = source.columns();
      int filled = 0;
      long first = -1;
      while (!done && filled < maxBatchRows()) {
        if (pending == null || pendingOffset == pending.rows()) {
          pending = source.next();
          pendingOffset = 0;
          if (pending == null) {
            done = true;
            if ((!toEnd() && position < to) || position <= from) {
              requireWithin(position, input);
            }
            break;
          }
        }
        long pendingEnd = position + pending.rows() - pendingOffset;
        if (pendingEnd <= from) { // wholly before the range
          position = pendingEnd;
          pendingOffset = pending.rows();
          continue;
        }
        if (position < from) {
          pendingOffset += (int) (from - position);
          position = from;
        }
        if (position >= to) {
          done = true;
          break;
        }
        int take = (int) Math.min(
            Math.min(maxBatchRows() - filled, pending.rows() - pendingOffset), to - position);
        if (first < 0) {
          first = position;
        }
        System.arraycopy(pending.values(), pendingOffset * columns, values, filled * columns,
            take * columns);
        if (labels != null) {
          System.arraycopy(pending.labels(), pendingOffset, labels, filled, take);
        }
        filled += take;
        pendingOffset += take;
        position += take;
        if (position >= to) {
          done = true;
        }
      }
      return filled == 0 ? null : new RowBatch(values, filled, columns, labels, first);
    }

    @Override
    public void close() throws IOException {
      source.close();
    }
  }
}
