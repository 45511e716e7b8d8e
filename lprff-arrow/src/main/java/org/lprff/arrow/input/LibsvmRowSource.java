package org.lprff.arrow.input;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;

/**
 * Rows of a LIBSVM / SVMlight file, {@code label index:value index:value ...}, streamed in batches
 * as dense rows (absent indices are 0).
 *
 * <ul>
 *   <li>Indices are 1-based (index i is column i - 1) and strictly increasing within a line; no
 *       zero-based detection. The label is a single number (no multi-label lists, no {@code qid}).
 *   <li>Tokens are separated by spaces or tabs; text from {@code #} to the end of a line is a
 *       comment; blank lines are skipped. Numbers follow {@link DecimalParser} (exact float
 *       rounding; NaN and infinities are errors).
 *   <li>The dimension is either given, and an index beyond it is an error, or 0: then a first pass
 *       over the file (at open) finds the largest index and checks every line, so the second pass
 *       cannot fail on content. Either way memory stays bounded by the batch.
 *   <li>Columns are named {@code f1 .. fd} after their LIBSVM index.
 *   <li>Gzip is recognized by its magic bytes.
 * </ul>
 *
 * <p>Errors are {@link InputFormatException}s naming the file, the 1-based line, the 1-based token
 * (the label is token 1) and its text.
 */
public final class LibsvmRowSource extends AbstractRowSource {

  private final Path path;
  private final String source;
  private final List<String> columnNames;
  private final LineReader lines;
  private boolean lineWaiting;

  private LibsvmRowSource(Path path, int dimension, int maxBatchRows) throws IOException {
    if (path == null) {
      throw new IllegalArgumentException("path is null");
    }
    if (dimension < 0) {
      throw new IllegalArgumentException(
          "dimension is " + dimension + ", expected >= 1, or 0 to find it in a first pass");
    }
    this.path = path;
    this.source = path.toString();
    int columns = dimension > 0 ? dimension : scanDimension();
    shape(columns, maxBatchRows, true, source);
    this.columnNames = new FeatureNames(columns);
    this.lines = new LineReader(InputFiles.open(path), source);
    try {
      if (!nextDataLine(lines)) {
        throw new InputFormatException(source + ": no data rows");
      }
      this.lineWaiting = true;
    } catch (IOException | RuntimeException e) {
      lines.close();
      throw e;
    }
  }

  /**
   * A LIBSVM source.
   *
   * @param dimension the number of columns, or 0 to find it (the largest index) in a first pass
   */
  public static LibsvmRowSource open(Path path, int dimension, int maxBatchRows)
      throws IOException {
    return new LibsvmRowSource(path, dimension, maxBatchRows);
  }

  @Override
  public List<String> columnNames() {
    return columnNames;
  }

  @Override
  protected int read(int maxRows) throws IOException {
    int n = 0;
    while (n < maxRows && (lineWaiting || nextDataLine(lines))) {
      lineWaiting = false;
      int base = n * columns();
      Arrays.fill(values, base, base + columns(), 0f);
      parseLine(lines, columns(), values, base, labels, n);
      n++;
    }
    return n;
  }

  /** Advances to the next line with a row: not blank, not only a comment. */
  private static boolean nextDataLine(LineReader reader) throws IOException {
    while (reader.nextNonBlank()) {
      byte[] b = reader.buffer();
      for (int i = reader.start(); i < reader.end(); i++) {
        if (b[i] == '#') {
          break;
        }
        if (b[i] != ' ' && b[i] != '\t' && b[i] != '\r') {
          return true;
        }
      }
    }
    return false;
  }

  /** The first pass: every line checked, the largest index returned. */
  private int scanDimension() throws IOException {
    int largest = 0;
    long rows = 0;
    try (LineReader reader = new LineReader(InputFiles.open(path), source)) {
      while (nextDataLine(reader)) {
        largest = Math.max(largest, parseLine(reader, Integer.MAX_VALUE, null, 0, null, 0));
        rows++;
      }
    }
    if (rows == 0) {
      throw new InputFormatException(source + ": no data rows");
    }
    if (largest == 0) {
      throw new InputFormatException(
          source + ": no line has an index:value token, so the dimension is unknown; give it");
    }
    return largest;
  }

  /**
   * Parses and checks the reader's current line. When {@code row} is not null, stores value i at
   * {@code row[base + i - 1]} and the label at {@code labelsOut[labelAt]}.
   *
   * @return the line's largest index, 0 when it has none
   */
  private int parseLine(
      LineReader reader, int dimension, float[] row, int base, float[] labelsOut, int labelAt) {
    byte[] b = reader.buffer();
    int end = reader.end();
    for (int i = reader.start(); i < end; i++) {
      if (b[i] == '#') {
        end = i;
        break;
      }
    }
    int p = reader.start();
    int token = 0;
    float label = 0f;
    int previous = 0;
    while (true) {
      while (p < end && (b[p] == ' ' || b[p] == '\t')) {
        p++;
      }
      if (p >= end) {
        break;
      }
      int from = p;
      int colon = -1;
      while (p < end && b[p] != ' ' && b[p] != '\t') {
        if (b[p] == ':' && colon < 0) {
          colon = p;
        }
        p++;
      }
      token++;
      if (token == 1) {
        if (colon >= 0) {
          throw tokenError(reader, token, b, from, p, "should be the label, not index:value");
        }
        label = number(reader, token, b, from, p, from, p);
        continue;
      }
      if (colon < 0) {
        throw tokenError(reader, token, b, from, p, "is not index:value");
      }
      int index = index(reader, token, b, from, colon, p);
      if (index <= previous) {
        throw tokenError(
            reader,
            token,
            b,
            from,
            p,
            "has index " + index + " after index " + previous + ": indices must increase");
      }
      if (index > dimension) {
        throw tokenError(
            reader, token, b, from, p, "has index " + index + " beyond the dimension " + dimension);
      }
      float v = number(reader, token, b, colon + 1, p, from, p);
      if (row != null) {
        row[base + index - 1] = v;
      }
      previous = index;
    }
    if (labelsOut != null) {
      labelsOut[labelAt] = label;
    }
    return previous;
  }

  private int index(LineReader reader, int token, byte[] b, int from, int colon, int to) {
    if (from == colon) {
      throw tokenError(reader, token, b, from, to, "has no index before ':'");
    }
    long index = 0;
    for (int i = from; i < colon; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        throw tokenError(reader, token, b, from, to, "has an index that is not a whole number");
      }
      index = index * 10 + d;
      if (index > Integer.MAX_VALUE) {
        throw tokenError(reader, token, b, from, to, "has an index beyond " + Integer.MAX_VALUE);
      }
    }
    if (index == 0) {
      throw tokenError(reader, token, b, from, to, "has index 0: indices are 1-based");
    }
    return (int) index;
  }

  private float number(
      LineReader reader, int token, byte[] b, int from, int to, int tokenFrom, int tokenTo) {
    try {
      return DecimalParser.parse(b, from, to);
    } catch (DecimalParser.BadNumber e) {
      String what = token == 1 ? "label" : "value";
      throw tokenError(
          reader,
          token,
          b,
          tokenFrom,
          tokenTo,
          "has a "
              + what
              + " '"
              + new String(b, from, to - from, StandardCharsets.UTF_8)
              + "' that "
              + e.problem.description);
    }
  }

  private InputFormatException tokenError(
      LineReader reader, int token, byte[] b, int from, int to, String what) {
    String text = InputFiles.shorten(new String(b, from, to - from, StandardCharsets.UTF_8));
    return new InputFormatException(
        source + " line " + reader.lineNumber() + ", token " + token + " '" + text + "' " + what);
  }

  @Override
  public void close() throws IOException {
    lines.close();
  }

  /** f1 .. fd without holding d strings. */
  private static final class FeatureNames extends AbstractList<String> {
    private final int size;

    FeatureNames(int size) {
      this.size = size;
    }

    @Override
    public String get(int index) {
      if (index < 0 || index >= size) {
        throw new IndexOutOfBoundsException(index);
      }
      return "f" + (index + 1);
    }

    @Override
    public int size() {
      return size;
    }
  }
}
