package org.lprff.vector.simd.spi;

import java.lang.foreign.MemorySegment;

/**
 * Bodies of {@code StochasticRounding} and {@code BitPacking}: scalar reference and Vector API.
 * Arguments are validated by the facades: values are finite and within the scale's range up to
 * the facade's slack, codes are in range, {@code byteOffset} is where the first value's bits
 * start (its column is a multiple of 8, so every bit width starts on a byte) and the segment is
 * large enough for ceil(count * bits / 8) bytes.
 */
public interface RoundingBody extends Body {

  void quantizeStochastic(
      float[] values, int off, int count, int bits, float lo, float step,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long byteOffset);

  void quantizeNearest(
      float[] values, int off, int count, int bits, float lo, float step,
      MemorySegment out, long byteOffset);

  void packCodes(int[] codes, int off, int count, int bits, MemorySegment out, long byteOffset);
}
