package org.lprff.arrow;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Files that appear whole or not at all: the bytes go to a hidden temporary sibling of the target
 * ({@code .<name>.tmp-<16 hex digits>}, created new, so two writers never share one), which is
 * forced to disk and renamed onto the target only when complete. Every writer of this project's
 * outputs (feature files, model files, predictions) goes through here.
 */
public final class AtomicWrite {

  /** A temporary sibling opened for writing; {@link #commit} or {@link #abort} it. */
  public record Temp(Path target, Path path, FileChannel channel) {

    /** Forces the bytes to disk, closes the channel and renames the file onto the target. */
    public void commit() throws IOException {
      if (channel.isOpen()) {
        channel.force(true);
        channel.close();
      }
      moveOnto(path, target);
    }

    /** Closes the channel and deletes the temporary file; never throws for a missing file. */
    public void abort() throws IOException {
      try {
        channel.close();
      } finally {
        Files.deleteIfExists(path);
      }
    }
  }

  private AtomicWrite() {}

  /**
   * Creates and opens a new temporary sibling of {@code target}.
   *
   * @throws IOException if the target's folder cannot take a new file
   */
  public static Temp open(Path target) throws IOException {
    Path absolute = target.toAbsolutePath();
    Path directory = absolute.getParent();
    String name = absolute.getFileName().toString();
    for (int attempt = 0; ; attempt++) {
      Path temp = directory.resolve("." + name + ".tmp-"
          + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()));
      try {
        return new Temp(absolute, temp,
            FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
      } catch (FileAlreadyExistsException e) {
        if (attempt >= 8) {
          throw e;
        }
      }
    }
  }

  /**
   * Writes {@code bytes} as the whole of {@code target}: through a temporary sibling, committed
   * when every byte is written, aborted (deleted) on any failure.
   */
  public static void write(Path target, byte[] bytes) throws IOException {
    Temp temp = open(target);
    boolean committed = false;
    try {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        temp.channel().write(buffer);
      }
      temp.commit();
      committed = true;
    } finally {
      if (!committed) {
        temp.abort();
      }
    }
  }

  /** Renames {@code temp} onto {@code target}: atomically where the file system can. */
  public static void moveOnto(Path temp, Path target) throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
