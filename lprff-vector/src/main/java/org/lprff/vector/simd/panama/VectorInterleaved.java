package org.lprff.vector.simd.panama;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.scalar.ScalarFft;
import org.lprff.vector.simd.scalar.ScalarInterleaved;
import org.lprff.vector.simd.spi.CirculantSpectrum;
import org.lprff.vector.simd.spi.InterleavedBody;

/**
 * Vector API {@link InterleavedBody}: a vector of one element's columns times the broadcast
 * diagonal entry. In the interleaved layout a permutation moves whole column groups, so Pi costs
 * one load per register, not a gather. Leaving the layout (width = lanes = 8) transposes 8 x 8
 * tiles in registers: three butterfly stages, each pairing registers i and i + s and exchanging
 * the lanes of bit s with one rearrange (lane L from lane L ^ s) and one blend per register, so a
 * tile costs 24 rearranges, 24 blends and 8 vector stores instead of 64 scalar stores.
 */
public final class VectorInterleaved implements InterleavedBody {

  private static final VectorSpecies<Float> SPECIES = VectorShape.FLOAT;
  private static final int LANES = SPECIES.length();

  /** Lane L from lane L ^ s, for s = 1, 2, 4, ... (index log2 s). */
  private static final VectorShuffle<Float>[] PARTNER;

  /** Lanes whose bit s is set. */
  private static final VectorMask<Float>[] BIT_SET;

  /** Narrow groups and n = 1 take the column-by-column definition, on this package's FFT. */
  private static final ScalarInterleaved SCALAR = new ScalarInterleaved(new VectorFft());

  static {
    int stages = Integer.numberOfTrailingZeros(LANES);
    @SuppressWarnings("unchecked")
    VectorShuffle<Float>[] partner = new VectorShuffle[stages];
    @SuppressWarnings("unchecked")
    VectorMask<Float>[] bitSet = new VectorMask[stages];
    for (int k = 0; k < stages; k++) {
      int s = 1 << k;
      partner[k] = VectorShuffle.fromOp(SPECIES, lane -> lane ^ s);
      boolean[] set = new boolean[LANES];
      for (int lane = 0; lane < LANES; lane++) {
        set[lane] = (lane & s) != 0;
      }
      bitSet[k] = VectorMask.fromArray(SPECIES, set, 0);
    }
    PARTNER = partner;
    BIT_SET = bitSet;
  }

  @Override
  public void scale(float[] src, float[] diagonal, float[] dst, int n, int width) {
    assert src.length >= n * width && dst.length >= n * width && diagonal.length >= n;
    if (width == LANES) {
      // The projections' case: one register per element, no column loop or tail to run.
      for (int i = 0; i < n; i++) {
        FloatVector.fromArray(SPECIES, src, i * LANES).mul(diagonal[i])
            .intoArray(dst, i * LANES);
      }
      return;
    }
    int bound = SPECIES.loopBound(width);
    for (int i = 0; i < n; i++) {
      float d = diagonal[i];
      int row = i * width;
      int c = 0;
      for (; c < bound; c += SPECIES.length()) {
        FloatVector.fromArray(SPECIES, src, row + c).mul(d).intoArray(dst, row + c);
      }
      for (; c < width; c++) {
        dst[row + c] = src[row + c] * d;
      }
    }
  }

  @Override
  public void permuteScale(
      float[] src, int[] permutation, float[] diagonal, float[] dst, int n, int width) {
    assert src != dst && src.length >= n * width && dst.length >= n * width;
    if (width == LANES) {
      for (int i = 0; i < n; i++) {
        // d * x rounds like x * d: IEEE multiplication is commutative.
        FloatVector.fromArray(SPECIES, src, permutation[i] * LANES).mul(diagonal[i])
            .intoArray(dst, i * LANES);
      }
      return;
    }
    int bound = SPECIES.loopBound(width);
    for (int i = 0; i < n; i++) {
      float d = diagonal[i];
      int from = permutation[i] * width;
      int to = i * width;
      int c = 0;
      for (; c < bound; c += SPECIES.length()) {
        // d * x rounds like x * d: IEEE multiplication is commutative.
        FloatVector.fromArray(SPECIES, src, from + c).mul(d).intoArray(dst, to + c);
      }
      for (; c < width; c++) {
        dst[to + c] = d * src[from + c];
      }
    }
  }

  @Override
  public void interleave(
      float[] rows, int rowOffset, int rowStride, int length, float[] dst, int width) {
    // d floats per row, small next to the p m the projection produces: the scalar loop.
    SCALAR.interleave(rows, rowOffset, rowStride, length, dst, width);
  }

  @Override
  public void deinterleave(
      float[] src, int first, int count, int width, float[] out, int outOffset, int outStride) {
    if (width != 8 || LANES != 8) {
      SCALAR.deinterleave(src, first, count, width, out, outOffset, outStride);
      return;
    }
    VectorShuffle<Float> p1 = PARTNER[0];
    VectorShuffle<Float> p2 = PARTNER[1];
    VectorShuffle<Float> p4 = PARTNER[2];
    VectorMask<Float> m1 = BIT_SET[0];
    VectorMask<Float> m2 = BIT_SET[1];
    VectorMask<Float> m4 = BIT_SET[2];
    int whole = count - count % 8;
    for (int e = 0; e < whole; e += 8) {
      // An 8 x 8 tile in eight locals (an array of vectors would box them).
      int at = (first + e) * 8;
      FloatVector t0 = FloatVector.fromArray(SPECIES, src, at);
      FloatVector t1 = FloatVector.fromArray(SPECIES, src, at + 8);
      FloatVector t2 = FloatVector.fromArray(SPECIES, src, at + 16);
      FloatVector t3 = FloatVector.fromArray(SPECIES, src, at + 24);
      FloatVector t4 = FloatVector.fromArray(SPECIES, src, at + 32);
      FloatVector t5 = FloatVector.fromArray(SPECIES, src, at + 40);
      FloatVector t6 = FloatVector.fromArray(SPECIES, src, at + 48);
      FloatVector t7 = FloatVector.fromArray(SPECIES, src, at + 56);
      // Stage s pairs registers i and i + s: the low one takes the high one's lanes L - s into
      // its lanes with bit s set, the high one the low one's lanes L + s into its other lanes.
      FloatVector u0 = t0.blend(t4.rearrange(p4), m4);
      FloatVector u4 = t0.rearrange(p4).blend(t4, m4);
      FloatVector u1 = t1.blend(t5.rearrange(p4), m4);
      FloatVector u5 = t1.rearrange(p4).blend(t5, m4);
      FloatVector u2 = t2.blend(t6.rearrange(p4), m4);
      FloatVector u6 = t2.rearrange(p4).blend(t6, m4);
      FloatVector u3 = t3.blend(t7.rearrange(p4), m4);
      FloatVector u7 = t3.rearrange(p4).blend(t7, m4);
      FloatVector v0 = u0.blend(u2.rearrange(p2), m2);
      FloatVector v2 = u0.rearrange(p2).blend(u2, m2);
      FloatVector v1 = u1.blend(u3.rearrange(p2), m2);
      FloatVector v3 = u1.rearrange(p2).blend(u3, m2);
      FloatVector v4 = u4.blend(u6.rearrange(p2), m2);
      FloatVector v6 = u4.rearrange(p2).blend(u6, m2);
      FloatVector v5 = u5.blend(u7.rearrange(p2), m2);
      FloatVector v7 = u5.rearrange(p2).blend(u7, m2);
      int o = outOffset + e;
      v0.blend(v1.rearrange(p1), m1).intoArray(out, o);
      v0.rearrange(p1).blend(v1, m1).intoArray(out, o + outStride);
      v2.blend(v3.rearrange(p1), m1).intoArray(out, o + 2 * outStride);
      v2.rearrange(p1).blend(v3, m1).intoArray(out, o + 3 * outStride);
      v4.blend(v5.rearrange(p1), m1).intoArray(out, o + 4 * outStride);
      v4.rearrange(p1).blend(v5, m1).intoArray(out, o + 5 * outStride);
      v6.blend(v7.rearrange(p1), m1).intoArray(out, o + 6 * outStride);
      v6.rearrange(p1).blend(v7, m1).intoArray(out, o + 7 * outStride);
    }
    SCALAR.deinterleave(
        src, first + whole, count - whole, width, out, outOffset + whole, outStride);
  }

  // ---- circulant products, lane-parallel

  /**
   * {@code CirculantPlan}'s pipeline (split into even and odd entries, half-length DIF FFT to
   * bit-reversed order, the circulant spectrum, DIT inverse, merge) with every scalar of {@link
   * ScalarFft} replaced by a register of LANES rows: the same operations in the same order on
   * every lane, hence the same bits. The split needs no copy in this layout: complex entry j, x[2j]
   * + i x[2j + 1], is already the register pair at [2j L, 2j L + 2L), real part first, so the
   * transforms run in place in out (scratch is not needed).
   */
  @Override
  public void circulant(float[] x, CirculantSpectrum plan, float[] scratch, float[] out, int width) {
    int n = plan.n;
    if (width != LANES || n == 1) {
      SCALAR.circulant(x, plan, scratch, out, width);
      return;
    }
    assert Integer.bitCount(n) == 1 && x.length >= n * LANES && out.length >= n * LANES;
    if (out != x) {
      System.arraycopy(x, 0, out, 0, n * LANES);
    }
    int half = n >>> 1;
    forward(out, 0, half, plan.twRe, plan.twIm);
    spectrum(out, half, plan);
    inverse(out, 0, half, plan.twRe, plan.twIm);
  }

  /** Floats of one complex entry: its real register, then its imaginary register. */
  private static final int COMPLEX = 2 * LANES;

  /**
   * Floats of a block the transforms take breadth-first (32 KiB, within L1d); larger blocks go
   * depth-first, so that each sub-block is worked on while it stays in L1. A complex element of
   * the layout is 2 LANES floats: at 16 lanes n = 512 (256 complex) is the largest such block.
   */
  private static final int BLOCK_FLOATS = 1 << 13;

  /**
   * The DIF stages h = size / 2 .. 1 on the block [from, from + size): two stages per load and
   * store of each register (radix 4), since each stage alone is a load, a complex butterfly and a
   * store. A block in L1 takes its stages breadth-first; a larger one does its top two stages,
   * then each quarter depth-first (DIF stages below h stay within blocks of 2h).
   */
  private static void forward(float[] z, int from, int size, float[] twRe, float[] twIm) {
    if (size >= 4 && (long) COMPLEX * size > BLOCK_FLOATS) {
      forwardRadix4(z, from, from + size, size >>> 1, twRe, twIm);
      int quarter = size >>> 2;
      for (int b = from; b < from + size; b += quarter) {
        forward(z, b, quarter, twRe, twIm);
      }
      return;
    }
    int h = size >>> 1;
    for (; h >= 2; h >>>= 2) {
      forwardRadix4(z, from, from + size, h, twRe, twIm);
    }
    if (h == 1) {
      forwardStage(z, from, from + size, 1, twRe, twIm);
    }
  }

  /**
   * The DIT stages h = 1 .. size / 2 on the block [from, from + size), two per load and store of
   * each register; the mirror of {@link #forward}: a larger block does its quarters depth-first,
   * then its top two stages.
   */
  private static void inverse(float[] z, int from, int size, float[] twRe, float[] twIm) {
    if (size >= 4 && (long) COMPLEX * size > BLOCK_FLOATS) {
      int quarter = size >>> 2;
      for (int b = from; b < from + size; b += quarter) {
        inverse(z, b, quarter, twRe, twIm);
      }
      inverseRadix4(z, from, from + size, quarter, twRe, twIm);
      return;
    }
    int h = 1;
    if ((Integer.numberOfTrailingZeros(size) & 1) == 1) {
      // An odd number of stages: the single one first, so that the last pass is radix 4.
      inverseStage(z, from, from + size, 1, twRe, twIm);
      h = 2;
    }
    for (; h < size; h <<= 2) {
      inverseRadix4(z, from, from + size, h, twRe, twIm);
    }
  }

  /** {@link ScalarFft#forwardStage} on registers: (a, c) -> (a + c, (a - c) w). */
  private static void forwardStage(
      float[] z, int from, int to, int h, float[] twRe, float[] twIm) {
    for (int b = from; b < to; b += 2 * h) {
      for (int j = 0; j < h; j++) {
        int p = (b + j) * COMPLEX;
        int q = p + h * COMPLEX;
        FloatVector ar = FloatVector.fromArray(SPECIES, z, p);
        FloatVector ai = FloatVector.fromArray(SPECIES, z, p + LANES);
        FloatVector cr = FloatVector.fromArray(SPECIES, z, q);
        FloatVector ci = FloatVector.fromArray(SPECIES, z, q + LANES);
        FloatVector dr = ar.sub(cr);
        FloatVector di = ai.sub(ci);
        float wr = twRe[h + j];
        float wi = twIm[h + j];
        ar.add(cr).intoArray(z, p);
        ai.add(ci).intoArray(z, p + LANES);
        dr.mul(wr).sub(di.mul(wi)).intoArray(z, q);
        dr.mul(wi).add(di.mul(wr)).intoArray(z, q + LANES);
      }
    }
  }

  /**
   * DIF stages h and h / 2 on four registers a quarter block apart, each butterfly exactly {@link
   * #forwardStage}'s: stage h pairs (0, 2) and (1, 3), stage h / 2 pairs (0, 1) and (2, 3).
   */
  private static void forwardRadix4(
      float[] z, int from, int to, int h, float[] twRe, float[] twIm) {
    int g = h >>> 1;
    int step = g * COMPLEX;
    for (int b = from; b < to; b += 2 * h) {
      for (int j = 0; j < g; j++) {
        int p0 = (b + j) * COMPLEX;
        int p1 = p0 + step;
        int p2 = p1 + step;
        int p3 = p2 + step;
        FloatVector r0 = FloatVector.fromArray(SPECIES, z, p0);
        FloatVector i0 = FloatVector.fromArray(SPECIES, z, p0 + LANES);
        FloatVector r1 = FloatVector.fromArray(SPECIES, z, p1);
        FloatVector i1 = FloatVector.fromArray(SPECIES, z, p1 + LANES);
        FloatVector r2 = FloatVector.fromArray(SPECIES, z, p2);
        FloatVector i2 = FloatVector.fromArray(SPECIES, z, p2 + LANES);
        FloatVector r3 = FloatVector.fromArray(SPECIES, z, p3);
        FloatVector i3 = FloatVector.fromArray(SPECIES, z, p3 + LANES);
        // Stage h: (0, 2) with w[h + j], (1, 3) with w[h + g + j].
        float wr = twRe[h + j];
        float wi = twIm[h + j];
        FloatVector dr = r0.sub(r2);
        FloatVector di = i0.sub(i2);
        r0 = r0.add(r2);
        i0 = i0.add(i2);
        r2 = dr.mul(wr).sub(di.mul(wi));
        i2 = dr.mul(wi).add(di.mul(wr));
        wr = twRe[h + g + j];
        wi = twIm[h + g + j];
        dr = r1.sub(r3);
        di = i1.sub(i3);
        r1 = r1.add(r3);
        i1 = i1.add(i3);
        r3 = dr.mul(wr).sub(di.mul(wi));
        i3 = dr.mul(wi).add(di.mul(wr));
        // Stage g: (0, 1) and (2, 3), both with w[g + j].
        wr = twRe[g + j];
        wi = twIm[g + j];
        dr = r0.sub(r1);
        di = i0.sub(i1);
        r0.add(r1).intoArray(z, p0);
        i0.add(i1).intoArray(z, p0 + LANES);
        dr.mul(wr).sub(di.mul(wi)).intoArray(z, p1);
        dr.mul(wi).add(di.mul(wr)).intoArray(z, p1 + LANES);
        dr = r2.sub(r3);
        di = i2.sub(i3);
        r2.add(r3).intoArray(z, p2);
        i2.add(i3).intoArray(z, p2 + LANES);
        dr.mul(wr).sub(di.mul(wi)).intoArray(z, p3);
        dr.mul(wi).add(di.mul(wr)).intoArray(z, p3 + LANES);
      }
    }
  }

  /** {@link ScalarFft#inverseStage} on registers: (a, c) -> (a + c conj(w), a - c conj(w)). */
  private static void inverseStage(
      float[] z, int from, int to, int h, float[] twRe, float[] twIm) {
    for (int b = from; b < to; b += 2 * h) {
      for (int j = 0; j < h; j++) {
        int p = (b + j) * COMPLEX;
        int q = p + h * COMPLEX;
        float wr = twRe[h + j];
        float wi = twIm[h + j];
        FloatVector cr = FloatVector.fromArray(SPECIES, z, q);
        FloatVector ci = FloatVector.fromArray(SPECIES, z, q + LANES);
        FloatVector tr = cr.mul(wr).add(ci.mul(wi));
        FloatVector ti = ci.mul(wr).sub(cr.mul(wi));
        FloatVector ar = FloatVector.fromArray(SPECIES, z, p);
        FloatVector ai = FloatVector.fromArray(SPECIES, z, p + LANES);
        ar.add(tr).intoArray(z, p);
        ai.add(ti).intoArray(z, p + LANES);
        ar.sub(tr).intoArray(z, q);
        ai.sub(ti).intoArray(z, q + LANES);
      }
    }
  }

  /**
   * DIT stages h and 2h on four registers h apart, each butterfly exactly {@link
   * #inverseStage}'s: stage h pairs (0, 1) and (2, 3), stage 2h pairs (0, 2) and (1, 3).
   */
  private static void inverseRadix4(
      float[] z, int from, int to, int h, float[] twRe, float[] twIm) {
    int step = h * COMPLEX;
    for (int b = from; b < to; b += 4 * h) {
      for (int j = 0; j < h; j++) {
        int p0 = (b + j) * COMPLEX;
        int p1 = p0 + step;
        int p2 = p1 + step;
        int p3 = p2 + step;
        // Stage h: (0, 1) and (2, 3), both with w[h + j].
        float wr = twRe[h + j];
        float wi = twIm[h + j];
        FloatVector cr = FloatVector.fromArray(SPECIES, z, p1);
        FloatVector ci = FloatVector.fromArray(SPECIES, z, p1 + LANES);
        FloatVector tr = cr.mul(wr).add(ci.mul(wi));
        FloatVector ti = ci.mul(wr).sub(cr.mul(wi));
        FloatVector ar = FloatVector.fromArray(SPECIES, z, p0);
        FloatVector ai = FloatVector.fromArray(SPECIES, z, p0 + LANES);
        FloatVector r0 = ar.add(tr);
        FloatVector i0 = ai.add(ti);
        FloatVector r1 = ar.sub(tr);
        FloatVector i1 = ai.sub(ti);
        cr = FloatVector.fromArray(SPECIES, z, p3);
        ci = FloatVector.fromArray(SPECIES, z, p3 + LANES);
        tr = cr.mul(wr).add(ci.mul(wi));
        ti = ci.mul(wr).sub(cr.mul(wi));
        ar = FloatVector.fromArray(SPECIES, z, p2);
        ai = FloatVector.fromArray(SPECIES, z, p2 + LANES);
        FloatVector r2 = ar.add(tr);
        FloatVector i2 = ai.add(ti);
        FloatVector r3 = ar.sub(tr);
        FloatVector i3 = ai.sub(ti);
        // Stage 2h: (0, 2) with w[2h + j], (1, 3) with w[2h + h + j].
        wr = twRe[2 * h + j];
        wi = twIm[2 * h + j];
        tr = r2.mul(wr).add(i2.mul(wi));
        ti = i2.mul(wr).sub(r2.mul(wi));
        r0.add(tr).intoArray(z, p0);
        i0.add(ti).intoArray(z, p0 + LANES);
        r0.sub(tr).intoArray(z, p2);
        i0.sub(ti).intoArray(z, p2 + LANES);
        wr = twRe[3 * h + j];
        wi = twIm[3 * h + j];
        tr = r3.mul(wr).add(i3.mul(wi));
        ti = i3.mul(wr).sub(r3.mul(wi));
        r1.add(tr).intoArray(z, p1);
        i1.add(ti).intoArray(z, p1 + LANES);
        r1.sub(tr).intoArray(z, p3);
        i1.sub(ti).intoArray(z, p3 + LANES);
      }
    }
  }

  /** {@link ScalarFft#circulantSpectrum} on registers. */
  private static void spectrum(float[] z, int n, CirculantSpectrum c) {
    selfPaired(z, 0, 0, c);
    if (n >= 2) {
      selfPaired(z, 1, n >>> 1, c);
    }
    for (int base = 2; base < n; base <<= 1) {
      int half = base >>> 1;
      for (int p = base; p < base + half; p++) {
        int q = 3 * base - 1 - p;
        int s = p - half;
        FloatVector pr = FloatVector.fromArray(SPECIES, z, p * COMPLEX);
        FloatVector pi = FloatVector.fromArray(SPECIES, z, p * COMPLEX + LANES);
        FloatVector qr = FloatVector.fromArray(SPECIES, z, q * COMPLEX);
        FloatVector qi = FloatVector.fromArray(SPECIES, z, q * COMPLEX + LANES);
        // Left to right as in the scalar body: ((A Re - A Im) + B Re) + B Im, one rounding each.
        pr.mul(c.ownARe[s]).sub(pi.mul(c.ownAIm[s])).add(qr.mul(c.ownBRe[s]))
            .add(qi.mul(c.ownBIm[s])).intoArray(z, p * COMPLEX);
        pi.mul(c.ownARe[s]).add(pr.mul(c.ownAIm[s])).add(qr.mul(c.ownBIm[s]))
            .sub(qi.mul(c.ownBRe[s])).intoArray(z, p * COMPLEX + LANES);
        qr.mul(c.partARe[s]).sub(qi.mul(c.partAIm[s])).add(pr.mul(c.partBRe[s]))
            .add(pi.mul(c.partBIm[s])).intoArray(z, q * COMPLEX);
        qi.mul(c.partARe[s]).add(qr.mul(c.partAIm[s])).add(pr.mul(c.partBIm[s]))
            .sub(pi.mul(c.partBRe[s])).intoArray(z, q * COMPLEX + LANES);
      }
    }
  }

  private static void selfPaired(float[] z, int p, int slot, CirculantSpectrum c) {
    FloatVector zr = FloatVector.fromArray(SPECIES, z, p * COMPLEX);
    FloatVector zi = FloatVector.fromArray(SPECIES, z, p * COMPLEX + LANES);
    zr.mul(c.ownARe[slot]).sub(zi.mul(c.ownAIm[slot])).add(zr.mul(c.ownBRe[slot]))
        .add(zi.mul(c.ownBIm[slot])).intoArray(z, p * COMPLEX);
    zi.mul(c.ownARe[slot]).add(zr.mul(c.ownAIm[slot])).add(zr.mul(c.ownBIm[slot]))
        .sub(zi.mul(c.ownBRe[slot])).intoArray(z, p * COMPLEX + LANES);
  }

  @Override
  public String shape() {
    return VectorShape.describe(VectorShape.FLOAT);
  }

  @Override
  public int width() {
    return LANES;
  }
}
