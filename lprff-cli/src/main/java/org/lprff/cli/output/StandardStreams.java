package org.lprff.cli.output;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Standard input and output as the commands' {@code -}: rows read from a pipe, a feature stream
 * or predictions written to one. Binary, beside the text writers picocli prints to; tests run
 * commands with their own streams ({@link #with}). Standard output is never closed here.
 */
public final class StandardStreams {

  /** The name that stands for standard input or output. */
  public static final String DASH = "-";

  private static final ThreadLocal<StandardStreams> CURRENT =
      ThreadLocal.withInitial(() -> new StandardStreams(System.in, System.out));

  /** A LIBSVM line: a label, then index:value pairs. */
  private static final Pattern LIBSVM_LINE =
      Pattern.compile("\\s*[-+0-9.eE]+(\\s+\\d+:\\S+)+\\s*");

  private final InputStream in;
  private final OutputStream out;

  public StandardStreams(InputStream in, OutputStream out) {
    this.in = in;
    this.out = out;
  }

  /** The streams of the command running on this thread. */
  public static StandardStreams current() {
    return CURRENT.get();
  }

  /** Runs {@code work} with {@code streams} as this thread's standard streams. */
  public static <T> T with(StandardStreams streams, Callable<T> work) throws Exception {
    StandardStreams before = CURRENT.get();
    CURRENT.set(streams);
    try {
      return work.call();
    } finally {
      CURRENT.set(before);
    }
  }

  /** Whether {@code path} is {@code -}. */
  public static boolean isDash(Path path) {
    return path != null && path.toString().equals(DASH);
  }

  /** Work on an input file. */
  @FunctionalInterface
  public interface InputWork<T> {
    T on(Path file) throws IOException;
  }

  /**
   * {@code work} on {@code input}, or, when it is {@code -}, on this thread's standard input
   * spooled to a temporary file ({@link #spool}), removed when the work ends.
   */
  public static <T> T reading(Path input, InputWork<T> work) throws IOException {
    if (!isDash(input)) {
      return work.on(input);
    }
    try (Spool stdin = current().spool()) {
      return work.on(stdin.file());
    }
  }

  /** Standard output as a channel whose close only flushes. */
  public WritableByteChannel outChannel() {
    WritableByteChannel inner = Channels.newChannel(out);
    return new WritableByteChannel() {
      @Override
      public int write(ByteBuffer src) throws IOException {
        return inner.write(src);
      }

      @Override
      public boolean isOpen() {
        return true;
      }

      @Override
      public void close() throws IOException {
        out.flush();
      }
    };
  }

  /**
   * Standard input copied whole into a fresh temporary directory, as {@code stdin.csv} or {@code
   * stdin.libsvm} (by its first line) or {@code stdin} (binary: Arrow and IDX are told by their
   * content); the directory goes when the returned handle is closed. Rows are read twice by
   * {@code featurize --standardize} and {@code --sigma median}, which a pipe cannot do.
   */
  public Spool spool() throws IOException {
    Path dir = Files.createTempDirectory("lprff-stdin-");
    try {
      BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
      buffered.mark(1 << 16);
      byte[] head = buffered.readNBytes(4096);
      buffered.reset();
      Path file = dir.resolve("stdin" + extension(head));
      Files.copy(buffered, file);
      if (Files.size(file) == 0) {
        throw new IllegalArgumentException("standard input is empty: pipe rows into --input -");
      }
      return new Spool(dir, file);
    } catch (IOException | RuntimeException e) {
      Spool.delete(dir, e);
      throw e;
    }
  }

  /** ".csv", ".libsvm", or "" when the first bytes are not text (Arrow, IDX, gzip). */
  static String extension(byte[] head) {
    for (byte b : head) {
      if (b == 0 || (b < 0x20 && b != '\n' && b != '\r' && b != '\t')) {
        return "";
      }
    }
    String text = new String(head, StandardCharsets.UTF_8);
    int end = text.indexOf('\n');
    String first = end >= 0 ? text.substring(0, end) : text;
    return LIBSVM_LINE.matcher(first.strip()).matches() ? ".libsvm" : ".csv";
  }

  /** Standard input's copy; {@link #close()} deletes it. */
  public record Spool(Path directory, Path file) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      IOException failure = new IOException("could not delete " + directory);
      delete(directory, failure);
      if (failure.getSuppressed().length > 0) {
        throw failure;
      }
    }

    static void delete(Path directory, Throwable cause) {
      try (Stream<Path> paths = Files.walk(directory)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        cause.addSuppressed(e);
      }
    }
  }
}
