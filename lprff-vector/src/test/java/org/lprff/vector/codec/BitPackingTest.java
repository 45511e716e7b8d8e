package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.lprff.vector.simd.spi.RoundingBody;
import org.lprff.vector.testing.ProviderTestBase;

class BitPackingTest extends ProviderTestBase {

  static final int[] BITS = {1, 2, 4, 8, 16};
  static final byte SENTINEL = (byte) 0xA5;

  /** Independent definition of the layout: set bit k of the string as bit k % 8 of byte k / 8. */
  static byte[] referencePack(int[] codes, int off, int count, int bits) {
    byte[] row = new byte[(int) (((long) count * bits + 7) / 8)];
    for (int i = 0; i < count; i++) {
      for (int j = 0; j < bits; j++) {
        if (((codes[off + i] >> j) & 1) != 0) {
          long k = (long) i * bits + j;
          row[(int) (k / 8)] |= (byte) (1 << (k % 8));
        }
      }
    }
    return row;
  }

  /** Independent reader: code i is the sum over j of bit (i b + j) of the string times 2^j. */
  static int[] referenceUnpack(byte[] row, int byteOffset, int count, int bits) {
    int[] codes = new int[count];
    for (int i = 0; i < count; i++) {
      for (int j = 0; j < bits; j++) {
        long k = (long) i * bits + j;
        if (((row[byteOffset + (int) (k / 8)] >> (k % 8)) & 1) != 0) {
          codes[i] |= 1 << j;
        }
      }
    }
    return codes;
  }

  static int[] counts() {
    return IntStream.concat(IntStream.rangeClosed(0, 100), IntStream.of(4096)).toArray();
  }

  @Test
  void packCodesMatchesBitByBitWriterWithZeroTrailingBitsAndUntouchedNeighbours() {
    SplittableRandom random = new SplittableRandom(11);
    RoundingBody[] kernels = {SCALAR.rounding(), VECTOR.rounding()};
    for (int bits : BITS) {
      for (int count : counts()) {
        int off = random.nextInt(3);
        int[] codes = random.ints(count + off, 0, 1 << bits).toArray();
        byte[] expected = referencePack(codes, off, count, bits);
        for (int k = 0; k <= kernels.length; k++) {
          int pad = 1 + random.nextInt(9);
          byte[] out = new byte[pad + expected.length + pad];
          Arrays.fill(out, SENTINEL);
          if (k < kernels.length) {
            kernels[k].packCodes(codes, off, count, bits, MemorySegment.ofArray(out), pad);
          } else {
            PackedFeatures.packCodes(codes, off, count, bits, out, pad);
          }
          String what = "bits " + bits + " count " + count + " body " + k;
          assertArrayEquals(expected, Arrays.copyOfRange(out, pad, pad + expected.length), what);
          for (int i = 0; i < pad; i++) {
            assertEquals(SENTINEL, out[i], what);
            assertEquals(SENTINEL, out[out.length - 1 - i], what);
          }
          int usedBits = (int) ((long) count * bits % 8);
          if (usedBits != 0) {
            assertEquals(0, (out[pad + expected.length - 1] & 0xFF) >>> usedBits, what);
          }
          assertArrayEquals(
              Arrays.copyOfRange(codes, off, off + count),
              referenceUnpack(out, pad, count, bits), what);
        }
      }
    }
  }

  @Test
  void layoutExamplesFromTheDesignNotes() {
    // b = 16 is little-endian uint16; b = 1 is least significant bit first.
    byte[] out = new byte[2];
    PackedFeatures.packCodes(new int[] {0xBEEF}, 0, 1, 16, out, 0);
    assertArrayEquals(new byte[] {(byte) 0xEF, (byte) 0xBE}, out);
    out = new byte[2];
    PackedFeatures.packCodes(new int[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 0, 10, 1, out, 0);
    assertArrayEquals(new byte[] {1, 2}, out);
    out = new byte[1];
    PackedFeatures.packCodes(new int[] {3, 0, 1}, 0, 3, 2, out, 0);
    assertArrayEquals(new byte[] {0b01_00_11}, out);
    assertEquals(3, PackedFeatures.rowBytes(5, 4));
  }

  @Test
  void errorPathsNameTheValues() {
    byte[] out = new byte[4];
    var e = assertThrows(
        IllegalArgumentException.class,
        () -> PackedFeatures.packCodes(new int[] {1, 4}, 0, 2, 2, out, 0));
    assertTrue(e.getMessage().contains("codes[1] is 4"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class,
        () -> PackedFeatures.packCodes(new int[] {-1}, 0, 1, 8, out, 0));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class, () -> PackedFeatures.packCodes(new int[4], 0, 4, 3, out, 0));
    assertTrue(e.getMessage().contains("bits is 3"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class, () -> PackedFeatures.packCodes(new int[4], 0, 4, 16, out, 1));
    assertTrue(e.getMessage().contains("4 bytes") && e.getMessage().contains("[1, 9)"),
        e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class, () -> PackedFeatures.packCodes(new int[4], 2, 4, 8, out, 0));
    assertTrue(e.getMessage().contains("length 4"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class,
        () -> PackedFeatures.packCodes(
            new int[4], 0, 4, 8, MemorySegment.ofArray(new byte[8]).asReadOnly(), 0));
    assertTrue(e.getMessage().contains("read-only"), e.getMessage());
  }
}
