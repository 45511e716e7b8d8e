package org.lprff.arrow;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lprff.arrow.ipc.IpcFileLayout;
import org.lprff.arrow.memory.ArrowSegments;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * A feature file in the Arrow IPC file format, open for reading with Arrow's {@link
 * ArrowFileReader}: the schema and spec, the row and batch counts (from the record batches'
 * metadata, read once at open), and record batch i on demand, copied by Arrow from the file into
 * buffers of the caller's allocator.
 *
 * <p>{@link #open} validates the file's structure (magic, footer, every record batch's metadata)
 * and its schema ({@link FeatureSchema#from}); a truncated or corrupted file, or one that is not
 * a feature file, is refused with an {@link IOException} naming the file. Not thread-safe.
 */
public final class FeatureFile implements AutoCloseable {

  /**
   * Record batch {@code index} as loaded: {@code rows} rows; {@code features} row r at bytes [r
   * rowBytes, (r + 1) rowBytes) (packed codes, or little-endian float32 for b = 32); {@code
   * labels} little-endian float32 (REGRESSION) or int32 (CLASSES) per row, or null; {@code
   * rowIds} little-endian int64 per row, or null. The segments view the Arrow buffers of {@code
   * root} in place and are valid until the next {@link #read} or {@link #close()}; after that an
   * access throws {@link IllegalStateException} (they are tied to an arena closed then), never
   * reads freed memory. They may be read from any thread.
   */
  public record Batch(
      int index,
      int rows,
      VectorSchemaRoot root,
      MemorySegment features,
      MemorySegment labels,
      MemorySegment rowIds) {}

  private final Path path;
  private final FileChannel channel;
  private final ArrowFileReader reader;
  private final IpcFileLayout layout;
  private final FeatureSchema schema;
  /** The lifetime of the loaded batch's segments; closed when the batch is replaced. */
  private Arena batchArena;
  private boolean closed;

  private FeatureFile(
      Path path, FileChannel channel, ArrowFileReader reader, IpcFileLayout layout,
      FeatureSchema schema) {
    this.path = path;
    this.channel = channel;
    this.reader = reader;
    this.layout = layout;
    this.schema = schema;
  }

  /**
   * Opens {@code file}; record batches are read into buffers of {@code allocator}.
   *
   * @throws IOException naming the file if it cannot be read, is not an Arrow IPC file, is
   *     truncated or corrupted, or its schema is not a valid feature schema
   */
  public static FeatureFile open(Path file, BufferAllocator allocator) throws IOException {
    if (file == null) {
      throw new IllegalArgumentException("file is null");
    }
    if (allocator == null) {
      throw new IllegalArgumentException("allocator is null");
    }
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    ArrowFileReader reader = null;
    try {
      IpcFileLayout layout = IpcFileLayout.read(file, channel);
      FeatureSchema schema = schemaOf(file, layout.schema());
      reader = new ArrowFileReader(channel, allocator);
      reader.getVectorSchemaRoot(); // reads the footer (the layout already checked it)
      return new FeatureFile(file, channel, reader, layout, schema);
    } catch (IOException | RuntimeException | Error e) {
      closeQuietly(e, reader, channel);
      if (e instanceof RuntimeException r) {
        throw IpcFileLayout.corrupt(file, r.toString(), r);
      }
      throw e;
    }
  }

  /** The feature schema of {@code schema}, as an IOException naming the file if invalid. */
  static FeatureSchema schemaOf(Path file, Schema schema) throws IOException {
    try {
      return FeatureSchema.from(schema, "file " + file);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static void closeQuietly(Throwable failure, AutoCloseable... resources) {
    for (AutoCloseable resource : resources) {
      if (resource != null) {
        try {
          resource.close();
        } catch (Exception e) {
          failure.addSuppressed(e);
        }
      }
    }
  }

  /** The file's path. */
  public Path path() {
    return path;
  }

  /** The Arrow schema as stored. */
  public Schema schema() {
    return layout.schema();
  }

  /** The validated feature schema; its compatibility checks name this file. */
  public FeatureSchema featureSchema() {
    return schema;
  }

  /** The featurizer spec the file was written with. */
  public FeaturizerSpec spec() {
    return schema.spec();
  }

  /** Every metadata string of the schema. */
  public Map<String, String> metadata() {
    return schema.metadata();
  }

  /** Rows in all record batches. */
  public long rowCount() {
    return layout.rowCount();
  }

  /** Record batches in the file. */
  public int batchCount() {
    return layout.batches().size();
  }

  /** Rows of record batch {@code index}, from its metadata (the body is not read). */
  public int batchRows(int index) {
    checkIndex(index);
    return layout.batches().get(index).rows();
  }

  /** The layout read at open (metadata of every record batch). */
  IpcFileLayout layout() {
    return layout;
  }

  /** The file's size in bytes. */
  public long fileSize() {
    return layout.fileSize();
  }

  /**
   * Refuses the file if its spec is not {@code expected} ({@link
   * FeatureSchema#requireCompatible(FeaturizerSpec)}).
   *
   * @throws IllegalArgumentException naming the file, the key and both values
   */
  public void requireCompatible(FeaturizerSpec expected) {
    schema.requireCompatible(expected);
  }

  /**
   * Loads record batch {@code index}, replacing the previously loaded one.
   *
   * @throws IndexOutOfBoundsException if index is not in [0, batchCount())
   * @throws IOException naming the file if the batch cannot be read or is malformed
   */
  public Batch read(int index) throws IOException {
    checkOpen();
    checkIndex(index);
    releaseBatchViews();
    VectorSchemaRoot root;
    try {
      if (!reader.loadRecordBatch(layout.blocks().get(index))) {
        throw IpcFileLayout.corrupt(path, "record batch " + index + " could not be loaded", null);
      }
      root = reader.getVectorSchemaRoot();
    } catch (IOException | RuntimeException e) {
      // Arrow's own IOExceptions (e.g. a node length beyond INT_MAX) do not name the file.
      if (e instanceof IOException io && String.valueOf(io.getMessage()).contains(path.toString())) {
        throw io;
      }
      throw IpcFileLayout.corrupt(path, "record batch " + index + ": " + e, e);
    }
    int rows = root.getRowCount();
    // Columns written elsewhere may be declared nullable; their values must still all be set.
    for (FieldVector vector : root.getFieldVectors()) {
      if (vector.getNullCount() != 0) {
        throw IpcFileLayout.corrupt(path, "record batch " + index + " column " + vector.getName()
            + " has " + vector.getNullCount() + " nulls; feature files have none", null);
      }
    }
    FieldVector features = root.getVector(FeatureSchema.FEATURES);
    MemorySegment featureRows = features instanceof FixedSizeListVector list
        ? ArrowSegments.rows(list)
        : ArrowSegments.rows((FixedSizeBinaryVector) features);
    MemorySegment labels = schema.labelType() == LabelType.NONE
        ? null
        : ArrowSegments.values((BaseFixedWidthVector) root.getVector(FeatureSchema.LABEL));
    MemorySegment rowIds = schema.hasRowIds()
        ? ArrowSegments.values((BaseFixedWidthVector) root.getVector(FeatureSchema.ROW_ID))
        : null;
    batchArena = Arena.ofShared();
    return new Batch(
        index, rows, root, scoped(featureRows), scoped(labels), scoped(rowIds));
  }

  private MemorySegment scoped(MemorySegment view) {
    return view == null ? null : ArrowSegments.scoped(view, batchArena);
  }

  private void releaseBatchViews() {
    if (batchArena != null) {
      batchArena.close();
      batchArena = null;
    }
  }

  private void checkIndex(int index) {
    if (index < 0 || index >= batchCount()) {
      throw new IndexOutOfBoundsException(
          "record batch " + index + " of file " + path + ", which has " + batchCount());
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("feature file " + path + " is closed");
    }
  }

  /** Releases the loaded batch's buffers and closes the file. Idempotent. */
  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      releaseBatchViews();
      reader.close(); // closes the channel too
      channel.close();
    }
  }
}
