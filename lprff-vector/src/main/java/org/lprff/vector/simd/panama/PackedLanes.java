package org.lprff.vector.simd.panama;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.layout.LittleEndian;

/**
 * Reading b-bit packed feature codes (DESIGN.md section 3): the one place where packed codes become
 * values, in registers ({@link #dequantize}) and one at a time ({@code PackedLayout.code}). The unpack kernels
 * and the packed products both go through here, so they agree bitwise: every value is
 * {@code fma(code, step, lo)} rounded once to float.
 */
public final class PackedLanes {

  public static final VectorSpecies<Float> FLOAT = VectorShape.FLOAT;
  static final VectorSpecies<Integer> INT = VectorSpecies.of(int.class, FLOAT.vectorShape());
  public static final int LANES = FLOAT.length();

  /** {@code LANES} 16-bit codes widen to one int vector (64 bits or more, so always a species). */
  private static final VectorSpecies<Short> SHORT =
      VectorSpecies.of(short.class, jdk.incubator.vector.VectorShape.forBitSize(LANES * 16));

  /**
   * {@code LANES} 8-bit codes as one byte vector; null with 4 lanes (32 bits is no vector shape),
   * where 8-bit codes take the word path like the narrower ones.
   */
  private static final VectorSpecies<Byte> BYTE =
      LANES * 8 >= 64
          ? VectorSpecies.of(byte.class, jdk.incubator.vector.VectorShape.forBitSize(LANES * 8))
          : null;

  /** Lanes that take their codes from the high 32 bits of a 64-bit word (16 lanes of 4 bits). */
  private static final VectorMask<Integer> HIGH_HALF =
      VectorMask.fromLong(INT, ((1L << LANES) - 1) & ~((1L << (LANES / 2)) - 1));


  /** Rotations by LANES/2, LANES/4, LANES/8, LANES/16 lanes: the fixed tree of {@link #sumLanes}. */
  private static final VectorShuffle<Float> ROTATE_2 = rotation(2);
  private static final VectorShuffle<Float> ROTATE_4 = rotation(4);
  private static final VectorShuffle<Float> ROTATE_8 = rotation(8);
  private static final VectorShuffle<Float> ROTATE_16 = rotation(16);

  private PackedLanes() {}

  private static VectorShuffle<Float> rotation(int parts) {
    return VectorShuffle.iota(FLOAT, Math.max(1, LANES / parts), 1, true);
  }

  /**
   * The sum of the lanes of {@code v} in a fixed pairwise order (lane 0 after adding the vector
   * rotated by half, a quarter, ... of its lanes). Not {@code reduceLanes(ADD)}: that leaves the
   * order to the implementation, and the interpreter, C1 and C2 do use different orders, so the
   * products' bits would change with JIT warm-up and training would not be reproducible.
   */
  static float sumLanes(FloatVector v) {
    if (LANES > 16) {
      for (int shift = LANES / 2; shift >= 1; shift /= 2) {
        v = v.add(v.rearrange(VectorShuffle.iota(FLOAT, shift, 1, true)));
      }
      return v.lane(0);
    }
    if (LANES >= 2) {
      v = v.add(v.rearrange(ROTATE_2));
    }
    if (LANES >= 4) {
      v = v.add(v.rearrange(ROTATE_4));
    }
    if (LANES >= 8) {
      v = v.add(v.rearrange(ROTATE_8));
    }
    if (LANES >= 16) {
      v = v.add(v.rearrange(ROTATE_16));
    }
    return v.lane(0);
  }




  /**
   * {@link #sumLanes(FloatVector)} of the vector stored at {@code a[at, at + LANES)}, bit for bit
   * (the same pairwise tree, lane by lane), in scalar code: for kernels that must not pass a
   * vector to an out-of-line call (C2 boxes it). Overwrites {@code a[at, at + LANES/2)}.
   */
  static float sumLanes(float[] a, int at) {
    for (int h = LANES / 2; h >= 1; h /= 2) {
      for (int k = at; k < at + h; k++) {
        a[k] += a[k + h];
      }
    }
    return a[at];
  }

  /** Per-lane right shifts for {@link #codes}: lane k holds the code at bit (k * bits) mod 32. */
  static IntVector shifts(int bits) {
    return IntVector.zero(INT).addIndex(bits).and(31);
  }

  /** Mask of one code, in every lane. */
  static IntVector mask(int bits) {
    return IntVector.broadcast(INT, (int) ((1L << bits) - 1));
  }

  /**
   * Codes of features {@code feature .. feature + LANES - 1} of the row at {@code rowOffset}, one
   * per int lane. {@code feature} is a multiple of {@code LANES}, so the {@code LANES * bits} bits
   * start on a multiple of their own width: a nibble, byte, short, int or long that is read whole
   * (never past the row) and spread over the lanes by a broadcast and a lane-variable shift.
   */
  static IntVector codes(
      MemorySegment src, long rowOffset, int bits, int feature, IntVector shifts, IntVector mask) {
    assert feature % LANES == 0 : feature;
    // Kept to small methods: each must stay under C2's inlining limit (FreqInlineSize = 325
    // bytecodes) or the vectors get boxed at the call and the kernels run ~30x slower.
    if (bits == 16) {
      return codes16(src, rowOffset, feature);
    }
    if (bits == 8 && BYTE != null) {
      return codes8(src, rowOffset, feature);
    }
    long bit = (long) feature * bits;
    long at = rowOffset + (bit >>> 3);
    int chunk = LANES * bits;
    IntVector word =
        chunk <= 32
            ? IntVector.broadcast(INT, readWord(src, at, chunk, (int) (bit & 7)))
            : readWideWord(src, at);
    return word.lanewise(VectorOperators.LSHR, shifts).and(mask);
  }

  private static IntVector codes16(MemorySegment src, long rowOffset, int feature) {
    return (IntVector)
        ShortVector.fromMemorySegment(SHORT, src, rowOffset + 2L * feature, ByteOrder.LITTLE_ENDIAN)
            .convertShape(VectorOperators.ZERO_EXTEND_S2I, INT, 0);
  }

  private static IntVector codes8(MemorySegment src, long rowOffset, int feature) {
    return (IntVector)
        ByteVector.fromMemorySegment(BYTE, src, rowOffset + feature, ByteOrder.LITTLE_ENDIAN)
            .convertShape(VectorOperators.ZERO_EXTEND_B2I, INT, 0);
  }

  /** The {@code chunk} (4, 8, 16 or 32) bits at byte {@code at}, bit {@code bitInByte}. */
  private static int readWord(MemorySegment src, long at, int chunk, int bitInByte) {
    return switch (chunk) {
      case 32 -> src.get(LittleEndian.INT, at);
      case 16 -> src.get(LittleEndian.SHORT, at) & 0xFFFF;
      case 8 -> src.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
      default -> (src.get(ValueLayout.JAVA_BYTE, at) & 0xFF) >>> bitInByte;
    };
  }

  /** 64 bits (16 lanes of 4 bits): the upper half of the lanes take the high int. */
  private static IntVector readWideWord(MemorySegment src, long at) {
    long w = src.get(LittleEndian.LONG, at);
    return IntVector.broadcast(INT, (int) w)
        .blend(IntVector.broadcast(INT, (int) (w >>> 32)), HIGH_HALF);
  }

  /**
   * Values of features {@code feature .. feature + LANES - 1}: {@code fma(code, step, lo)} per
   * lane, bitwise equal to {@code PackedLayout.value} (both are one fused multiply-add rounded to float).
   */
  static FloatVector dequantize(
      MemorySegment src,
      long rowOffset,
      int bits,
      int feature,
      IntVector shifts,
      IntVector mask,
      FloatVector lo,
      FloatVector step) {
    FloatVector codes =
        (FloatVector) codes(src, rowOffset, bits, feature, shifts, mask).convert(VectorOperators.I2F, 0);
    return codes.fma(step, lo);
  }
}
