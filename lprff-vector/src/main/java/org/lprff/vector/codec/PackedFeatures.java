package org.lprff.vector.codec;

import java.lang.foreign.MemorySegment;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.RoundingBody;
import org.lprff.vector.simd.spi.UnpackBody;

/**
 * The b-bit packed row layout (DESIGN.md section 3), b in {1, 2, 4, 8, 16}: feature i occupies
 * bits [i*b, (i+1)*b) of the row, bit k being bit (k mod 8) of byte k/8 (least significant
 * first); b = 16 is little-endian uint16; a row of m features takes ceil(m*b/8) bytes, unused
 * trailing bits zero. The value of code j is {@code fma(j, step, lo)} rounded once to float.
 * Packing and unpacking integer codes is exact.
 */
public final class PackedFeatures {

  private static final RoundingBody ROUNDING = VectorizationProvider.get().rounding();

  private static final UnpackBody BODY = VectorizationProvider.get().unpack();

  private PackedFeatures() {}

  /** Bytes of one packed row of {@code m} features of {@code bits} bits: ceil(m * bits / 8). */
  public static long rowBytes(int m, int bits) {
    BitWidths.checkCodes("bits", bits);
    if (m < 0) {
      throw new IllegalArgumentException("m is " + m + ", expected >= 0");
    }
    return PackedLayout.rowBytes(m, bits);
  }

  /**
   * Writes the codes of features 0..count-1 packed at {@code src[byteOffset..]} to {@code
   * out[off..off+count)}.
   */
  public static void unpackCodes(
      MemorySegment src, long byteOffset, int bits, int count, int[] out, int off) {
    checkSource(src, byteOffset, bits, count);
    checkOut(out == null ? -1 : out.length, off, count);
    BODY.unpackCodes(src, byteOffset, bits, count, out, off);
  }

  /** {@link #unpackCodes(MemorySegment, long, int, int, int[], int)} on a heap array. */
  public static void unpackCodes(
      byte[] src, int byteOffset, int bits, int count, int[] out, int off) {
    unpackCodes(ofArray(src), byteOffset, bits, count, out, off);
  }

  /**
   * Writes the values {@code scale.value(code_i) = fma(code_i, step, lo)} of features
   * 0..count-1 packed at {@code src[byteOffset..]} with {@code scale.bits()} bits to {@code
   * out[off..off+count)}.
   */
  public static void unpack(
      MemorySegment src, long byteOffset, QuantizationScale scale, int count, float[] out, int off) {
    if (scale == null) {
      throw new IllegalArgumentException("scale is null");
    }
    checkSource(src, byteOffset, scale.bits(), count);
    checkOut(out == null ? -1 : out.length, off, count);
    BODY.unpack(src, byteOffset, scale.bits(), count, scale.lo(), scale.step(), out, off);
  }

  /** {@link #unpack(MemorySegment, long, QuantizationScale, int, float[], int)} on a heap array. */
  public static void unpack(
      byte[] src, int byteOffset, QuantizationScale scale, int count, float[] out, int off) {
    unpack(ofArray(src), byteOffset, scale, count, out, off);
  }

  public static MemorySegment ofArray(byte[] src) {
    return ofArray(src, "src");
  }

  /** A heap array as a segment; a null array is an error naming the parameter. */
  public static MemorySegment ofArray(byte[] bytes, String name) {
    if (bytes == null) {
      throw new IllegalArgumentException(name + " is null");
    }
    return MemorySegment.ofArray(bytes);
  }

  /**
   * Writes codes[off .. off + count) from byte {@code byteOffset} on: ceil(count b / 8) bytes,
   * the last one zero-padded; no other byte is touched. Codes must lie in [0, 2^b - 1].
   */
  public static void packCodes(
      int[] codes, int off, int count, int bits, MemorySegment out, long byteOffset) {
    BitWidths.checkCodes("bits", bits);
    if (codes == null) {
      throw new IllegalArgumentException("codes is null");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    if (off < 0 || off + (long) count > codes.length) {
      throw new IllegalArgumentException(
          "codes has length " + codes.length + ", cannot read " + count + " from offset " + off);
    }
    int max = (1 << bits) - 1;
    for (int i = 0; i < count; i++) {
      int code = codes[off + i];
      if (code < 0 || code > max) {
        throw new IllegalArgumentException(
            "codes[" + (off + i) + "] is " + code + ", outside [0, " + max + "] for " + bits
                + " bits");
      }
    }
    long start = checkDestination(out, byteOffset, 0, count, bits);
    ROUNDING.packCodes(codes, off, count, bits, out, start);
  }

  /** {@link #packCodes(int[], int, int, int, MemorySegment, long)} into a heap array. */
  public static void packCodes(int[] codes, int off, int count, int bits, byte[] out, int outOffset) {
    packCodes(codes, off, count, bits, ofArray(out, "out"), outOffset);
  }

  /**
   * Checks that out is writable and holds bytes [base + skip, base + skip + ceil(count b / 8));
   * returns base + skip.
   */
  static long checkDestination(MemorySegment out, long base, long skip, int count, int bits) {
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    if (out.isReadOnly()) {
      throw new IllegalArgumentException("out is a read-only segment");
    }
    if (base < 0) {
      throw new IllegalArgumentException("out byte offset is " + base + ", expected >= 0");
    }
    long bytes = PackedLayout.rowBytes(count, bits);
    long start = base + skip;
    if (start + bytes > out.byteSize()) {
      throw new IllegalArgumentException(
          "out has " + out.byteSize() + " bytes, needs bytes [" + start + ", " + (start + bytes)
              + ") for " + count + " codes of " + bits + " bits");
    }
    return start;
  }

  private static void checkSource(MemorySegment src, long byteOffset, int bits, int count) {
    if (src == null) {
      throw new IllegalArgumentException("src is null");
    }
    BitWidths.checkCodes("bits", bits);
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    long need = PackedLayout.rowBytes(count, bits);
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
