package org.lprff.arrow;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;

/**
 * One training step's rows from a {@link MiniBatchSource}: {@link #rows()} rows of one record
 * batch, contiguous in {@link #features()} (row i at bytes [i rowBytes, (i + 1) rowBytes)), with
 * their labels and row ids at the same positions.
 *
 * <p>Row i of the mini-batch is row {@link #rowIndex(int) rowIndex(i)} of record batch {@link
 * #recordBatch()}. When those rows are consecutive (orders SEQUENTIAL and BLOCKS) the segments
 * are slices of the record batch itself, not copies; for order ROWS they were gathered into the
 * source's scratch buffers ({@link #gathered()}).
 *
 * <p>A mini-batch is valid until the source's next step or its {@link MiniBatchSource#close()}.
 * After the record batch it views is released an access throws {@link IllegalStateException};
 * gathered segments are reused, so a kept mini-batch may show a later step's rows. The segments
 * are read-only in the mapped path and may be read from any thread.
 */
public final class MiniBatch {


  private final FeaturizerSpec spec;
  private final LabelType labelType;
  private final int epoch;
  private final int step;
  private final int recordBatch;
  private final int[] rowOrder;
  private final boolean gathered;
  private final MemorySegment features;
  private final MemorySegment labels;
  private final MemorySegment rowIds;
  private final MemorySegment recordBatchFeatures;
  private final int recordBatchRows;

  MiniBatch(
      FeaturizerSpec spec,
      LabelType labelType,
      int epoch,
      int step,
      int recordBatch,
      int[] rowOrder,
      boolean gathered,
      MemorySegment features,
      MemorySegment labels,
      MemorySegment rowIds,
      MemorySegment recordBatchFeatures,
      int recordBatchRows) {
    this.spec = spec;
    this.labelType = labelType;
    this.epoch = epoch;
    this.step = step;
    this.recordBatch = recordBatch;
    this.rowOrder = rowOrder;
    this.gathered = gathered;
    this.features = features;
    this.labels = labels;
    this.rowIds = rowIds;
    this.recordBatchFeatures = recordBatchFeatures;
    this.recordBatchRows = recordBatchRows;
  }

  /** The epoch this step belongs to. */
  public int epoch() {
    return epoch;
  }

  /** The step's position in its epoch, from 0. */
  public int step() {
    return step;
  }

  /** The index (file order) of the record batch the rows come from. */
  public int recordBatch() {
    return recordBatch;
  }

  /** Rows in this mini-batch, >= 1. */
  public int rows() {
    return rowOrder.length;
  }

  /** The featurizer spec of the rows. */
  public FeaturizerSpec spec() {
    return spec;
  }

  /** Bytes per feature row. */
  public int rowBytes() {
    return spec.rowBytes();
  }

  /** The rows' features, contiguous: rows() * rowBytes() bytes. */
  public MemorySegment features() {
    return features;
  }

  /**
   * The rows' labels, contiguous, in the column's own type: little-endian float32 for {@link
   * LabelType#REGRESSION}, little-endian int32 class indices for {@link LabelType#CLASSES}
   * (never converted, so never copied); null for {@link LabelType#NONE}.
   */
  public MemorySegment labels() {
    return labels;
  }

  public LabelType labelType() {
    return labelType;
  }

  /** The rows' ids, little-endian int64, or null if the file has no row id column. */
  public MemorySegment rowIds() {
    return rowIds;
  }

  /** Row i's label as a float (a class index converted exactly for |index| <= 2^24). */
  public float label(int i) {
    if (labels == null) {
      throw new IllegalStateException("the file has no label column");
    }
    checkRow(i);
    return labelType == LabelType.REGRESSION
        ? labels.get(LittleEndian.FLOAT, 4L * i)
        : labels.get(LittleEndian.INT, 4L * i);
  }

  /** Row i's class index (label type CLASSES). */
  public int classIndex(int i) {
    if (labelType != LabelType.CLASSES) {
      throw new IllegalStateException("label type is " + labelType + ", not CLASSES");
    }
    checkRow(i);
    return labels.get(LittleEndian.INT, 4L * i);
  }

  /** Row i's id. */
  public long rowId(int i) {
    if (rowIds == null) {
      throw new IllegalStateException("the file has no " + FeatureSchema.ROW_ID + " column");
    }
    checkRow(i);
    return rowIds.get(LittleEndian.LONG, 8L * i);
  }

  /** The index in its record batch of row i of this mini-batch. */
  public int rowIndex(int i) {
    checkRow(i);
    return rowOrder[i];
  }

  /** A copy of the record batch row indices of rows 0 .. rows() - 1. */
  public int[] rowOrder() {
    return rowOrder.clone();
  }

  /** True if the rows were copied into scratch buffers (order ROWS), false for slices. */
  public boolean gathered() {
    return gathered;
  }

  /** Every feature row of the record batch, in place (row r at r * rowBytes()). */
  public MemorySegment recordBatchFeatures() {
    return recordBatchFeatures;
  }

  /** Rows in the record batch. */
  public int recordBatchRows() {
    return recordBatchRows;
  }

  /**
   * The features as the packed rows the training kernels ({@code PackedProducts}) read, b < 32.
   *
   * @throws IllegalStateException for b = 32, whose float32 rows go to {@code FloatProducts}
   *     through {@link #features()}
   */
  public PackedRows packedRows() {
    if (spec.isFloat()) {
      throw new IllegalStateException(
          "bits is 32 (float32 features): pass features() to FloatProducts instead of PackedRows");
    }
    return new PackedRows(features, 0, rows(), spec.features(), spec.scale());
  }

  private void checkRow(int i) {
    if (i < 0 || i >= rowOrder.length) {
      throw new IndexOutOfBoundsException("row " + i + " of a mini-batch of " + rowOrder.length);
    }
  }

  @Override
  public String toString() {
    return "MiniBatch[epoch " + epoch + ", step " + step + ", record batch " + recordBatch + ", "
        + rows() + " rows" + (gathered ? ", gathered" : "") + "]";
  }
}
