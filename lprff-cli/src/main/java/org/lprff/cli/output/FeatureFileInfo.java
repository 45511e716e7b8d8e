package org.lprff.cli.output;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lprff.arrow.FeatureFile;
import org.lprff.arrow.FeatureSchema;
import org.lprff.arrow.FeatureWriter;
import org.lprff.arrow.input.Standardization;
import org.lprff.arrow.ipc.IpcFileLayout;

/**
 * What {@code lprff info} shows and {@code --like} takes from a feature file, read from an Arrow
 * IPC file (its footer and record batch metadata, through {@link FeatureFile}) or stream (every
 * message read, so a stream is validated to its end-of-stream marker).
 *
 * @param path the file
 * @param ipc the IPC framing
 * @param schema the validated feature schema
 * @param rows rows in all record batches
 * @param recordBatches record batches
 * @param fileSize bytes
 * @param standardization the statistics stored in the metadata, or null
 */
public record FeatureFileInfo(
    Path path,
    FeatureWriter.Format ipc,
    FeatureSchema schema,
    long rows,
    int recordBatches,
    long fileSize,
    Standardization standardization) {

  private static final byte[] FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CONTINUATION = {-1, -1, -1, -1};
  /** The end-of-stream marker: continuation, then a zero metadata length. */
  private static final byte[] END_OF_STREAM = {-1, -1, -1, -1, 0, 0, 0, 0};

  /**
   * Reads and validates {@code path}.
   *
   * @throws IOException naming the file when it is missing, not an Arrow IPC file or stream,
   *     truncated or corrupt, or not a feature file (its metadata invalid)
   */
  public static FeatureFileInfo read(Path path, BufferAllocator allocator) throws IOException {
    if (!Files.exists(path)) {
      throw new NoSuchFileException(path.toString());
    }
    if (!Files.isRegularFile(path)) {
      throw new IOException(path + " is not a regular file");
    }
    byte[] head;
    try (InputStream in = Files.newInputStream(path)) {
      head = in.readNBytes(FILE_MAGIC.length);
    }
    if (head.length == 0) {
      throw new IOException(path + " is empty, not a feature file");
    }
    if (startsWith(head, FILE_MAGIC)) {
      return readFile(path, allocator);
    }
    if (startsWith(head, CONTINUATION)) {
      return readStream(path, allocator);
    }
    throw new IOException(
        path + " is not an Arrow IPC file or stream (it starts with neither ARROW1 nor the"
            + " stream's FF FF FF FF), so not a feature file");
  }

  private static FeatureFileInfo readFile(Path path, BufferAllocator allocator)
      throws IOException {
    try (FeatureFile file = FeatureFile.open(path, allocator)) {
      return new FeatureFileInfo(
          path,
          FeatureWriter.Format.FILE,
          file.featureSchema(),
          file.rowCount(),
          file.batchCount(),
          file.fileSize(),
          standardizationOf(path, file.metadata()));
    }
  }

  private static FeatureFileInfo readStream(Path path, BufferAllocator allocator)
      throws IOException {
    long size = Files.size(path);
    FeatureSchema schema;
    long rows = 0;
    int batches = 0;
    long bytesRead;
    boolean ended;
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      // Arrow's stream reader leaks a body whose metadata is bad, or fails naming no file: the
      // structure is checked first, from the metadata alone (positional reads; it names the
      // file itself), then Arrow reads the same channel from its start.
      IpcFileLayout.check(path, channel, true);
      try (ArrowStreamReader reader = new ArrowStreamReader(channel, allocator)) {
        schema = featureSchema(path, reader.getVectorSchemaRoot().getSchema());
        while (reader.loadNextBatch()) {
          rows += reader.getVectorSchemaRoot().getRowCount();
          batches++;
        }
        bytesRead = reader.bytesRead();
        ended = endsWith(channel, size, END_OF_STREAM);
      } catch (NotAFeatureFile e) {
        throw e;
      } catch (IOException | RuntimeException | OutOfMemoryError e) {
        // OutOfMemoryError: Arrow's reader asked for an array of a message length the corrupt
        // stream claims; the request failed, so nothing is held.
        String detail = e.getMessage() == null ? e.toString() : e.getMessage();
        throw new IOException("file " + path + " is truncated or corrupt (not a complete Arrow"
            + " IPC stream): " + detail, e);
      }
    }
    // Arrow's reader also stops quietly at the end of the file; a complete stream ends with the
    // end-of-stream marker.
    if (bytesRead != size || !ended) {
      throw new IOException(
          "file " + path + " is truncated or corrupt: the Arrow IPC stream does not end with"
              + " the end-of-stream marker after its " + batches + " record batches ("
              + bytesRead + " of " + size + " bytes read)");
    }
    return new FeatureFileInfo(
        path, FeatureWriter.Format.STREAM, schema, rows, batches, size,
        standardizationOf(path, schema.metadata()));
  }

  /** A valid Arrow stream whose schema is not a feature file's. */
  private static final class NotAFeatureFile extends IOException {
    private static final long serialVersionUID = 1L;

    NotAFeatureFile(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private static FeatureSchema featureSchema(Path path, Schema arrowSchema)
      throws NotAFeatureFile {
    try {
      return FeatureSchema.from(arrowSchema);
    } catch (IllegalArgumentException e) {
      throw new NotAFeatureFile("file " + path + ": " + e.getMessage(), e);
    }
  }

  private static Standardization standardizationOf(Path path, Map<String, String> metadata)
      throws IOException {
    if (!metadata.containsKey(Standardization.KEY_MEAN)) {
      return null;
    }
    try {
      return Standardization.fromMap(metadata);
    } catch (IllegalArgumentException e) {
      throw new IOException("file " + path + " has invalid standardization metadata: "
          + e.getMessage(), e);
    }
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }

  private static boolean endsWith(FileChannel channel, long size, byte[] suffix)
      throws IOException {
    if (size < suffix.length) {
      return false;
    }
    ByteBuffer tail = ByteBuffer.allocate(suffix.length).order(ByteOrder.LITTLE_ENDIAN);
    while (tail.hasRemaining()) {
      if (channel.read(tail, size - suffix.length + tail.position()) < 0) {
        return false;
      }
    }
    return Arrays.equals(tail.array(), suffix);
  }

  /** Bytes of the features of one row. */
  public int rowBytes() {
    return schema.rowBytes();
  }
}
