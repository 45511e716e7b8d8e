package org.lprff.vector.simd.spi;

import java.lang.foreign.MemorySegment;

/** Reads b-bit packed codes; arguments are validated by {@code PackedFeatures}. */
public interface UnpackBody extends Body {

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
