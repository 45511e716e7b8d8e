package org.lprff.vector;

import java.lang.foreign.MemorySegment;

/**
 * Reading b-bit packed feature rows (DESIGN.md section 3): feature i occupies bits
 * [i*b, (i+1)*b) of the row, bit k being bit (k mod 8) of byte k/8; b = 16 is little-endian
 * uint16. The value of code j is {@code fma(j, step, lo)} rounded once to float.
 */
public final class PackedFeatures {

  private static final UnpackKernel KERNEL =
      Kernels.active() == KernelImplementation.VECTOR ? new VectorUnpack() : new ScalarUnpack();

  private PackedFeatures() {}

  /** Bytes of one packed row of {@code m} features of {@code bits} bits: ceil(m * bits / 8). */
  public static long rowBytes(int m, int bits) {
    checkBits(bits);
    if (m < 0) {
      throw new IllegalArgumentException("m is " + m + ", expected >= 0");
    }
    return PackedLanes.rowBytes(m, bits);
  }

  /**
   * Writes the codes of features 0..count-1 packed at {@code src[byteOffset..]} to {@code
   * out[off..off+count)}.
   */
  public static void unpackCodes(
      MemorySegment src, long byteOffset, int bits, int count, int[] out, int off) {
    checkSource(src, byteOffset, bits, count);
    checkOut(out == null ? -1 : out.length, off, count);
    KERNEL.unpackCodes(src, byteOffset, bits, count, out, off);
  }

  /** {@link #unpackCodes(MemorySegment, long, int, int, int[], int)} on a heap array. */
  public static void unpackCodes(
      byte[] src, int byteOffset, int bits, int count, int[] out, int off) {
    unpackCodes(ofArray(src), byteOffset, bits, count, out, off);
  }

  /**
   * Writes the values {@code fma(code_i, step, lo)} of features 0..count-1 packed at {@code
   * src[byteOffset..]} to {@code out[off..off+count)}.
   */
  public static void unpack(
      MemorySegment src,
      long byteOffset,
      int bits,
      int count,
      float lo,
      float step,
      float[] out,
      int off) {
    checkSource(src, byteOffset, bits, count);
    checkScale(lo, step);
    checkOut(out == null ? -1 : out.length, off, count);
    KERNEL.unpack(src, byteOffset, bits, count, lo, step, out, off);
  }

  /** {@link #unpack(MemorySegment, long, int, int, float, float, float[], int)} on a heap array. */
  public static void unpack(
      byte[] src, int byteOffset, int bits, int count, float lo, float step, float[] out, int off) {
    unpack(ofArray(src), byteOffset, bits, count, lo, step, out, off);
  }

  static MemorySegment ofArray(byte[] src) {
    if (src == null) {
      throw new IllegalArgumentException("src is null");
    }
    return MemorySegment.ofArray(src);
  }

  static void checkBits(int bits) {
    if (bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16) {
      throw new IllegalArgumentException("bits is " + bits + ", expected one of 1, 2, 4, 8, 16");
    }
  }

  static void checkScale(float lo, float step) {
    if (!Float.isFinite(lo) || !Float.isFinite(step)) {
      throw new IllegalArgumentException(
          "lo is " + lo + " and step is " + step + ", expected both finite");
    }
  }

  private static void checkSource(MemorySegment src, long byteOffset, int bits, int count) {
    if (src == null) {
      throw new IllegalArgumentException("src is null");
    }
    checkBits(bits);
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    long need = PackedLanes.rowBytes(count, bits);
    if (byteOffset < 0 || byteOffset > src.byteSize() - need) {
      throw new IllegalArgumentException(
          "segment has "
              + src.byteSize()
              + " bytes, byteOffset "
              + byteOffset
              + " + "
              + need
              + " bytes for "
              + count
              + " features of "
              + bits
              + " bits does not fit");
    }
  }

  private static void checkOut(int length, int off, int count) {
    if (length < 0) {
      throw new IllegalArgumentException("out is null");
    }
    if (off < 0 || off > length - count) {
      throw new IllegalArgumentException(
          "out has length " + length + ", off " + off + " + count " + count + " exceeds it");
    }
  }
}
