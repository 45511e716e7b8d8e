package org.lprff.arrow.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
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
 *
 * <p>The channel names the target in its failures: the operating system's own message for a
 * full disk or a failed write ({@code "No space left on device"}) names no file, so a plain
 * {@link IOException} of a write, force or close becomes a {@link FileSystemException} of the
 * target as the caller spelled it, with the system's message as its reason.
 *
 * <p>Internal (package {@code org.lprff.arrow.io} is not exported): the feature and model file
 * writers use it, and the command line (class-path code) for its own outputs.
 */
public final class AtomicWrite {

  /**
   * Test seam, not API: faults injected into every output opened from now on (the failing-disk
   * tests make writes fail after n bytes, or the rename fail); null, the default, injects none.
   */
  interface Faults {
    /** The channel the bytes of a temporary sibling go through instead of {@code opened}. */
    FileChannel channel(FileChannel opened) throws IOException;

    /** Called before {@code temp} is renamed onto {@code target}; may throw. */
    void beforeMove(Path temp, Path target) throws IOException;
  }

  static volatile Faults faults;

  /** A temporary sibling opened for writing; {@link #commit} or {@link #abort} it. */
  public record Temp(Path target, Path path, FileChannel channel) {

    /**
     * Forces the bytes to disk, closes the channel and renames the file onto the target. A
     * caller that closed the channel itself (e.g. through Arrow's writer) must have forced it
     * first: a rename before the bytes reach the disk could leave an empty target after a power
     * loss.
     */
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
      FileChannel opened;
      try {
        opened = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (FileAlreadyExistsException e) {
        if (attempt >= 8) {
          throw e;
        }
        continue;
      }
      Faults injected = faults;
      try {
        FileChannel channel = injected == null ? opened : injected.channel(opened);
        return new Temp(absolute, temp, new NamedChannel(target.toString(), channel));
      } catch (IOException | RuntimeException | Error e) {
        opened.close();
        Files.deleteIfExists(temp);
        throw e;
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

  /**
   * Renames {@code temp} onto {@code target}: atomically where the file system can. A failure
   * names the target, with the system's reason.
   */
  public static void moveOnto(Path temp, Path target) throws IOException {
    try {
      Faults injected = faults;
      if (injected != null) {
        injected.beforeMove(temp, target);
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (FileSystemException e) {
      if (e.getReason() == null || target.toString().equals(e.getFile())) {
        throw e;
      }
      FileSystemException named = new FileSystemException(target.toString(), null,
          "could not rename the complete " + temp.getFileName() + " onto it: " + e.getReason());
      named.initCause(e);
      throw named;
    }
  }

  /**
   * A file channel that names its file in the failures of writes, forces and the close: a plain
   * {@link IOException} (the system's message only) becomes a {@link FileSystemException} of
   * {@code file}; more specific exceptions (a closed channel, an interrupt) pass unchanged.
   */
  private static final class NamedChannel extends FileChannel {
    private final String file;
    private final FileChannel out;

    NamedChannel(String file, FileChannel out) {
      this.file = file;
      this.out = out;
    }

    private IOException named(IOException e) {
      if (e.getClass() != IOException.class) {
        return e;
      }
      FileSystemException named = new FileSystemException(file, null, e.getMessage());
      named.initCause(e);
      return named;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      try {
        return out.write(src);
      } catch (IOException e) {
        throw named(e);
      }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      try {
        return out.write(srcs, offset, length);
      } catch (IOException e) {
        throw named(e);
      }
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      try {
        return out.write(src, position);
      } catch (IOException e) {
        throw named(e);
      }
    }

    @Override
    public void force(boolean metaData) throws IOException {
      try {
        out.force(metaData);
      } catch (IOException e) {
        throw named(e);
      }
    }

    @Override
    protected void implCloseChannel() throws IOException {
      try {
        out.close();
      } catch (IOException e) {
        throw named(e);
      }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return out.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return out.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return out.read(dst, position);
    }

    @Override
    public long position() throws IOException {
      return out.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      out.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return out.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      out.truncate(size);
      return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return out.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      return out.transferFrom(src, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return out.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      throw new UnsupportedOperationException("an output being written is not locked");
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      throw new UnsupportedOperationException("an output being written is not locked");
    }
  }
}
