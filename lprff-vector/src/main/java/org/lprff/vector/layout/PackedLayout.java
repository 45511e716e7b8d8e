package org.lprff.vector.layout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The packed feature row of DESIGN.md section 3, one code at a time: feature i of a row occupies
 * bits [i b, (i + 1) b) of the row's bit string, bit k being bit (k mod 8) of byte k / 8 (least
 * significant first); b = 16 is little-endian uint16. A row of m features takes ceil(m b / 8)
 * bytes. {@link #FLOAT_BITS} stands for plain little-endian float32 features (full precision).
 *
 * <p>This is the definition the vector bodies are tested against; every value is {@code fma(code,
 * step, lo)} rounded once to float, as in the vector lanes.
 */
public final class PackedLayout {

  /** The bit width that means plain float32 features. */
  public static final int FLOAT_BITS = 32;

  private PackedLayout() {}

  /** Bytes of one row of {@code m} features of {@code bits} bits: ceil(m bits / 8), or 4 m. */
  public static long rowBytes(int m, int bits) {
    return bits == FLOAT_BITS ? 4L * m : ((long) m * bits + 7) >>> 3;
  }

  /** Code of feature {@code i} of the packed row starting at byte {@code rowOffset}. */
  public static int code(MemorySegment src, long rowOffset, int bits, long i) {
    return switch (bits) {
      case 16 -> src.get(LittleEndian.SHORT, rowOffset + 2 * i) & 0xFFFF;
      case 8 -> src.get(ValueLayout.JAVA_BYTE, rowOffset + i) & 0xFF;
      default -> {
        // b divides 8, so a code never straddles two bytes.
        long bit = i * bits;
        int b = src.get(ValueLayout.JAVA_BYTE, rowOffset + (bit >>> 3)) & 0xFF;
        yield (b >>> (int) (bit & 7)) & ((1 << bits) - 1);
      }
    };
  }

  /**
   * Value of feature {@code i} of the row at {@code rowOffset}: {@code fma(code, step, lo)} for
   * packed codes, the float itself for {@link #FLOAT_BITS} ({@code lo} and {@code step} ignored).
   */
  public static float value(
      MemorySegment src, long rowOffset, int bits, long i, float lo, float step) {
    return bits == FLOAT_BITS
        ? src.get(LittleEndian.FLOAT, rowOffset + 4 * i)
        : Math.fma((float) code(src, rowOffset, bits, i), step, lo);
  }

  /**
   * Checks that {@code n} rows of {@code m} features at {@code bits} bits fit in {@code z} from
   * {@code byteOffset} on.
   *
   * @throws IllegalArgumentException naming the segment, the counts and the bytes needed
   */
  public static void checkRows(
      String name, MemorySegment z, long byteOffset, int n, int m, int bits) {
    if (z == null) {
      throw new IllegalArgumentException(name + " is null");
    }
    if (n < 0) {
      throw new IllegalArgumentException("rows is " + n + ", expected >= 0");
    }
    if (m < 0) {
      throw new IllegalArgumentException("features is " + m + ", expected >= 0");
    }
    long rowBytes = rowBytes(m, bits);
    long need = Math.multiplyHigh(n, rowBytes) == 0 ? n * rowBytes : Long.MAX_VALUE;
    if (byteOffset < 0 || need < 0 || byteOffset > z.byteSize() - need) {
      throw new IllegalArgumentException(
          name
              + " has "
              + z.byteSize()
              + " bytes, byteOffset "
              + byteOffset
              + " + "
              + n
              + " rows x "
              + rowBytes
              + " bytes ("
              + m
              + " features of "
              + bits
              + " bits) does not fit");
    }
  }
}
