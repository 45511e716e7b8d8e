package org.lprff.vector.featurize;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.CosineBody;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;

/**
 * The cosine step of a random Fourier feature map: {@code out[i] = s * cos(t[i] + a[i])}, with
 * {@code t} the projections {@code w_i . x}, {@code a} the phases in {@code [0, 2 pi)} and {@code
 * s = sqrt(2/m)} for {@code m} features.
 *
 * <p><b>Argument.</b> The cosine is taken of the float32 sum {@code fl(t[i] + a[i])}, not of the
 * exact real sum: accuracy is defined against {@code s * Math.cos((double) fl(t[i] + a[i]))}. (The
 * sum itself rounds by up to half an ulp of {@code |t + a|}, 4.9e-4 near 1e4; that is an
 * input-representation error the caller chose by holding {@code t} in float32.)
 *
 * <p><b>Accuracy.</b> For every finite argument the absolute error is at most {@code 1e-6 *
 * max(1, |s|)}; in practice the vector body stays below about {@code 1.3e-7 * max(1, |s|)} and the
 * scalar one is correctly rounded to float but for the one rounding of the product. The vector
 * body is a polynomial after Cody–Waite range reduction (measured: 7.0e-8 at most over 13.8
 * million arguments in {@code [-1e4 - 7, 1e4 + 7]}), used for {@code |fl(t + a)| <= 2^20}, with
 * double-precision {@link Math#cos} per element beyond.
 *
 * <p><b>Determinism.</b> Each output depends only on its own {@code t[i]}, {@code a[i]} and {@code
 * s}: results do not depend on the position, the length {@code n} or the vector width. They may
 * differ by a few ulps between the scalar and the vector implementation ({@code lprff.vectorization}).
 *
 * <p><b>Errors.</b> NaN or infinite inputs (or a sum that overflows) are rejected with an {@link
 * IllegalArgumentException} naming the array, the index and the value. The check costs one
 * vector add per vector of results (the kernel sums the unscaled cosines, NaN iff some argument
 * was not finite); the offending index is only searched for once that sum has shown that one
 * exists. When that exception is thrown, {@code out[outOff .. outOff + n)} has already been
 * written and its contents are unspecified.
 *
 * <p>{@code out} may be {@code t} or {@code a} itself at the same offset (in place); any other
 * overlap with them is rejected. Thread-safe: no state besides the arguments.
 */
public final class CosineFeatures {

  static final CosineBody BODY = VectorizationProvider.get().cosine();

  static final CosineCodesBody CODES = VectorizationProvider.get().cosineCodes();

  private CosineFeatures() {}

  /**
   * {@code out[i] = s * cos(fl(t[i] + a[i]))} for every {@code i}; the three arrays must have the
   * same length.
   *
   * @throws IllegalArgumentException if the lengths differ, {@code s} is not finite, or some
   *     {@code t[i]}, {@code a[i]} or {@code fl(t[i] + a[i])} is NaN or infinite
   */
  public static void map(float[] t, float[] a, float s, float[] out) {
    Objects.requireNonNull(t, "t");
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(out, "out");
    if (a.length != t.length) {
      throw new IllegalArgumentException(
          "a has length " + a.length + ", expected the length of t, " + t.length);
    }
    if (out.length != t.length) {
      throw new IllegalArgumentException(
          "out has length " + out.length + ", expected the length of t, " + t.length);
    }
    map(t, 0, a, 0, s, out, 0, t.length);
  }

  /**
   * {@code out[outOff + i] = s * cos(fl(t[tOff + i] + a[aOff + i]))} for {@code i} in {@code [0,
   * n)}; elements of {@code out} outside that range are left untouched.
   *
   * @throws IllegalArgumentException if {@code n} is negative, a range does not fit its array,
   *     {@code out} overlaps {@code t} or {@code a} other than exactly, {@code s} is not finite, or
   *     some {@code t[tOff + i]}, {@code a[aOff + i]} or their float sum is NaN or infinite
   */
  public static void map(
      float[] t, int tOff, float[] a, int aOff, float s, float[] out, int outOff, int n) {
    Objects.requireNonNull(t, "t");
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(out, "out");
    if (n < 0) {
      throw new IllegalArgumentException("n = " + n + ", expected n >= 0");
    }
    checkRange("t", t.length, tOff, n);
    checkRange("a", a.length, aOff, n);
    checkRange("out", out.length, outOff, n);
    checkOverlap("t", t, tOff, out, outOff, n);
    checkOverlap("a", a, aOff, out, outOff, n);
    if (!Float.isFinite(s)) {
      throw new IllegalArgumentException("s = " + s + ", expected a finite scale");
    }
    if (BODY.map(t, tOff, a, aOff, s, out, outOff, n)) {
      throw nonFinite(t, tOff, a, aOff, out, outOff, n);
    }
  }

  /**
   * The cosine step fused with quantization, for b <= 8: the b-bit codes of {@code s cos(fl(t[tOff
   * + i] + a[aOff + i]))}, i in [0, n), on the LP-RFF grid of b bits (lo = -s, step = 2 s /
   * (2^b - 1); the codes do not depend on s), packed from {@code byteOffset} as columns {@code
   * firstColumn + i} of row {@code rowId}: what {@link Featurizer} writes. The cosine is taken at
   * the precision b needs ({@code CosineCodes} in {@code simd.spi}: absolute error at most 1e-5
   * for b <= 4 and 3e-7 for b = 8, below 2^-13 of a rounding step); stochastic rounding draws 8
   * bits per feature from {@code CounterRng.bits8(seed, rowId, column, draw)} and is unbiased to
   * 2^-9 + 2^-16 of a step ({@link Quantizer#STOCHASTIC}), or 16 bits from {@code bits16},
   * unbiased to 2^-16 ({@link Quantizer#STOCHASTIC_HALF_WORDS}, files from before {@code
   * lprff.rng}).
   *
   * @throws IllegalArgumentException naming the value if bits is not 1, 2, 4 or 8, n is negative,
   *     a range does not fit, firstColumn is negative or not a multiple of 8, rowId or draw is
   *     negative, out is read-only or too small, or an argument is NaN or infinite
   */
  public static void quantize(
      float[] t, int tOff, float[] a, int aOff, int n, int bits, Quantizer quantizer, long seed,
      long rowId, int firstColumn, int draw, MemorySegment out, long byteOffset) {
    Objects.requireNonNull(t, "t");
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(quantizer, "quantizer");
    Objects.requireNonNull(out, "out");
    if (bits != 1 && bits != 2 && bits != 4 && bits != 8) {
      throw new IllegalArgumentException("bits = " + bits + ", expected 1, 2, 4 or 8");
    }
    if (!(quantizer instanceof Quantizer.Stochastic) && !(quantizer instanceof Quantizer.Nearest)) {
      throw new IllegalArgumentException("quantizer is " + quantizer.spelling() + ": this step"
          + " rounds stochastic or nearest; a Featurizer codes every quantizer");
    }
    if (n < 0) {
      throw new IllegalArgumentException("n = " + n + ", expected n >= 0");
    }
    checkRange("t", t.length, tOff, n);
    checkRange("a", a.length, aOff, n);
    if (firstColumn < 0 || firstColumn % 8 != 0 || firstColumn > Integer.MAX_VALUE - n) {
      throw new IllegalArgumentException(
          "firstColumn = " + firstColumn + ", expected a multiple of 8 >= 0 (columns up to 2^31)");
    }
    if (rowId < 0 || draw < 0) {
      throw new IllegalArgumentException(
          "rowId = " + rowId + ", draw = " + draw + ", expected both >= 0");
    }
    if (out.isReadOnly()) {
      throw new IllegalArgumentException("out is a read-only segment");
    }
    long bytes = ((long) n * bits + 7) / 8;
    if (byteOffset < 0 || byteOffset > out.byteSize() - bytes) {
      throw new IllegalArgumentException("out has " + out.byteSize() + " bytes, needs byteOffset"
          + " + ceil(n b / 8) = " + byteOffset + " + " + bytes);
    }
    int drawBits = quantizer instanceof Quantizer.Stochastic q ? q.drawBits() : CosineCodes.NO_DRAWS;
    if (CODES.quantize(t, tOff, a, aOff, n, bits, drawBits, seed, rowId,
        firstColumn, draw, out, byteOffset)) {
      for (int i = 0; i < n; i++) {
        if (!Float.isFinite(t[tOff + i] + a[aOff + i])) {
          throw new IllegalArgumentException("t[" + (tOff + i) + "] + a[" + (aOff + i) + "] = "
              + t[tOff + i] + " + " + a[aOff + i] + " is not finite (element " + i + " of n = "
              + n + "); inputs must be finite");
        }
      }
    }
  }

  private static void checkRange(String name, int length, int offset, int n) {
    if (offset < 0 || offset > length - n) {
      throw new IllegalArgumentException(
          name
              + " range ["
              + offset
              + ", "
              + ((long) offset + n)
              + ") does not fit its length "
              + length);
    }
  }

  private static void checkOverlap(
      String name, float[] in, int inOff, float[] out, int outOff, int n) {
    if (in == out && inOff != outOff && n > 0 && Math.abs(inOff - outOff) < n) {
      throw new IllegalArgumentException(
          "out range ["
              + outOff
              + ", "
              + (outOff + n)
              + ") overlaps "
              + name
              + " range ["
              + inOff
              + ", "
              + (inOff + n)
              + ") of the same array; only the same offset (in place) is allowed");
    }
  }

  /**
   * The rare path: the output holds a NaN exactly where {@code fl(t + a)} was not finite, so the
   * first NaN output names the first offending element even when {@code out} overwrote {@code t}
   * or {@code a} in place.
   */
  private static IllegalArgumentException nonFinite(
      float[] t, int tOff, float[] a, int aOff, float[] out, int outOff, int n) {
    int i = 0;
    while (i < n && !Float.isNaN(out[outOff + i])) {
      i++;
    }
    assert i < n : "the kernel reported a NaN output but none is present";
    boolean tLost = t == out && tOff == outOff;
    boolean aLost = a == out && aOff == outOff;
    float ti = t[tOff + i];
    float ai = a[aOff + i];
    String where = " (element " + i + " of n = " + n + "); inputs must be finite";
    if (!tLost && !Float.isFinite(ti)) {
      return new IllegalArgumentException("t[" + (tOff + i) + "] = " + ti + where);
    }
    if (!aLost && !Float.isFinite(ai)) {
      return new IllegalArgumentException("a[" + (aOff + i) + "] = " + ai + where);
    }
    if (!tLost && !aLost) {
      return new IllegalArgumentException(
          "t["
              + (tOff + i)
              + "] + a["
              + (aOff + i)
              + "] = "
              + ti
              + " + "
              + ai
              + " overflows to "
              + (ti + ai)
              + " in float"
              + where);
    }
    String lost = tLost ? "t" : "a";
    int lostIndex = tLost ? tOff + i : aOff + i;
    String kept =
        tLost && aLost
            ? "itself (t, a and out are the same elements)"
            : tLost ? "a[" + (aOff + i) + "] = " + ai : "t[" + (tOff + i) + "] = " + ti;
    return new IllegalArgumentException(
        lost
            + "["
            + lostIndex
            + "] is NaN or Infinity, or its sum with "
            + kept
            + " overflows (its value was overwritten in place, out is "
            + lost
            + ")"
            + where);
  }
}
