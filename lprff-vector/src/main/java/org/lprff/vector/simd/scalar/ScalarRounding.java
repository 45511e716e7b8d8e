package org.lprff.vector.simd.scalar;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.lprff.vector.simd.spi.RoundingBody;
import org.lprff.vector.simd.spi.Threefry;

/**
 * Scalar stochastic rounding, round-to-nearest and bit packing: the reference bodies.
 *
 * <p>Randomness. With t = (v - lo) / step, code = floor(t + u), clamped. For b <= 8, u is
 * {@code CounterRng.uniform16} = (h + 1/2) 2^-16 from 16 random bits h (half-word mapping: one
 * Threefry word serves two features); for b = 16, u is {@code CounterRng.uniformDouble} from a
 * whole 32-bit word.
 *
 * <p>Bias for b <= 8. Let n = floor(t) and f = t - n, both exact. In exact arithmetic the code
 * is n + 1 when u >= 1 - f, with probability f rounded to the 2^-16 grid, so |P(n + 1) - f| <=
 * 2^-17. The sum t + u is rounded to float, which moves the threshold down by delta = half the
 * float spacing just below n + 1 (ties go to n + 1, whose significand is even): delta <= 2^-21
 * for b <= 4 (t < 16) and <= 2^-17 for b = 8, reached when t >= 128 (t is then a multiple of
 * 2^-16 and t + u an exact tie between two floats). Altogether |P(n + 1) - f| <= 2^-17 + delta,
 * so |E[lo + code step] - (lo + t step)| <= 2^-16 step for every b <= 8 (2^-17 + 2^-21 for b <=
 * 4). The former 24-bit uniform had 2^-17 + 2^-24 at b = 8: the same order, and both far below
 * what the features can show (a Hoeffding test at 2^24 samples resolves ~7e-4 step). The float
 * error of t itself (two roundings, < 2^-24 t each) is separate and common to all variants.
 *
 * <p>b = 16: t is near 65535, where float32 keeps only 8 fractional bits and would bias the
 * rounding by up to 2^-9 step, which a few million samples detect. So b = 16 is computed in
 * double with the 32-bit uniform (t + u is then exact to 2^-37).
 *
 * <p>floor is taken by the int conversion (truncation toward zero). It differs from floor only
 * for t + u in (-1, 0), where both give code 0 after clamping; values a little outside [lo, hi]
 * (the facade's slack) are thus clamped to the end codes.
 *
 * <p>Round-to-nearest computes floor(t + 0.5) (ties round up) in the same precision.
 */
public final class ScalarRounding implements RoundingBody {

  /** Columns of random bits generated per batch (a thread-confined scratch array per call). */
  private static final int BATCH = 512;

  /**
   * The code of one value from its random draw: {@link Threefry#bits16} (in [0, 65535]) for
   * b <= 8, {@link Threefry#bits} for b = 16.
   */
  public static int stochasticCode(float value, int random, int bits, float lo, float step) {
    int code;
    if (bits == 16) {
      double t = ((double) value - lo) / step;
      code = (int) (t + Threefry.toUniformDouble(random));
    } else {
      float t = (value - lo) / step;
      code = (int) (t + Threefry.toUniform16(random));
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
      if (bits == 16) {
        rng.fillBits(seed, row, firstColumn + done, draw, random, 0, n);
      } else {
        rng.fillBits16(seed, row, firstColumn + done, draw, random, 0, n);
      }
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
