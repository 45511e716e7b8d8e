package org.lprff.arrow;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.lprff.arrow.memory.ArrowSegments;
import org.lprff.vector.featurize.Featurizer;

/**
 * A record batch of up to {@link #capacity()} feature rows in Arrow memory: a {@link
 * VectorSchemaRoot} of a {@link FeatureSchema}, allocated once from the caller's allocator and
 * filled by {@link #append}. The featurizer writes each row's packed bytes (or float32 values for
 * b = 32) straight into the {@value FeatureSchema#FEATURES} column's data buffer through {@link
 * ArrowSegments}: no intermediate array. Labels and row ids are set beside them and the root's
 * row count follows every append.
 *
 * <p>{@link #clear()} empties the batch for reuse (a writer fills, writes and clears one batch
 * over and over). Not thread-safe; {@link #append} may spread the featurization over an
 * executor. Package-private: {@link FeatureWriter}'s batch, not API.
 */
final class FeatureBatch implements AutoCloseable {

  private final Featurizer featurizer;
  private final FeatureSchema schema;
  private final int capacity;
  private final int rowBytes;
  private final VectorSchemaRoot root;
  private final FieldVector features;
  /** The feature values' buffer, writable, at least capacity * rowBytes bytes. */
  private final MemorySegment featureData;
  /** Validity buffers whose first (rows * bitsPerRow) bits mark rows present. */
  private final ArrowBuf[] validity;
  private final int[] validityBitsPerRow;
  private final Float4Vector floatLabels;
  private final IntVector classLabels;
  private final BigIntVector rowIds;
  private int rows;
  private boolean closed;

  /**
   * Refuses a null argument or a featurizer whose spec is not the schema's: what every writer of
   * feature record batches checks first.
   */
  static void checkArguments(
      Featurizer featurizer, FeatureSchema schema, BufferAllocator allocator) {
    if (featurizer == null) {
      throw new IllegalArgumentException("featurizer is null");
    }
    if (schema == null) {
      throw new IllegalArgumentException("schema is null");
    }
    if (allocator == null) {
      throw new IllegalArgumentException("allocator is null");
    }
    if (!featurizer.spec().equals(schema.spec())) {
      throw new IllegalArgumentException(
          "featurizer spec " + featurizer.spec() + " differs from the schema's " + schema.spec());
    }
  }

  private FeatureBatch(
      Featurizer featurizer, FeatureSchema schema, int capacity, BufferAllocator allocator) {
    this.featurizer = featurizer;
    this.schema = schema;
    this.capacity = capacity;
    this.rowBytes = schema.rowBytes();
    VectorSchemaRoot created = VectorSchemaRoot.create(schema.arrowSchema(), allocator);
    try {
      this.features = created.getVector(FeatureSchema.FEATURES);
      if (features instanceof FixedSizeListVector list) {
        list.setInitialCapacity(capacity);
        list.allocateNew();
        Float4Vector values = (Float4Vector) list.getDataVector();
        this.featureData = ArrowSegments.view(values.getDataBuffer());
        this.validity = new ArrowBuf[] {list.getValidityBuffer(), values.getValidityBuffer()};
        this.validityBitsPerRow = new int[] {1, schema.spec().features()};
      } else {
        FixedSizeBinaryVector binary = (FixedSizeBinaryVector) features;
        binary.allocateNew(capacity);
        this.featureData = ArrowSegments.view(binary.getDataBuffer());
        this.validity = new ArrowBuf[] {binary.getValidityBuffer()};
        this.validityBitsPerRow = new int[] {1};
      }
      if (featureData.byteSize() < (long) capacity * rowBytes) {
        throw new IllegalStateException(
            "Arrow allocated " + featureData.byteSize() + " bytes of features, expected "
                + (long) capacity * rowBytes);
      }
      FieldVector label = schema.labelType() == LabelType.NONE
          ? null : created.getVector(FeatureSchema.LABEL);
      this.floatLabels = label instanceof Float4Vector f ? f : null;
      this.classLabels = label instanceof IntVector i ? i : null;
      if (floatLabels != null) {
        floatLabels.allocateNew(capacity);
      }
      if (classLabels != null) {
        classLabels.allocateNew(capacity);
      }
      this.rowIds = schema.hasRowIds() ? (BigIntVector) created.getVector(FeatureSchema.ROW_ID) : null;
      if (rowIds != null) {
        rowIds.allocateNew(capacity);
      }
      created.setRowCount(0);
    } catch (RuntimeException | Error e) {
      created.close();
      throw e;
    }
    this.root = created;
  }

  /**
   * An empty batch of {@code capacity} rows of {@code schema}, filled by {@code featurizer}.
   *
   * @throws IllegalArgumentException if an argument is null, capacity < 1, the featurizer's spec
   *     is not the schema's, or capacity * rowBytes exceeds Arrow's int-indexed buffers
   */
  public static FeatureBatch allocate(
      Featurizer featurizer, FeatureSchema schema, int capacity, BufferAllocator allocator) {
    checkArguments(featurizer, schema, allocator);
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity is " + capacity + ", expected >= 1");
    }
    long bytes = (long) capacity * schema.rowBytes();
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "capacity * rowBytes = " + capacity + " * " + schema.rowBytes() + " = " + bytes
              + " bytes, more than one Arrow buffer holds (" + Integer.MAX_VALUE + ")");
    }
    return new FeatureBatch(featurizer, schema, capacity, allocator);
  }

  /** {@link #append(float[], int, float[], long, Executor)} on the calling thread. */
  public void append(float[] values, int n, float[] labels, long firstRowId) {
    append(values, n, labels, firstRowId, null);
  }

  /**
   * Featurizes {@code n} rows of {@code values} (row r is {@code values[r d .. (r + 1) d)}, row id
   * {@code firstRowId + r}) into rows {@link #rows()} .. {@code rows() + n - 1} of the batch, in
   * place, and sets their labels and row ids. Nothing is written if an argument is invalid.
   *
   * @param values the raw input rows, d = spec input width floats each
   * @param n rows to append, 0 <= n <= {@link #remaining()}
   * @param labels {@code labels[r]} is row r's label; null when the schema has no label column,
   *     required otherwise; for {@link LabelType#CLASSES} each must be an integer in the int range
   * @param firstRowId the id of row 0 of this call, >= 0
   * @param executor where to spread the featurization, or null for the calling thread
   * @throws IllegalArgumentException naming the value: n out of range, labels missing, short,
   *     unexpected, not finite or not an integer class, or any featurizer argument error
   */
  public void append(float[] values, int n, float[] labels, long firstRowId, Executor executor) {
    checkOpen();
    if (n < 0 || n > capacity - rows) {
      throw new IllegalArgumentException(
          "n is " + n + ", but the batch has " + (capacity - rows) + " free rows of " + capacity);
    }
    checkLabels(labels, n);
    long offset = (long) rows * rowBytes;
    if (executor == null) {
      featurizer.featurize(values, n, firstRowId, featureData, offset, 0);
    } else {
      featurizer.featurize(values, n, firstRowId, featureData, offset, 0, executor);
    }
    commit(n, labels, null, firstRowId);
  }

  /**
   * Appends {@code n} rows featurized elsewhere with this batch's spec (e.g. by a Spark
   * partition): {@code n} x row-bytes bytes of {@code features} from {@code byteOffset} on, copied
   * as they are, with their labels and row ids.
   *
   * @throws IllegalArgumentException naming the value: n out of range, the bytes too few, labels
   *     invalid (as {@link #append}), or a row id missing or negative
   */
  public void appendFeaturized(MemorySegment features, long byteOffset, int n, float[] labels,
      long[] ids) {
    checkOpen();
    if (n < 0 || n > capacity - rows) {
      throw new IllegalArgumentException(
          "n is " + n + ", but the batch has " + (capacity - rows) + " free rows of " + capacity);
    }
    if (features == null || byteOffset < 0
        || features.byteSize() - byteOffset < (long) n * rowBytes) {
      throw new IllegalArgumentException("features hold " + (features == null ? "no"
          : features.byteSize() - byteOffset) + " bytes from offset " + byteOffset
          + ", expected n * rowBytes = " + n + " * " + rowBytes);
    }
    if (ids == null || ids.length < n) {
      throw new IllegalArgumentException("ids has " + (ids == null ? "no" : ids.length)
          + " entries, expected n = " + n);
    }
    for (int r = 0; r < n; r++) {
      if (ids[r] < 0) {
        throw new IllegalArgumentException("row id " + ids[r] + " (row " + r + ") is negative");
      }
    }
    checkLabels(labels, n);
    MemorySegment.copy(features, byteOffset, featureData, (long) rows * rowBytes,
        (long) n * rowBytes);
    commit(n, labels, ids, 0);
  }

  /** Marks n new rows valid and sets their labels and ids (ids[r], or firstRowId + r). */
  private void commit(int n, float[] labels, long[] ids, long firstRowId) {
    for (int k = 0; k < validity.length; k++) {
      setBits(validity[k], (long) rows * validityBitsPerRow[k], (long) n * validityBitsPerRow[k]);
    }
    for (int r = 0; r < n; r++) {
      int at = rows + r;
      if (floatLabels != null) {
        floatLabels.set(at, labels[r]);
      } else if (classLabels != null) {
        classLabels.set(at, (int) labels[r]);
      }
      if (rowIds != null) {
        rowIds.set(at, ids != null ? ids[r] : firstRowId + r);
      }
    }
    rows += n;
    root.setRowCount(rows);
  }

  private void checkLabels(float[] labels, int n) {
    LabelType type = schema.labelType();
    if (type == LabelType.NONE) {
      if (labels != null) {
        throw new IllegalArgumentException(
            "labels were given, but the schema has no label column (label type NONE)");
      }
      return;
    }
    if (labels == null) {
      throw new IllegalArgumentException("labels is null, but the schema's label type is " + type);
    }
    if (labels.length < n) {
      throw new IllegalArgumentException(
          "labels has length " + labels.length + ", expected at least n = " + n);
    }
    for (int r = 0; r < n; r++) {
      float label = labels[r];
      if (!Float.isFinite(label)) {
        throw new IllegalArgumentException("labels[" + r + "] is " + label + ", expected finite");
      }
      if (type == LabelType.CLASSES
          && (label != Math.rint(label) || label < Integer.MIN_VALUE || label > Integer.MAX_VALUE)) {
        throw new IllegalArgumentException(
            "labels[" + r + "] is " + label + ", expected an integer class index (label type"
                + " CLASSES)");
      }
    }
  }

  /** Sets bits [from, from + count) of a validity buffer: whole bytes at once, then the ends. */
  private static void setBits(ArrowBuf buf, long from, long count) {
    long end = from + count;
    long bit = from;
    while (bit < end && (bit & 7) != 0) {
      setBit(buf, bit++);
    }
    long fullBytes = (end - bit) >>> 3;
    if (fullBytes > 0) {
      buf.setOne(bit >>> 3, fullBytes);
      bit += fullBytes << 3;
    }
    while (bit < end) {
      setBit(buf, bit++);
    }
  }

  private static void setBit(ArrowBuf buf, long bit) {
    long index = bit >>> 3;
    buf.setByte(index, buf.getByte(index) | (1 << (bit & 7)));
  }

  /** Empties the batch (row count 0, validity cleared); the buffers are kept for reuse. */
  public void clear() {
    checkOpen();
    for (int k = 0; k < validity.length; k++) {
      long bytes = ((long) rows * validityBitsPerRow[k] + 7) >>> 3;
      validity[k].setZero(0, bytes);
    }
    for (FieldVector vector : new FieldVector[] {floatLabels, classLabels, rowIds}) {
      if (vector != null) {
        vector.getValidityBuffer().setZero(0, ((long) rows + 7) >>> 3);
      }
    }
    rows = 0;
    root.setRowCount(0);
  }

  /** The schema of the batch. */
  public FeatureSchema schema() {
    return schema;
  }

  /** Rows the batch holds when full. */
  public int capacity() {
    return capacity;
  }

  /** Rows appended since allocation or the last {@link #clear()}. */
  public int rows() {
    return rows;
  }

  /** capacity() - rows(). */
  public int remaining() {
    return capacity - rows;
  }

  /**
   * The Arrow root, its row count {@link #rows()}. Owned by this batch: valid until {@link
   * #close()}; its contents change with {@link #append} and {@link #clear()}.
   */
  public VectorSchemaRoot root() {
    checkOpen();
    return root;
  }

  /**
   * The feature bytes of the rows present, in place: row r is bytes [r rowBytes, (r + 1)
   * rowBytes). Valid while the batch is open; writes through it change the batch.
   */
  public MemorySegment features() {
    checkOpen();
    return featureData.asSlice(0, (long) rows * rowBytes);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("feature batch is closed");
    }
  }

  /** Releases the Arrow buffers. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      root.close();
    }
  }
}
