package org.lprff.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Scalar stochastic rounding, round-to-nearest and bit packing: the reference bodies.
 *
 * <p>Precision of the rounding arithmetic. With t = (v - lo) / step and u uniform, code =
 * floor(t + u). For b <= 8, t < 256 and float32 leaves at least 15 fractional bits in t + u, so
 * rounding t + u moves the rounding threshold by at most 2^-17 step: a bias far below anything
 * the features can show. For b = 16, t is near 65535 and float32 keeps only 8 fractional bits:
 * the bias reaches 2^-9 step, which a few million samples detect. So b = 16 is computed in double
 * with the 32-bit uniform {@link CounterRng#uniformDouble} (t + u is then exact to 2^-37).
 *
 * <p>floor is taken by the int conversion (truncation toward zero). It differs from floor only
 * for t + u in (-1, 0), where both give code 0 after clamping; values a little outside [lo, hi]
 * (the facade's slack) are thus clamped to the end codes.
 *
 * <p>Round-to-nearest computes floor(t + 0.5) (ties round up) in the same precision.
 */
final class ScalarRounding implements RoundingKernel {

  /** Columns of random bits generated per batch (a thread-confined scratch array per call). */
  private static final int BATCH = 512;

  static int stochasticCode(float value, int randomBits, int bits, float lo, float step) {
    int code;
    if (bits == 16) {
      double t = ((double) value - lo) / step;
      code = (int) (t + CounterRng.toUniformDouble(randomBits));
    } else {
      float t = (value - lo) / step;
      code = (int) (t + CounterRng.toUniform(randomBits));
    }
    return Math.clamp(code, 0, (1 << bits) - 1);
  }

  static int nearestCode(float value, int bits, float lo, float step) {
    int code;
    if (bits == 16) {
      code = (int) (((double) value - lo) / step + 0.5);
    } else {
      code = (int) ((value - lo) / step + 0.5f);
    }
    return Math.clamp(code, 0, (1 << bits) - 1);
  }

  /**
   * Appends b-bit codes to a row's bit string, least significant bit first, writing each byte
   * once it is full; the last, partial byte is written with zero upper bits.
   */
  static final class BitWriter {
    private final MemorySegment out;
    private long position;
    private long pending;
    private int pendingBits;

    BitWriter(MemorySegment out, long byteOffset) {
      this.out = out;
      this.position = byteOffset;
    }

    void write(int code, int bits) {
      pending |= (long) code << pendingBits;
      pendingBits += bits;
      while (pendingBits >= 8) {
        out.set(ValueLayout.JAVA_BYTE, position++, (byte) pending);
        pending >>>= 8;
        pendingBits -= 8;
      }
    }

    void finish() {
      if (pendingBits > 0) {
        out.set(ValueLayout.JAVA_BYTE, position++, (byte) pending);
        pending = 0;
        pendingBits = 0;
      }
    }
  }

  @Override
  public void quantizeStochastic(
      float[] values, int off, int count, int bits, float lo, float step,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long byteOffset) {
    ScalarCounterRng rng = new ScalarCounterRng();
    int[] random = new int[Math.min(count, BATCH)];
    BitWriter writer = new BitWriter(out, byteOffset);
    for (int done = 0; done < count; done += random.length) {
      int n = Math.min(random.length, count - done);
      rng.fillBits(seed, row, firstColumn + done, draw, random, 0, n);
      for (int i = 0; i < n; i++) {
        writer.write(stochasticCode(values[off + done + i], random[i], bits, lo, step), bits);
      }
    }
    writer.finish();
  }

  @Override
  public void quantizeNearest(
      float[] values, int off, int count, int bits, float lo, float step,
      MemorySegment out, long byteOffset) {
    BitWriter writer = new BitWriter(out, byteOffset);
    for (int i = 0; i < count; i++) {
      writer.write(nearestCode(values[off + i], bits, lo, step), bits);
    }
    writer.finish();
  }

  @Override
  public void packCodes(int[] codes, int off, int count, int bits, MemorySegment out, long byteOffset) {
    BitWriter writer = new BitWriter(out, byteOffset);
    for (int i = 0; i < count; i++) {
      writer.write(codes[off + i], bits);
    }
    writer.finish();
  }
}
