package org.lprff.arrow.input;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Lines of a byte stream, handed out in place: after {@link #next()} the current line is {@code
 * buffer()[start(), end())}, without its {@code \n} or {@code \r\n}. The buffer holds at least one
 * whole line and grows only for a line longer than it (up to {@link #MAX_LINE_BYTES}), so memory is
 * bounded by the longest line, not the stream.
 */
final class LineReader implements Closeable {

  static final int INITIAL_BUFFER = 1 << 16;
  static final int MAX_LINE_BYTES = 1 << 30;

  private final InputStream in;
  private final String source;
  private byte[] buffer = new byte[INITIAL_BUFFER];
  private int position;
  private int limit;
  private boolean endOfStream;
  private int start;
  private int end;
  private long lineNumber;

  LineReader(InputStream in, String source) {
    this.in = in;
    this.source = source;
  }

  /** Advances to the next line; false at the end of the stream. */
  boolean next() throws IOException {
    int scanFrom = position;
    while (true) {
      int newline = indexOfNewline(scanFrom, limit);
      if (newline >= 0) {
        setLine(position, newline);
        position = newline + 1;
        return true;
      }
      if (endOfStream) {
        if (position < limit) {
          setLine(position, limit);
          position = limit;
          return true;
        }
        return false;
      }
      scanFrom = limit - position;
      fill();
    }
  }

  /** Advances to the next line that is not blank (spaces, tabs and {@code \r} only). */
  boolean nextNonBlank() throws IOException {
    while (next()) {
      if (!isBlank()) {
        return true;
      }
    }
    return false;
  }

  byte[] buffer() {
    return buffer;
  }

  int start() {
    return start;
  }

  int end() {
    return end;
  }

  /** 1-based physical line number of the current line. */
  long lineNumber() {
    return lineNumber;
  }

  boolean isBlank() {
    for (int i = start; i < end; i++) {
      byte b = buffer[i];
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  private void setLine(int from, int to) {
    start = from;
    end = to > from && buffer[to - 1] == '\r' ? to - 1 : to;
    lineNumber++;
  }

  private int indexOfNewline(int from, int to) {
    for (int i = from; i < to; i++) {
      if (buffer[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** Moves the partial line to the front, grows if it fills the buffer, and reads more. */
  private void fill() throws IOException {
    if (position > 0) {
      System.arraycopy(buffer, position, buffer, 0, limit - position);
      limit -= position;
      position = 0;
    }
    if (limit == buffer.length) {
      if (buffer.length >= MAX_LINE_BYTES) {
        throw new InputFormatException(
            source + " line " + (lineNumber + 1) + " is longer than " + MAX_LINE_BYTES + " bytes");
      }
      buffer = Arrays.copyOf(buffer, Math.min(MAX_LINE_BYTES, buffer.length * 2));
    }
    int read = in.read(buffer, limit, buffer.length - limit);
    if (read < 0) {
      endOfStream = true;
    } else {
      limit += read;
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
