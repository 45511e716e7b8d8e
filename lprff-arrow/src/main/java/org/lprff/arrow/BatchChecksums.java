package org.lprff.arrow;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;
import org.lprff.arrow.ipc.BodyChecksum;
import org.lprff.arrow.ipc.IpcFileLayout;

/**
 * Per record batch checksums: every record batch message {@link FeatureWriter} writes carries, in
 * its custom metadata under {@value #KEY}, the CRC32C of its body (the bytes after the message's
 * metadata: every buffer and the zero padding between them, {@code bodyLength} bytes) as 8
 * lowercase hex digits. Arrow IPC itself has no checksums, so damage inside a body (a flipped
 * bit on disk or in a copy) would otherwise be read as valid features.
 *
 * <p>The body is what a reader maps and trains on; the metadata (buffer offsets, lengths, row
 * counts) is already checked structurally when a file is opened. Files written before checksums
 * have none and stay readable: a {@link Report} says how many batches carried one.
 *
 * <p>CRC32C runs at memory speed (the JDK's intrinsic); the cost of writing and of verifying is
 * measured in docs/reliability.md.
 */
public final class BatchChecksums {

  /** The custom metadata key of a record batch message holding its body's CRC32C. */
  public static final String KEY = BodyChecksum.KEY;

  /** Bytes read per positional read when verifying through a channel. */
  private static final int CHUNK = 1 << 20;

  /**
   * What a verification found: all batches intact ({@link #checked()} of {@link
   * #recordBatches()} carried a checksum and matched it).
   *
   * @param file the file
   * @param recordBatches record batches in the file
   * @param checked batches whose body matched their stored checksum
   * @param bytes body bytes read
   */
  public record Report(Path file, int recordBatches, int checked, long bytes) {

    /** True when every record batch carried a checksum (a file written by this version). */
    public boolean complete() {
      return checked == recordBatches;
    }
  }

  /** A record batch whose body does not match its stored checksum. */
  public static final class DamagedBatchException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int batch;
    private final String detail;

    DamagedBatchException(Path file, String detail, int batch) {
      super("file " + file + ": " + detail + ". The file was damaged after it was written;"
          + " featurize it again or restore a copy.");
      this.batch = batch;
      this.detail = detail;
    }

    /** The index of the first damaged record batch. */
    public int batch() {
      return batch;
    }

    /** Which batch, its rows and bytes, and both checksums, without the file and the fix. */
    public String detail() {
      return detail;
    }
  }

  private BatchChecksums() {}

  /** Where body bytes come from: a mapping or positional reads. */
  interface Bodies {
    /** Adds bytes [offset, offset + length) of the file to {@code crc}. */
    void update(CRC32C crc, long offset, long length) throws IOException;

    static Bodies of(MemorySegment mapping) {
      return (crc, offset, length) -> {
        for (long done = 0; done < length; ) {
          long take = Math.min(length - done, 1 << 30);
          crc.update(mapping.asSlice(offset + done, take).asByteBuffer());
          done += take;
        }
      };
    }

    static Bodies of(Path path, FileChannel channel) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK);
      return (crc, offset, length) -> {
        for (long done = 0; done < length; ) {
          buffer.clear().limit((int) Math.min(length - done, CHUNK));
          while (buffer.hasRemaining()) {
            if (channel.read(buffer, offset + done + buffer.position()) < 0) {
              throw IpcFileLayout.corrupt(path, "it ends at byte " + channel.size()
                  + ", inside a record batch body that runs to byte " + (offset + length), null);
            }
          }
          crc.update(buffer.flip());
          done += buffer.limit();
        }
      };
    }
  }

  /**
   * Checks every record batch of {@code batches} that carries a checksum, in file order.
   *
   * @throws DamagedBatchException naming the file, the first damaged batch, its rows and bytes,
   *     both checksums and the fix
   * @throws IOException if the bytes cannot be read
   */
  static Report verify(Path path, List<IpcFileLayout.Batch> batches, Bodies bodies)
      throws IOException {
    CRC32C crc = new CRC32C();
    int checked = 0;
    long bytes = 0;
    long firstRow = 0;
    for (int i = 0; i < batches.size(); i++) {
      IpcFileLayout.Batch batch = batches.get(i);
      if (batch.checksum() >= 0) {
        crc.reset();
        bodies.update(crc, batch.bodyOffset(), batch.bodyLength());
        if (crc.getValue() != batch.checksum()) {
          throw new DamagedBatchException(path, "record batch " + i + " (rows " + firstRow
              + " to " + (firstRow + batch.rows() - 1) + ", body bytes " + batch.bodyOffset()
              + " to " + (batch.bodyOffset() + batch.bodyLength()) + ") fails its CRC32C check:"
              + " stored " + BodyChecksum.format((int) batch.checksum()) + ", computed "
              + BodyChecksum.format((int) crc.getValue()), i);
        }
        checked++;
        bytes += batch.bodyLength();
      }
      firstRow += batch.rows();
    }
    return new Report(path, batches.size(), checked, bytes);
  }

  /**
   * Verifies every record batch of the feature file or stream at {@code file}: its structure (as
   * {@link FeatureFile#open} does for a file; a stream is walked to its end-of-stream marker)
   * and every stored checksum.
   *
   * @throws DamagedBatchException naming the first damaged batch
   * @throws IOException naming the file if it is missing, unreadable or not a well-formed Arrow
   *     IPC file or stream
   */
  public static Report verify(Path file) throws IOException {
    if (file == null) {
      throw new IllegalArgumentException("file is null");
    }
    if (!Files.exists(file)) {
      throw new NoSuchFileException(file.toString());
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return verify(file, channel);
    }
  }

  /** As {@link #verify(Path)}, through {@code channel} open on {@code file} (positional reads). */
  public static Report verify(Path file, FileChannel channel) throws IOException {
    Bodies bodies = Bodies.of(file, channel);
    ByteBuffer head = ByteBuffer.allocate(6);
    channel.read(head, 0);
    if (new String(head.array(), 0, head.position(), StandardCharsets.US_ASCII)
        .equals("ARROW1")) {
      return verify(file, IpcFileLayout.read(file, channel).batches(), bodies);
    }
    return verify(file, IpcFileLayout.readStream(file, channel).batches(), bodies);
  }
}
