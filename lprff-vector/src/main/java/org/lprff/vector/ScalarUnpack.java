package org.lprff.vector;

import java.lang.foreign.MemorySegment;

/** Reference unpacking: one code at a time. */
final class ScalarUnpack implements UnpackKernel {

  @Override
  public void unpackCodes(
      MemorySegment src, long byteOffset, int bits, int count, int[] out, int off) {
    for (int i = 0; i < count; i++) {
      out[off + i] = PackedLanes.code(src, byteOffset, bits, i);
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
      out[off + i] = PackedLanes.value(src, byteOffset, bits, i, lo, step);
    }
  }
}
