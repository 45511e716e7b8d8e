package org.lprff.vector.simd.panama;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.scalar.ScalarFft;
import org.lprff.vector.simd.spi.CirculantSpectrum;
import org.lprff.vector.simd.spi.FftBody;
import org.lprff.vector.simd.spi.Twiddles;

/**
 * Vector API body of {@link FftBody} on split re/im arrays.
 *
 * <p>Stages whose half-size h is at least the lane count are plain vector butterflies: a, c
 * and the stage's twiddles are contiguous loads. The last log2(lanes) DIF stages (first DIT
 * stages) act inside one vector of consecutive points: the partner lane is lane ^ h (one
 * rearrange), a ±1 sign vector makes a + c and a - c in one fused multiply-add, and a twiddle
 * vector holding 1 in the upper lanes finishes the butterfly. Every arithmetic step is the
 * same IEEE operation in the same order as {@link ScalarFft}, so both bodies return equal
 * results (no FMA contraction: mul and add/sub are rounded separately, as in the scalar code).
 *
 * <p>Stages of half-size >= lanes go two per pass over memory (radix 2^2 with the radix-2
 * arithmetic unchanged), halving loads and stores. Large transforms are cache-blocked: stages
 * with butterflies spanning more than {@link #BLOCK} points stream over the whole array; the
 * remaining stages then run block by block while the block stays in L1.
 */
public final class VectorFft implements FftBody {

  private static final VectorSpecies<Float> SPECIES = VectorShape.FLOAT;
  private static final int LANES = SPECIES.length();
  private static final int LOG_LANES = Integer.numberOfTrailingZeros(LANES);

  /** Points per cache block: 2 x 4 KiB x 2 arrays = 16 KiB of data, half of a 32 KiB L1d. */
  private static final int BLOCK = 2048;

  private static final ScalarFft SCALAR = new ScalarFft();

  /** Per in-register stage s (h = 2^s): partner lane ^ h, sign, twiddles (1 in upper lanes). */
  private static final VectorShuffle<Float>[] PARTNER;
  private static final float[][] SIGN;
  private static final float[][] LANE_TW_RE;
  private static final float[][] LANE_TW_IM;

  private static final VectorShuffle<Float> REVERSE =
      VectorShuffle.fromOp(SPECIES, i -> LANES - 1 - i);
  /** Two-vector shuffles: indices >= LANES pick from the second vector. */
  private static final VectorShuffle<Float> EVENS =
      VectorShuffle.fromOp(SPECIES, i -> 2 * i);
  private static final VectorShuffle<Float> ODDS =
      VectorShuffle.fromOp(SPECIES, i -> 2 * i + 1);
  private static final VectorShuffle<Float> ZIP_LOW =
      VectorShuffle.fromOp(SPECIES, i -> (i & 1) * LANES + (i >>> 1));
  private static final VectorShuffle<Float> ZIP_HIGH =
      VectorShuffle.fromOp(SPECIES, i -> (i & 1) * LANES + (i >>> 1) + LANES / 2);

  static {
    @SuppressWarnings("unchecked")
    VectorShuffle<Float>[] partner = new VectorShuffle[LOG_LANES];
    PARTNER = partner;
    SIGN = new float[LOG_LANES][LANES];
    LANE_TW_RE = new float[LOG_LANES][LANES];
    LANE_TW_IM = new float[LOG_LANES][LANES];
    for (int s = 0; s < LOG_LANES; s++) {
      int h = 1 << s;
      PARTNER[s] = VectorShuffle.fromOp(SPECIES, i -> i ^ h);
      for (int lane = 0; lane < LANES; lane++) {
        boolean upper = (lane & h) != 0;
        SIGN[s][lane] = upper ? -1f : 1f;
        LANE_TW_RE[s][lane] = upper ? Twiddles.re(h, lane & (h - 1)) : 1f;
        LANE_TW_IM[s][lane] = upper ? Twiddles.im(h, lane & (h - 1)) : 0f;
      }
    }
  }

  @Override
  public void forwardToBitReversed(
      float[] re, int reOff, float[] im, int imOff, int n, float[] twRe, float[] twIm) {
    assert Integer.bitCount(n) == 1 && twRe.length >= n && twIm.length >= n;
    if (n < LANES) {
      SCALAR.forwardToBitReversed(re, reOff, im, imOff, n, twRe, twIm);
      return;
    }
    int block = Math.min(n, BLOCK);
    forwardStages(re, reOff, im, imOff, 0, n, n >>> 1, block, twRe, twIm);
    for (int from = 0; from < n; from += block) {
      forwardStages(re, reOff, im, imOff, from, from + block, block >>> 1, LANES, twRe, twIm);
      forwardInRegister(re, reOff, im, imOff, from, from + block);
    }
  }

  /** DIF stages hHigh down to hLow (both >= LANES) on [from, to), two per pass where possible. */
  private static void forwardStages(
      float[] re, int reOff, float[] im, int imOff, int from, int to, int hHigh, int hLow,
      float[] twRe, float[] twIm) {
    int h = hHigh;
    for (; h >= 2 * hLow; h >>>= 2) {
      forwardTwoStages(re, reOff, im, imOff, from, to, h, twRe, twIm);
    }
    if (h >= hLow) {
      forwardStage(re, reOff, im, imOff, from, to, h, twRe, twIm);
    }
  }

  /**
   * DIF stages h and h/2 in one pass over memory (radix 2^2): the same radix-2 operations in
   * the same order, so results equal two single stages, with half the loads and stores.
   */
  private static void forwardTwoStages(
      float[] re, int reOff, float[] im, int imOff, int from, int to, int h,
      float[] twRe, float[] twIm) {
    int quarter = h >>> 1;
    for (int b = from; b < to; b += 2 * h) {
      for (int j = 0; j < quarter; j += LANES) {
        int i0 = b + j;
        int i1 = i0 + quarter;
        int i2 = i0 + h;
        int i3 = i1 + h;
        FloatVector x0r = FloatVector.fromArray(SPECIES, re, reOff + i0);
        FloatVector x0i = FloatVector.fromArray(SPECIES, im, imOff + i0);
        FloatVector x1r = FloatVector.fromArray(SPECIES, re, reOff + i1);
        FloatVector x1i = FloatVector.fromArray(SPECIES, im, imOff + i1);
        FloatVector x2r = FloatVector.fromArray(SPECIES, re, reOff + i2);
        FloatVector x2i = FloatVector.fromArray(SPECIES, im, imOff + i2);
        FloatVector x3r = FloatVector.fromArray(SPECIES, re, reOff + i3);
        FloatVector x3i = FloatVector.fromArray(SPECIES, im, imOff + i3);
        // Stage h: (x0, x2) with tw[h + j], (x1, x3) with tw[h + quarter + j].
        FloatVector wr = FloatVector.fromArray(SPECIES, twRe, h + j);
        FloatVector wi = FloatVector.fromArray(SPECIES, twIm, h + j);
        FloatVector dr = x0r.sub(x2r);
        FloatVector di = x0i.sub(x2i);
        FloatVector y0r = x0r.add(x2r);
        FloatVector y0i = x0i.add(x2i);
        FloatVector y2r = dr.mul(wr).sub(di.mul(wi));
        FloatVector y2i = dr.mul(wi).add(di.mul(wr));
        wr = FloatVector.fromArray(SPECIES, twRe, h + quarter + j);
        wi = FloatVector.fromArray(SPECIES, twIm, h + quarter + j);
        dr = x1r.sub(x3r);
        di = x1i.sub(x3i);
        FloatVector y1r = x1r.add(x3r);
        FloatVector y1i = x1i.add(x3i);
        FloatVector y3r = dr.mul(wr).sub(di.mul(wi));
        FloatVector y3i = dr.mul(wi).add(di.mul(wr));
        // Stage h/2: (y0, y1) and (y2, y3), both with tw[quarter + j].
        wr = FloatVector.fromArray(SPECIES, twRe, quarter + j);
        wi = FloatVector.fromArray(SPECIES, twIm, quarter + j);
        y0r.add(y1r).intoArray(re, reOff + i0);
        y0i.add(y1i).intoArray(im, imOff + i0);
        dr = y0r.sub(y1r);
        di = y0i.sub(y1i);
        dr.mul(wr).sub(di.mul(wi)).intoArray(re, reOff + i1);
        dr.mul(wi).add(di.mul(wr)).intoArray(im, imOff + i1);
        y2r.add(y3r).intoArray(re, reOff + i2);
        y2i.add(y3i).intoArray(im, imOff + i2);
        dr = y2r.sub(y3r);
        di = y2i.sub(y3i);
        dr.mul(wr).sub(di.mul(wi)).intoArray(re, reOff + i3);
        dr.mul(wi).add(di.mul(wr)).intoArray(im, imOff + i3);
      }
    }
  }

  private static void forwardStage(
      float[] re, int reOff, float[] im, int imOff, int from, int to, int h,
      float[] twRe, float[] twIm) {
    for (int b = from; b < to; b += 2 * h) {
      for (int j = 0; j < h; j += LANES) {
        int p = b + j;
        int q = p + h;
        FloatVector ar = FloatVector.fromArray(SPECIES, re, reOff + p);
        FloatVector ai = FloatVector.fromArray(SPECIES, im, imOff + p);
        FloatVector cr = FloatVector.fromArray(SPECIES, re, reOff + q);
        FloatVector ci = FloatVector.fromArray(SPECIES, im, imOff + q);
        FloatVector wr = FloatVector.fromArray(SPECIES, twRe, h + j);
        FloatVector wi = FloatVector.fromArray(SPECIES, twIm, h + j);
        FloatVector dr = ar.sub(cr);
        FloatVector di = ai.sub(ci);
        ar.add(cr).intoArray(re, reOff + p);
        ai.add(ci).intoArray(im, imOff + p);
        dr.mul(wr).sub(di.mul(wi)).intoArray(re, reOff + q);
        dr.mul(wi).add(di.mul(wr)).intoArray(im, imOff + q);
      }
    }
  }

  /** The DIF stages h = LANES/2 .. 1 on each vector of consecutive points in [from, to). */
  private static void forwardInRegister(
      float[] re, int reOff, float[] im, int imOff, int from, int to) {
    for (int p = from; p < to; p += LANES) {
      FloatVector vr = FloatVector.fromArray(SPECIES, re, reOff + p);
      FloatVector vi = FloatVector.fromArray(SPECIES, im, imOff + p);
      for (int s = LOG_LANES - 1; s >= 0; s--) {
        FloatVector sign = FloatVector.fromArray(SPECIES, SIGN[s], 0);
        // Lower lanes: a + c; upper lanes: a - c (the partner is the lower lane).
        FloatVector tr = vr.fma(sign, vr.rearrange(PARTNER[s]));
        FloatVector ti = vi.fma(sign, vi.rearrange(PARTNER[s]));
        if (s == 0) {
          vr = tr; // h = 1: the only twiddle is 1
          vi = ti;
        } else {
          FloatVector wr = FloatVector.fromArray(SPECIES, LANE_TW_RE[s], 0);
          FloatVector wi = FloatVector.fromArray(SPECIES, LANE_TW_IM[s], 0);
          vr = tr.mul(wr).sub(ti.mul(wi));
          vi = tr.mul(wi).add(ti.mul(wr));
        }
      }
      vr.intoArray(re, reOff + p);
      vi.intoArray(im, imOff + p);
    }
  }

  @Override
  public void inverseFromBitReversed(
      float[] re, int reOff, float[] im, int imOff, int n, float[] twRe, float[] twIm) {
    assert Integer.bitCount(n) == 1 && twRe.length >= n && twIm.length >= n;
    if (n < LANES) {
      SCALAR.inverseFromBitReversed(re, reOff, im, imOff, n, twRe, twIm);
      return;
    }
    int block = Math.min(n, BLOCK);
    for (int from = 0; from < n; from += block) {
      inverseInRegister(re, reOff, im, imOff, from, from + block);
      inverseStages(re, reOff, im, imOff, from, from + block, LANES, block >>> 1, twRe, twIm);
    }
    inverseStages(re, reOff, im, imOff, 0, n, block, n >>> 1, twRe, twIm);
  }

  /** DIT stages hLow up to hHigh (both >= LANES) on [from, to), two per pass where possible. */
  private static void inverseStages(
      float[] re, int reOff, float[] im, int imOff, int from, int to, int hLow, int hHigh,
      float[] twRe, float[] twIm) {
    int h = hLow;
    for (; 2 * h <= hHigh; h <<= 2) {
      inverseTwoStages(re, reOff, im, imOff, from, to, h, twRe, twIm);
    }
    if (h <= hHigh) {
      inverseStage(re, reOff, im, imOff, from, to, h, twRe, twIm);
    }
  }

  /** DIT stages h and 2h in one pass (radix 2^2), operations as in two single stages. */
  private static void inverseTwoStages(
      float[] re, int reOff, float[] im, int imOff, int from, int to, int h,
      float[] twRe, float[] twIm) {
    int h2 = 2 * h;
    for (int b = from; b < to; b += 2 * h2) {
      for (int j = 0; j < h; j += LANES) {
        int i0 = b + j;
        int i1 = i0 + h;
        int i2 = i0 + h2;
        int i3 = i1 + h2;
        // Stage h: (x0, x1) and (x2, x3), both with conj(tw[h + j]).
        FloatVector wr = FloatVector.fromArray(SPECIES, twRe, h + j);
        FloatVector wi = FloatVector.fromArray(SPECIES, twIm, h + j);
        FloatVector cr = FloatVector.fromArray(SPECIES, re, reOff + i1);
        FloatVector ci = FloatVector.fromArray(SPECIES, im, imOff + i1);
        FloatVector tr = cr.mul(wr).add(ci.mul(wi));
        FloatVector ti = ci.mul(wr).sub(cr.mul(wi));
        FloatVector ar = FloatVector.fromArray(SPECIES, re, reOff + i0);
        FloatVector ai = FloatVector.fromArray(SPECIES, im, imOff + i0);
        FloatVector y0r = ar.add(tr);
        FloatVector y0i = ai.add(ti);
        FloatVector y1r = ar.sub(tr);
        FloatVector y1i = ai.sub(ti);
        cr = FloatVector.fromArray(SPECIES, re, reOff + i3);
        ci = FloatVector.fromArray(SPECIES, im, imOff + i3);
        tr = cr.mul(wr).add(ci.mul(wi));
        ti = ci.mul(wr).sub(cr.mul(wi));
        ar = FloatVector.fromArray(SPECIES, re, reOff + i2);
        ai = FloatVector.fromArray(SPECIES, im, imOff + i2);
        FloatVector y2r = ar.add(tr);
        FloatVector y2i = ai.add(ti);
        FloatVector y3r = ar.sub(tr);
        FloatVector y3i = ai.sub(ti);
        // Stage 2h: (y0, y2) with conj(tw[2h + j]), (y1, y3) with conj(tw[2h + h + j]).
        wr = FloatVector.fromArray(SPECIES, twRe, h2 + j);
        wi = FloatVector.fromArray(SPECIES, twIm, h2 + j);
        tr = y2r.mul(wr).add(y2i.mul(wi));
        ti = y2i.mul(wr).sub(y2r.mul(wi));
        y0r.add(tr).intoArray(re, reOff + i0);
        y0i.add(ti).intoArray(im, imOff + i0);
        y0r.sub(tr).intoArray(re, reOff + i2);
        y0i.sub(ti).intoArray(im, imOff + i2);
        wr = FloatVector.fromArray(SPECIES, twRe, h2 + h + j);
        wi = FloatVector.fromArray(SPECIES, twIm, h2 + h + j);
        tr = y3r.mul(wr).add(y3i.mul(wi));
        ti = y3i.mul(wr).sub(y3r.mul(wi));
        y1r.add(tr).intoArray(re, reOff + i1);
        y1i.add(ti).intoArray(im, imOff + i1);
        y1r.sub(tr).intoArray(re, reOff + i3);
        y1i.sub(ti).intoArray(im, imOff + i3);
      }
    }
  }

  private static void inverseStage(
      float[] re, int reOff, float[] im, int imOff, int from, int to, int h,
      float[] twRe, float[] twIm) {
    for (int b = from; b < to; b += 2 * h) {
      for (int j = 0; j < h; j += LANES) {
        int p = b + j;
        int q = p + h;
        FloatVector wr = FloatVector.fromArray(SPECIES, twRe, h + j);
        FloatVector wi = FloatVector.fromArray(SPECIES, twIm, h + j);
        FloatVector cr = FloatVector.fromArray(SPECIES, re, reOff + q);
        FloatVector ci = FloatVector.fromArray(SPECIES, im, imOff + q);
        FloatVector tr = cr.mul(wr).add(ci.mul(wi));
        FloatVector ti = ci.mul(wr).sub(cr.mul(wi));
        FloatVector ar = FloatVector.fromArray(SPECIES, re, reOff + p);
        FloatVector ai = FloatVector.fromArray(SPECIES, im, imOff + p);
        ar.add(tr).intoArray(re, reOff + p);
        ai.add(ti).intoArray(im, imOff + p);
        ar.sub(tr).intoArray(re, reOff + q);
        ai.sub(ti).intoArray(im, imOff + q);
      }
    }
  }

  /** The DIT stages h = 1 .. LANES/2 on each vector of consecutive points in [from, to). */
  private static void inverseInRegister(
      float[] re, int reOff, float[] im, int imOff, int from, int to) {
    for (int p = from; p < to; p += LANES) {
      FloatVector vr = FloatVector.fromArray(SPECIES, re, reOff + p);
      FloatVector vi = FloatVector.fromArray(SPECIES, im, imOff + p);
      for (int s = 0; s < LOG_LANES; s++) {
        FloatVector tr = vr;
        FloatVector ti = vi;
        if (s > 0) {
          // Upper lanes times conj(w); lower lanes times 1.
          FloatVector wr = FloatVector.fromArray(SPECIES, LANE_TW_RE[s], 0);
          FloatVector wi = FloatVector.fromArray(SPECIES, LANE_TW_IM[s], 0);
          tr = vr.mul(wr).add(vi.mul(wi));
          ti = vi.mul(wr).sub(vr.mul(wi));
        }
        FloatVector sign = FloatVector.fromArray(SPECIES, SIGN[s], 0);
        vr = tr.fma(sign, tr.rearrange(PARTNER[s]));
        vi = ti.fma(sign, ti.rearrange(PARTNER[s]));
      }
      vr.intoArray(re, reOff + p);
      vi.intoArray(im, imOff + p);
    }
  }

  @Override
  public void circulantSpectrum(
      float[] re, int reOff, float[] im, int imOff, int n, CirculantSpectrum c) {
    ScalarFft.selfPaired(re, reOff, im, imOff, 0, 0, c);
    if (n >= 2) {
      ScalarFft.selfPaired(re, reOff, im, imOff, 1, n >>> 1, c);
    }
    for (int base = 2; base < n; base <<= 1) {
      int half = base >>> 1;
      if (half < LANES) {
        ScalarFft.pairedBlock(re, reOff, im, imOff, base, base, base + half, c);
        continue;
      }
      for (int p = base; p < base + half; p += LANES) {
        int q = 3 * base - p - LANES; // the partners of p .. p + LANES - 1, in reverse
        int s = p - half;
        FloatVector pr = FloatVector.fromArray(SPECIES, re, reOff + p);
        FloatVector pi = FloatVector.fromArray(SPECIES, im, imOff + p);
        FloatVector qr = FloatVector.fromArray(SPECIES, re, reOff + q).rearrange(REVERSE);
        FloatVector qi = FloatVector.fromArray(SPECIES, im, imOff + q).rearrange(REVERSE);
        FloatVector aRe = FloatVector.fromArray(SPECIES, c.ownARe, s);
        FloatVector aIm = FloatVector.fromArray(SPECIES, c.ownAIm, s);
        FloatVector bRe = FloatVector.fromArray(SPECIES, c.ownBRe, s);
        FloatVector bIm = FloatVector.fromArray(SPECIES, c.ownBIm, s);
        // Same operations in the same order as ScalarFft.pairedBlock.
        aRe.mul(pr).sub(aIm.mul(pi)).add(bRe.mul(qr)).add(bIm.mul(qi))
            .intoArray(re, reOff + p);
        aRe.mul(pi).add(aIm.mul(pr)).add(bIm.mul(qr)).sub(bRe.mul(qi))
            .intoArray(im, imOff + p);
        aRe = FloatVector.fromArray(SPECIES, c.partARe, s);
        aIm = FloatVector.fromArray(SPECIES, c.partAIm, s);
        bRe = FloatVector.fromArray(SPECIES, c.partBRe, s);
        bIm = FloatVector.fromArray(SPECIES, c.partBIm, s);
        aRe.mul(qr).sub(aIm.mul(qi)).add(bRe.mul(pr)).add(bIm.mul(pi))
            .rearrange(REVERSE).intoArray(re, reOff + q);
        aRe.mul(qi).add(aIm.mul(qr)).add(bIm.mul(pr)).sub(bRe.mul(pi))
            .rearrange(REVERSE).intoArray(im, imOff + q);
      }
    }
  }

  @Override
  public void deinterleave(float[] x, float[] re, int reOff, float[] im, int imOff, int n) {
    int bound = SPECIES.loopBound(n);
    int j = 0;
    for (; j < bound; j += LANES) {
      FloatVector first = FloatVector.fromArray(SPECIES, x, 2 * j);
      FloatVector second = FloatVector.fromArray(SPECIES, x, 2 * j + LANES);
      first.rearrange(EVENS, second).intoArray(re, reOff + j);
      first.rearrange(ODDS, second).intoArray(im, imOff + j);
    }
    for (; j < n; j++) {
      re[reOff + j] = x[2 * j];
      im[imOff + j] = x[2 * j + 1];
    }
  }

  @Override
  public void interleave(float[] re, int reOff, float[] im, int imOff, float[] out, int n) {
    int bound = SPECIES.loopBound(n);
    int j = 0;
    for (; j < bound; j += LANES) {
      FloatVector r = FloatVector.fromArray(SPECIES, re, reOff + j);
      FloatVector i = FloatVector.fromArray(SPECIES, im, imOff + j);
      r.rearrange(ZIP_LOW, i).intoArray(out, 2 * j);
      r.rearrange(ZIP_HIGH, i).intoArray(out, 2 * j + LANES);
    }
    for (; j < n; j++) {
      out[2 * j] = re[reOff + j];
      out[2 * j + 1] = im[imOff + j];
    }
  }

  @Override
  public void scale(float[] re, float[] im, int n, float factor) {
    int bound = SPECIES.loopBound(n);
    int j = 0;
    for (; j < bound; j += LANES) {
      FloatVector.fromArray(SPECIES, re, j).mul(factor).intoArray(re, j);
      FloatVector.fromArray(SPECIES, im, j).mul(factor).intoArray(im, j);
    }
    for (; j < n; j++) {
      re[j] *= factor;
      im[j] *= factor;
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(SPECIES);
  }
}
