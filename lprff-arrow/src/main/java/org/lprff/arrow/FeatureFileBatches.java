package org.lprff.arrow;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.lprff.arrow.ipc.IpcFileLayout;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Shuffle;

/**
 * A feature file (Arrow IPC file format) as the training core's {@link MiniBatchSource}: the one
 * way training and evaluation read feature files.
 *
 * <p><b>What a batch is.</b> A mini-batch holds up to {@code batchSize} rows of one record batch;
 * it never spans two, so the last mini-batch of each record batch may be smaller (write files
 * with a record batch size that is a multiple of the training batch size to avoid that). Each
 * epoch visits every row of the file exactly once.
 *
 * <p><b>Order</b>, a pure function of (seed, epoch) through {@link Shuffle}'s policy (stream -1
 * orders the record batches, stream k the rows or blocks of record batch k):
 *
 * <ul>
 *   <li>{@link Order#SEQUENTIAL}: file order, no shuffling (evaluation).
 *   <li>{@link Order#BLOCKS}: the record batches in a random order; inside each, the blocks of
 *       {@code batchSize} consecutive rows in a random order. Every mini-batch's features are a
 *       slice of its record batch: nothing is copied, but rows of a block always train together,
 *       so the file itself should be written from shuffled input.
 *   <li>{@link Order#ROWS} (the default): the record batches in a random order; inside each, a
 *       random permutation of its rows, cut into consecutive mini-batches. The features of a
 *       mini-batch are gathered into a scratch buffer ({@code rows * rowBytes} bytes per step,
 *       counted in {@link Copies#featureBytesGathered()}).
 * </ul>
 *
 * <p><b>Access</b>, the two ways the bytes reach memory:
 *
 * <ul>
 *   <li>{@link Access#MAPPED} ({@link #mapped}, the default): the whole file is mapped read-only
 *       and every column is a slice of the mapping at its buffer's offset; epochs over a file
 *       larger than the heap (or than RAM: the OS pages it) never copy feature bytes, and the
 *       packed products read them in native memory. Only the metadata is read with ordinary
 *       reads. Needs uncompressed buffers at 8-byte aligned file offsets (what Arrow writers
 *       produce); a file without them is refused.
 *   <li>{@link Access#READER} ({@link #reader}): Arrow's {@code ArrowFileReader} copies each
 *       record batch body into off-heap Arrow buffers ({@link Copies#featureBytesRead()} counts
 *       the feature bytes, {@link Copies#otherBytesRead()} the rest of the bodies).
 * </ul>
 *
 * <p><b>Labels</b> and row ids are copied into the batch's arrays (12 bytes a row at most, counted
 * in {@link Copies#labelBytesCopied()}): a Float32 label column gives {@link MiniBatch#targets()},
 * an Int32 column {@link MiniBatch#classes()}. With {@code classesFromFloat} a Float32 column is
 * read as class indices, each of which must be an integer (else {@link IllegalArgumentException}
 * naming the file, the row and the value).
 *
 * <p>A batch is valid until its iterator advances (its features, mapped and in order SEQUENTIAL
 * or BLOCKS, until the source is closed: {@link #featuresOutliveBatch()}); starting another epoch ends the current one
 * (its iterator then throws {@link ConcurrentModificationException}), and {@link #close()}
 * invalidates every batch. <b>One thread at a time</b>: the thread that starts an epoch iterates
 * it, and until it closes the epoch ({@code Batches.close()}), another thread's {@link #epoch}
 * throws {@link IllegalStateException} naming both threads; a batch's features may be read by
 * others. To train from one file on several threads, open one source per thread (the mapped
 * pages are shared by the OS; {@code ConcurrentSourcesTest}). Shared sources used to race: the
 * gather scratch and the reader's batch are the source's, and a run on a shared source once gave
 * a wrong model without an exception.
 *
 * <p><b>Checksums.</b> {@link #verify()} checks every record batch's body against the CRC32C
 * stored with it ({@link BatchChecksums}).
 */
public final class FeatureFileBatches implements MiniBatchSource, AutoCloseable {

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
   * @param labelBytesCopied label and row id bytes copied into the batches' arrays
   */
  public record Copies(
      long featureBytesRead,
      long otherBytesRead,
      long featureBytesGathered,
      long labelBytesCopied) {}

  /** One record batch's columns as segments: slices of the mapping, or Arrow buffers. */
  private record Slices(int rows, MemorySegment features, MemorySegment labels, MemorySegment rowIds) {}

  private final Access access;
  private final Path path;
  private final IpcFileLayout layout;
  private final FeatureSchema schema;
  private final int rowBytes;
  private final Order order;
  private final boolean classesFromFloat;
  /** Owns the mapping (mapped path) and the gather scratch (both paths). */
  private final Arena arena;
  private final List<Slices> mapped;
  /** The whole file mapped (mapped path), for checksums; null on the reader path. */
  private final MemorySegment mapping;
  private final FeatureFile file;
  /** The thread whose epoch is open, or null: a source serves one thread at a time. */
  private final AtomicReference<Thread> reader = new AtomicReference<>();
  /** The file's size and modification time when it was opened (null: unknown). */
  private final FileTime openedModified;
  private MemorySegment gatherFeatures;
  private int generation;
  private long featureBytesRead;
  private long otherBytesRead;
  private long featureBytesGathered;
  private long labelBytesCopied;
  private boolean closed;

  private FeatureFileBatches(
      Access access, Path path, IpcFileLayout layout, FeatureSchema schema, Order order,
      boolean classesFromFloat, Arena arena, List<Slices> mapped, MemorySegment mapping,
      FeatureFile file) {
    this.access = access;
    this.path = path;
    this.layout = layout;
    this.schema = schema;
    this.rowBytes = schema.rowBytes();
    this.order = order;
    this.classesFromFloat = classesFromFloat;
    this.arena = arena;
    this.mapped = mapped;
    this.mapping = mapping;
    this.file = file;
    this.openedModified = modifiedTime(path);
  }

  private static FileTime modifiedTime(Path path) {
    try {
      return Files.getLastModifiedTime(path);
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * What changed in the file since it was opened, or null if nothing shows: another size than
   * the mapped one, another modification time, or no file at all. A mapped file truncated under
   * the reader makes the next read of a lost page fault, which the JVM reports as a bare {@link
   * InternalError} ("a fault occurred in an unsafe memory access operation"); {@link
   * #throwIfChanged} turns that into a message naming the file.
   */
  public String changeSinceOpened() {
    long size;
    FileTime modified;
    try {
      size = Files.size(path);
      modified = Files.getLastModifiedTime(path);
    } catch (IOException e) {
      return "it can no longer be read (" + e.getClass().getSimpleName() + ": " + e.getMessage()
          + ")";
    }
    if (size != layout.fileSize()) {
      return "it was " + layout.fileSize() + " bytes when opened and is " + size + " bytes now";
    }
    if (openedModified != null && !openedModified.equals(modified)) {
      return "it was modified at " + modified + " (opened as of " + openedModified + ")";
    }
    return null;
  }

  /**
   * Throws, when one of {@code sources} (nulls skipped) changed since it was opened, an {@link
   * IOException} that names the file and the change, with {@code failure} as its cause: a feature
   * file truncated or rewritten while a run reads it. Call it where a read of the sources failed
   * (often with the JVM's {@link InternalError} of a faulting mapped read, possibly wrapped by a
   * helper thread), then rethrow the failure itself if this returns.
   */
  public static void throwIfChanged(Throwable failure, FeatureFileBatches... sources)
      throws IOException {
    for (FeatureFileBatches source : sources) {
      String change = source == null ? null : source.changeSinceOpened();
      if (change != null) {
        throw new IOException(source.path + " changed while it was being read: " + change
            + ". A feature file must stay unchanged while train or evaluate reads it; write a new"
            + " file and rename it into place instead (featurize does).", failure);
      }
    }
  }

  /** The file mapped, its rows shuffled per epoch (order ROWS), labels in the column's type. */
  public static FeatureFileBatches open(Path file) throws IOException {
    return mapped(file, Order.ROWS, false);
  }

  /**
   * A source reading {@code file} with Arrow's file reader into buffers of {@code allocator}.
   *
   * @param classesFromFloat read a Float32 label column as integer class indices
   * @throws IllegalArgumentException if an argument is null
   * @throws IOException naming the file if it is unreadable, corrupted or not a feature file
   */
  public static FeatureFileBatches reader(
      Path file, BufferAllocator allocator, Order order, boolean classesFromFloat)
      throws IOException {
    checkArguments(file, order);
    if (allocator == null) {
      throw new IllegalArgumentException("allocator is null");
    }
    FeatureFile opened = FeatureFile.open(file, allocator);
    Arena arena = Arena.ofShared();
    try {
      return new FeatureFileBatches(
          Access.READER, file, opened.layout(), opened.featureSchema(), order, classesFromFloat,
          arena, null, null, opened);
    } catch (RuntimeException | Error e) {
      arena.close();
      opened.close();
      throw e;
    }
  }

  /**
   * A source over a read-only memory mapping of {@code file}.
   *
   * @param classesFromFloat read a Float32 label column as integer class indices
   * @throws IllegalArgumentException if an argument is null
   * @throws IOException naming the file if it is unreadable, corrupted, not a feature file, or
   *     has compressed or unaligned buffers
   */
  public static FeatureFileBatches mapped(Path file, Order order, boolean classesFromFloat)
      throws IOException {
    checkArguments(file, order);
    Arena arena = Arena.ofShared();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      IpcFileLayout layout = IpcFileLayout.read(file, channel);
      FeatureSchema schema = FeatureFile.schemaOf(file, layout.schema());
      // The mapping outlives the channel; the arena unmaps it.
      MemorySegment mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, layout.fileSize(), arena);
      List<Slices> slices = slices(file, layout, schema, mapping);
      return new FeatureFileBatches(
          Access.MAPPED, file, layout, schema, order, classesFromFloat, arena, slices, mapping,
          null);
    } catch (IOException | RuntimeException | Error e) {
      arena.close();
      throw e;
    }
  }

  private static void checkArguments(Path file, Order order) {
    if (file == null) {
      throw new IllegalArgumentException("file is null");
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

  public Order order() {
    return order;
  }

  @Override
  public int features() {
    return schema.spec().modelFeatures();
  }

  @Override
  public int bits() {
    return schema.spec().bits();
  }

  /**
   * Mapped and not gathered (order SEQUENTIAL or BLOCKS): a batch's features are a slice of the
   * mapping, valid until the source is closed.
   */
  @Override
  public boolean featuresOutliveBatch() {
    return access == Access.MAPPED && order != Order.ROWS;
  }

  /** Rows in the file: the rows of every epoch. */
  @Override
  public long rows() {
    return layout.rowCount();
  }

  /** Record batches in the file. */
  public int recordBatchCount() {
    return layout.batches().size();
  }

  /** Bytes copied so far in the current epoch. */
  public Copies copies() {
    return new Copies(featureBytesRead, otherBytesRead, featureBytesGathered, labelBytesCopied);
  }

  /**
   * The order in which {@code epoch} visits the record batches: file order for SEQUENTIAL, else
   * a permutation that depends only on (seed, epoch).
   */
  public int[] recordBatchOrder(int epoch, long seed) {
    MiniBatchSource.checkEpoch(epoch, 1);
    int n = recordBatchCount();
    return order == Order.SEQUENTIAL
        ? Shuffle.identity(n)
        : Shuffle.permutation(n, seed, epoch, Shuffle.EPOCH_ORDER);
  }

  /**
   * Checks every record batch's body against the CRC32C stored with it ({@link BatchChecksums}):
   * one sequential read of the file, through the mapping or positional reads. Training calls it
   * before the first epoch unless told not to.
   *
   * @return how many batches carried a checksum (none in files written before checksums)
   * @throws BatchChecksums.DamagedBatchException naming the first damaged batch, its rows, its
   *     bytes and both checksums
   * @throws IOException if the file cannot be read
   */
  public BatchChecksums.Report verify() throws IOException {
    checkOpen();
    if (mapping != null) {
      return BatchChecksums.verify(path, layout.batches(), BatchChecksums.Bodies.of(mapping));
    }
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      return BatchChecksums.verify(
          path, layout.batches(), BatchChecksums.Bodies.of(path, channel));
    }
  }

  // ---- epochs

  /**
   * Starts {@code epoch}: the mini-batches of every row of the file in this source's order. Resets
   * {@link #copies()} and ends the previous epoch. An I/O failure of the reader path surfaces as
   * {@link UncheckedIOException} from {@code hasNext()} or {@code next()}.
   *
   * @throws IllegalArgumentException if epoch < 0 or batchSize < 1
   * @throws IllegalStateException if the source is closed, or another thread's epoch is open
   *     (a source serves one thread at a time; open one per thread)
   */
  @Override
  public Batches epoch(int epoch, int batchSize, long seed) {
    checkOpen();
    MiniBatchSource.checkEpoch(epoch, batchSize);
    Thread me = Thread.currentThread();
    if (!reader.compareAndSet(null, me) && reader.get() != me) {
      Thread other = reader.get();
      throw new IllegalStateException("feature file batches of " + path + " are being read by"
          + " thread \"" + (other == null ? "?" : other.getName()) + "\"; thread \""
          + me.getName() + "\" cannot start an epoch until that one is closed. A source serves"
          + " one thread at a time: open one per thread (the mapped pages are shared).");
    }
    int myGeneration = ++generation;
    featureBytesRead = 0;
    otherBytesRead = 0;
    featureBytesGathered = 0;
    labelBytesCopied = 0;
    if (order == Order.ROWS && (gatherFeatures == null
        || gatherFeatures.byteSize() < (long) batchSize * rowBytes)) {
      gatherFeatures = arena.allocate((long) batchSize * rowBytes, 8);
    }
    return new EpochBatches(epoch, batchSize, seed, myGeneration);
  }

  /** One epoch's iterator: record batch by record batch, mini-batch by mini-batch. */
  private final class EpochBatches implements Batches {
    private final int epoch;
    private final int batchSize;
    private final long seed;
    private final int myGeneration;
    private final int[] batchOrder;
    private final boolean floatLabels = schema.labelType() == LabelType.REGRESSION;
    private final boolean intLabels = schema.labelType() == LabelType.CLASSES;
    private final float[] targets;
    private final int[] classes;
    private final long[] ids;
    /** Position in batchOrder of the current record batch. */
    private int position;
    /** Mini-batches taken from the current record batch, and their rows. */
    private int taken;
    private int consumed;
    /** Rows of the epoch before the current batch: file row numbers in order SEQUENTIAL. */
    private long before;
    /** The current record batch's columns once loaded, and its row or block order. */
    private Slices current;
    private int[] inner;

    EpochBatches(int epoch, int batchSize, long seed, int myGeneration) {
      this.epoch = epoch;
      this.batchSize = batchSize;
      this.seed = seed;
      this.myGeneration = myGeneration;
      this.batchOrder = recordBatchOrder(epoch, seed);
      boolean asClasses = intLabels || (floatLabels && classesFromFloat);
      this.targets = floatLabels && !asClasses ? new float[batchSize] : null;
      this.classes = asClasses ? new int[batchSize] : null;
      this.ids = schema.hasRowIds() ? new long[batchSize] : null;
    }

    /** Ends the epoch and lets another thread start one. */
    @Override
    public void close() {
      if (generation == myGeneration) {
        reader.compareAndSet(Thread.currentThread(), null);
      }
    }

    @Override
    public boolean hasNext() {
      checkOpen();
      if (generation != myGeneration) {
        throw new ConcurrentModificationException(
            "epoch " + epoch + " ended: another epoch was started on " + path);
      }
      if (reader.get() != Thread.currentThread()) {
        throw new IllegalStateException("epoch " + epoch + " of " + path + " was started by"
            + " another thread or closed; one thread iterates an epoch");
      }
      while (position < batchOrder.length
          && consumed >= layout.batches().get(batchOrder[position]).rows()) {
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
        inner = innerOrder(index, current.rows());
      }
      MemorySegment features;
      int count;
      if (order == Order.ROWS) {
        count = Math.min(batchSize, current.rows() - consumed);
        for (int i = 0; i < count; i++) {
          MemorySegment.copy(current.features(), (long) inner[consumed + i] * rowBytes,
              gatherFeatures, (long) i * rowBytes, rowBytes);
        }
        featureBytesGathered += (long) count * rowBytes;
        features = gatherFeatures;
      } else {
        int start = inner[taken] * batchSize;
        count = Math.min(batchSize, current.rows() - start);
        features = current.features().asSlice((long) start * rowBytes, (long) count * rowBytes);
      }
      copyLabels(index, count);
      taken++;
      consumed += count;
      before += count;
      return new MiniBatch(rows(features, count), targets, classes, ids);
    }

    /** Row i of this step: its index in the current record batch. */
    private int rowIndex(int i) {
      return order == Order.ROWS ? inner[consumed + i] : inner[taken] * batchSize + i;
    }

    private void copyLabels(int recordBatch, int count) {
      for (int i = 0; i < count; i++) {
        int r = rowIndex(i);
        if (ids != null) {
          ids[i] = current.rowIds().get(LittleEndian.LONG, 8L * r);
        }
        if (targets != null) {
          targets[i] = current.labels().get(LittleEndian.FLOAT, 4L * r);
        } else if (intLabels) {
          classes[i] = current.labels().get(LittleEndian.INT, 4L * r);
        } else if (classes != null) {
          float v = current.labels().get(LittleEndian.FLOAT, 4L * r);
          if (!(v == Math.rint(v)) || Math.abs(v) > (1 << 24)) {
            String row = ids != null ? "id " + ids[i]
                : order == Order.SEQUENTIAL ? Long.toString(before + i)
                : r + " of record batch " + recordBatch;
            throw new IllegalArgumentException(path + ": label of row " + row + " is " + v
                + ", expected an integer class index for classification");
          }
          classes[i] = (int) v;
        }
      }
      labelBytesCopied += (long) count
          * ((ids != null ? 8 : 0) + (schema.labelType() == LabelType.NONE ? 0 : 4));
    }

    /** Rows (ROWS) or blocks (BLOCKS, SEQUENTIAL) of a record batch in visiting order. */
    private int[] innerOrder(int recordBatch, int rows) {
      if (order == Order.ROWS) {
        return Shuffle.permutation(rows, seed, epoch, recordBatch);
      }
      int blocks = (int) (((long) rows + batchSize - 1) / batchSize);
      return order == Order.BLOCKS
          ? Shuffle.permutation(blocks, seed, epoch, recordBatch)
          : Shuffle.identity(blocks);
    }
  }

  /** {@code count} feature rows at the start of {@code features}, packed or float32. */
  private FeatureRows rows(MemorySegment features, int count) {
    FeaturizerSpec spec = schema.spec();
    return FeatureRows.of(spec, features, 0, count);
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
      throw new IllegalStateException("feature file batches of " + path + " are closed");
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
