package org.lprff.vector.simd.panama;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.spi.ProductsBody;

/**
 * Packed codes read a group at a time, for {@link VectorProducts}. A group is {@code LANES} ints
 * of a row ({@code per = 32 / bits} codes each, {@code LANES * per} features) loaded as one int
 * vector; sub-vector {@code s} is {@code (v >>> s * bits) & mask}, whose lane k holds feature
 * {@code k * per + s} of the group. Decoding is then a shift, an and and a conversion per
 * {@code LANES} features, with no broadcast and no lane-variable shift.
 *
 * <p>The codes come out in that strided order, so the weights of a tile are permuted once per
 * call into the same order ({@link #permute}, O(c * m) in all): sum_i code_i w_i does not depend
 * on the order of its terms. The products are sums of {@code code * w} (the affine map is applied
 * by the caller, see {@link VectorProducts}), or of {@code levels[code] * w} for codebook rows
 * (the codes looked up in registers, {@link CodeDecoding}).
 *
 * <p>Micro-kernels: 8 classes x 1 row, 2 classes x 2 sub-vectors, 1 class x 2 rows x 2
 * sub-vectors (the weight vector loaded once for both rows): 4 to 8 accumulators, at most 4
 * decodes per loop body (see {@link VectorProducts} on C2's inlining limits). One class of affine
 * rows, the full-batch solvers' case (CG's Z^T (Z v), L-BFGS's regression pass), takes the quad
 * kernels instead ({@link #forwardRow}: one row, 4 accumulators; {@link #accumulateQuad}: 4 rows
 * into 4 sums held in registers), each decode an and and a conversion ({@link #quadMask}: the
 * code lands scaled by a power of two, which the permuted weights or the final scale undo
 * exactly), 8 decodes per loop body, which stay inlined because the decode is two JDK intrinsics
 * and no helper. A full-batch pass runs them fused, 4 rows a block ({@link QuadBlocks}).
 *
 * <p>No vector is passed to a call that C2 may leave out of line: a kernel's epilogue runs once
 * per call, so C2 judges its call sites cold and inlines only callees of at most 35 bytecodes
 * (MaxInlineSize); a vector argument to any larger callee ({@code sumLanes}, a scatter) is then
 * boxed, two heap allocations per vector, which made the forward pass with 10 classes ~3x
 * slower than its FMAs. The forward kernels therefore carry their accumulators across tiles in
 * a float scratch ({@code part}, one vector per row and class: loaded before the loop, stored
 * after it, inlined JDK methods) and the lanes are summed once per output at the end; the
 * transposed kernels store their results to a small array and scatter them from there.
 */
final class PackedGroups {

  private static final VectorSpecies<Float> F = PackedLanes.FLOAT;
  private static final VectorSpecies<Integer> INT = PackedLanes.INT;
  private static final int L = PackedLanes.LANES;

  /**
   * Weights per tile of the forward pass: a tile has {@code TILE / min(c, 8)} features, so the
   * permuted weights of a class block (at most 8 classes x 512 features = 16 KiB) stay in L1.
   * Fewer classes make longer tiles: with one class a tile is a whole row of up to 4096 features,
   * which then streams through in order rather than 512 features at a time.
   */
  private static final int TILE = 4096;

  /**
   * Where {@link #forward} leaves the sum of the ints its kernels read ahead (see {@link
   * #forward1x2}), so that C2 cannot drop those loads even if it inlines the kernels. Never read;
   * a racy write once per call.
   */
  @SuppressWarnings("unused")
  private static int touchSink;

  private PackedGroups() {}

  /** Features in one group of {@code bits}-bit codes. */
  static int groupSize(int bits) {
    return L * (32 / bits);
  }

  /** End of the whole groups of a row of m features: a multiple of {@link #groupSize}. */
  static int groupEnd(int m, int bits) {
    int group = groupSize(bits);
    return m / group * group;
  }

  /**
   * {@code y[r*c + j] += sum_{i < end} code_ri * wT[j*m + i]} for packed rows ({@code bits <= 16}),
   * {@code end} from {@link #groupEnd}.
   */
  static void forward(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int m,
      int bits,
      float[] wT,
      int c,
      float[] y,
      int end,
      CodeDecoding dec) {
    int per = 32 / bits;
    int group = L * per;
    if (c == 1 && dec == CodeDecoding.AFFINE) {
      // One class of affine rows: the fused pass's row kernel over the whole row, the weights
      // permuted and scaled to its decode once; each row touches the next one's lines.
      float[] wP = new float[end];
      permute(wT, m, 1, 0, end, per, bits, wP);
      float[] part = new float[L];
      int touched = 0;
      for (int r = 0; r < n; r++) {
        long row = offset + r * rowBytes;
        touched += forwardRow(z, row, r + 1 < n ? rowBytes : 0, bits, wP, end, part, 0);
        y[r] += PackedLanes.sumLanes(part, 0);
      }
      touchSink = touched;
      return;
    }
    int tile = Math.max(group, TILE / Math.min(c, 8) / group * group);
    float[] wP = new float[c * Math.min(tile, end)];
    float[] scratch = c >= 8 ? new float[8 * Math.min(tile, end)] : null;
    // Vector partial sums of every output, carried across tiles: part[(r*c + j) * L ..].
    float[] part = new float[n * c * L];
    int touched = 0;
    for (int t0 = 0; t0 < end; t0 += tile) {
      int len = Math.min(tile, end - t0);
      permute(wT, m, c, t0, len, per, 0, wP);
      long tileAt = offset + groupByte(t0, bits);
      int j = 0;
      while (j < c) {
        int block = c - j >= 8 ? 8 : c - j >= 2 ? 2 : 1;
        if (block == 1) {
          for (int r = 0; r < n; r += 2) {
            long row0 = tileAt + r * rowBytes;
            // An odd last row is paired with itself and its second sum dropped.
            long row1 = r + 1 < n ? row0 + rowBytes : row0;
            int p1 = r + 1 < n ? ((r + 1) * c + j) * L : -1;
            // Touch the next pair's lines while this pair is summed (0: no next pair).
            long ahead = r + 3 < n ? 2 * rowBytes : 0;
            touched += forward1x2(z, row0, row1, ahead, bits, wP, j * len, len, group, part,
                (r * c + j) * L, p1, dec);
          }
        } else {
          if (block == 8) {
            interleave8(wP, j * len, len, scratch);
          }
          for (int r = 0; r < n; r++) {
            long row = tileAt + r * rowBytes;
            if (block == 8) {
              forward8(z, row, bits, wP, j * len, len, group, part, (r * c + j) * L, dec);
            } else {
              forward2(z, row, bits, wP, j * len, len, group, part, (r * c + j) * L, dec);
            }
          }
        }
        j += block;
      }
    }
    for (int k = 0; k < n * c; k++) {
      y[k] += PackedLanes.sumLanes(part, k * L);
    }
    touchSink = touched;
  }

  /**
   * Weights of features [t0, t0 + len) in group order: {@code wP[j*len + g + s*L + k] = wT[j*m +
   * t0 + g + k*per + s]} for each group start g, times {@code 2^-((s mod 4) * scaleBits)}: the
   * quad kernels ({@code scaleBits = bits}) read sub-vector s as {@code code * 2^((s mod 4) *
   * bits)}, and the power of two cancels exactly in each product (0: no scaling).
   */
  private static void permute(
      float[] wT, int m, int c, int t0, int len, int per, int scaleBits, float[] wP) {
    for (int j = 0; j < c; j++) {
      int src = j * m + t0;
      int dst = j * len;
      for (int g = 0; g < len; g += L * per) {
        for (int s = 0; s < per; s++) {
          // 2^-((s mod 4) scaleBits), at least 2^-12: a normal float, and the product exact.
          float scale = Float.intBitsToFloat(127 - (s & 3) * scaleBits << 23);
          for (int k = 0; k < L; k++) {
            wP[dst + g + s * L + k] = wT[src + g + k * per + s] * scale;
          }
        }
      }
    }
  }

  /**
   * Interleaves the 8 classes' permuted weights of a block at {@code w0} (class-major, {@code len}
   * each) by position: {@code wP[w0 + 8 * at + q * L + k] = old wP[w0 + q * len + at + k]} for each
   * multiple {@code at} of L.
   */
  private static void interleave8(float[] wP, int w0, int len, float[] scratch) {
    System.arraycopy(wP, w0, scratch, 0, 8 * len);
    for (int at = 0; at < len; at += L) {
      for (int q = 0; q < 8; q++) {
        System.arraycopy(scratch, q * len + at, wP, w0 + 8 * at + q * L, L);
      }
    }
  }

  /**
   * The mask of sub-vector s + q of a quad, {@code mask << q * bits}. A quad is the sub-vectors
   * s..s+3 of a group (s a multiple of 4; {@code per = 32 / bits >= 8} for the grouped widths):
   * with the group's ints shifted right by {@code s * bits} once, sub-vector s + q is {@code
   * shifted & (mask << q * bits)}, which converts exactly to {@code code * 2^(q * bits)} (at most b
   * significant bits, and non-negative: after a shift by s >= 4 codes, or for s = 0 below bit 16).
   * Two vector ops per decode (and, convert) instead of three.
   */
  private static IntVector quadMask(int mask, int shift) {
    return IntVector.broadcast(INT, mask << shift);
  }

  private static FloatVector quad(IntVector shifted, IntVector mask) {
    return (FloatVector) shifted.and(mask).convert(VectorOperators.I2F, 0);
  }

  /**
   * The ints of the group at feature g (a multiple of the group size) of the row at {@code row}.
   * Its byte offset is {@code g * bits / 8}, a multiply and a shift: {@code g / per * 4} was an
   * integer division per loop trip in the flat kernels, per being no constant.
   */
  private static IntVector group(MemorySegment z, long row, int g, int bits) {
    return IntVector.fromMemorySegment(INT, z, row + groupByte(g, bits), ByteOrder.LITTLE_ENDIAN);
  }

  /** Byte offset of feature g of a row when g starts a group (or a whole int): g * bits / 8. */
  private static long groupByte(int g, int bits) {
    return (long) g * bits >>> 3;
  }

  /** The values of the codes in the low bits of each lane (see {@link CodeDecoding}). */
  private static FloatVector low(
      IntVector v, IntVector mask, int kind, IntVector t0, IntVector t1) {
    return CodeDecoding.decodeInRegisters(v.and(mask), kind, t0, t1);
  }

  private static FloatVector w(float[] a, int at) {
    return FloatVector.fromArray(F, a, at);
  }

  /** 8 classes, one row: each decoded sub-vector feeds 8 FMAs. */
  private static void forward8(
      MemorySegment z, long row, int bits, float[] wP, int w0, int len, int group, float[] part,
      int p, CodeDecoding dec) {
    IntVector mask = PackedLanes.mask(bits);
    int kind = dec.kind;
    IntVector t0 = dec.table0(), t1 = dec.table1();
    int per = 32 / bits;
    FloatVector a0 = w(part, p), a1 = w(part, p + L), a2 = w(part, p + 2 * L);
    FloatVector a3 = w(part, p + 3 * L), a4 = w(part, p + 4 * L), a5 = w(part, p + 5 * L);
    FloatVector a6 = w(part, p + 6 * L), a7 = w(part, p + 7 * L);
    // One flat loop (the group re-read from L1 for each of its sub-vectors) rather than a loop
    // of per = 32 / bits iterations per group: C2 unrolls it and hoists its range checks. The 8
    // classes' weights of a position are interleaved (interleave8): one index for all 8 loads.
    for (int at = 0; at < len; at += L) {
      IntVector v = group(z, row, at & -group, bits);
      IntVector shifted = v.lanewise(VectorOperators.LSHR, (at / L & (per - 1)) * bits);
      FloatVector x = low(shifted, mask, kind, t0, t1);
      int i = w0 + 8 * at;
      a0 = x.fma(w(wP, i), a0);
      a1 = x.fma(w(wP, i + L), a1);
      a2 = x.fma(w(wP, i + 2 * L), a2);
      a3 = x.fma(w(wP, i + 3 * L), a3);
      a4 = x.fma(w(wP, i + 4 * L), a4);
      a5 = x.fma(w(wP, i + 5 * L), a5);
      a6 = x.fma(w(wP, i + 6 * L), a6);
      a7 = x.fma(w(wP, i + 7 * L), a7);
    }
    a0.intoArray(part, p);
    a1.intoArray(part, p + L);
    a2.intoArray(part, p + 2 * L);
    a3.intoArray(part, p + 3 * L);
    a4.intoArray(part, p + 4 * L);
    a5.intoArray(part, p + 5 * L);
    a6.intoArray(part, p + 6 * L);
    a7.intoArray(part, p + 7 * L);
  }

  /** 2 classes x 2 sub-vectors (per = 32 / bits is even for packed codes). */
  private static void forward2(
      MemorySegment z, long row, int bits, float[] wP, int w0, int len, int group, float[] part,
      int p, CodeDecoding dec) {
    IntVector mask = PackedLanes.mask(bits);
    int kind = dec.kind;
    IntVector t0 = dec.table0(), t1 = dec.table1();
    int per = 32 / bits;
    FloatVector a0 = w(part, p), b0 = w(part, p + L);
    FloatVector a1 = FloatVector.zero(F), b1 = a1;
    int w1 = w0 + len;
    for (int g = 0; g < len; g += group) {
      IntVector v = group(z, row, g, bits);
      for (int at = g; at < g + group; at += 2 * L) {
        FloatVector x0 = low(v, mask, kind, t0, t1);
        FloatVector x1 = low(v.lanewise(VectorOperators.LSHR, bits), mask, kind, t0, t1);
        v = v.lanewise(VectorOperators.LSHR, 2 * bits);
        a0 = x0.fma(w(wP, w0 + at), a0);
        a1 = x1.fma(w(wP, w0 + at + L), a1);
        b0 = x0.fma(w(wP, w1 + at), b0);
        b1 = x1.fma(w(wP, w1 + at + L), b1);
      }
    }
    a0.add(a1).intoArray(part, p);
    b0.add(b1).intoArray(part, p + L);
  }

  /**
   * 1 class x 2 rows x 2 sub-vectors: each weight vector is loaded once for two rows. Also reads
   * one int of each line of the two rows {@code ahead} bytes further on and returns their sum,
   * which the caller only sinks: a software prefetch (Java has none) of the next pair's lines.
   * Rows of m b / 8 bytes (2 KiB at m = 4096, 4 bits) are streams too short for the hardware
   * prefetcher to get ahead of before each 4 KiB page ends, and a mini-batch's rows come from the
   * last-level cache or memory: in an SGD-like walk over 2,500 rows this cut the forward
   * product's time by about 40% (c = 1). Not done in the kernels for more classes, which are FMA
   * bound (measured slower with it).
   */
  private static int forward1x2(
      MemorySegment z, long row0, long row1, long ahead, int bits, float[] wP, int w0, int len,
      int group, float[] part, int p0, int p1, CodeDecoding dec) {
    IntVector mask = PackedLanes.mask(bits);
    int kind = dec.kind;
    IntVector t0 = dec.table0(), t1 = dec.table1();
    int per = 32 / bits;
    FloatVector a0 = w(part, p0), b0 = p1 >= 0 ? w(part, p1) : FloatVector.zero(F);
    FloatVector a1 = FloatVector.zero(F), b1 = a1;
    int touched = 0;
    for (int g = 0; g < len; g += group) {
      long line = groupByte(g, bits);
      touched += z.get(ValueLayout.JAVA_INT_UNALIGNED, row0 + ahead + line)
          + z.get(ValueLayout.JAVA_INT_UNALIGNED, row1 + ahead + line);
      IntVector u = group(z, row0, g, bits);
      IntVector v = group(z, row1, g, bits);
      for (int at = g; at < g + group; at += 2 * L) {
        FloatVector wa = w(wP, w0 + at);
        FloatVector wb = w(wP, w0 + at + L);
        a0 = low(u, mask, kind, t0, t1).fma(wa, a0);
        a1 = low(u.lanewise(VectorOperators.LSHR, bits), mask, kind, t0, t1).fma(wb, a1);
        b0 = low(v, mask, kind, t0, t1).fma(wa, b0);
        b1 = low(v.lanewise(VectorOperators.LSHR, bits), mask, kind, t0, t1).fma(wb, b1);
        u = u.lanewise(VectorOperators.LSHR, 2 * bits);
        v = v.lanewise(VectorOperators.LSHR, 2 * bits);
      }
    }
    a0.add(a1).intoArray(part, p0);
    if (p1 >= 0) {
      b0.add(b1).intoArray(part, p1);
    }
    return touched;
  }

  // ---------------------------------------------------- fused blocks of one pass

  /**
   * The fused row blocks of one class of affine 1-, 2- and 4-bit rows ({@link
   * VectorProducts#rowBlocks}): the weights permuted and scaled once per pass, then per block of
   * {@value #BLOCK_ROWS} rows the forward quads ({@link #forwardRow}, one row a call) and the
   * transposed ones ({@link #accumulateQuad}, the block's four rows in one call; {@link
   * #accumulatePair} for a short block) while the block's 8 KiB of codes (m = 4096, 4 bits) are
   * in L1. The transposed sums stay in group order in the thread's work array for the whole of
   * its rows, so a block adds whole vectors to it (loaded once, four rows added in registers,
   * stored once) and nothing is scattered until {@link #drain}, once per chunk of rows.
   *
   * <p>Both kernels keep every vector they reuse in registers (AVX2 has 16): the four quad masks,
   * four sums, the codes and their decode. Wider bodies (two rows of forward sums, 8 sums) made
   * C2 rebroadcast the masks on every trip, and a scalar index per trip ({@code at & -group},
   * the shift from it) cost as much as the vector work: the loops now run over the groups with
   * the sub-vector fixed outside, their only scalar work two adds. One block of 64 rows in L2
   * ({@code BlockProductsBenchmark}, m = 4096, 4 bits, one thread, AVX2 EPYC): 40 to 30 us.
   *
   * <p>Work: [0, end) the sums of {@code code * 2^(q * bits) * d} in group order (q = s mod 4, as
   * the quad decode leaves them), [end, m) the tail's sums of {@code code * d} in feature order,
   * [m] the sum of d, then 2 LANES floats of the forward kernel's lanes.
   */
  static final class QuadBlocks implements ProductsBody.RowBlocks {

    /** Rows of a block: 8 KiB of 4-bit codes at m = 4096, in L1 with the weights or sums. */
    static final int BLOCK_ROWS = 4;

    private final int m;
    private final int bits;
    private final int end;
    private final float lo;
    private final float step;
    private final float loSumW;
    private final float[] wT;
    private final float[] wP;

    /** @param loSumW {@code lo * sum_i wT[i]}: the forward's affine term */
    QuadBlocks(int m, int bits, float lo, float step, float[] wT, float loSumW) {
      this.m = m;
      this.bits = bits;
      this.end = groupEnd(m, bits);
      this.lo = lo;
      this.step = step;
      this.loSumW = loSumW;
      this.wT = wT.clone();
      this.wP = new float[end];
      permute(wT, m, 1, 0, end, 32 / bits, bits, wP);
    }

    @Override
    public int blockRows() {
      return BLOCK_ROWS;
    }

    @Override
    public float[] work() {
      return new float[m + 1 + 2 * L];
    }

    @Override
    public void forward(MemorySegment z, long offset, int n, float[] y, float[] work) {
      long rowBytes = PackedLayout.rowBytes(m, bits);
      int lanes = m + 1;
      for (int r = 0; r < n; r++) {
        long row = offset + r * rowBytes;
        forwardRow(z, row, 0, bits, wP, end, work, lanes);
        y[r] = affine(z, row, work, lanes);
      }
    }

    /** {@code step * (sum of the lanes at work[at..] + the tail's codes times w) + lo sum w}. */
    private float affine(MemorySegment z, long row, float[] work, int at) {
      float sum = PackedLanes.sumLanes(work, at);
      for (int i = end; i < m; i++) {
        sum += PackedLayout.code(z, row, bits, i) * wT[i];
      }
      return Math.fma(step, sum, loSumW);
    }

    @Override
    public void accumulate(MemorySegment z, long offset, int n, float[] d, float[] work) {
      long rowBytes = PackedLayout.rowBytes(m, bits);
      if (n == BLOCK_ROWS) {
        accumulateQuad(z, offset, rowBytes, bits, d, work, end);
      } else {
        for (int r = 0; r < n; r += 2) {
          long row0 = offset + r * rowBytes;
          // An odd last row is paired with itself, with d = 0.
          boolean pair = r + 1 < n;
          accumulatePair(z, row0, pair ? row0 + rowBytes : row0, bits, d[r],
              pair ? d[r + 1] : 0f, work, end);
        }
      }
      for (int r = 0; r < n; r++) {
        long row = offset + r * rowBytes;
        for (int i = end; i < m; i++) {
          work[i] += PackedLayout.code(z, row, bits, i) * d[r];
        }
        work[m] += d[r];
      }
    }

    @Override
    public void drain(float[] work, float[] gT) {
      float shift = lo * work[m];
      drainGroups(work, end, bits, step, shift, gT);
      for (int i = end; i < m; i++) {
        gT[i] += Math.fma(work[i], step, shift);
      }
      Arrays.fill(work, 0, m + 1, 0f);
    }
  }

  /**
   * One affine row's sum of {@code code * w} over [0, end), its lanes stored to {@code
   * part[p..]}. One clear loop shape: the outer loop walks the octs of a group (two quads, 8
   * sub-vectors), the inner one the row's groups with the weight index as its induction variable,
   * so that its range checks leave the loop and its only scalar work is two adds. 4 accumulators
   * (each takes 2 of a trip's 8 FMAs) and 4 masks leave AVX2's 16 registers room for the codes and
   * their decodes, and each FMA reads its weights from L1 as a memory operand: with 8
   * accumulators, or two rows a call, C2 rebroadcast the masks on every trip (40% slower). Also
   * reads one int of each group {@code ahead} bytes further on and returns their sum, which the
   * caller only sinks (a software prefetch of the next row, for the mini-batch products; 0: none).
   */
  private static int forwardRow(
      MemorySegment z, long row, long ahead, int bits, float[] wP, int end, float[] part,
      int p) {
    int mask = (1 << bits) - 1;
    IntVector m0 = quadMask(mask, 0), m1 = quadMask(mask, bits);
    IntVector m2 = quadMask(mask, 2 * bits), m3 = quadMask(mask, 3 * bits);
    int group = groupSize(bits);
    int quad = 4 * bits;
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    int touched = 0;
    // Outer: the oct of each group; inner: the groups, so the long loop's index is the weights'.
    for (int oct = 0; oct < group; oct += 8 * L) {
      int sh = oct / L * bits;
      long off = row;
      for (int at = oct; at < end; at += group, off += 4 * L) {
        if (oct == 0) {
          touched += z.get(ValueLayout.JAVA_INT_UNALIGNED, off + ahead);
        }
        IntVector u = IntVector.fromMemorySegment(INT, z, off, ByteOrder.LITTLE_ENDIAN);
        IntVector x = u.lanewise(VectorOperators.LSHR, sh);
        IntVector y = u.lanewise(VectorOperators.LSHR, sh + quad);
        a0 = quad(x, m0).fma(w(wP, at), a0);
        a1 = quad(x, m1).fma(w(wP, at + L), a1);
        a2 = quad(x, m2).fma(w(wP, at + 2 * L), a2);
        a3 = quad(x, m3).fma(w(wP, at + 3 * L), a3);
        a0 = quad(y, m0).fma(w(wP, at + 4 * L), a0);
        a1 = quad(y, m1).fma(w(wP, at + 5 * L), a1);
        a2 = quad(y, m2).fma(w(wP, at + 6 * L), a2);
        a3 = quad(y, m3).fma(w(wP, at + 7 * L), a3);
      }
    }
    a0.add(a1).add(a2.add(a3)).intoArray(part, p);
    return touched;
  }

  /**
   * Two rows' quads added to the group-ordered sums {@code acc[0, end)}: per quad of 4 LANES
   * features, the 4 sums loaded, row 0 added by FMA, row 1's products added to that, the sums
   * stored (so each sum adds row 0, then row 1). The loop shape of {@link #forwardRow}, a quad
   * per inner trip. 8 decodes per loop body, each an and and a conversion ({@link #quadMask});
   * four rows in one body (16 decodes) exceed C2's NodeCountInliningCutoff, which then leaves
   * {@link #quad} out of line and boxes every vector.
   */
  private static void accumulatePair(
      MemorySegment z, long row0, long row1, int bits, float e0, float e1, float[] acc, int end) {
    int mask = (1 << bits) - 1;
    IntVector m0 = quadMask(mask, 0), m1 = quadMask(mask, bits);
    IntVector m2 = quadMask(mask, 2 * bits), m3 = quadMask(mask, 3 * bits);
    FloatVector d0 = FloatVector.broadcast(F, e0), d1 = FloatVector.broadcast(F, e1);
    int group = groupSize(bits);
    long delta = row1 - row0;
    for (int q = 0; q < group; q += 4 * L) {
      int sh = q / L * bits;
      long off = row0;
      for (int at = q; at < end; at += group, off += 4 * L) {
        IntVector u = IntVector.fromMemorySegment(INT, z, off, ByteOrder.LITTLE_ENDIAN)
            .lanewise(VectorOperators.LSHR, sh);
        IntVector v = IntVector.fromMemorySegment(INT, z, off + delta, ByteOrder.LITTLE_ENDIAN)
            .lanewise(VectorOperators.LSHR, sh);
        FloatVector a0 = quad(u, m0).fma(d0, w(acc, at));
        FloatVector a1 = quad(u, m1).fma(d0, w(acc, at + L));
        FloatVector a2 = quad(u, m2).fma(d0, w(acc, at + 2 * L));
        FloatVector a3 = quad(u, m3).fma(d0, w(acc, at + 3 * L));
        quad(v, m0).fma(d1, a0).intoArray(acc, at);
        quad(v, m1).fma(d1, a1).intoArray(acc, at + L);
        quad(v, m2).fma(d1, a2).intoArray(acc, at + 2 * L);
        quad(v, m3).fma(d1, a3).intoArray(acc, at + 3 * L);
      }
    }
  }

  /**
   * Four rows' quads added to the group-ordered sums {@code acc[0, end)}: per quad of 4 LANES
   * features, the 4 sums loaded once, the rows added by FMA in order (row 0 first), stored once.
   * Rows {@code rowBytes} apart from {@code row0}, their d in {@code d[0, 4)}. The loop shape of
   * {@link #forwardRow}, with the rows a loop of two trips of two rows inside: one body of 16
   * decodes exceeds C2's NodeCountInliningCutoff, which then leaves {@link #quad} out of line
   * and boxes every vector.
   */
  private static void accumulateQuad(
      MemorySegment z, long row0, long rowBytes, int bits, float[] d, float[] acc, int end) {
    int mask = (1 << bits) - 1;
    IntVector m0 = quadMask(mask, 0), m1 = quadMask(mask, bits);
    IntVector m2 = quadMask(mask, 2 * bits), m3 = quadMask(mask, 3 * bits);
    int group = groupSize(bits);
    for (int q = 0; q < group; q += 4 * L) {
      int sh = q / L * bits;
      long off = row0;
      for (int at = q; at < end; at += group, off += 4 * L) {
        FloatVector a0 = w(acc, at), a1 = w(acc, at + L);
        FloatVector a2 = w(acc, at + 2 * L), a3 = w(acc, at + 3 * L);
        for (int r = 0; r < QuadBlocks.BLOCK_ROWS; r += 2) {
          long row = off + r * rowBytes;
          IntVector u = codes(z, row, sh), v = codes(z, row + rowBytes, sh);
          FloatVector d0 = FloatVector.broadcast(F, d[r]), d1 = FloatVector.broadcast(F, d[r + 1]);
          a0 = quad(u, m0).fma(d0, a0);
          a1 = quad(u, m1).fma(d0, a1);
          a2 = quad(u, m2).fma(d0, a2);
          a3 = quad(u, m3).fma(d0, a3);
          a0 = quad(v, m0).fma(d1, a0);
          a1 = quad(v, m1).fma(d1, a1);
          a2 = quad(v, m2).fma(d1, a2);
          a3 = quad(v, m3).fma(d1, a3);
        }
        a0.intoArray(acc, at);
        a1.intoArray(acc, at + L);
        a2.intoArray(acc, at + 2 * L);
        a3.intoArray(acc, at + 3 * L);
      }
    }
  }

  /** The group's ints at byte {@code at}, shifted right by {@code sh}. */
  private static IntVector codes(MemorySegment z, long at, int sh) {
    return IntVector.fromMemorySegment(INT, z, at, ByteOrder.LITTLE_ENDIAN)
        .lanewise(VectorOperators.LSHR, sh);
  }

  /**
   * {@code gT[g + k * per + s] += fma(work[g + s * L + k], step 2^-((s mod 4) bits), shift)} for
   * the group-ordered quad sums of features [0, end): the sums carry {@code code * 2^((s mod 4)
   * bits)} (the quad decode), which the scale undoes exactly.
   */
  private static void drainGroups(
      float[] work, int end, int bits, float step, float shift, float[] gT) {
    int per = 32 / bits;
    int group = groupSize(bits);
    float[] scale = new float[4];
    for (int q = 0; q < 4; q++) {
      scale[q] = Math.scalb(step, -q * bits);
    }
    for (int g = 0; g < end; g += group) {
      for (int s = 0; s < per; s++) {
        float sq = scale[s & 3];
        int from = g + s * L;
        for (int k = 0; k < L; k++) {
          gT[g + k * per + s] += Math.fma(work[from + k], sq, shift);
        }
      }
    }
  }

  // ---------------------------------------------------- transposed accumulate

  /**
   * {@code gT[j*m + i] += step * sum_r code_ri d[r*c + j] + shift[j]} for features {@code i <
   * end} of packed rows, {@code end} from {@link #groupEnd}, {@code n >= 1}.
   */
  static void accumulateTransposed(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int m,
      int bits,
      float step,
      float[] shift,
      float[] d,
      int c,
      float[] gT,
      int end,
      CodeDecoding dec) {
    int per = 32 / bits;
    int group = L * per;
    float[] lanes = new float[8 * L];
    int j = 0;
    while (j < c) {
      int block = c - j >= 8 ? 8 : c - j >= 2 ? 2 : 1;
      if (c == 1 && dec == CodeDecoding.AFFINE) {
        // The fused pass's kernels: 4 rows at a time into group-ordered sums, drained once.
        float[] work = new float[end];
        int r = 0;
        for (; r + QuadBlocks.BLOCK_ROWS <= n; r += QuadBlocks.BLOCK_ROWS) {
          accumulateQuad(z, offset + r * rowBytes, rowBytes, bits,
              Arrays.copyOfRange(d, r, r + QuadBlocks.BLOCK_ROWS), work, end);
        }
        for (; r < n; r += 2) {
          long row0 = offset + r * rowBytes;
          boolean pair = r + 1 < n;
          accumulatePair(z, row0, pair ? row0 + rowBytes : row0, bits, d[r],
              pair ? d[r + 1] : 0f, work, end);
        }
        drainGroups(work, end, bits, step, shift[0], gT);
        return;
      }
      for (int g = 0; g < end; g += group) {
        long at = offset + groupByte(g, bits);
        for (int s = 0; s < per; s += block == 8 ? 1 : 2) {
          switch (block) {
            case 8 ->
                accumulate8(
                    z, at, rowBytes, n, bits, s, d, c, j, step, shift, gT, m, g, lanes, dec);
            case 2 ->
                accumulate2(
                    z, at, rowBytes, n, bits, s, d, c, j, step, shift, gT, m, g, lanes, dec);
            default ->
                accumulate1(
                    z, at, rowBytes, n, bits, s, d, c, j, step, shift, gT, m, g, lanes, dec);
          }
        }
      }
      j += block;
    }
  }

  /**
   * Adds the {@code count} vectors of {@code lanes} to the features of sub-vector {@code s} of the
   * group at {@code g} of classes j, j + 1, ...: lane k of vector q is feature {@code g + k * per +
   * s} of class {@code j + q}.
   */
  private static void scatterAdd(
      float[] lanes, int count, int j, float[] gT, int m, int g, int per, int s) {
    for (int q = 0; q < count; q++) {
      int at = (j + q) * m + g + s;
      for (int k = 0; k < L; k++) {
        gT[at + k * per] += lanes[q * L + k];
      }
    }
  }

  private static FloatVector dj(float[] d, int at) {
    return FloatVector.broadcast(F, d[at]);
  }

  /** Classes [j, j+8) x sub-vector s of one group, all rows. */
  private static void accumulate8(
      MemorySegment z, long at, long rowBytes, int n, int bits, int s, float[] d, int c, int j,
      float step, float[] shift, float[] gT, int m, int g, float[] lanes,
      CodeDecoding dec) {
    IntVector mask = PackedLanes.mask(bits);
    int kind = dec.kind;
    IntVector t0 = dec.table0(), t1 = dec.table1();
    int sh = s * bits;
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    long row = at;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      IntVector v = group(z, row, 0, bits).lanewise(VectorOperators.LSHR, sh);
      FloatVector x = low(v, mask, kind, t0, t1);
      a0 = x.fma(dj(d, dr), a0);
      a1 = x.fma(dj(d, dr + 1), a1);
      a2 = x.fma(dj(d, dr + 2), a2);
      a3 = x.fma(dj(d, dr + 3), a3);
      a4 = x.fma(dj(d, dr + 4), a4);
      a5 = x.fma(dj(d, dr + 5), a5);
      a6 = x.fma(dj(d, dr + 6), a6);
      a7 = x.fma(dj(d, dr + 7), a7);
    }
    a0.fma(step, shift[j]).intoArray(lanes, 0);
    a1.fma(step, shift[j + 1]).intoArray(lanes, L);
    a2.fma(step, shift[j + 2]).intoArray(lanes, 2 * L);
    a3.fma(step, shift[j + 3]).intoArray(lanes, 3 * L);
    a4.fma(step, shift[j + 4]).intoArray(lanes, 4 * L);
    a5.fma(step, shift[j + 5]).intoArray(lanes, 5 * L);
    a6.fma(step, shift[j + 6]).intoArray(lanes, 6 * L);
    a7.fma(step, shift[j + 7]).intoArray(lanes, 7 * L);
    scatterAdd(lanes, 8, j, gT, m, g, 32 / bits, s);
  }

  /** Classes j, j+1 x sub-vectors s, s+1 of one group, all rows. */
  private static void accumulate2(
      MemorySegment z, long at, long rowBytes, int n, int bits, int s, float[] d, int c, int j,
      float step, float[] shift, float[] gT, int m, int g, float[] lanes,
      CodeDecoding dec) {
    IntVector mask = PackedLanes.mask(bits);
    int kind = dec.kind;
    IntVector t0 = dec.table0(), t1 = dec.table1();
    int sh = s * bits;
    FloatVector a0 = FloatVector.zero(F), a1 = a0, b0 = a0, b1 = a0;
    long row = at;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      IntVector v = group(z, row, 0, bits).lanewise(VectorOperators.LSHR, sh);
      FloatVector x0 = low(v, mask, kind, t0, t1);
      FloatVector x1 = low(v.lanewise(VectorOperators.LSHR, bits), mask, kind, t0, t1);
      FloatVector d0 = dj(d, dr), d1 = dj(d, dr + 1);
      a0 = x0.fma(d0, a0);
      a1 = x1.fma(d0, a1);
      b0 = x0.fma(d1, b0);
      b1 = x1.fma(d1, b1);
    }
    int per = 32 / bits;
    a0.fma(step, shift[j]).intoArray(lanes, 0);
    b0.fma(step, shift[j + 1]).intoArray(lanes, L);
    a1.fma(step, shift[j]).intoArray(lanes, 2 * L);
    b1.fma(step, shift[j + 1]).intoArray(lanes, 3 * L);
    scatterAdd(lanes, 2, j, gT, m, g, per, s);
    System.arraycopy(lanes, 2 * L, lanes, 0, 2 * L);
    scatterAdd(lanes, 2, j, gT, m, g, per, s + 1);
  }

  /** Class j x sub-vectors s, s+1 of one group, rows in pairs (4 independent accumulators). */
  private static void accumulate1(
      MemorySegment z, long at, long rowBytes, int n, int bits, int s, float[] d, int c, int j,
      float step, float[] shift, float[] gT, int m, int g, float[] lanes,
      CodeDecoding dec) {
    IntVector mask = PackedLanes.mask(bits);
    int kind = dec.kind;
    IntVector t0 = dec.table0(), t1 = dec.table1();
    int sh = s * bits;
    FloatVector a0 = FloatVector.zero(F), a1 = a0, b0 = a0, b1 = a0;
    long row = at;
    int dr = j;
    int r = 0;
    for (; r + 2 <= n; r += 2, row += 2 * rowBytes, dr += 2 * c) {
      IntVector u = group(z, row, 0, bits).lanewise(VectorOperators.LSHR, sh);
      IntVector v = group(z, row + rowBytes, 0, bits).lanewise(VectorOperators.LSHR, sh);
      FloatVector d0 = dj(d, dr), d1 = dj(d, dr + c);
      a0 = low(u, mask, kind, t0, t1).fma(d0, a0);
      a1 = low(u.lanewise(VectorOperators.LSHR, bits), mask, kind, t0, t1).fma(d0, a1);
      b0 = low(v, mask, kind, t0, t1).fma(d1, b0);
      b1 = low(v.lanewise(VectorOperators.LSHR, bits), mask, kind, t0, t1).fma(d1, b1);
    }
    if (r < n) {
      IntVector u = group(z, row, 0, bits).lanewise(VectorOperators.LSHR, sh);
      FloatVector d0 = dj(d, dr);
      a0 = low(u, mask, kind, t0, t1).fma(d0, a0);
      a1 = low(u.lanewise(VectorOperators.LSHR, bits), mask, kind, t0, t1).fma(d0, a1);
    }
    int per = 32 / bits;
    a0.add(b0).fma(step, shift[j]).intoArray(lanes, 0);
    scatterAdd(lanes, 1, j, gT, m, g, per, s);
    a1.add(b1).fma(step, shift[j]).intoArray(lanes, 0);
    scatterAdd(lanes, 1, j, gT, m, g, per, s + 1);
  }
}
