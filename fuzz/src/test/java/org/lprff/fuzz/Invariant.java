package org.lprff.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The invariant every fuzz target holds: an input of outside bytes ends in a result or in one of
 * the readers' documented failures, whose message names the file; nothing else.
 *
 * <p>Documented failures: {@link IOException} (unreadable, truncated, corrupt, not the expected
 * format), {@link UncheckedIOException} around one (an iterator's I/O), and {@link
 * IllegalArgumentException} (the text readers' {@code InputFormatException}, a bad label value).
 * Any other throwable (IndexOutOfBounds, NegativeArraySize, OutOfMemoryError, Arrow's internal
 * IllegalStateException, ...) or a documented one whose message does not name the file is a
 * finding: this throws an {@link AssertionError} carrying it, which Jazzer reports.
 *
 * <p>Memory bound: readers that take an allocator get {@link #allocator()}, a root allocator of
 * at most {@link #ARROW_LIMIT} bytes, which must be back at 0 after each input (nothing leaked).
 * The JVM itself runs at -Xmx512m and -XX:MaxDirectMemorySize=256m (the module's pom), so a
 * reader that allocates by a count it read without checking it shows as an OutOfMemoryError.
 */
final class Invariant {

  /** The Arrow memory an input may make a reader allocate: 64 MiB. */
  static final long ARROW_LIMIT = 64L << 20;

  private static final Path DIR;

  static {
    try {
      DIR = Files.createTempDirectory("lprff-fuzz-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Invariant() {}

  /** A body that reads {@code file} to its end. */
  interface Read {
    void run() throws Exception;
  }

  /**
   * Writes {@code bytes} to a file of the fuzz directory named {@code name} (recognisable in
   * messages: it starts with "fuzz-input-").
   */
  static Path write(String name, byte[] bytes) throws IOException {
    Path file = DIR.resolve("fuzz-input-" + name);
    Files.write(file, bytes);
    return file;
  }

  /** A fresh bounded allocator; {@link #closeChecked} it after the input. */
  static BufferAllocator allocator() {
    return new RootAllocator(ARROW_LIMIT);
  }

  /**
   * Runs {@code read} on {@code file}: returns if it ends normally or with a documented failure
   * naming {@code file}, else throws an AssertionError with the failure as its cause.
   */
  static void holds(Path file, Read read) {
    try {
      read.run();
    } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
      requireNamed(file, e);
    } catch (Throwable t) {
      throw new AssertionError("undocumented failure on " + file + ": " + t, t);
    }
  }

  /** Closes {@code allocator}, requiring every buffer released (a leak is a finding). */
  static void closeChecked(BufferAllocator allocator) {
    long leaked = allocator.getAllocatedMemory();
    if (leaked != 0) {
      throw new AssertionError("the reader left " + leaked + " bytes allocated");
    }
    allocator.close();
  }

  private static void requireNamed(Path file, Exception e) {
    String name = file.getFileName().toString();
    String message = String.valueOf(e.getMessage());
    if (!message.contains(name)) {
      throw new AssertionError(
          "failure does not name the file " + name + ": " + e, e);
    }
  }
}
