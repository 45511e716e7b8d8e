package org.lprff.vector;

import java.lang.foreign.MemorySegment;

/**
 * Packs integer codes of b bits (1, 2, 4, 8, 16) into the row layout of DESIGN.md section 3:
 * code i occupies bits [i b, (i + 1) b), bit k being bit (k mod 8) of byte k / 8 (least
 * significant first); b = 16 is little-endian uint16. Exact: no rounding involved.
 */
public final class BitPacking {

  private BitPacking() {}

  /** Bytes taken by count codes of the given width: ceil(count * bits / 8). */
  public static long packedBytes(int count, int bits) {
    QuantizationScale.checkBits(bits);
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    return ((long) count * bits + 7) >>> 3;
  }

  /**
   * Writes codes[off .. off + count) from byte {@code byteOffset} on: ceil(count b / 8) bytes,
   * the last one zero-padded; no other byte is touched. Codes must lie in [0, 2^b - 1].
   */
  public static void packCodes(
      int[] codes, int off, int count, int bits, MemorySegment out, long byteOffset) {
    QuantizationScale.checkBits(bits);
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
    long start = checkOut(out, byteOffset, 0, count, bits);
    StochasticRounding.KERNEL.packCodes(codes, off, count, bits, out, start);
  }

  public static void packCodes(int[] codes, int off, int count, int bits, byte[] out, int outOffset) {
    packCodes(codes, off, count, bits, StochasticRounding.wrap(out), outOffset);
  }

  /**
   * Checks that out is writable and holds bytes [base + skip, base + skip + ceil(count b / 8));
   * returns base + skip.
   */
  static long checkOut(MemorySegment out, long base, long skip, int count, int bits) {
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    if (out.isReadOnly()) {
      throw new IllegalArgumentException("out is a read-only segment");
    }
    if (base < 0) {
      throw new IllegalArgumentException("out byte offset is " + base + ", expected >= 0");
    }
    long bytes = ((long) count * bits + 7) >>> 3;
    long start = base + skip;
    if (start + bytes > out.byteSize()) {
      throw new IllegalArgumentException(
          "out has " + out.byteSize() + " bytes, needs bytes [" + start + ", " + (start + bytes)
              + ") for " + count + " codes of " + bits + " bits");
    }
    return start;
  }
}
