package org.lprff.arrow.input;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** Opening input files: gzip is recognized by its magic bytes (1f 8b), never by the name. */
final class InputFiles {

  private InputFiles() {}

  private static final int STREAM_BUFFER = 1 << 16;

  /** The file's bytes, decompressed when it starts with the gzip magic. */
  static InputStream open(Path path) throws IOException {
    InputStream raw = new BufferedInputStream(Files.newInputStream(path), STREAM_BUFFER);
    try {
      if (isGzip(peek(raw, 2))) {
        GZIPInputStream gzip;
        try {
          gzip = new GZIPInputStream(raw, STREAM_BUFFER); // reads and checks the gzip header
        } catch (IOException e) {
          throw new IOException(path + ": corrupt gzip header (" + e.getMessage() + ")", e);
        }
        return new BufferedInputStream(new Named(path, gzip), STREAM_BUFFER);
      }
      return raw;
    } catch (IOException | RuntimeException e) {
      raw.close();
      throw e;
    }
  }

  /**
   * A gzip stream whose failures name the file: a corrupt or truncated gzip file raises
   * ZipException or EOFException ("invalid block type", "Corrupt GZIP trailer") with no path.
   */
  private static final class Named extends FilterInputStream {
    private final Path path;

    Named(Path path, InputStream in) {
      super(in);
      this.path = path;
    }

    @Override
    public int read() throws IOException {
      try {
        return super.read();
      } catch (IOException e) {
        throw named(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return super.read(b, off, len);
      } catch (IOException e) {
        throw named(e);
      }
    }

    /** Keeps EOFException an EOFException: the IDX reader reports it as a truncated file. */
    private IOException named(IOException e) {
      String message = path + ": corrupt or truncated gzip data (" + e.getMessage() + ")";
      IOException named = e instanceof EOFException ? new EOFException(message)
          : new IOException(message);
      named.initCause(e);
      return named;
    }
  }

  /** Up to {@code n} first bytes of the file, as stored (not decompressed). */
  static byte[] head(Path path, int n) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      return in.readNBytes(n);
    }
  }

  /** Up to {@code n} first bytes of the file's content, decompressed when gzipped. */
  static byte[] contentHead(Path path, int n) throws IOException {
    try (InputStream in = open(path)) {
      return in.readNBytes(n);
    }
  }

  static boolean isGzip(byte[] head) {
    return head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
  }

  /** The next {@code n} bytes of a mark-supporting stream, left unread. */
  static byte[] peek(InputStream in, int n) throws IOException {
    in.mark(n);
    byte[] head = in.readNBytes(n);
    in.reset();
    return head;
  }

  /** Suffix of a shown text: at most 40 characters, so a huge bad cell cannot flood a message. */
  static String shorten(String text) {
    return text.length() <= 40 ? text : text.substring(0, 37) + "...";
  }
}
