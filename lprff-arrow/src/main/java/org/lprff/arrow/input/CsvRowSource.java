package org.lprff.arrow.input;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Rows of a CSV file of numbers with a header line, streamed in batches.
 *
 * <ul>
 *   <li><b>Header</b>: required, the first non-blank line (a UTF-8 byte order mark is skipped).
 *       Names may be quoted ({@code "carat"}, with {@code ""} for a quote inside); the label column
 *       is chosen among them by {@link LabelColumn}; the others are the features, in file order.
 *       Duplicate names are allowed unless the label is chosen by that name.
 *   <li><b>Cells</b>: decimal numbers, optionally quoted, with optional spaces or tabs around (tabs
 *       count as space unless the separator is a tab). NaN, infinities, values beyond float and
 *       empty cells are errors; numbers are rounded exactly to float ({@link DecimalParser}).
 *   <li><b>Lines</b>: {@code \n} or {@code \r\n}; blank lines (anywhere) are skipped but still
 *       counted in line numbers. A quoted cell cannot span lines. The separator is one ASCII
 *       character, {@code ,} by default; bytes are read as UTF-8 (names) and ASCII (numbers).
 *   <li><b>Gzip</b>: a file starting with the gzip magic bytes is decompressed on the fly.
 * </ul>
 *
 * <p>Errors are {@link InputFormatException}s naming the file, the 1-based physical line (the
 * header is line 1 when the file has no leading blank line), the column's name and 0-based index,
 * and the text: a row whose cell count differs from the header's, a non-numeric or non-finite cell,
 * an unknown label column (listing the names), a file without header or data rows.
 *
 * <p>Memory: one batch of values plus a line buffer that grows only for a line longer than 64 KiB.
 * Cells are parsed in place from the byte buffer, without a String per cell.
 */
public final class CsvRowSource extends AbstractRowSource {

  /** The default separator. */
  public static final char DEFAULT_SEPARATOR = ',';

  private final String source;
  private final LineReader lines;
  private final byte separator;
  private final boolean tabIsSpace;
  private final List<String> header;
  private final List<String> columnNames;
  private final int labelIndex;

  /** For each cell of a row: its feature column, or -1 for the label. */
  private final int[] destination;

  private boolean lineWaiting;

  private CsvRowSource(Path path, LabelColumn label, char separator, int maxBatchRows)
      throws IOException {
    if (path == null || label == null) {
      throw new IllegalArgumentException("path and label must not be null");
    }
    if (separator == '"'
        || separator == '\n'
        || separator == '\r'
        || separator == ' '
        || separator > 127) {
      throw new IllegalArgumentException(
          "separator '"
              + separator
              + "' (U+"
              + String.format("%04X", (int) separator)
              + ") must be one ASCII character other than a quote, space or line break");
    }
    this.source = path.toString();
    this.separator = (byte) separator;
    this.tabIsSpace = separator != '\t';
    this.lines = new LineReader(InputFiles.open(path), source);
    try {
      if (!lines.nextNonBlank()) {
        throw new InputFormatException(source + " is empty: expected a header line");
      }
      long headerLine = lines.lineNumber();
      this.header = Collections.unmodifiableList(parseHeader());
      this.labelIndex = label.resolve(header, source);
      int columns = header.size() - (labelIndex >= 0 ? 1 : 0);
      if (columns == 0) {
        throw new InputFormatException(
            source
                + ": no feature columns: the header has only the label column '"
                + header.get(labelIndex)
                + "'");
      }
      this.destination = new int[header.size()];
      List<String> names = new ArrayList<>(columns);
      for (int cell = 0, feature = 0; cell < header.size(); cell++) {
        if (cell == labelIndex) {
          destination[cell] = -1;
        } else {
          destination[cell] = feature++;
          names.add(header.get(cell));
        }
      }
      this.columnNames = Collections.unmodifiableList(names);
      shape(columns, maxBatchRows, labelIndex >= 0, source);
      if (!lines.nextNonBlank()) {
        throw new InputFormatException(
            source + ": no data rows after the header (line " + headerLine + ")");
      }
      this.lineWaiting = true;
    } catch (IOException | RuntimeException e) {
      lines.close();
      throw e;
    }
  }

  /** A CSV source separated by {@code ,}. */
  public static CsvRowSource open(Path path, LabelColumn label, int maxBatchRows)
      throws IOException {
    return new CsvRowSource(path, label, DEFAULT_SEPARATOR, maxBatchRows);
  }

  /** A CSV source with the given one-character ASCII separator (e.g. {@code ;} or tab). */
  public static CsvRowSource open(Path path, LabelColumn label, char separator, int maxBatchRows)
      throws IOException {
    return new CsvRowSource(path, label, separator, maxBatchRows);
  }

  @Override
  public List<String> columnNames() {
    return columnNames;
  }

  /** All header names, the label's included, in file order. */
  public List<String> header() {
    return header;
  }

  /** The label's index in {@link #header()}, or -1 without a label. */
  public int labelIndex() {
    return labelIndex;
  }

  @Override
  protected int read(int maxRows) throws IOException {
    int n = 0;
    while (n < maxRows && (lineWaiting || lines.nextNonBlank())) {
      lineWaiting = false;
      parseRow(n);
      n++;
    }
    return n;
  }

  private boolean isSpace(byte b) {
    return b == ' ' || (b == '\t' && tabIsSpace);
  }

  /** Parses the current line into row {@code row} of the batch. */
  private void parseRow(int row) {
    byte[] b = lines.buffer();
    int end = lines.end();
    int p = lines.start();
    int base = row * columns();
    int cells = header.size();
    int cell = 0;
    while (true) {
      if (cell == cells) {
        throw raggedError(countCells());
      }
      while (p < end && isSpace(b[p])) {
        p++;
      }
      int from;
      int to;
      if (p < end && b[p] == '"') {
        from = p + 1;
        to = closingQuote(b, from, end, cell);
        p = to + 1;
        while (p < end && isSpace(b[p])) {
          p++;
        }
        if (p < end && b[p] != separator) {
          int cellEnd = p;
          while (cellEnd < end && b[cellEnd] != separator) {
            cellEnd++;
          }
          throw cellError(
              cell, "'" + text(b, from - 1, cellEnd) + "' has text after its closing quote");
        }
      } else {
        from = p;
        while (p < end && b[p] != separator) {
          p++;
        }
        to = p;
        while (to > from && isSpace(b[to - 1])) {
          to--;
        }
      }
      float v;
      try {
        v = DecimalParser.parse(b, from, to);
      } catch (DecimalParser.BadNumber e) {
        requireCellCount(); // a shifted row explains a bad cell better than the cell does
        throw cellError(cell, "'" + text(b, from, to) + "' " + e.problem.description);
      }
      int dest = destination[cell];
      if (dest >= 0) {
        values[base + dest] = v;
      } else {
        labels[row] = v;
      }
      cell++;
      if (p >= end) {
        break;
      }
      p++; // the separator
    }
    if (cell != cells) {
      throw raggedError(cell);
    }
  }

  /**
   * Index of the quote closing a cell opened at {@code from - 1}; {@code ""} is an escaped quote.
   */
  private int closingQuote(byte[] b, int from, int end, int cell) {
    for (int q = from; q < end; q++) {
      if (b[q] == '"') {
        if (q + 1 < end && b[q + 1] == '"') {
          q++;
        } else {
          return q;
        }
      }
    }
    throw cellError(
        cell, "'" + text(b, from - 1, end) + "' has no closing quote (a cell cannot span lines)");
  }

  private void requireCellCount() {
    int count = countCells();
    if (count != header.size()) {
      throw raggedError(count);
    }
  }

  /** Cells of the current line, quotes respected (an unterminated quote ends the line). */
  private int countCells() {
    byte[] b = lines.buffer();
    int count = 1;
    boolean quoted = false;
    for (int i = lines.start(); i < lines.end(); i++) {
      if (b[i] == '"') {
        quoted = !quoted;
      } else if (b[i] == separator && !quoted) {
        count++;
      }
    }
    return count;
  }

  private InputFormatException raggedError(int count) {
    return new InputFormatException(
        source
            + " line "
            + lines.lineNumber()
            + " has "
            + count
            + " cells, header has "
            + header.size());
  }

  private InputFormatException cellError(int cell, String what) {
    return new InputFormatException(
        source
            + " line "
            + lines.lineNumber()
            + ", column '"
            + header.get(cell)
            + "' (index "
            + cell
            + "): "
            + what);
  }

  private static String text(byte[] b, int from, int to) {
    return InputFiles.shorten(new String(b, from, to - from, StandardCharsets.UTF_8));
  }

  /** Splits the header line into names: quotes removed, {@code ""} unescaped, spaces trimmed. */
  private List<String> parseHeader() {
    byte[] b = lines.buffer();
    int end = lines.end();
    int p = lines.start();
    if (end - p >= 3
        && (b[p] & 0xff) == 0xEF
        && (b[p + 1] & 0xff) == 0xBB
        && (b[p + 2] & 0xff) == 0xBF) {
      p += 3;
    }
    List<String> names = new ArrayList<>();
    while (true) {
      while (p < end && isSpace(b[p])) {
        p++;
      }
      String name;
      if (p < end && b[p] == '"') {
        int from = p + 1;
        int q = from;
        while (true) {
          if (q >= end) {
            throw new InputFormatException(
                source
                    + " line "
                    + lines.lineNumber()
                    + " (header), column "
                    + names.size()
                    + ": '"
                    + text(b, p, end)
                    + "' has no closing quote");
          }
          if (b[q] == '"') {
            if (q + 1 < end && b[q + 1] == '"') {
              q += 2;
              continue;
            }
            break;
          }
          q++;
        }
        name = new String(b, from, q - from, StandardCharsets.UTF_8).replace("\"\"", "\"");
        p = q + 1;
        while (p < end && isSpace(b[p])) {
          p++;
        }
        if (p < end && b[p] != separator) {
          throw new InputFormatException(
              source
                  + " line "
                  + lines.lineNumber()
                  + " (header), column "
                  + names.size()
                  + " ('"
                  + InputFiles.shorten(name)
                  + "'): text after the closing quote");
        }
      } else {
        int from = p;
        while (p < end && b[p] != separator) {
          p++;
        }
        int to = p;
        while (to > from && isSpace(b[to - 1])) {
          to--;
        }
        name = new String(b, from, to - from, StandardCharsets.UTF_8);
      }
      names.add(name);
      if (p >= end) {
        return names;
      }
      p++;
    }
  }

  @Override
  public void close() throws IOException {
    lines.close();
  }
}
