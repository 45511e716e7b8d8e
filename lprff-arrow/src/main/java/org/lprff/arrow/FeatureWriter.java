package org.lprff.arrow;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowBatches;
import org.lprff.arrow.io.AtomicWrite;
import org.lprff.arrow.ipc.IpcWriter;
import org.lprff.vector.featurize.Featurizer;

/**
 * Featurizes raw rows into record batches of a {@link FeatureSchema} and writes them as an Arrow
 * IPC file or stream, atomically, each record batch with the CRC32C of its body ({@link
 * BatchChecksums}).
 *
 * <p><b>Atomic output.</b> Bytes go to a hidden sibling of the target, {@code
 * .<name>.tmp-<random>}, which {@link #finish()} forces to disk and renames onto the target
 * (an atomic move where the file system offers one, else a replacing move). If anything fails
 * (the input, the featurizer, the progress listener, the disk) or the writer is closed without
 * {@code finish()}, the temporary file is deleted: the target is either absent or, if it
 * existed before, untouched. A successful finish replaces an existing target.
 *
 * <p><b>Batches.</b> Rows are featurized in place into one reused {@link FeatureBatch} of {@link
 * Builder#batchSize} rows, which is written whenever it is full and once more, partly full, by
 * {@code finish()}. Raw batches of any size are split or joined accordingly; the bytes of every
 * row depend only on its values and id, so the split does not change them.
 *
 * <p><b>No validity bitmaps.</b> Every column is non-nullable, so each record batch is written
 * without its validity buffers (length 0, null count 0, as the IPC format allows; Arrow readers
 * then treat every value as valid). For b = 32 this saves the float child's bitmap, 1 bit per
 * feature, which would otherwise add 1/32 to the file.
 *
 * <p><b>Pipes.</b> {@link #builder(WritableByteChannel, Featurizer, FeatureSchema,
 * BufferAllocator)} writes the stream framing to a channel the caller owns (standard output, a
 * socket) as each record batch fills: no temporary file, nothing to rename, and a reader can
 * start on the first batch. A failure part-way leaves the bytes written so far without an
 * end-of-stream marker, which Arrow readers report as a truncated stream; the channel is left
 * open either way.
 *
 * <p>Typical use: {@code FeatureWriter.builder(path, featurizer, schema, allocator)
 * .batchSize(4096).executor(pool).write(source)}, or {@code open()} and then {@link
 * #write(RowBatch)} calls, {@link #finish()} and {@link #close()} in try-with-resources. Not
 * thread-safe.
 */
public final class FeatureWriter implements AutoCloseable {

  /** The Arrow IPC framing. */
  public enum Format {
    /** The random-access file format (footer with the record batch index; can be mapped). */
    FILE,
    /** The streaming format (schema, batches, end-of-stream marker; read front to back). */
    STREAM
  }

  /**
   * What a finished writer produced.
   *
   * @param file the target path, or null for a channel
   * @param format the IPC framing
   * @param rows rows written
   * @param recordBatches record batches written
   * @param bytes the bytes written
   */
  public record Summary(Path file, Format format, long rows, int recordBatches, long bytes) {}

  /** Rows per record batch unless the builder says otherwise. */
  public static final int DEFAULT_BATCH_SIZE = 1024;

  private enum State { OPEN, FINISHED, FAILED }

  private final Path target;
  private final Path temp;
  /** The caller's channel (no temporary file), or null. */
  private final CountingChannel sink;
  private final Format format;
  private final int inputDim;
  private final Executor executor;
  private final ProgressListener progress;
  private final long totalRows;
  private final FeatureBatch batch;
  private final FileChannel channel;
  private final IpcWriter ipc;
  private State state = State.OPEN;
  private long rowsWritten;
  private int recordBatches;

  private FeatureWriter(Builder b) throws IOException {
    this.target = b.target;
    this.format = b.format;
    this.inputDim = b.featurizer.spec().inputDim();
    this.executor = b.executor;
    this.progress = b.progress;
    this.totalRows = b.totalRows;
    this.batch = FeatureBatch.allocate(b.featurizer, b.schema, b.batchSize, b.allocator);
    Path tempPath = null;
    FileChannel opened = null;
    try {
      WritableByteChannel out;
      if (b.sink != null) {
        out = new CountingChannel(b.sink);
      } else {
        AtomicWrite.Temp opening = AtomicWrite.open(target);
        tempPath = opening.path();
        opened = opening.channel();
        out = opened;
      }
      Schema arrowSchema = batch.root().getSchema();
      this.ipc = format == Format.FILE
          ? IpcWriter.file(arrowSchema, out)
          : IpcWriter.stream(arrowSchema, out);
      ipc.start();
      this.sink = out instanceof CountingChannel c ? c : null;
    } catch (IOException | RuntimeException | Error e) {
      cleanUp(e, opened, tempPath);
      batch.close();
      throw e;
    }
    this.temp = tempPath;
    this.channel = opened;
  }

  /** The caller's channel, counting the bytes written through it; never closed here. */
  private static final class CountingChannel implements WritableByteChannel {
    private final WritableByteChannel inner;
    private long bytes;

    CountingChannel(WritableByteChannel inner) {
      this.inner = inner;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int n = inner.write(src);
      bytes += n;
      return n;
    }

    @Override
    public boolean isOpen() {
      return inner.isOpen();
    }

    @Override
    public void close() {}
  }

  /**
   * A builder for a writer of {@code schema}'s rows, featurized by {@code featurizer}, to {@code
   * target}, with Arrow memory from {@code allocator}.
   *
   * @throws IllegalArgumentException if an argument is null, the target has no file name, or the
   *     featurizer's spec is not the schema's
   */
  public static Builder builder(
      Path target, Featurizer featurizer, FeatureSchema schema, BufferAllocator allocator) {
    if (target == null) {
      throw new IllegalArgumentException("target is null");
    }
    if (target.getFileName() == null) {
      throw new IllegalArgumentException("target " + target + " has no file name");
    }
    return new Builder(target, null, featurizer, schema, allocator);
  }

  /**
   * A builder for a writer of the stream framing to {@code sink} (see the class comment: a pipe),
   * which stays the caller's to close; {@link Builder#format} may only be STREAM.
   *
   * @throws IllegalArgumentException if an argument is null or the featurizer's spec is not the
   *     schema's
   */
  public static Builder builder(
      WritableByteChannel sink, Featurizer featurizer, FeatureSchema schema,
      BufferAllocator allocator) {
    if (sink == null) {
      throw new IllegalArgumentException("sink is null");
    }
    return new Builder(null, sink, featurizer, schema, allocator).format(Format.STREAM);
  }

  /** Options of a {@link FeatureWriter}; {@link #open()} or {@link #write(RowBatches)}. */
  public static final class Builder {
    private final Path target;
    private final WritableByteChannel sink;
    private final Featurizer featurizer;
    private final FeatureSchema schema;
    private final BufferAllocator allocator;
    private Format format = Format.FILE;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Executor executor;
    private ProgressListener progress = ProgressListener.NONE;
    private long totalRows = -1;

    private Builder(Path target, WritableByteChannel sink, Featurizer featurizer,
        FeatureSchema schema, BufferAllocator allocator) {
      FeatureBatch.checkArguments(featurizer, schema, allocator);
      this.target = target;
      this.sink = sink;
      this.featurizer = featurizer;
      this.schema = schema;
      this.allocator = allocator;
    }

    /** FILE (default) or STREAM. */
    public Builder format(Format value) {
      if (value == null) {
        throw new IllegalArgumentException("format is null; expected FILE or STREAM");
      }
      if (sink != null && value != Format.STREAM) {
        throw new IllegalArgumentException("format " + value + " to a channel: a pipe takes the"
            + " STREAM framing (the file framing's footer points back into the bytes)");
      }
      this.format = value;
      return this;
    }

    /** Rows per record batch, >= 1; default {@value FeatureWriter#DEFAULT_BATCH_SIZE}. */
    public Builder batchSize(int rows) {
      if (rows < 1) {
        throw new IllegalArgumentException("batchSize is " + rows + ", expected >= 1");
      }
      this.batchSize = rows;
      return this;
    }

    /** Where to featurize in parallel; null (default) featurizes on the writing thread. */
    public Builder executor(Executor value) {
      this.executor = value;
      return this;
    }

    /** Told after each record batch; default {@link ProgressListener#NONE}. */
    public Builder progress(ProgressListener value) {
      if (value == null) {
        throw new IllegalArgumentException("progress is null; use ProgressListener.NONE");
      }
      this.progress = value;
      return this;
    }

    /** The total rows to expect, passed on to the progress listener; -1 (default) if unknown. */
    public Builder totalRows(long rows) {
      if (rows < -1) {
        throw new IllegalArgumentException("totalRows is " + rows + ", expected >= 0 or -1");
      }
      this.totalRows = rows;
      return this;
    }

    /**
     * Creates the temporary file and writes the stream's or file's header.
     *
     * @throws IOException if the temporary file cannot be created (e.g. no such directory)
     */
    public FeatureWriter open() throws IOException {
      return new FeatureWriter(this);
    }

    /** Opens, writes every batch of {@code source}, finishes and closes. */
    public Summary write(RowBatches source) throws IOException {
      if (source == null) {
        throw new IllegalArgumentException("source is null");
      }
      try (FeatureWriter writer = open()) {
        writer.writeAll(source);
        return writer.finish();
      }
    }
  }

  /**
   * Featurizes and buffers the rows of {@code raw}, writing every record batch that fills up.
   *
   * @throws IllegalArgumentException if raw is null, has other than d columns, or its labels or
   *     values are invalid for the schema (the writer is then failed and its output deleted)
   * @throws IOException if writing fails (likewise)
   */
  public void write(RowBatch raw) throws IOException {
    checkOpen();
    try {
      if (raw == null) {
        throw new IllegalArgumentException("row batch is null");
      }
      if (raw.columns() != inputDim) {
        throw new IllegalArgumentException(
            "row batch (first row id " + raw.firstRowId() + ") has " + raw.columns()
                + " columns, expected the featurizer's input dimension d = " + inputDim);
      }
      int done = 0;
      while (done < raw.rows()) {
        int take = Math.min(batch.remaining(), raw.rows() - done);
        // The featurizer reads from index 0: rows after the first split are copied (d floats
        // per row, small next to the m features each one becomes).
        float[] values = done == 0
            ? raw.values()
            : Arrays.copyOfRange(raw.values(), done * inputDim, (done + take) * inputDim);
        float[] labels = raw.labels() == null || done == 0
            ? raw.labels()
            : Arrays.copyOfRange(raw.labels(), done, done + take);
        batch.append(values, take, labels, raw.firstRowId() + done, executor);
        done += take;
        if (batch.remaining() == 0) {
          flush();
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      fail(e);
      throw e;
    }
  }

  /**
   * Buffers {@code n} rows featurized elsewhere with this writer's spec ({@code n} x row-bytes
   * bytes of {@code features} from {@code byteOffset} on, e.g. a Spark partition's packed
   * column), with their labels (null when the schema has none) and row ids, writing every record
   * batch that fills up.
   *
   * @throws IllegalArgumentException if the bytes, labels or ids are invalid (naming the value;
   *     the writer is then failed and its output deleted)
   * @throws IOException if writing fails (likewise)
   */
  public void writeFeaturized(byte[] features, int byteOffset, int n, float[] labels, long[] ids)
      throws IOException {
    checkOpen();
    try {
      if (features == null || n < 0) {
        throw new IllegalArgumentException(features == null ? "features is null"
            : "n is " + n + ", expected >= 0");
      }
      if (labels != null && labels.length < n || ids == null || ids.length < n) {
        throw new IllegalArgumentException((ids == null || ids.length < n ? "ids" : "labels")
            + " hold fewer than n = " + n + " entries");
      }
      MemorySegment from = MemorySegment.ofArray(features);
      long rowBytes = batch.schema().rowBytes();
      int done = 0;
      while (done < n) {
        int take = Math.min(batch.remaining(), n - done);
        batch.appendFeaturized(from, byteOffset + done * rowBytes, take,
            labels == null ? null : Arrays.copyOfRange(labels, done, done + take),
            ids == null ? null : Arrays.copyOfRange(ids, done, done + take));
        done += take;
        if (batch.remaining() == 0) {
          flush();
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      fail(e);
      throw e;
    }
  }

  /**
   * Writes every batch {@code source} gives until it returns null.
   *
   * @return the rows taken from the source
   * @throws IOException if the source or the output fails (the writer is then failed and its
   *     output deleted)
   */
  public long writeAll(RowBatches source) throws IOException {
    checkOpen();
    long rows = 0;
    try {
      if (source == null) {
        throw new IllegalArgumentException("source is null");
      }
      for (RowBatch raw; (raw = source.next()) != null; ) {
        write(raw);
        rows += raw.rows();
      }
    } catch (IOException | RuntimeException | Error e) {
      if (state == State.OPEN) {
        fail(e);
      }
      throw e;
    }
    return rows;
  }

  private void flush() throws IOException {
    if (batch.rows() == 0) {
      return;
    }
    VectorSchemaRoot root = batch.root();
    try (ArrowRecordBatch full = new VectorUnloader(root).getRecordBatch();
        ArrowRecordBatch lean = withoutValidity(full, root)) {
      ipc.write(lean);
    }
    recordBatches++;
    rowsWritten += batch.rows();
    batch.clear();
    progress.rowsWritten(rowsWritten, totalRows);
  }

  /**
   * Writes the last, partly full batch and the IPC footer or end-of-stream marker, forces the
   * bytes to disk and moves the temporary file onto the target.
   *
   * @throws IOException if any step fails; the temporary file is then deleted
   */
  public Summary finish() throws IOException {
    checkOpen();
    try {
      flush();
      ipc.end();
      if (sink != null) {
        state = State.FINISHED;
        batch.close();
        return new Summary(null, format, rowsWritten, recordBatches, sink.bytes);
      }
      channel.force(true);
      channel.close();
      AtomicWrite.moveOnto(temp, target);
      state = State.FINISHED;
      batch.close();
      return new Summary(target, format, rowsWritten, recordBatches, Files.size(target));
    } catch (IOException | RuntimeException | Error e) {
      if (state == State.OPEN) {
        fail(e);
      }
      throw e;
    }
  }

  /**
   * The record batch with the validity buffer of every node without nulls replaced by an empty
   * one. Buffers are listed node by node in depth-first field order, each node's in its type
   * layout's order.
   */
  private static ArrowRecordBatch withoutValidity(ArrowRecordBatch full, VectorSchemaRoot root) {
    BufferAllocator allocator = root.getFieldVectors().get(0).getAllocator();
    List<ArrowFieldNode> nodes = full.getNodes();
    List<ArrowBuf> buffers = new ArrayList<>(full.getBuffers());
    int[] position = new int[2]; // node, buffer
    for (Field field : root.getSchema().getFields()) {
      dropValidity(field, nodes, buffers, position, allocator);
    }
    return new ArrowRecordBatch(full.getLength(), nodes, buffers);
  }

  private static void dropValidity(
      Field field, List<ArrowFieldNode> nodes, List<ArrowBuf> buffers, int[] position,
      BufferAllocator allocator) {
    ArrowFieldNode node = nodes.get(position[0]++);
    for (BufferLayout.BufferType type : TypeLayout.getTypeLayout(field.getType()).getBufferTypes()) {
      if (type == BufferLayout.BufferType.VALIDITY && node.getNullCount() == 0) {
        buffers.set(position[1], allocator.getEmpty());
      }
      position[1]++;
    }
    for (Field child : field.getChildren()) {
      dropValidity(child, nodes, buffers, position, allocator);
    }
  }

  /** Rows in record batches written so far (buffered rows are not counted until written). */
  public long rowsWritten() {
    return rowsWritten;
  }

  /** Record batches written so far. */
  public int recordBatches() {
    return recordBatches;
  }

  /** The temporary file the bytes go to until {@link #finish()} (for tests and messages). */
  public Path temporaryFile() {
    return temp;
  }

  /**
   * Without a successful {@link #finish()}, deletes the temporary file and leaves the target as
   * it was; after one, does nothing. Idempotent.
   *
   * @throws IOException if the temporary file cannot be deleted
   */
  @Override
  public void close() throws IOException {
    if (state != State.OPEN) {
      return;
    }
    state = State.FAILED;
    batch.close();
    IOException failure = new IOException("could not remove the unfinished output " + temp);
    cleanUp(failure, channel, temp);
    if (failure.getSuppressed().length > 0) {
      throw failure;
    }
  }

  private void fail(Throwable cause) {
    state = State.FAILED;
    batch.close();
    cleanUp(cause, channel, temp);
  }

  /** Closes the channel and deletes the file, adding any failure to {@code cause}. */
  private static void cleanUp(Throwable cause, FileChannel channel, Path path) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        cause.addSuppressed(e);
      }
    }
    if (path != null) {
      try {
        Files.deleteIfExists(path);
      } catch (IOException e) {
        cause.addSuppressed(e);
      }
    }
  }

  private void checkOpen() {
    if (state != State.OPEN) {
      throw new IllegalStateException(
          "feature writer for " + (target == null ? "a channel" : target) + " is " + (state == State.FINISHED ? "finished" : "failed or closed"));
    }
  }
}
