package org.lprff.arrow.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import org.lprff.fixtures.FullDisk;

/**
 * The command line's tests' hold on {@link AtomicWrite}'s package-private test seam (this class
 * shares the package on the test class path): a disk full after n bytes, a failing fsync, or a
 * failing rename under every output opened until {@link #clear()}.
 */
public final class OutputFaults {

  private OutputFaults() {}

  /** Every write fails once {@code bytes} bytes of an output are written: ENOSPC. */
  public static void fullAfter(long bytes) {
    AtomicWrite.faults = faults(bytes, false, false);
  }

  /** Every byte is written but forcing them to disk fails: EIO. */
  public static void failingFsync() {
    AtomicWrite.faults = faults(Long.MAX_VALUE, true, false);
  }

  /** The rename of the complete temporary file onto the output fails: EROFS. */
  public static void failingRename() {
    AtomicWrite.faults = faults(Long.MAX_VALUE, false, true);
  }

  /** No faults (the default). */
  public static void clear() {
    AtomicWrite.faults = null;
  }

  private static AtomicWrite.Faults faults(long capacity, boolean fsync, boolean rename) {
    return new AtomicWrite.Faults() {
      @Override
      public FileChannel channel(FileChannel opened) {
        return new FullDisk(opened, capacity, fsync);
      }

      @Override
      public void beforeMove(Path temp, Path target) throws IOException {
        if (rename) {
          throw new FileSystemException(temp.toString(), target.toString(),
              "Read-only file system");
        }
      }
    };
  }
}
