package org.lprff.vector.simd.panama;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.scalar.ScalarFwht;
import org.lprff.vector.simd.spi.FwhtBody;

/**
 * Vector API FWHT in the layout of FFHT (Andoni et al.): few passes over memory, blocks kept in L1.
 *
 * <ul>
 *   <li>Levels with distance below the lane count stay inside one register: for distance h the
 *       partner lane {@code i ^ h} is brought in (a 64-bit rotate for h = 1, a constant shuffle
 *       otherwise) and one FMA with a ±1 sign vector finishes the butterfly: {@code v * sign +
 *       partner} is {@code a + b} on the low lane and {@code a - b} on the high one, rounded
 *       exactly as the scalar reference rounds them, so both bodies agree bit for bit.
 *   <li>Longer levels are adds and subtracts of whole vectors, up to four merged per pass (radix
 *       16: sixteen vectors at distance d loaded once, four levels in registers, one store each).
 *       The first pass also does the in-register levels of the eight vectors it loads, plus three
 *       cross levels, so 2^10 floats take two passes over memory and 2^13 three.
 *   <li>Lengths above 2^{@link #LOG_BLOCK} go depth-first: up to 16 sub-blocks are transformed
 *       recursively (each stays in L1 while it is worked on), then one radix pass over the whole
 *       block does the top levels (from L2).
 *   <li>The normalization factor multiplies the outputs of the last pass, not a pass of its own.
 *   <li>The interleaved layout at width LANES is the same loop shape without the in-register
 *       levels: each element of a group is one register, every level a cross level.
 * </ul>
 *
 * <p>What limits it on AVX2: rearrange of a 256-bit float vector compiles to vpermps (lane
 * crossing, one per cycle with long latency) even where an in-lane immediate shuffle would do,
 * and the in-register levels dominate the run time.
 */
public final class VectorFwht implements FwhtBody {

  private static final VectorSpecies<Float> SPECIES = VectorShape.FLOAT;
  private static final int LANES = SPECIES.length();
  private static final int LOG_LANES = Integer.numberOfTrailingZeros(LANES);

  /**
   * Blocks up to 2^LOG_BLOCK floats are done with whole-block passes. 2^13 floats fill a 32 KiB
   * L1d, but fewer passes (3 instead of 4 with 2^11 blocks) won in measurements on Zen 3.
   */
  static final int LOG_BLOCK = 13;

  /** Shuffle to partner lane {@code i ^ h} for in-register level h = 2^k (index k). */
  private static final VectorShuffle<Float>[] PARTNER;

  /** +1 on lanes whose bit h is 0 (they receive a + b), -1 on the others (they receive a - b). */
  private static final FloatVector[] SIGN;

  static {
    @SuppressWarnings("unchecked")
    VectorShuffle<Float>[] partner = new VectorShuffle[LOG_LANES];
    FloatVector[] sign = new FloatVector[LOG_LANES];
    for (int k = 0; k < LOG_LANES; k++) {
      int h = 1 << k;
      partner[k] = VectorShuffle.fromOp(SPECIES, i -> i ^ h);
      float[] s = new float[LANES];
      for (int i = 0; i < LANES; i++) {
        s[i] = (i & h) == 0 ? 1f : -1f;
      }
      sign[k] = FloatVector.fromArray(SPECIES, s, 0);
    }
    PARTNER = partner;
    SIGN = sign;
  }

  private static final ScalarFwht SMALL = new ScalarFwht();

  /**
   * Partner lanes for distance 1: the two floats of each 64-bit pair swapped by a 32-bit rotate.
   * On AVX2 this is three cheap integer ops, where rearrange is a lane-crossing vpermps (one per
   * cycle, long latency). Small enough to be always inlined.
   */
  private static FloatVector swapAdjacent(FloatVector v) {
    return v.reinterpretAsLongs().lanewise(VectorOperators.ROL, 32).reinterpretAsFloats();
  }

  @Override
  public void transform(float[] x, int offset, int n) {
    assert FwhtBody.isValidSize(n) && offset >= 0 && offset + n <= x.length;
    if (n < LANES) {
      SMALL.transform(x, offset, n);
      return;
    }
    // From here n is a power of two >= LANES, a whole number of vectors: no loop has a tail.
    block(x, offset, Integer.numberOfTrailingZeros(n), 1f, false);
  }

  @Override
  public void transformNormalized(float[] x, int offset, int n) {
    assert FwhtBody.isValidSize(n) && offset >= 0 && offset + n <= x.length;
    if (n < LANES) {
      SMALL.transformNormalized(x, offset, n);
      return;
    }
    block(x, offset, Integer.numberOfTrailingZeros(n), FwhtBody.normalization(n), true);
  }

  /** Transforms x[offset, offset + 2^logN), scaling the outputs of its last pass if asked. */
  private static void block(float[] x, int offset, int logN, float scale, boolean scaled) {
    if (logN <= LOG_BLOCK) {
      inCache(x, offset, logN, scale, scaled);
      return;
    }
    // Depth-first: the sub-blocks first (each stays in cache while it is worked on), then the top
    // levels in one pass over the whole block.
    int top = Math.min(4, logN - LOG_BLOCK);
    int logSub = logN - top;
    for (int b = 0; b < 1 << top; b++) {
      block(x, offset + (b << logSub), logSub, 1f, false);
    }
    crossPass(x, offset, 1 << logN, 1 << logSub, top, scale, scaled);
  }

  /** Whole-block passes over a block that fits in L1: 2^logN >= LANES. */
  private static void inCache(float[] x, int offset, int logN, float scale, boolean scaled) {
    int n = 1 << logN;
    int logVectors = logN - LOG_LANES;
    int first = Math.min(3, logVectors);
    int remaining = logVectors - first;
    firstPass(x, offset, n, first, scale, scaled && remaining == 0);
    int distance = LANES << first;
    while (remaining > 0) {
      // At most 4 levels per pass (radix 16), split evenly: 7 = 4 + 3, 6 = 3 + 3, 5 = 3 + 2.
      int passes = (remaining + 3) / 4;
      int levels = (remaining + passes - 1) / passes;
      remaining -= levels;
      crossPass(x, offset, n, distance, levels, scale, scaled && remaining == 0);
      distance <<= levels;
    }
  }

  /** In-register levels of every vector, then the first {@code levels} cross-vector levels. */
  private static void firstPass(
      float[] x, int offset, int n, int levels, float scale, boolean scaled) {
    switch (levels) {
      case 0 -> leafOnly(x, offset, n, scale, scaled);
      case 1 -> radix2(x, offset, n, LANES, true, scale, scaled);
      case 2 -> radix4(x, offset, n, LANES, true, scale, scaled);
      default -> firstRadix8(x, offset, n, scale, scaled);
    }
  }

  private static void crossPass(
      float[] x, int offset, int n, int distance, int levels, float scale, boolean scaled) {
    switch (levels) {
      case 1 -> radix2(x, offset, n, distance, false, scale, scaled);
      case 2 -> radix4(x, offset, n, distance, false, scale, scaled);
      case 3 -> radix8(x, offset, n, distance, scale, scaled);
      default -> radix16(x, offset, n, distance, scale, scaled);
    }
  }

  private static void leafOnly(float[] x, int offset, int n, float scale, boolean scaled) {
    for (int i = offset; i < offset + n; i += LANES) {
      FloatVector v = FloatVector.fromArray(SPECIES, x, i);
      v = v.fma(SIGN[0], swapAdjacent(v));
      for (int k = 1; k < LOG_LANES; k++) {
        v = v.fma(SIGN[k], v.rearrange(PARTNER[k]));
      }
      if (scaled) {
        v = v.mul(scale);
      }
      v.intoArray(x, i);
    }
  }

  /** One level at distance d (a multiple of LANES), optionally after the in-register levels. */
  private static void radix2(
      float[] x, int offset, int n, int d, boolean leaf, float scale, boolean scaled) {
    int end = offset + n;
    for (int base = offset; base < end; base += 2 * d) {
      for (int i = base; i < base + d; i += LANES) {
        FloatVector a0 = FloatVector.fromArray(SPECIES, x, i);
        FloatVector a1 = FloatVector.fromArray(SPECIES, x, i + d);
        if (leaf) {
          FloatVector sign1 = SIGN[0];
          a0 = a0.fma(sign1, swapAdjacent(a0));
          a1 = a1.fma(sign1, swapAdjacent(a1));
          for (int k = 1; k < LOG_LANES; k++) {
            FloatVector sign = SIGN[k];
            VectorShuffle<Float> partner = PARTNER[k];
            a0 = a0.fma(sign, a0.rearrange(partner));
            a1 = a1.fma(sign, a1.rearrange(partner));
          }
        }
        FloatVector b0 = a0.add(a1);
        FloatVector b1 = a0.sub(a1);
        if (scaled) {
          b0 = b0.mul(scale);
          b1 = b1.mul(scale);
        }
        b0.intoArray(x, i);
        b1.intoArray(x, i + d);
      }
    }
  }

  /** Two levels (distances d, 2d) on four vectors loaded once. */
  private static void radix4(
      float[] x, int offset, int n, int d, boolean leaf, float scale, boolean scaled) {
    int end = offset + n;
    for (int base = offset; base < end; base += 4 * d) {
      for (int i = base; i < base + d; i += LANES) {
        FloatVector a0 = FloatVector.fromArray(SPECIES, x, i);
        FloatVector a1 = FloatVector.fromArray(SPECIES, x, i + d);
        FloatVector a2 = FloatVector.fromArray(SPECIES, x, i + 2 * d);
        FloatVector a3 = FloatVector.fromArray(SPECIES, x, i + 3 * d);
        if (leaf) {
          FloatVector sign1 = SIGN[0];
          a0 = a0.fma(sign1, swapAdjacent(a0));
          a1 = a1.fma(sign1, swapAdjacent(a1));
          a2 = a2.fma(sign1, swapAdjacent(a2));
          a3 = a3.fma(sign1, swapAdjacent(a3));
          for (int k = 1; k < LOG_LANES; k++) {
            FloatVector sign = SIGN[k];
            VectorShuffle<Float> partner = PARTNER[k];
            a0 = a0.fma(sign, a0.rearrange(partner));
            a1 = a1.fma(sign, a1.rearrange(partner));
            a2 = a2.fma(sign, a2.rearrange(partner));
            a3 = a3.fma(sign, a3.rearrange(partner));
          }
        }
        FloatVector b0 = a0.add(a1);
        FloatVector b1 = a0.sub(a1);
        FloatVector b2 = a2.add(a3);
        FloatVector b3 = a2.sub(a3);
        FloatVector c0 = b0.add(b2);
        FloatVector c2 = b0.sub(b2);
        FloatVector c1 = b1.add(b3);
        FloatVector c3 = b1.sub(b3);
        if (scaled) {
          c0 = c0.mul(scale);
          c1 = c1.mul(scale);
          c2 = c2.mul(scale);
          c3 = c3.mul(scale);
        }
        c0.intoArray(x, i);
        c1.intoArray(x, i + d);
        c2.intoArray(x, i + 2 * d);
        c3.intoArray(x, i + 3 * d);
      }
    }
  }

  /**
   * The first pass of the common case: eight consecutive vectors, their in-register levels and
   * three cross levels. One flat loop with constant offsets, so C2 hoists the range checks.
   */
  private static void firstRadix8(float[] x, int offset, int n, float scale, boolean scaled) {
    final int d = LANES;
    int end = offset + n;
    for (int i = offset; i < end; i += 8 * d) {
      FloatVector a0 = FloatVector.fromArray(SPECIES, x, i);
      FloatVector a1 = FloatVector.fromArray(SPECIES, x, i + d);
      FloatVector a2 = FloatVector.fromArray(SPECIES, x, i + 2 * d);
      FloatVector a3 = FloatVector.fromArray(SPECIES, x, i + 3 * d);
      FloatVector a4 = FloatVector.fromArray(SPECIES, x, i + 4 * d);
      FloatVector a5 = FloatVector.fromArray(SPECIES, x, i + 5 * d);
      FloatVector a6 = FloatVector.fromArray(SPECIES, x, i + 6 * d);
      FloatVector a7 = FloatVector.fromArray(SPECIES, x, i + 7 * d);
      // In-register levels, written out here: a helper method is too large for C2 to inline
      // reliably, and a call that is not inlined boxes every vector.
      FloatVector sign1 = SIGN[0];
      a0 = a0.fma(sign1, swapAdjacent(a0));
      a1 = a1.fma(sign1, swapAdjacent(a1));
      a2 = a2.fma(sign1, swapAdjacent(a2));
      a3 = a3.fma(sign1, swapAdjacent(a3));
      a4 = a4.fma(sign1, swapAdjacent(a4));
      a5 = a5.fma(sign1, swapAdjacent(a5));
      a6 = a6.fma(sign1, swapAdjacent(a6));
      a7 = a7.fma(sign1, swapAdjacent(a7));
      for (int k = 1; k < LOG_LANES; k++) {
        FloatVector sign = SIGN[k];
        VectorShuffle<Float> partner = PARTNER[k];
        a0 = a0.fma(sign, a0.rearrange(partner));
        a1 = a1.fma(sign, a1.rearrange(partner));
        a2 = a2.fma(sign, a2.rearrange(partner));
        a3 = a3.fma(sign, a3.rearrange(partner));
        a4 = a4.fma(sign, a4.rearrange(partner));
        a5 = a5.fma(sign, a5.rearrange(partner));
        a6 = a6.fma(sign, a6.rearrange(partner));
        a7 = a7.fma(sign, a7.rearrange(partner));
      }
      FloatVector b0 = a0.add(a1);
      FloatVector b1 = a0.sub(a1);
      FloatVector b2 = a2.add(a3);
      FloatVector b3 = a2.sub(a3);
      FloatVector b4 = a4.add(a5);
      FloatVector b5 = a4.sub(a5);
      FloatVector b6 = a6.add(a7);
      FloatVector b7 = a6.sub(a7);
      FloatVector c0 = b0.add(b2);
      FloatVector c2 = b0.sub(b2);
      FloatVector c1 = b1.add(b3);
      FloatVector c3 = b1.sub(b3);
      FloatVector c4 = b4.add(b6);
      FloatVector c6 = b4.sub(b6);
      FloatVector c5 = b5.add(b7);
      FloatVector c7 = b5.sub(b7);
      FloatVector e0 = c0.add(c4);
      FloatVector e4 = c0.sub(c4);
      FloatVector e1 = c1.add(c5);
      FloatVector e5 = c1.sub(c5);
      FloatVector e2 = c2.add(c6);
      FloatVector e6 = c2.sub(c6);
      FloatVector e3 = c3.add(c7);
      FloatVector e7 = c3.sub(c7);
      if (scaled) {
        e0 = e0.mul(scale);
        e1 = e1.mul(scale);
        e2 = e2.mul(scale);
        e3 = e3.mul(scale);
        e4 = e4.mul(scale);
        e5 = e5.mul(scale);
        e6 = e6.mul(scale);
        e7 = e7.mul(scale);
      }
      e0.intoArray(x, i);
      e1.intoArray(x, i + d);
      e2.intoArray(x, i + 2 * d);
      e3.intoArray(x, i + 3 * d);
      e4.intoArray(x, i + 4 * d);
      e5.intoArray(x, i + 5 * d);
      e6.intoArray(x, i + 6 * d);
      e7.intoArray(x, i + 7 * d);
    }
  }

  /**
   * Four levels (distances d .. 8d) on sixteen vectors loaded once: one pass instead of two. With
   * 16 architectural registers on AVX2 a few values spill, which costs less than a second pass.
   */
  private static void radix16(float[] x, int offset, int n, int d, float scale, boolean scaled) {
    int end = offset + n;
    for (int base = offset; base < end; base += 16 * d) {
      for (int i = base; i < base + d; i += LANES) {
        FloatVector a0 = FloatVector.fromArray(SPECIES, x, i);
        FloatVector a1 = FloatVector.fromArray(SPECIES, x, i + d);
        FloatVector a2 = FloatVector.fromArray(SPECIES, x, i + 2 * d);
        FloatVector a3 = FloatVector.fromArray(SPECIES, x, i + 3 * d);
        FloatVector a4 = FloatVector.fromArray(SPECIES, x, i + 4 * d);
        FloatVector a5 = FloatVector.fromArray(SPECIES, x, i + 5 * d);
        FloatVector a6 = FloatVector.fromArray(SPECIES, x, i + 6 * d);
        FloatVector a7 = FloatVector.fromArray(SPECIES, x, i + 7 * d);
        FloatVector a8 = FloatVector.fromArray(SPECIES, x, i + 8 * d);
        FloatVector a9 = FloatVector.fromArray(SPECIES, x, i + 9 * d);
        FloatVector a10 = FloatVector.fromArray(SPECIES, x, i + 10 * d);
        FloatVector a11 = FloatVector.fromArray(SPECIES, x, i + 11 * d);
        FloatVector a12 = FloatVector.fromArray(SPECIES, x, i + 12 * d);
        FloatVector a13 = FloatVector.fromArray(SPECIES, x, i + 13 * d);
        FloatVector a14 = FloatVector.fromArray(SPECIES, x, i + 14 * d);
        FloatVector a15 = FloatVector.fromArray(SPECIES, x, i + 15 * d);
        FloatVector b0 = a0.add(a1);
        FloatVector b1 = a0.sub(a1);
        FloatVector b2 = a2.add(a3);
        FloatVector b3 = a2.sub(a3);
        FloatVector b4 = a4.add(a5);
        FloatVector b5 = a4.sub(a5);
        FloatVector b6 = a6.add(a7);
        FloatVector b7 = a6.sub(a7);
        FloatVector b8 = a8.add(a9);
        FloatVector b9 = a8.sub(a9);
        FloatVector b10 = a10.add(a11);
        FloatVector b11 = a10.sub(a11);
        FloatVector b12 = a12.add(a13);
        FloatVector b13 = a12.sub(a13);
        FloatVector b14 = a14.add(a15);
        FloatVector b15 = a14.sub(a15);
        FloatVector c0 = b0.add(b2);
        FloatVector c2 = b0.sub(b2);
        FloatVector c1 = b1.add(b3);
        FloatVector c3 = b1.sub(b3);
        FloatVector c4 = b4.add(b6);
        FloatVector c6 = b4.sub(b6);
        FloatVector c5 = b5.add(b7);
        FloatVector c7 = b5.sub(b7);
        FloatVector c8 = b8.add(b10);
        FloatVector c10 = b8.sub(b10);
        FloatVector c9 = b9.add(b11);
        FloatVector c11 = b9.sub(b11);
        FloatVector c12 = b12.add(b14);
        FloatVector c14 = b12.sub(b14);
        FloatVector c13 = b13.add(b15);
        FloatVector c15 = b13.sub(b15);
        FloatVector e0 = c0.add(c4);
        FloatVector e4 = c0.sub(c4);
        FloatVector e1 = c1.add(c5);
        FloatVector e5 = c1.sub(c5);
        FloatVector e2 = c2.add(c6);
        FloatVector e6 = c2.sub(c6);
        FloatVector e3 = c3.add(c7);
        FloatVector e7 = c3.sub(c7);
        FloatVector e8 = c8.add(c12);
        FloatVector e12 = c8.sub(c12);
        FloatVector e9 = c9.add(c13);
        FloatVector e13 = c9.sub(c13);
        FloatVector e10 = c10.add(c14);
        FloatVector e14 = c10.sub(c14);
        FloatVector e11 = c11.add(c15);
        FloatVector e15 = c11.sub(c15);
        FloatVector f0 = e0.add(e8);
        FloatVector f8 = e0.sub(e8);
        FloatVector f1 = e1.add(e9);
        FloatVector f9 = e1.sub(e9);
        FloatVector f2 = e2.add(e10);
        FloatVector f10 = e2.sub(e10);
        FloatVector f3 = e3.add(e11);
        FloatVector f11 = e3.sub(e11);
        FloatVector f4 = e4.add(e12);
        FloatVector f12 = e4.sub(e12);
        FloatVector f5 = e5.add(e13);
        FloatVector f13 = e5.sub(e13);
        FloatVector f6 = e6.add(e14);
        FloatVector f14 = e6.sub(e14);
        FloatVector f7 = e7.add(e15);
        FloatVector f15 = e7.sub(e15);
        if (scaled) {
          f0 = f0.mul(scale);
          f1 = f1.mul(scale);
          f2 = f2.mul(scale);
          f3 = f3.mul(scale);
          f4 = f4.mul(scale);
          f5 = f5.mul(scale);
          f6 = f6.mul(scale);
          f7 = f7.mul(scale);
          f8 = f8.mul(scale);
          f9 = f9.mul(scale);
          f10 = f10.mul(scale);
          f11 = f11.mul(scale);
          f12 = f12.mul(scale);
          f13 = f13.mul(scale);
          f14 = f14.mul(scale);
          f15 = f15.mul(scale);
        }
        f0.intoArray(x, i);
        f1.intoArray(x, i + d);
        f2.intoArray(x, i + 2 * d);
        f3.intoArray(x, i + 3 * d);
        f4.intoArray(x, i + 4 * d);
        f5.intoArray(x, i + 5 * d);
        f6.intoArray(x, i + 6 * d);
        f7.intoArray(x, i + 7 * d);
        f8.intoArray(x, i + 8 * d);
        f9.intoArray(x, i + 9 * d);
        f10.intoArray(x, i + 10 * d);
        f11.intoArray(x, i + 11 * d);
        f12.intoArray(x, i + 12 * d);
        f13.intoArray(x, i + 13 * d);
        f14.intoArray(x, i + 14 * d);
        f15.intoArray(x, i + 15 * d);
      }
    }
  }

  /**
   * {@link #radix16} at distance LANES, the first pass of the interleaved layout: one flat loop
   * with constant offsets (the nested loop would run its inner loop once per block, with the
   * range checks of every load and store inside), as in {@link #firstRadix8}.
   */
  private static void firstCross16(float[] x, int offset, int n, float scale, boolean scaled) {
    final int d = LANES;
    int end = offset + n;
    for (int i = offset; i < end; i += 16 * d) {
      FloatVector a0 = FloatVector.fromArray(SPECIES, x, i);
      FloatVector a1 = FloatVector.fromArray(SPECIES, x, i + d);
      FloatVector a2 = FloatVector.fromArray(SPECIES, x, i + 2 * d);
      FloatVector a3 = FloatVector.fromArray(SPECIES, x, i + 3 * d);
      FloatVector a4 = FloatVector.fromArray(SPECIES, x, i + 4 * d);
      FloatVector a5 = FloatVector.fromArray(SPECIES, x, i + 5 * d);
      FloatVector a6 = FloatVector.fromArray(SPECIES, x, i + 6 * d);
      FloatVector a7 = FloatVector.fromArray(SPECIES, x, i + 7 * d);
      FloatVector a8 = FloatVector.fromArray(SPECIES, x, i + 8 * d);
      FloatVector a9 = FloatVector.fromArray(SPECIES, x, i + 9 * d);
      FloatVector a10 = FloatVector.fromArray(SPECIES, x, i + 10 * d);
      FloatVector a11 = FloatVector.fromArray(SPECIES, x, i + 11 * d);
      FloatVector a12 = FloatVector.fromArray(SPECIES, x, i + 12 * d);
      FloatVector a13 = FloatVector.fromArray(SPECIES, x, i + 13 * d);
      FloatVector a14 = FloatVector.fromArray(SPECIES, x, i + 14 * d);
      FloatVector a15 = FloatVector.fromArray(SPECIES, x, i + 15 * d);
      FloatVector b0 = a0.add(a1);
      FloatVector b1 = a0.sub(a1);
      FloatVector b2 = a2.add(a3);
      FloatVector b3 = a2.sub(a3);
      FloatVector b4 = a4.add(a5);
      FloatVector b5 = a4.sub(a5);
      FloatVector b6 = a6.add(a7);
      FloatVector b7 = a6.sub(a7);
      FloatVector b8 = a8.add(a9);
      FloatVector b9 = a8.sub(a9);
      FloatVector b10 = a10.add(a11);
      FloatVector b11 = a10.sub(a11);
      FloatVector b12 = a12.add(a13);
      FloatVector b13 = a12.sub(a13);
      FloatVector b14 = a14.add(a15);
      FloatVector b15 = a14.sub(a15);
      FloatVector c0 = b0.add(b2);
      FloatVector c2 = b0.sub(b2);
      FloatVector c1 = b1.add(b3);
      FloatVector c3 = b1.sub(b3);
      FloatVector c4 = b4.add(b6);
      FloatVector c6 = b4.sub(b6);
      FloatVector c5 = b5.add(b7);
      FloatVector c7 = b5.sub(b7);
      FloatVector c8 = b8.add(b10);
      FloatVector c10 = b8.sub(b10);
      FloatVector c9 = b9.add(b11);
      FloatVector c11 = b9.sub(b11);
      FloatVector c12 = b12.add(b14);
      FloatVector c14 = b12.sub(b14);
      FloatVector c13 = b13.add(b15);
      FloatVector c15 = b13.sub(b15);
      FloatVector e0 = c0.add(c4);
      FloatVector e4 = c0.sub(c4);
      FloatVector e1 = c1.add(c5);
      FloatVector e5 = c1.sub(c5);
      FloatVector e2 = c2.add(c6);
      FloatVector e6 = c2.sub(c6);
      FloatVector e3 = c3.add(c7);
      FloatVector e7 = c3.sub(c7);
      FloatVector e8 = c8.add(c12);
      FloatVector e12 = c8.sub(c12);
      FloatVector e9 = c9.add(c13);
      FloatVector e13 = c9.sub(c13);
      FloatVector e10 = c10.add(c14);
      FloatVector e14 = c10.sub(c14);
      FloatVector e11 = c11.add(c15);
      FloatVector e15 = c11.sub(c15);
      FloatVector f0 = e0.add(e8);
      FloatVector f8 = e0.sub(e8);
      FloatVector f1 = e1.add(e9);
      FloatVector f9 = e1.sub(e9);
      FloatVector f2 = e2.add(e10);
      FloatVector f10 = e2.sub(e10);
      FloatVector f3 = e3.add(e11);
      FloatVector f11 = e3.sub(e11);
      FloatVector f4 = e4.add(e12);
      FloatVector f12 = e4.sub(e12);
      FloatVector f5 = e5.add(e13);
      FloatVector f13 = e5.sub(e13);
      FloatVector f6 = e6.add(e14);
      FloatVector f14 = e6.sub(e14);
      FloatVector f7 = e7.add(e15);
      FloatVector f15 = e7.sub(e15);
      if (scaled) {
        f0 = f0.mul(scale);
        f1 = f1.mul(scale);
        f2 = f2.mul(scale);
        f3 = f3.mul(scale);
        f4 = f4.mul(scale);
        f5 = f5.mul(scale);
        f6 = f6.mul(scale);
        f7 = f7.mul(scale);
        f8 = f8.mul(scale);
        f9 = f9.mul(scale);
        f10 = f10.mul(scale);
        f11 = f11.mul(scale);
        f12 = f12.mul(scale);
        f13 = f13.mul(scale);
        f14 = f14.mul(scale);
        f15 = f15.mul(scale);
      }
      f0.intoArray(x, i);
      f1.intoArray(x, i + d);
      f2.intoArray(x, i + 2 * d);
      f3.intoArray(x, i + 3 * d);
      f4.intoArray(x, i + 4 * d);
      f5.intoArray(x, i + 5 * d);
      f6.intoArray(x, i + 6 * d);
      f7.intoArray(x, i + 7 * d);
      f8.intoArray(x, i + 8 * d);
      f9.intoArray(x, i + 9 * d);
      f10.intoArray(x, i + 10 * d);
      f11.intoArray(x, i + 11 * d);
      f12.intoArray(x, i + 12 * d);
      f13.intoArray(x, i + 13 * d);
      f14.intoArray(x, i + 14 * d);
      f15.intoArray(x, i + 15 * d);
    }
  }

  /** Three levels (distances d, 2d, 4d) on eight vectors loaded once. */
  private static void radix8(
      float[] x, int offset, int n, int d, float scale, boolean scaled) {
    int end = offset + n;
    for (int base = offset; base < end; base += 8 * d) {
      for (int i = base; i < base + d; i += LANES) {
        FloatVector a0 = FloatVector.fromArray(SPECIES, x, i);
        FloatVector a1 = FloatVector.fromArray(SPECIES, x, i + d);
        FloatVector a2 = FloatVector.fromArray(SPECIES, x, i + 2 * d);
        FloatVector a3 = FloatVector.fromArray(SPECIES, x, i + 3 * d);
        FloatVector a4 = FloatVector.fromArray(SPECIES, x, i + 4 * d);
        FloatVector a5 = FloatVector.fromArray(SPECIES, x, i + 5 * d);
        FloatVector a6 = FloatVector.fromArray(SPECIES, x, i + 6 * d);
        FloatVector a7 = FloatVector.fromArray(SPECIES, x, i + 7 * d);
        FloatVector b0 = a0.add(a1);
        FloatVector b1 = a0.sub(a1);
        FloatVector b2 = a2.add(a3);
        FloatVector b3 = a2.sub(a3);
        FloatVector b4 = a4.add(a5);
        FloatVector b5 = a4.sub(a5);
        FloatVector b6 = a6.add(a7);
        FloatVector b7 = a6.sub(a7);
        FloatVector c0 = b0.add(b2);
        FloatVector c2 = b0.sub(b2);
        FloatVector c1 = b1.add(b3);
        FloatVector c3 = b1.sub(b3);
        FloatVector c4 = b4.add(b6);
        FloatVector c6 = b4.sub(b6);
        FloatVector c5 = b5.add(b7);
        FloatVector c7 = b5.sub(b7);
        FloatVector e0 = c0.add(c4);
        FloatVector e4 = c0.sub(c4);
        FloatVector e1 = c1.add(c5);
        FloatVector e5 = c1.sub(c5);
        FloatVector e2 = c2.add(c6);
        FloatVector e6 = c2.sub(c6);
        FloatVector e3 = c3.add(c7);
        FloatVector e7 = c3.sub(c7);
        if (scaled) {
          e0 = e0.mul(scale);
          e1 = e1.mul(scale);
          e2 = e2.mul(scale);
          e3 = e3.mul(scale);
          e4 = e4.mul(scale);
          e5 = e5.mul(scale);
          e6 = e6.mul(scale);
          e7 = e7.mul(scale);
        }
        e0.intoArray(x, i);
        e1.intoArray(x, i + d);
        e2.intoArray(x, i + 2 * d);
        e3.intoArray(x, i + 3 * d);
        e4.intoArray(x, i + 4 * d);
        e5.intoArray(x, i + 5 * d);
        e6.intoArray(x, i + 6 * d);
        e7.intoArray(x, i + 7 * d);
      }
    }
  }

  // ---- interleaved layout

  @Override
  public void transformInterleaved(
      float[] x, int offset, int n, int width, boolean normalized) {
    assert FwhtBody.isValidSize(n) && width >= 1 && offset >= 0
        && offset + (long) n * width <= x.length;
    float scale = normalized ? FwhtBody.normalization(n) : 1f;
    int vectorColumns = SPECIES.loopBound(width);
    for (int c = 0; c < vectorColumns; c += LANES) {
      interleavedColumn(x, offset + c, n, width, normalized, scale);
    }
    ScalarFwht.transformColumns(x, offset, n, width, vectorColumns, width, normalized);
  }

  /**
   * One register-wide column of the layout: element i is the register at {@code o + i width}.
   * With width = LANES (the projections' groups) the column is contiguous and runs the passes of
   * the contiguous transform ({@link #interleavedBlock}); other widths take radix-8 passes at
   * stride width while three levels are left, then one radix-4 or radix-2 pass. Only the last pass
   * applies the normalization. Each pass is its own method with its loops inside: C2 compiles it
   * whole, vectors in registers (a radix-8 step as a method called from the loop is too big to
   * inline and ran 2x slower).
   */
  private static void interleavedColumn(
      float[] x, int o, int n, int width, boolean normalized, float scale) {
    if (width == LANES) {
      interleavedBlock(x, o, Integer.numberOfTrailingZeros(n), scale, normalized);
      return;
    }
    int h = 1;
    for (; 4 * h < n; h <<= 3) {
      interleavedPass8(x, o, n, width, h, normalized && 8 * h == n, scale);
    }
    if (2 * h < n) {
      interleavedPass4(x, o, n, width, h, normalized, scale);
    } else if (h < n) {
      interleavedPass2(x, o, width, h, normalized, scale);
    }
  }

  /**
   * 2^logN registers side by side, x[o, o + 2^logN LANES): every level is whole registers at
   * distance h LANES, as in the cross passes of the contiguous transform, so those passes do it,
   * up to four levels per load and store of each register (each level alone would be a load, an
   * add or subtract and a store: the one store per cycle would bind).
   *
   * <p>Loop shape of FFHT: a block that fits in L1 (2^{@link #LOG_BLOCK} floats) takes its
   * levels in as few passes as possible, split evenly (7 = 4 + 3, 10 = 4 + 3 + 3); a larger one
   * goes depth-first, its sub-blocks transformed whole while they stay in L1, then the top levels
   * in one pass from L2, with the pass count still the fewest (2^10 at 16 lanes: 4 + 3 in each
   * of eight 8 KiB sub-blocks, then 3).
   */
  private static void interleavedBlock(float[] x, int o, int logN, float scale, boolean scaled) {
    int passes = (logN + 3) / 4;
    if (passes > 1 && logN + LOG_LANES > LOG_BLOCK) {
      int top = logN / passes;
      int logSub = logN - top;
      int subFloats = LANES << logSub;
      for (int b = 0; b < 1 << top; b++) {
        interleavedBlock(x, o + b * subFloats, logSub, 1f, false);
      }
      crossPass(x, o, LANES << logN, subFloats, top, scale, scaled);
      return;
    }
    int distance = LANES;
    int remaining = logN;
    for (; passes > 0; passes--) {
      int levels = (remaining + passes - 1) / passes;
      remaining -= levels;
      boolean last = remaining == 0;
      if (distance == LANES && levels == 4) {
        firstCross16(x, o, LANES << logN, scale, scaled && last);
      } else {
        crossPass(x, o, LANES << logN, distance, levels, scale, scaled && last);
      }
      distance <<= levels;
    }
  }

  /** Levels h, 2h, 4h: registers a + k step, k in [0, 8), step = h width. */
  private static void interleavedPass8(
      float[] x, int o, int n, int width, int h, boolean scaled, float scale) {
    int step = h * width;
    for (int i = 0; i < n; i += 8 * h) {
      int from = o + i * width;
      for (int a = from; a < from + step; a += width) {
        FloatVector v0 = FloatVector.fromArray(SPECIES, x, a);
        FloatVector v1 = FloatVector.fromArray(SPECIES, x, a + step);
        FloatVector v2 = FloatVector.fromArray(SPECIES, x, a + 2 * step);
        FloatVector v3 = FloatVector.fromArray(SPECIES, x, a + 3 * step);
        FloatVector v4 = FloatVector.fromArray(SPECIES, x, a + 4 * step);
        FloatVector v5 = FloatVector.fromArray(SPECIES, x, a + 5 * step);
        FloatVector v6 = FloatVector.fromArray(SPECIES, x, a + 6 * step);
        FloatVector v7 = FloatVector.fromArray(SPECIES, x, a + 7 * step);
        FloatVector a0 = v0.add(v1);
        FloatVector a1 = v0.sub(v1);
        FloatVector a2 = v2.add(v3);
        FloatVector a3 = v2.sub(v3);
        FloatVector a4 = v4.add(v5);
        FloatVector a5 = v4.sub(v5);
        FloatVector a6 = v6.add(v7);
        FloatVector a7 = v6.sub(v7);
        FloatVector b0 = a0.add(a2);
        FloatVector b1 = a1.add(a3);
        FloatVector b2 = a0.sub(a2);
        FloatVector b3 = a1.sub(a3);
        FloatVector b4 = a4.add(a6);
        FloatVector b5 = a5.add(a7);
        FloatVector b6 = a4.sub(a6);
        FloatVector b7 = a5.sub(a7);
        FloatVector y0 = b0.add(b4);
        FloatVector y1 = b1.add(b5);
        FloatVector y2 = b2.add(b6);
        FloatVector y3 = b3.add(b7);
        FloatVector y4 = b0.sub(b4);
        FloatVector y5 = b1.sub(b5);
        FloatVector y6 = b2.sub(b6);
        FloatVector y7 = b3.sub(b7);
        if (scaled) {
          y0 = y0.mul(scale);
          y1 = y1.mul(scale);
          y2 = y2.mul(scale);
          y3 = y3.mul(scale);
          y4 = y4.mul(scale);
          y5 = y5.mul(scale);
          y6 = y6.mul(scale);
          y7 = y7.mul(scale);
        }
        y0.intoArray(x, a);
        y1.intoArray(x, a + step);
        y2.intoArray(x, a + 2 * step);
        y3.intoArray(x, a + 3 * step);
        y4.intoArray(x, a + 4 * step);
        y5.intoArray(x, a + 5 * step);
        y6.intoArray(x, a + 6 * step);
        y7.intoArray(x, a + 7 * step);
      }
    }
  }

  /** Levels h and 2h: registers a + k step, k in [0, 4), step = h width. */
  private static void interleavedPass4(
      float[] x, int o, int n, int width, int h, boolean scaled, float scale) {
    int step = h * width;
    for (int i = 0; i < n; i += 4 * h) {
      int from = o + i * width;
      for (int a = from; a < from + step; a += width) {
        FloatVector v0 = FloatVector.fromArray(SPECIES, x, a);
        FloatVector v1 = FloatVector.fromArray(SPECIES, x, a + step);
        FloatVector v2 = FloatVector.fromArray(SPECIES, x, a + 2 * step);
        FloatVector v3 = FloatVector.fromArray(SPECIES, x, a + 3 * step);
        // Level h pairs (v0, v1) and (v2, v3); level 2h their sums and their differences.
        FloatVector s0 = v0.add(v1);
        FloatVector d0 = v0.sub(v1);
        FloatVector s1 = v2.add(v3);
        FloatVector d1 = v2.sub(v3);
        FloatVector y0 = s0.add(s1);
        FloatVector y1 = d0.add(d1);
        FloatVector y2 = s0.sub(s1);
        FloatVector y3 = d0.sub(d1);
        if (scaled) {
          y0 = y0.mul(scale);
          y1 = y1.mul(scale);
          y2 = y2.mul(scale);
          y3 = y3.mul(scale);
        }
        y0.intoArray(x, a);
        y1.intoArray(x, a + step);
        y2.intoArray(x, a + 2 * step);
        y3.intoArray(x, a + 3 * step);
      }
    }
  }

  /** The top level h = n / 2: registers a and a + step, step = h width. */
  private static void interleavedPass2(
      float[] x, int o, int width, int h, boolean scaled, float scale) {
    int step = h * width;
    for (int a = o; a < o + step; a += width) {
      FloatVector v0 = FloatVector.fromArray(SPECIES, x, a);
      FloatVector v1 = FloatVector.fromArray(SPECIES, x, a + step);
      FloatVector y0 = v0.add(v1);
      FloatVector y1 = v0.sub(v1);
      if (scaled) {
        y0 = y0.mul(scale);
        y1 = y1.mul(scale);
      }
      y0.intoArray(x, a);
      y1.intoArray(x, a + step);
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(VectorShape.FLOAT);
  }
}
