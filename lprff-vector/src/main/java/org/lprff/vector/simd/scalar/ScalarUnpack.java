package org.lprff.vector.simd.scalar;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.spi.UnpackBody;

/** Reference unpacking: one code at a time. */
public final class ScalarUnpack implements UnpackBody {

  @Override
  public void unpackCodes(
      MemorySegment src, long byteOffset, int bits, int count, int[] out, int off) {
    for (int i = 0; i < count; i++) {
      out[off + i] = PackedLayout.code(src, byteOffset, bits, i);
    }
  }

  @Override
  public void unpack(
      MemorySegment src,
      long byteOffset,
      int bits,
      int count,
      float lo,
      float step,
      float[] out,
      int off) {
    for (int i = 0; i < count; i++) {
      out[off + i] = PackedLayout.value(src, byteOffset, bits, i, lo, step);
    }
  }
}
