package org.lprff.vector.codec;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.layout.PackedLayout;

/**
 * A batch of n packed rows of m b-bit codes (DESIGN.md section 3) whose values are a table of 2^b
 * levels, {@code levels[code]}: a codebook (Lloyd-Max) where {@link PackedRows} has a uniform grid.
 * The bytes stay the caller's; the levels are copied. b in {1, 2, 4, 8}.
 */
public record CodebookRows(
    MemorySegment segment, long byteOffset, int rows, int features, int bits, float[] levels) {

  public CodebookRows {
    BitWidths.checkCodes("bits", bits, Quantizer.LLOYD_MAX); // the codebook quantizer's widths
    if (levels == null || levels.length != 1 << bits) {
      throw new IllegalArgumentException("levels has " + (levels == null ? "no" : levels.length)
          + " values, expected 2^" + bits + " = " + (1 << bits));
    }
    PackedLayout.checkRows("segment", segment, byteOffset, rows, features, bits);
    levels = levels.clone();
  }

  /** A copy of the levels. */
  @Override
  public float[] levels() {
    return levels.clone();
  }

  /** Bytes per row, ceil(m b / 8). */
  public long rowBytes() {
    return PackedLayout.rowBytes(features, bits);
  }
}
