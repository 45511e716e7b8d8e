package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.TreeSet;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.panama.PackedLanes;
import org.lprff.vector.simd.spi.UnpackBody;
import org.lprff.vector.testing.PackedReadReference;
import org.lprff.vector.testing.ProviderTestBase;
import org.lprff.vector.testing.TestSizes;

public class PackedFeaturesTest extends ProviderTestBase {

  private static final UnpackBody[] KERNELS = {SCALAR.unpack(), VECTOR.unpack()};

  /** Counts 0..100, 4096 and the general sizes. */
  private static int[] counts() {
    TreeSet<Integer> s = new TreeSet<>();
    for (int i = 0; i <= 100; i++) {
      s.add(i);
    }
    s.add(4096);
    for (int n : TestSizes.general()) {
      s.add(n);
    }
    return s.stream().mapToInt(Integer::intValue).toArray();
  }

  @Test
  void codesMatchBitByBitReaderExactly() {
    SplittableRandom random = new SplittableRandom(1);
    try (Arena arena = Arena.ofConfined()) {
      for (int bits : PackedReadReference.BITS) {
        for (int count : counts()) {
          // Unaligned starts: 0..3 leading bytes; random bytes everywhere, including the
          // trailing bits of the last byte, which must be ignored.
          int start = count % 4;
          int bytes = (int) PackedLayout.rowBytes(count, bits);
          byte[] data = new byte[start + bytes];
          random.nextBytes(data);
          int[] expected = new int[count];
          for (int i = 0; i < count; i++) {
            expected[i] = PackedReadReference.bitByBitCode(data, start, bits, i);
          }
          for (boolean offHeap : new boolean[] {false, true}) {
            MemorySegment src = PackedReadReference.segment(data, offHeap, arena);
            for (UnpackBody kernel : KERNELS) {
              int off = 3;
              int[] out = new int[count + off + 2];
              Arrays.fill(out, -7);
              kernel.unpackCodes(src, start, bits, count, out, off);
              String where = kernel.getClass().getSimpleName() + " bits=" + bits
                  + " count=" + count + " offHeap=" + offHeap;
              assertArrayEquals(expected, Arrays.copyOfRange(out, off, off + count), where);
              // Nothing written outside [off, off + count).
              assertEquals(-7, out[0], where);
              assertEquals(-7, out[off - 1], where);
              assertEquals(-7, out[off + count], where);
              assertEquals(-7, out[off + count + 1], where);
            }
          }
        }
      }
    }
  }

  @Test
  void valuesAreFmaOfCodesAndVectorEqualsScalarBitwise() {
    SplittableRandom random = new SplittableRandom(2);
    try (Arena arena = Arena.ofConfined()) {
      for (int bits : PackedReadReference.BITS) {
        for (int count : counts()) {
          int start = (count + 1) % 4;
          byte[] data = new byte[start + (int) PackedLayout.rowBytes(count, bits)];
          random.nextBytes(data);
          // The LP-RFF scale and an arbitrary one.
          float[][] scales = {
            {PackedReadReference.lo(count), PackedReadReference.step(count, bits)},
            {(float) random.nextDouble(-3, 3), (float) random.nextDouble(1e-6, 1)}
          };
          for (float[] scale : scales) {
            float lo = scale[0];
            float step = scale[1];
            int[] expected = new int[count];
            for (int i = 0; i < count; i++) {
              expected[i] =
                  Float.floatToRawIntBits(
                      PackedReadReference.value(
                          PackedReadReference.bitByBitCode(data, start, bits, i), lo, step));
            }
            MemorySegment src = PackedReadReference.segment(data, count % 2 == 0, arena);
            for (UnpackBody kernel : KERNELS) {
              float[] out = new float[count + 1];
              out[count] = 42f;
              kernel.unpack(src, start, bits, count, lo, step, out, 0);
              int[] got = new int[count];
              for (int i = 0; i < count; i++) {
                got[i] = Float.floatToRawIntBits(out[i]);
              }
              String where = kernel.getClass().getSimpleName() + " bits=" + bits
                  + " count=" + count;
              assertArrayEquals(expected, got, where);
              assertEquals(42f, out[count], where);
            }
          }
        }
      }
    }
  }

  @Test
  void mathFmaAndVectorFmaAgreeBitwise() {
    // The scalar and vector bodies agree bitwise only if both fused multiply-adds round once.
    // Random operands over many binades, plus codes x LP-RFF scales; a product and sum rounded
    // separately differ from the fused result on a large fraction of such triples, so this
    // fails if either side were unfused.
    SplittableRandom random = new SplittableRandom(3);
    int lanes = PackedLanes.LANES;
    float[] a = new float[lanes];
    float[] b = new float[lanes];
    float[] c = new float[lanes];
    float[] out = new float[lanes];
    int unfusedDiffers = 0;
    for (int trial = 0; trial < 20_000; trial++) {
      for (int k = 0; k < lanes; k++) {
        if (trial % 2 == 0) {
          a[k] = (float) random.nextInt(1 << 16);
          int bits = PackedReadReference.BITS[random.nextInt(5)];
          int m = 1 + random.nextInt(10_000);
          b[k] = PackedReadReference.step(m, bits);
          c[k] = PackedReadReference.lo(m);
        } else {
          a[k] = (float) (random.nextDouble(-1, 1) * Math.scalb(1.0, random.nextInt(-20, 20)));
          b[k] = (float) (random.nextDouble(-1, 1) * Math.scalb(1.0, random.nextInt(-20, 20)));
          c[k] = (float) (random.nextDouble(-1, 1) * Math.scalb(1.0, random.nextInt(-20, 20)));
        }
      }
      FloatVector.fromArray(PackedLanes.FLOAT, a, 0)
          .fma(FloatVector.fromArray(PackedLanes.FLOAT, b, 0),
              FloatVector.fromArray(PackedLanes.FLOAT, c, 0))
          .intoArray(out, 0);
      for (int k = 0; k < lanes; k++) {
        assertEquals(
            Float.floatToRawIntBits(Math.fma(a[k], b[k], c[k])),
            Float.floatToRawIntBits(out[k]),
            a[k] + " * " + b[k] + " + " + c[k]);
        if (a[k] * b[k] + c[k] != out[k]) {
          unfusedDiffers++;
        }
      }
    }
    assertTrue(unfusedDiffers > 100, "the triples must distinguish fused from unfused: " + unfusedDiffers);
  }

  @Test
  void facadeMatchesReferenceOnHeapArrays() {
    SplittableRandom random = new SplittableRandom(4);
    for (int bits : PackedReadReference.BITS) {
      int count = 1000;
      byte[] data = new byte[5 + (int) PackedFeatures.rowBytes(count, bits)];
      random.nextBytes(data);
      int[] codes = new int[count];
      PackedFeatures.unpackCodes(data, 5, bits, count, codes, 0);
      float[] values = new float[count];
      float lo = PackedReadReference.lo(count);
      float step = PackedReadReference.step(count, bits);
      PackedFeatures.unpack(data, 5, QuantizationScale.of(bits, lo, step), count, values, 0);
      for (int i = 0; i < count; i++) {
        int code = PackedReadReference.bitByBitCode(data, 5, bits, i);
        assertEquals(code, codes[i]);
        assertEquals(PackedReadReference.value(code, lo, step), values[i]);
      }
    }
  }

  @Test
  void rowBytesIsCeilOfBits() {
    assertEquals(0, PackedFeatures.rowBytes(0, 4));
    assertEquals(1, PackedFeatures.rowBytes(1, 1));
    assertEquals(1, PackedFeatures.rowBytes(8, 1));
    assertEquals(2, PackedFeatures.rowBytes(9, 1));
    assertEquals(2, PackedFeatures.rowBytes(3, 4));
    assertEquals(2048, PackedFeatures.rowBytes(4096, 4));
    assertEquals(8192, PackedFeatures.rowBytes(4096, 16));
  }

  @Test
  void badArgumentsAreRejectedByValue() {
    byte[] data = new byte[10];
    int[] codes = new int[100];
    float[] values = new float[100];
    assertMessage("bits is 3", () -> PackedFeatures.unpackCodes(data, 0, 3, 4, codes, 0));
    assertMessage("bits is 32", () -> QuantizationScale.of(32, 0f, 1f));
    assertMessage("scale is null", () -> PackedFeatures.unpack(data, 0, null, 1, values, 0));
    assertMessage("bits is 0", () -> PackedFeatures.rowBytes(5, 0));
    assertMessage("count is -1", () -> PackedFeatures.unpackCodes(data, 0, 4, -1, codes, 0));
    // 21 features of 4 bits need 11 bytes.
    assertMessage(
        "segment has 10 bytes, byteOffset 0 + 11 bytes",
        () -> PackedFeatures.unpackCodes(data, 0, 4, 21, codes, 0));
    assertMessage(
        "segment has 10 bytes, byteOffset 3 + 8 bytes",
        () -> PackedFeatures.unpack(data, 3, QuantizationScale.of(8, 0f, 1f), 8, values, 0));
    assertMessage(
        "byteOffset -1", () -> PackedFeatures.unpackCodes(data, -1, 8, 1, codes, 0));
    assertMessage(
        "out has length 100, off 90 + count 20",
        () -> PackedFeatures.unpackCodes(new byte[20], 0, 8, 20, new int[100], 90));
    assertMessage(
        "out has length 100, off -1",
        () -> PackedFeatures.unpack(data, 0, QuantizationScale.of(8, 0f, 1f), 2, values, -1));
    assertMessage(
        "step is NaN", () -> QuantizationScale.of(8, 0f, Float.NaN));
    assertMessage(
        "lo is Infinity",
        () -> QuantizationScale.of(8, Float.POSITIVE_INFINITY, 1f));
    assertMessage("src is null", () -> PackedFeatures.unpackCodes((byte[]) null, 0, 8, 2, codes, 0));
  }

}
