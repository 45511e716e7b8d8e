package org.lprff.arrow.ipc;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.flatbuf.KeyValue;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * The CRC32C of a record batch body as the IPC framing carries it: {@link IpcWriter} computes it
 * ({@link #body}) and writes it into the record batch message's custom metadata under {@value
 * #KEY} as 8 lowercase hex digits ({@link #format}); {@link IpcFileLayout} reads it back ({@link
 * #stored}). The verification against the bytes on disk, and what it reports, is {@code
 * org.lprff.arrow.BatchChecksums}. Internal (package {@code org.lprff.arrow.ipc} is not
 * exported).
 */
public final class BodyChecksum {

  /** The custom metadata key of a record batch message holding its body's CRC32C. */
  public static final String KEY = "lprff.body_crc32c";

  private static final byte[] ZEROS = new byte[64];

  private BodyChecksum() {}

  /** {@code crc} as written: 8 lowercase hex digits. */
  public static String format(int crc) {
    return HexFormat.of().toHexDigits(crc);
  }

  /**
   * The checksum stored in a record batch message, as an unsigned value, or -1 if it has none.
   *
   * @throws IOException naming the file and batch if the value is not 8 hex digits
   */
  static long stored(Path path, String what, Message message) throws IOException {
    for (int i = 0; i < message.customMetadataLength(); i++) {
      KeyValue pair = message.customMetadata(i);
      if (KEY.equals(pair.key())) {
        String value = pair.value();
        if (value == null || value.length() != 8 || !isHex(value)) {
          throw IpcFileLayout.corrupt(path, what + " has " + KEY + " = \"" + value
              + "\", expected 8 hex digits", null);
        }
        return Long.parseLong(value, 16);
      }
    }
    return -1;
  }

  private static boolean isHex(String value) {
    for (int i = 0; i < value.length(); i++) {
      if (Character.digit(value.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The CRC32C of {@code batch}'s body as {@code MessageSerializer.writeBatchBuffers} lays it
   * out: each buffer at its layout offset, zeros before it, zeros to the 8-byte aligned end.
   */
  static int body(ArrowRecordBatch batch) {
    CRC32C crc = new CRC32C();
    List<ArrowBuf> buffers = batch.getBuffers();
    List<ArrowBuffer> layout = batch.getBuffersLayout();
    long position = 0;
    for (int i = 0; i < buffers.size(); i++) {
      position = zeros(crc, position, layout.get(i).getOffset());
      ArrowBuf buffer = buffers.get(i);
      long size = layout.get(i).getSize();
      for (long done = 0; done < size; ) {
        int take = (int) Math.min(size - done, 1 << 30);
        crc.update(buffer.nioBuffer(done, take));
        done += take;
      }
      position += size;
    }
    zeros(crc, position, batch.computeBodyLength());
    return (int) crc.getValue();
  }

  private static long zeros(CRC32C crc, long from, long to) {
    for (long at = from; at < to; ) {
      int take = (int) Math.min(to - at, ZEROS.length);
      crc.update(ZEROS, 0, take);
      at += take;
    }
    return Math.max(from, to);
  }
}
