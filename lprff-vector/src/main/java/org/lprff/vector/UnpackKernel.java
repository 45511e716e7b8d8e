package org.lprff.vector;

import java.lang.foreign.MemorySegment;

/** Reads b-bit packed codes; arguments are validated by {@link PackedFeatures}. */
interface UnpackKernel {

  /** {@code out[off + i] = code of feature i} for i in [0, count). */
  void unpackCodes(MemorySegment src, long byteOffset, int bits, int count, int[] out, int off);

  /** {@code out[off + i] = fma(code_i, step, lo)} for i in [0, count). */
  void unpack(
      MemorySegment src,
      long byteOffset,
      int bits,
      int count,
      float lo,
      float step,
      float[] out,
      int off);
}
