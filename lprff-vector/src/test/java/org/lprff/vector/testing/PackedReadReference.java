package org.lprff.vector.testing;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Independent definitions for the packed-read tests: a bit-by-bit reader and segment helpers. */
public final class PackedReadReference {

  public static final int[] BITS = {1, 2, 4, 8, 16};

  private PackedReadReference() {}

  /**
   * Code of feature i read one bit at a time from the definition (DESIGN.md section 3): bit k of
   * the row is bit (k mod 8) of byte k/8, feature i is bits [i*b, (i+1)*b), least significant
   * first. Shares nothing with the kernels.
   */
  public static int bitByBitCode(byte[] bytes, int rowStart, int bits, int i) {
    int code = 0;
    for (int k = 0; k < bits; k++) {
      long bit = (long) i * bits + k;
      int value = (bytes[rowStart + (int) (bit / 8)] >> (int) (bit % 8)) & 1;
      code |= value << k;
    }
    return code;
  }

  /** Feature value as the contract defines it: one fused multiply-add rounded to float. */
  public static float value(int code, float lo, float step) {
    return Math.fma((float) code, step, lo);
  }

  /** The same bytes on the heap (wrapped array) or off-heap (in {@code arena}). */
  public static MemorySegment segment(byte[] bytes, boolean offHeap, Arena arena) {
    if (!offHeap) {
      return MemorySegment.ofArray(bytes);
    }
    MemorySegment s = arena.allocate(Math.max(1, bytes.length), 64);
    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, 0, bytes.length);
    return bytes.length == 0 ? s.asSlice(0, 0) : s;
  }

  /** LP-RFF scale for m features of b bits: lo = -sqrt(2/m), step = 2 sqrt(2/m) / (2^b - 1). */
  public static float lo(int m) {
    return (float) -Math.sqrt(2.0 / Math.max(1, m));
  }

  public static float step(int m, int bits) {
    return (float) (2 * Math.sqrt(2.0 / Math.max(1, m)) / ((1L << bits) - 1));
  }

  /** Higham's gamma_k = k u / (1 - k u), u = 2^-24 (float32 unit roundoff). */
  public static double gamma(long k) {
    double ku = k * 0x1p-24;
    return ku / (1 - ku);
  }

  public static void putFloatLe(MemorySegment s, long at, float v) {
    s.set(ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), at, v);
  }
}
