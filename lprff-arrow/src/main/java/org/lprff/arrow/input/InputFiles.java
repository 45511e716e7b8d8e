package org.lprff.arrow.input;

import java.io.BufferedInputStream;
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
        return new BufferedInputStream(new GZIPInputStream(raw, STREAM_BUFFER), STREAM_BUFFER);
      }
      return raw;
    } catch (IOException | RuntimeException e) {
      raw.close();
      throw e;
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
