package org.lprff.arrow;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * Mini-batches of a feature file (Arrow IPC file format) for training, epoch after epoch.
 *
 * <p><b>What a step is.</b> A mini-batch holds up to {@link #batchSize()} rows of one record
 * batch; it never spans two, so the last mini-batch of each record batch may be smaller (write
 * files with a record batch size that is a multiple of the training batch size to avoid that).
 * Each epoch visits every row of the file exactly once.
 *
 * <p><b>Order</b>, deterministic from (seed, epoch):
 *
 * <ul>
 *   <li>{@link Order#SEQUENTIAL}: file order, no shuffling (evaluation).
 *   <li>{@link Order#BLOCKS}: the record batches in a random order; inside each, the blocks of
 *       {@code batchSize} consecutive rows in a random order. Every mini-batch is a contiguous
 *       slice of its record batch: nothing is copied, but rows of a block always train together,
 *       so the file itself should be written from shuffled input.
 *   <li>{@link Order#ROWS}: the record batches in a random order; inside each, a random
 *       permutation of its rows, cut into consecutive mini-batches. The rows of a mini-batch are
 *       gathered into a scratch buffer ({@code rows * rowBytes} bytes per step, counted in {@link
 *       Copies#featureBytesGathered()}); {@link MiniBatch#rowIndex} gives the permutation.
 * </ul>
 *
 * <p><b>Access</b>, the two ways the bytes reach memory:
 *
 * <ul>
 *   <li>{@link Access#READER} ({@link #reader}): Arrow's {@code ArrowFileReader} copies each
 *       record batch body into off-heap Arrow buffers ({@link Copies#featureBytesRead()} counts
 *       the feature bytes, {@link Copies#otherBytesRead()} the rest of the bodies).
 *   <li>{@link Access#MAPPED} ({@link #mapped}): the whole file is mapped read-only and every
 *       column is a slice of the mapping at its buffer's offset; epochs over a file larger than
 *       the heap (or than RAM: the OS pages it) never copy feature, label or row id bytes.
 *       Only the metadata is read with ordinary reads. Needs uncompressed buffers at 8-byte
 *       aligned file offsets (what Arrow writers produce); a file without them is refused.
 * </ul>
 *
 * <p>Not thread-safe: one thread iterates; the mini-batches' segments may be read by others.
 */
public final class MiniBatchSource implements AutoCloseable {

  /** How record batch bytes reach memory. */
  public enum Access {
    /** Arrow's file reader: bodies copied into Arrow buffers. */
    READER,
    /** A read-only memory mapping of the file: no copies. */
    MAPPED
  }

  /** How each epoch orders the rows. */
  public enum Order {
    /** File order. */
    SEQUENTIAL,
    /** Shuffled record batches, shuffled blocks of consecutive rows inside them. */
    BLOCKS,
    /** Shuffled record batches, shuffled rows inside them (gathered per step). */
    ROWS
  }

  /**
   * Bytes copied during the current epoch (since the last {@link #epoch} call).
   *
   * @param featureBytesRead feature bytes copied from the file into memory (0 when mapped)
   * @param otherBytesRead other record batch body bytes copied from the file: labels, row ids,
   *     validity bitmaps, padding (0 when mapped)
   * @param featureBytesGathered feature bytes copied into contiguous scratch (order ROWS)
   * @param otherBytesGathered label and row id bytes copied into scratch (order ROWS)
   */
  public record Copies(
      long featureBytesRead,
      long otherBytesRead,
      long featureBytesGathered,
      long otherBytesGathered) {}

  /** One record batch's columns as mapped slices (mapped path). */
  private record Slices(int rows, MemorySegment features, MemorySegment labels, MemorySegment rowIds) {}

  private final Access access;
  private final Path path;
  private final IpcFileLayout layout;
  private final FeatureSchema schema;
  private final int rowBytes;
  private final int batchSize;
  private final Order order;
  private final long seed;
  /** Owns the mapping (mapped path) and the gather scratch (both paths). */
  private final Arena arena;
  private final List<Slices> mapped;
  private final FeatureFile file;
  private final MemorySegment gatherFeatures;
  private final MemorySegment gatherLabels;
  private final MemorySegment gatherRowIds;
  private int generation;
  private long featureBytesRead;
  private long otherBytesRead;
  private long featureBytesGathered;
  private long otherBytesGathered;
  private boolean closed;

  private MiniBatchSource(
      Access access, Path path, IpcFileLayout layout, FeatureSchema schema, int batchSize,
      Order order, long seed, Arena arena, List<Slices> mapped, FeatureFile file) {
    this.access = access;
    this.path = path;
    this.layout = layout;
    this.schema = schema;
    this.rowBytes = schema.rowBytes();
    this.batchSize = batchSize;
    this.order = order;
    this.seed = seed;
    this.arena = arena;
    this.mapped = mapped;
    this.file = file;
    boolean gather = order == Order.ROWS;
    this.gatherFeatures = gather ? arena.allocate((long) batchSize * rowBytes, 8) : null;
    this.gatherLabels = gather && schema.labelType() != LabelType.NONE
        ? arena.allocate(4L * batchSize, 8) : null;
    this.gatherRowIds = gather && schema.hasRowIds() ? arena.allocate(8L * batchSize, 8) : null;
  }

  /**
   * A source reading {@code file} with Arrow's file reader into buffers of {@code allocator}.
   *
   * @throws IllegalArgumentException if an argument is null or batchSize < 1
   * @throws IOException naming the file if it is unreadable, corrupted or not a feature file
   */
  public static MiniBatchSource reader(
      Path file, BufferAllocator allocator, int batchSize, Order order, long seed)
      throws IOException {
    checkArguments(file, batchSize, order);
    if (allocator == null) {
      throw new IllegalArgumentException("allocator is null");
    }
    FeatureFile opened = FeatureFile.open(file, allocator);
    Arena arena = Arena.ofShared();
    try {
      return new MiniBatchSource(
          Access.READER, file, opened.layout(), opened.featureSchema(), batchSize, order, seed,
          arena, null, opened);
    } catch (RuntimeException | Error e) {
      arena.close();
      opened.close();
      throw e;
    }
  }

  /**
   * A source over a read-only memory mapping of {@code file}.
   *
   * @throws IllegalArgumentException if an argument is null or batchSize < 1
   * @throws IOException naming the file if it is unreadable, corrupted, not a feature file, or
   *     has compressed or unaligned buffers
   */
  public static MiniBatchSource mapped(Path file, int batchSize, Order order, long seed)
      throws IOException {
    checkArguments(file, batchSize, order);
    Arena arena = Arena.ofShared();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      IpcFileLayout layout = IpcFileLayout.read(file, channel);
      FeatureSchema schema = FeatureFile.schemaOf(file, layout.schema());
      // The mapping outlives the channel; the arena unmaps it.
      MemorySegment mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, layout.fileSize(), arena);
      List<Slices> slices = slices(file, layout, schema, mapping);
      return new MiniBatchSource(
          Access.MAPPED, file, layout, schema, batchSize, order, seed, arena, slices, null);
    } catch (IOException | RuntimeException | Error e) {
      arena.close();
      throw e;
    }
  }

  private static void checkArguments(Path file, int batchSize, Order order) {
    if (file == null) {
      throw new IllegalArgumentException("file is null");
    }
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize is " + batchSize + ", expected >= 1");
    }
    if (order == null) {
      throw new IllegalArgumentException("order is null; expected SEQUENTIAL, BLOCKS or ROWS");
    }
  }

  /** Checks every record batch's column buffers and slices them out of the mapping. */
  private static List<Slices> slices(
      Path file, IpcFileLayout layout, FeatureSchema schema, MemorySegment mapping)
      throws IOException {
    List<Field> fields = layout.schema().getFields();
    int featureField = indexOf(fields, FeatureSchema.FEATURES);
    int labelField = indexOf(fields, FeatureSchema.LABEL);
    int rowIdField = indexOf(fields, FeatureSchema.ROW_ID);
    FeaturizerSpec spec = schema.spec();
    long rowBytes = spec.rowBytes();
    Slices[] out = new Slices[layout.batches().size()];
    for (int i = 0; i < out.length; i++) {
      IpcFileLayout.Batch batch = layout.batches().get(i);
      if (batch.compressed()) {
        throw IpcFileLayout.corrupt(file, "record batch " + i + " is compressed; the mapped path"
            + " needs uncompressed buffers (use the reader path, or rewrite the file uncompressed)",
            null);
      }
      int rows = batch.rows();
      // FixedSizeBinary: validity, data. FixedSizeList: validity; its Float32 child: validity, data.
      int node = layout.firstNode(featureField);
      int data = layout.firstBuffer(featureField) + (spec.isFloat() ? 2 : 1);
      requireRows(file, i, FeatureSchema.FEATURES, batch, node, rows);
      if (spec.isFloat()) {
        requireRows(file, i, FeatureSchema.FEATURES + " values", batch, node + 1,
            (long) rows * spec.features());
      }
      MemorySegment features = slice(file, i, FeatureSchema.FEATURES, batch, data, rows * rowBytes, mapping);
      MemorySegment labels = null;
      if (labelField >= 0) {
        requireRows(file, i, FeatureSchema.LABEL, batch, layout.firstNode(labelField), rows);
        labels = slice(file, i, FeatureSchema.LABEL, batch, layout.firstBuffer(labelField) + 1,
            4L * rows, mapping);
      }
      MemorySegment rowIds = null;
      if (rowIdField >= 0) {
        requireRows(file, i, FeatureSchema.ROW_ID, batch, layout.firstNode(rowIdField), rows);
        rowIds = slice(file, i, FeatureSchema.ROW_ID, batch, layout.firstBuffer(rowIdField) + 1,
            8L * rows, mapping);
      }
      out[i] = new Slices(rows, features, labels, rowIds);
    }
    return List.of(out);
  }

  private static int indexOf(List<Field> fields, String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static void requireRows(
      Path file, int batch, String column, IpcFileLayout.Batch layout, int node, long expected)
      throws IOException {
    if (layout.nodeLengths()[node] != expected || layout.nullCounts()[node] != 0) {
      throw IpcFileLayout.corrupt(file, "record batch " + batch + " column " + column + " has "
          + layout.nodeLengths()[node] + " values and " + layout.nullCounts()[node]
          + " nulls, expected " + expected + " values and no nulls", null);
    }
  }

  private static MemorySegment slice(
      Path file, int batch, String column, IpcFileLayout.Batch layout, int buffer, long need,
      MemorySegment mapping) throws IOException {
    long start = layout.bufferStart(buffer);
    requireMappable(file, batch, column, start, layout.bufferLengths()[buffer], need);
    return mapping.asSlice(start, need);
  }

  /**
   * Refuses a column buffer the mapped path cannot use in place: shorter than {@code need}
   * bytes, or at a file offset that is not a multiple of 8 (Arrow's IPC alignment; the mapping
   * itself starts on a page, so the file offset decides the address's alignment).
   */
  static void requireMappable(
      Path file, int batch, String column, long fileOffset, long length, long need)
      throws IOException {
    if (length < need) {
      throw IpcFileLayout.corrupt(file, "record batch " + batch + " column " + column + " has a"
          + " buffer of " + length + " bytes, expected at least " + need, null);
    }
    if ((fileOffset & 7) != 0) {
      throw IpcFileLayout.corrupt(file, "record batch " + batch + " column " + column
          + " starts at file offset " + fileOffset + ", not 8-byte aligned; the mapped path needs"
          + " Arrow's 8-byte buffer alignment (use the reader path)", null);
    }
  }

  // ---- accessors

  public Access access() {
    return access;
  }

  public Path path() {
    return path;
  }

  /** The file's validated feature schema (its compatibility checks name the file). */
  public FeatureSchema schema() {
    return schema;
  }

  public FeaturizerSpec spec() {
    return schema.spec();
  }

  public LabelType labelType() {
    return schema.labelType();
  }

  /** Rows per mini-batch, at most. */
  public int batchSize() {
    return batchSize;
  }

  public Order order() {
    return order;
  }

  public long seed() {
    return seed;
  }

  /** Rows in the file: the rows of every epoch. */
  public long rowCount() {
    return layout.rowCount();
  }

  /** Record batches in the file. */
  public int recordBatchCount() {
    return layout.batches().size();
  }

  /** Bytes copied so far in the current epoch. */
  public Copies copies() {
    return new Copies(featureBytesRead, otherBytesRead, featureBytesGathered, otherBytesGathered);
  }

  /**
   * The order in which {@code epoch} visits the record batches: file order for SEQUENTIAL, else
   * a permutation that depends only on (seed, epoch).
   */
  public int[] recordBatchOrder(int epoch) {
    checkEpoch(epoch);
    int n = recordBatchCount();
    return order == Order.SEQUENTIAL ? Shuffle.identity(n) : Shuffle.permutation(n, seed, epoch, -1);
  }

  private static void checkEpoch(int epoch) {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch is " + epoch + ", expected >= 0");
    }
  }

  // ---- epochs

  /**
   * Starts {@code epoch}: the mini-batches of every row of the file in this source's order.
   * Resets {@link #copies()}. Starting another epoch ends this one: its iterator then throws
   * {@link ConcurrentModificationException}. An I/O failure of the reader path surfaces as
   * {@link UncheckedIOException} from {@code hasNext()} or {@code next()}.
   *
   * @throws IllegalArgumentException if epoch < 0
   */
  public Iterator<MiniBatch> epoch(int epoch) {
    checkOpen();
    checkEpoch(epoch);
    int myGeneration = ++generation;
    featureBytesRead = 0;
    otherBytesRead = 0;
    featureBytesGathered = 0;
    otherBytesGathered = 0;
    int[] batchOrder = recordBatchOrder(epoch);
    return new Iterator<>() {
      /** Position in batchOrder of the current record batch. */
      private int position;
      /** Mini-batches taken from the current record batch, and their rows. */
      private int taken;
      private int consumed;
      private int step;
      /** The current record batch's columns once loaded, and its row or block order. */
      private Slices current;
      private int[] inner;

      @Override
      public boolean hasNext() {
        checkGeneration();
        while (position < batchOrder.length && consumed >= rows(batchOrder[position])) {
          position++;
          taken = 0;
          consumed = 0;
          current = null;
          inner = null;
        }
        return position < batchOrder.length;
      }

      @Override
      public MiniBatch next() {
        if (!hasNext()) {
          throw new NoSuchElementException("epoch " + epoch + " has no more mini-batches");
        }
        int index = batchOrder[position];
        if (current == null) {
          current = load(index);
          inner = innerOrder(epoch, index, current.rows());
        }
        int rows = current.rows();
        int[] rowOrder;
        int start;
        if (order == Order.ROWS) {
          int count = Math.min(batchSize, rows - consumed);
          rowOrder = Arrays.copyOfRange(inner, consumed, consumed + count);
          start = -1;
        } else {
          int block = inner[taken];
          start = block * batchSize;
          int count = Math.min(batchSize, rows - start);
          rowOrder = new int[count];
          for (int i = 0; i < count; i++) {
            rowOrder[i] = start + i;
          }
        }
        taken++;
        consumed += rowOrder.length;
        return start >= 0 ? slice(epoch, step++, index, rowOrder, start) : gather(epoch, step++, index, rowOrder);
      }

      private void checkGeneration() {
        checkOpen();
        if (generation != myGeneration) {
          throw new ConcurrentModificationException(
              "epoch " + epoch + " ended: another epoch was started on this source");
        }
      }

      private MiniBatch slice(int e, int s, int index, int[] rowOrder, int start) {
        int count = rowOrder.length;
        return new MiniBatch(
            schema.spec(), schema.labelType(), e, s, index, rowOrder, false,
            current.features().asSlice((long) start * rowBytes, (long) count * rowBytes),
            current.labels() == null ? null : current.labels().asSlice(4L * start, 4L * count),
            current.rowIds() == null ? null : current.rowIds().asSlice(8L * start, 8L * count),
            current.features(), current.rows());
      }

      private MiniBatch gather(int e, int s, int index, int[] rowOrder) {
        int count = rowOrder.length;
        for (int i = 0; i < count; i++) {
          MemorySegment.copy(
              current.features(), (long) rowOrder[i] * rowBytes, gatherFeatures, (long) i * rowBytes,
              rowBytes);
        }
        featureBytesGathered += (long) count * rowBytes;
        MemorySegment labels = null;
        if (current.labels() != null) {
          for (int i = 0; i < count; i++) {
            MemorySegment.copy(current.labels(), 4L * rowOrder[i], gatherLabels, 4L * i, 4);
          }
          otherBytesGathered += 4L * count;
          labels = gatherLabels.asSlice(0, 4L * count);
        }
        MemorySegment rowIds = null;
        if (current.rowIds() != null) {
          for (int i = 0; i < count; i++) {
            MemorySegment.copy(current.rowIds(), 8L * rowOrder[i], gatherRowIds, 8L * i, 8);
          }
          otherBytesGathered += 8L * count;
          rowIds = gatherRowIds.asSlice(0, 8L * count);
        }
        return new MiniBatch(
            schema.spec(), schema.labelType(), e, s, index, rowOrder, true,
            gatherFeatures.asSlice(0, (long) count * rowBytes), labels, rowIds,
            current.features(), current.rows());
      }
    };
  }

  private int rows(int recordBatch) {
    return layout.batches().get(recordBatch).rows();
  }

  /** Rows (ROWS) or blocks (BLOCKS, SEQUENTIAL) of a record batch in visiting order. */
  private int[] innerOrder(int epoch, int recordBatch, int rows) {
    if (order == Order.ROWS) {
      return Shuffle.permutation(rows, seed, epoch, recordBatch);
    }
    int blocks = (int) (((long) rows + batchSize - 1) / batchSize);
    return order == Order.BLOCKS
        ? Shuffle.permutation(blocks, seed, epoch, recordBatch)
        : Shuffle.identity(blocks);
  }

  private Slices load(int index) {
    if (access == Access.MAPPED) {
      return mapped.get(index);
    }
    FeatureFile.Batch batch;
    try {
      batch = file.read(index);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long features = (long) batch.rows() * rowBytes;
    featureBytesRead += features;
    otherBytesRead += layout.batches().get(index).bodyLength() - features;
    return new Slices(batch.rows(), batch.features(), batch.labels(), batch.rowIds());
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("mini-batch source for " + path + " is closed");
    }
  }

  /** Unmaps the file or closes the reader; every mini-batch becomes invalid. Idempotent. */
  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      try {
        if (file != null) {
          file.close();
        }
      } finally {
        arena.close();
      }
    }
  }
}
