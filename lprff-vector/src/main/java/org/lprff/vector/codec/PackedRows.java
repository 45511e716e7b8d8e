package org.lprff.vector.codec;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.layout.PackedLayout;

/**
 * A batch of packed feature rows, in place: {@code rows} rows of {@code features} features at
 * {@code scale.bits()} bits, row r starting at byte {@code byteOffset + r * rowBytes()} of
 * {@code segment} (contiguous, as in an Arrow FixedSizeBinary column). The constructor checks that
 * the batch fits in the segment; the bytes are not copied and stay the caller's.
 *
 * @param segment the packed bytes, heap or off-heap
 * @param byteOffset where row 0 starts
 * @param rows number of rows n, >= 0
 * @param features features per row m, >= 0
 * @param scale bits per feature and the value of each code
 */
public record PackedRows(
    MemorySegment segment, long byteOffset, int rows, int features, QuantizationScale scale) {

  public PackedRows {
    if (scale == null) {
      throw new IllegalArgumentException("scale is null");
    }
    PackedLayout.checkRows("segment", segment, byteOffset, rows, features, scale.bits());
  }

  /** Rows packed in a heap array from {@code bytes[byteOffset]} on. */
  public static PackedRows of(
      byte[] bytes, int byteOffset, int rows, int features, QuantizationScale scale) {
    return new PackedRows(PackedFeatures.ofArray(bytes), byteOffset, rows, features, scale);
  }

  /** Bytes of one row, ceil(features * bits / 8). */
  public long rowBytes() {
    return PackedLayout.rowBytes(features, scale.bits());
  }
}
