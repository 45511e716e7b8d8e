package org.lprff.vector.simd.panama;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.scalar.ScalarProducts;
import org.lprff.vector.simd.spi.ProductsBody;

/**
 * Vector API products. Rows of 1, 2 or 4 bits: the whole groups of a row (one int vector of
 * codes per load, the weights permuted into code order) go to {@link PackedGroups}; the rest of
 * the row (less than one group), 8- and 16-bit rows and float rows go through the micro-kernels
 * here, where codes are decoded by {@link PackedLanes#codes} ({@code LANES} features at a time).
 * Decoded features are used at once for a block of classes; no float copy of the batch or of a
 * row is made.
 *
 * <p>The affine dequantization is factored out of the inner loops: {@code sum_i z_i w_i = step *
 * sum_i code_i w_i + lo * sum_i w_i} (and {@code sum_r z_ri d_rj = step * sum_r code_ri d_rj + lo
 * * sum_r d_rj}), with the sums of the weights (of the columns of D) taken once per call. The
 * inner loops convert codes to float (exact) and multiply-add them directly, one FMA less per
 * decode. This is not bitwise the dequantize-then-multiply of {@link ScalarProducts}; the error
 * bound it meets is derived in PackedProductsTest.
 *
 * <p>Codebook rows ({@code forwardLevels}, {@code accumulateTransposedLevels}: values {@code
 * levels[code]}, b in {1, 2, 4, 8}) run the same drivers. The grouped part decodes them in
 * registers ({@link CodeDecoding}); here the drivers decode a tile of each row (forward: TILE
 * features of one row; transposed: a block of columns of all rows) into a float scratch and run
 * the float kernels on it, so the kernels' loops stay those of affine and float rows: a decode
 * kind branched on in them cost the affine 8-bit forward pass ~1.2x. Nothing is factored out of
 * codebook sums (the drivers run with step 1 and lo 0).
 *
 * <p>Register blocking: a micro-kernel keeps 4 to 8 accumulators (2 FMA ports x latency 4-5 on
 * current x86 and AArch64 cores) plus the decoding constants in the 16 AVX2 registers: blocks of
 * 8 classes x 1 feature vector, 4 x 2, 2 x 2, 1 x 4 (forward) or 2 x 4 (accumulate). Wider class blocks decode each feature
 * vector fewer times, so classes go in blocks of 8, then 4, 2, 1. At most 4 decodes per loop
 * body: more and C2 stops inlining the vector calls (NodeCountInliningCutoff), which boxes every
 * vector and is ~20x slower.
 *
 * <p>For the same reason no kernel passes a vector to a call: a kernel's epilogue runs once per
 * call, so C2 inlines there only callees of at most 35 bytecodes (MaxInlineSize) and boxes a
 * vector passed to a larger one. The forward kernels carry their accumulators across tiles in a
 * float scratch (one vector per row and class: loaded before the loop, stored after it), whose
 * lanes are summed once per output at the end; the transposed kernels store theirs to an array
 * that {@code addInto} reads.
 */
public final class VectorProducts implements ProductsBody {

  private static final VectorSpecies<Float> F = PackedLanes.FLOAT;
  private static final int L = PackedLanes.LANES;

  /** Widest codes that take the {@link PackedGroups} path (at least 8 codes per int). */
  private static final int GROUPED_MAX_BITS = 4;

  /**
   * Features per tile of the forward pass: the weights of a tile (at most 8 classes x 512 floats
   * = 16 KiB per class block) stay in L1 while all rows of the batch go past. A multiple of
   * 8 * LANES so the unrolled loops have no remainder inside a full tile.
   */
  private static final int TILE = 512;

  // ---------------------------------------------------------------- fused blocks

  /**
   * One class of affine 1-, 2- and 4-bit rows (the full-batch passes' case): {@link
   * PackedGroups.QuadBlocks}, blocks of 4 rows. Otherwise blocks of {@value #FLOAT_BLOCK_ROWS}
   * float rows or of any number of packed rows (the caller's chunk) over the kernels above, whose
   * forward pass permutes its weights per call: a small block would pay that per block.
   */
  @Override
  public RowBlocks rowBlocks(int m, int bits, float lo, float step, float[] wT, int c) {
    if (c == 1 && bits <= GROUPED_MAX_BITS && PackedGroups.groupEnd(m, bits) > 0) {
      return new PackedGroups.QuadBlocks(m, bits, lo, step, wT, lo * sum(wT, 0, m));
    }
    float[] w = wT.clone();
    int rows = bits == FLOAT_BITS ? FLOAT_BLOCK_ROWS : Integer.MAX_VALUE;
    return new RowBlocks() {
      @Override
      public int blockRows() {
        return rows;
      }

      @Override
      public float[] work() {
        return new float[c * m];
      }

      @Override
      public void forward(MemorySegment z, long offset, int n, float[] y, float[] work) {
        VectorProducts.forward(z, offset, n, m, bits, lo, step, w, c, y, CodeDecoding.AFFINE);
      }

      @Override
      public void accumulate(MemorySegment z, long offset, int n, float[] d, float[] work) {
        accumulateTransposed(z, offset, n, m, bits, lo, step, d, c, work, CodeDecoding.AFFINE);
      }

      @Override
      public void drain(float[] work, float[] gT) {
        for (int k = 0; k < c * m; k++) {
          gT[k] += work[k];
        }
        Arrays.fill(work, 0f);
      }
    };
  }

  /** Float rows per block: 64 KiB at m = 4096, in L2 between the two halves. */
  private static final int FLOAT_BLOCK_ROWS = 4;

  // ---------------------------------------------------------------- forward

  @Override
  public void forward(
      MemorySegment z,
      long offset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] wT,
      int c,
      float[] y) {
    forward(z, offset, n, m, bits, lo, step, wT, c, y, CodeDecoding.AFFINE);
  }

  @Override
  public void forwardLevels(
      MemorySegment z, long offset, int n, int m, int bits, float[] levels, float[] wT, int c,
      float[] y) {
    forward(z, offset, n, m, bits, 0f, 1f, wT, c, y, CodeDecoding.levels(levels, bits));
  }

  /**
   * The forward pass of both kinds of packed rows: the kernels sum decoded values times weights,
   * then affine rows apply their map ({@code lo}, {@code step} unused for codebook rows).
   */
  private static void forward(
      MemorySegment z,
      long offset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] wT,
      int c,
      float[] y,
      CodeDecoding dec) {
    long rowBytes = PackedLayout.rowBytes(m, bits);
    Arrays.fill(y, 0, n * c, 0f);
    int vecEnd = F.loopBound(m);
    // Rows of 1, 2, 4 bits: whole groups by PackedGroups, the rest (< one group) vector by vector
    // here. 8 and 16 bits stay here: their byte/short loads widen in one step, and groups of 2 or
    // 4 sub-vectors measured slower.
    int start = bits <= GROUPED_MAX_BITS ? PackedGroups.groupEnd(m, bits) : 0;
    if (start > 0) {
      PackedGroups.forward(z, offset, rowBytes, n, m, bits, wT, c, y, start, dec);
    }
    // Vector partial sums of every output, carried across tiles (see the class comment).
    float[] part = start < vecEnd ? new float[n * c * L] : null;
    // Codebook rows: each row's tile is decoded once into a float scratch, which the kernels then
    // read as a float row (offset -4 t0, so feature i is at byte 4 (i - t0)): the kernels stay
    // free of the decode's kind, which costs the affine loops ~1.2x when it is a branch in them.
    boolean levels = dec != CodeDecoding.AFFINE;
    float[] tile = levels && start < vecEnd ? new float[TILE] : null;
    MemorySegment tileRow = tile != null ? MemorySegment.ofArray(tile) : null;
    int kernelBits = levels ? FLOAT_BITS : bits;
    for (int t0 = start; t0 < vecEnd; t0 += TILE) {
      int t1 = Math.min(t0 + TILE, vecEnd);
      for (int r = 0; r < n; r++) {
        MemorySegment src = z;
        long row = offset + r * rowBytes;
        if (levels) {
          dec.decodeRow(z, row, bits, t0, t1, tile, 0);
          src = tileRow;
          row = -4L * t0;
        }
        int j = 0;
        while (j < c) {
          int block = classBlock(c - j);
          int p = (r * c + j) * L;
          switch (block) {
            case 8 -> forward8(src, row, kernelBits, wT, m, j, t0, t1, part, p);
            case 4 -> forward4(src, row, kernelBits, wT, m, j, t0, t1, part, p);
            case 2 -> forward2(src, row, kernelBits, wT, m, j, t0, t1, part, p);
            default -> forward1(src, row, kernelBits, wT, m, j, t0, t1, part, p);
          }
          j += block;
        }
      }
    }
    if (part != null) {
      for (int k = 0; k < n * c; k++) {
        y[k] += PackedLanes.sumLanes(part, k * L);
      }
    }
    if (vecEnd < m) {
      for (int r = 0; r < n; r++) {
        long row = offset + r * rowBytes;
        for (int i = vecEnd; i < m; i++) {
          float zi = tailValue(z, row, bits, i, lo, step, dec);
          for (int j = 0; j < c; j++) {
            y[r * c + j] += zi * wT[j * m + i];
          }
        }
      }
    }
    if (bits != FLOAT_BITS && dec.kind == CodeDecoding.CODES) {
      // y holds sum_i code_i w_i; sum_i z_i w_i = step * that + lo * sum_i w_i.
      float[] loSumW = new float[c];
      for (int j = 0; j < c; j++) {
        loSumW[j] = lo * sum(wT, j * m, m);
      }
      for (int r = 0; r < n; r++) {
        for (int j = 0; j < c; j++) {
          y[r * c + j] = Math.fma(step, y[r * c + j], loSumW[j]);
        }
      }
    }
  }

  /** {@code sum a[from, from + len)}, 4 accumulators (add latency 3-4). */
  private static float sum(float[] a, int from, int len) {
    FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
    int k = 0;
    for (; k + 4 * L <= len; k += 4 * L) {
      s0 = s0.add(w(a, from + k));
      s1 = s1.add(w(a, from + k + L));
      s2 = s2.add(w(a, from + k + 2 * L));
      s3 = s3.add(w(a, from + k + 3 * L));
    }
    for (; k + L <= len; k += L) {
      s0 = s0.add(w(a, from + k));
    }
    float s = PackedLanes.sumLanes(s0.add(s1).add(s2.add(s3)));
    for (; k < len; k++) {
      s += a[from + k];
    }
    return s;
  }

  private static int classBlock(int remaining) {
    return remaining >= 8 ? 8 : remaining >= 4 ? 4 : remaining >= 2 ? 2 : 1;
  }

  /**
   * Feature i of the row at {@code row} as the forward kernels sum it, for the scalar tail: the
   * value of a float row, the code of an affine row (its map is applied at the end), the level of
   * a codebook row.
   */
  private static float tailValue(
      MemorySegment z, long row, int bits, int i, float lo, float step, CodeDecoding dec) {
    if (bits == FLOAT_BITS) {
      return PackedLayout.value(z, row, bits, i, lo, step);
    }
    int code = PackedLayout.code(z, row, bits, i);
    return dec.kind == CodeDecoding.CODES ? code : dec.value(code);
  }

  /**
   * Features [i, i + LANES) of the row at {@code row}: the codes as floats (exact, codes < 2^24)
   * for affine packed rows, the values for float rows (and for the decoded tiles of codebook rows,
   * which the drivers pass as float rows). The affine map {@code lo + step * code} is applied once
   * per output, not once per feature: see the class comment.
   */
  private static FloatVector load(
      MemorySegment z, long row, int bits, int i, IntVector shifts, IntVector mask) {
    if (bits == FLOAT_BITS) {
      return FloatVector.fromMemorySegment(F, z, row + 4L * i, ByteOrder.LITTLE_ENDIAN);
    }
    return (FloatVector)
        PackedLanes.codes(z, row, bits, i, shifts, mask).convert(VectorOperators.I2F, 0);
  }

  private static FloatVector w(float[] wT, int at) {
    return FloatVector.fromArray(F, wT, at);
  }

  /** 8 classes x 1 feature vector per step. */
  private static void forward8(
      MemorySegment z,
      long row,
      int bits,
      float[] wT,
      int m,
      int j,
      int from,
      int to,
      float[] part,
      int p) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = w(part, p), a1 = w(part, p + L), a2 = w(part, p + 2 * L);
    FloatVector a3 = w(part, p + 3 * L), a4 = w(part, p + 4 * L), a5 = w(part, p + 5 * L);
    FloatVector a6 = w(part, p + 6 * L), a7 = w(part, p + 7 * L);
    int w0 = j * m, w1 = w0 + m, w2 = w1 + m, w3 = w2 + m;
    int w4 = w3 + m, w5 = w4 + m, w6 = w5 + m, w7 = w6 + m;
    for (int i = from; i < to; i += L) {
      FloatVector x = load(z, row, bits, i, shifts, mask);
      a0 = x.fma(w(wT, w0 + i), a0);
      a1 = x.fma(w(wT, w1 + i), a1);
      a2 = x.fma(w(wT, w2 + i), a2);
      a3 = x.fma(w(wT, w3 + i), a3);
      a4 = x.fma(w(wT, w4 + i), a4);
      a5 = x.fma(w(wT, w5 + i), a5);
      a6 = x.fma(w(wT, w6 + i), a6);
      a7 = x.fma(w(wT, w7 + i), a7);
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

  /** 4 classes x 2 feature vectors per step. */
  private static void forward4(
      MemorySegment z,
      long row,
      int bits,
      float[] wT,
      int m,
      int j,
      int from,
      int to,
      float[] part,
      int p) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = w(part, p), a1 = w(part, p + L), a2 = w(part, p + 2 * L);
    FloatVector a3 = w(part, p + 3 * L);
    FloatVector b0 = FloatVector.zero(F), b1 = b0, b2 = b0, b3 = b0;
    int w0 = j * m, w1 = w0 + m, w2 = w1 + m, w3 = w2 + m;
    int i = from;
    for (; i + 2 * L <= to; i += 2 * L) {
      FloatVector x = load(z, row, bits, i, shifts, mask);
      FloatVector x2 = load(z, row, bits, i + L, shifts, mask);
      a0 = x.fma(w(wT, w0 + i), a0);
      a1 = x.fma(w(wT, w1 + i), a1);
      a2 = x.fma(w(wT, w2 + i), a2);
      a3 = x.fma(w(wT, w3 + i), a3);
      b0 = x2.fma(w(wT, w0 + i + L), b0);
      b1 = x2.fma(w(wT, w1 + i + L), b1);
      b2 = x2.fma(w(wT, w2 + i + L), b2);
      b3 = x2.fma(w(wT, w3 + i + L), b3);
    }
    for (; i < to; i += L) {
      FloatVector x = load(z, row, bits, i, shifts, mask);
      a0 = x.fma(w(wT, w0 + i), a0);
      a1 = x.fma(w(wT, w1 + i), a1);
      a2 = x.fma(w(wT, w2 + i), a2);
      a3 = x.fma(w(wT, w3 + i), a3);
    }
    a0.add(b0).intoArray(part, p);
    a1.add(b1).intoArray(part, p + L);
    a2.add(b2).intoArray(part, p + 2 * L);
    a3.add(b3).intoArray(part, p + 3 * L);
  }

  /** 2 classes x 2 feature vectors per step. */
  private static void forward2(
      MemorySegment z,
      long row,
      int bits,
      float[] wT,
      int m,
      int j,
      int from,
      int to,
      float[] part,
      int p) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = w(part, p), b0 = w(part, p + L);
    FloatVector a1 = FloatVector.zero(F), b1 = a1;
    int w0 = j * m, w1 = w0 + m;
    int i = from;
    for (; i + 2 * L <= to; i += 2 * L) {
      FloatVector x0 = load(z, row, bits, i, shifts, mask);
      FloatVector x1 = load(z, row, bits, i + L, shifts, mask);
      a0 = x0.fma(w(wT, w0 + i), a0);
      a1 = x1.fma(w(wT, w0 + i + L), a1);
      b0 = x0.fma(w(wT, w1 + i), b0);
      b1 = x1.fma(w(wT, w1 + i + L), b1);
    }
    for (; i < to; i += L) {
      FloatVector x = load(z, row, bits, i, shifts, mask);
      a0 = x.fma(w(wT, w0 + i), a0);
      b0 = x.fma(w(wT, w1 + i), b0);
    }
    a0.add(a1).intoArray(part, p);
    b0.add(b1).intoArray(part, p + L);
  }

  /** 1 class x 4 feature vectors per step. */
  private static void forward1(
      MemorySegment z,
      long row,
      int bits,
      float[] wT,
      int m,
      int j,
      int from,
      int to,
      float[] part,
      int p) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = w(part, p);
    FloatVector a1 = FloatVector.zero(F), a2 = a1, a3 = a1;
    int w0 = j * m;
    int i = from;
    for (; i + 4 * L <= to; i += 4 * L) {
      FloatVector x0 = load(z, row, bits, i, shifts, mask);
      FloatVector x1 = load(z, row, bits, i + L, shifts, mask);
      FloatVector x2 = load(z, row, bits, i + 2 * L, shifts, mask);
      FloatVector x3 = load(z, row, bits, i + 3 * L, shifts, mask);
      a0 = x0.fma(w(wT, w0 + i), a0);
      a1 = x1.fma(w(wT, w0 + i + L), a1);
      a2 = x2.fma(w(wT, w0 + i + 2 * L), a2);
      a3 = x3.fma(w(wT, w0 + i + 3 * L), a3);
    }
    for (; i < to; i += L) {
      a0 = load(z, row, bits, i, shifts, mask).fma(w(wT, w0 + i), a0);
    }
    a0.add(a1).add(a2.add(a3)).intoArray(part, p);
  }

  // ---------------------------------------------------- transposed accumulate

  @Override
  public void accumulateTransposed(
      MemorySegment z,
      long offset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      float[] gT) {
    accumulateTransposed(z, offset, n, m, bits, lo, step, d, c, gT, CodeDecoding.AFFINE);
  }

  @Override
  public void accumulateTransposedLevels(
      MemorySegment z, long offset, int n, int m, int bits, float[] levels, float[] d, int c,
      float[] gT) {
    // step = 1, lo = 0: the kernels' step * acc + lo * sum_r d_rj is acc, exactly.
    accumulateTransposed(
        z, offset, n, m, bits, 0f, 1f, d, c, gT, CodeDecoding.levels(levels, bits));
  }

  /** The transposed accumulate of both kinds of packed rows (see {@link #forward}). */
  private static void accumulateTransposed(
      MemorySegment z,
      long offset,
      int n,
      int m,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      float[] gT,
      CodeDecoding dec) {
    if (n == 0) {
      return;
    }
    long rowBytes = PackedLayout.rowBytes(m, bits);
    int vecEnd = F.loopBound(m);
    // The micro-kernels sum code_ri d_rj; sum_r z_ri d_rj = step * that + lo * sum_r d_rj.
    float[] shift = new float[c];
    if (bits != FLOAT_BITS && dec.kind == CodeDecoding.CODES) {
      for (int r = 0; r < n; r++) {
        for (int k = 0; k < c; k++) {
          shift[k] += d[r * c + k];
        }
      }
      for (int k = 0; k < c; k++) {
        shift[k] *= lo;
      }
    }
    // Rows of 1, 2, 4 bits: whole groups by PackedGroups, the rest (< one group) vector by vector
    // here. 8 and 16 bits stay here: their byte/short loads widen in one step, and groups of 2 or
    // 4 sub-vectors measured slower.
    int start = bits <= GROUPED_MAX_BITS ? PackedGroups.groupEnd(m, bits) : 0;
    if (start > 0) {
      PackedGroups.accumulateTransposed(
          z, offset, rowBytes, n, m, bits, step, shift, d, c, gT, start, dec);
    }
    // The kernels' results go through this array to addInto: no vector is passed to a call.
    float[] lanes = new float[8 * L];
    if (dec == CodeDecoding.AFFINE) {
      accumulateColumns(z, offset, rowBytes, n, bits, step, shift, d, c, gT, m, lanes, start, vecEnd);
    } else if (start < vecEnd) {
      // Codebook rows: columns in tiles of all rows decoded into a float scratch, which the
      // kernels read as float rows of width columns (see forward).
      int width = Math.min(columnTile(n), vecEnd - start);
      float[] tile = new float[n * width];
      MemorySegment rows = MemorySegment.ofArray(tile);
      for (int t0 = start; t0 < vecEnd; t0 += width) {
        int t1 = Math.min(t0 + width, vecEnd);
        for (int r = 0; r < n; r++) {
          dec.decodeRow(z, offset + r * rowBytes, bits, t0, t1, tile, r * width);
        }
        accumulateColumns(
            rows, -4L * t0, 4L * width, n, FLOAT_BITS, step, shift, d, c, gT, m, lanes, t0, t1);
      }
    }
    for (int i = vecEnd; i < m; i++) {
      for (int r = 0; r < n; r++) {
        float zi = dec.kind == CodeDecoding.CODES
            ? PackedLayout.value(z, offset + r * rowBytes, bits, i, lo, step)
            : dec.value(PackedLayout.code(z, offset + r * rowBytes, bits, i));
        for (int k = 0; k < c; k++) {
          gT[k * m + i] += zi * d[r * c + k];
        }
      }
    }
  }

  /**
   * Columns of a codebook tile of the transposed accumulate: a multiple of 4 LANES (the widest
   * kernel block) with the tile of all n rows within about 32K floats (128 KiB, in L2).
   */
  private static int columnTile(int n) {
    return Math.max(1, (1 << 15) / (n * 4 * L)) * 4 * L;
  }

  /** Features [from, to) (vector-aligned) of all classes and rows, by the micro-kernels. */
  private static void accumulateColumns(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float step,
      float[] shift,
      float[] d,
      int c,
      float[] gT,
      int m,
      float[] lanes,
      int from,
      int to) {
    int j = 0;
    while (j < c) {
      int block = classBlock(c - j);
      int width = block == 8 ? L : block == 4 ? 2 * L : 4 * L;
      int i = from;
      for (; i + width <= to; i += width) {
        switch (block) {
          case 8 -> accumulate8(z, offset, rowBytes, n, bits, step, shift, d, c, j, i, gT, m, lanes);
          case 4 -> accumulate4(z, offset, rowBytes, n, bits, step, shift, d, c, j, i, gT, m, lanes);
          case 2 -> accumulate2(z, offset, rowBytes, n, bits, step, shift, d, c, j, i, gT, m, lanes);
          default -> accumulate1(z, offset, rowBytes, n, bits, step, shift, d, c, j, i, gT, m, lanes);
        }
      }
      for (; i < to; i += L) {
        for (int k = 0; k < block; k++) {
          accumulateOne(z, offset, rowBytes, n, bits, step, shift, d, c, j + k, i, gT, m, lanes);
        }
      }
      j += block;
    }
  }

  private static FloatVector dj(float[] d, int at) {
    return FloatVector.broadcast(F, d[at]);
  }

  /**
   * {@code gT[at..] += step * acc + shift} for packed rows, {@code += acc} for float rows, acc the
   * vector at {@code lanes[from..]}: a kernel stores its accumulators and calls this, because a
   * vector passed to a call C2 leaves out of line (a kernel's epilogue is a cold call site) is
   * boxed, two heap allocations per vector.
   */
  private static void addInto(
      float[] gT, int at, float[] lanes, int from, int bits, float step, float shift) {
    FloatVector acc = FloatVector.fromArray(F, lanes, from);
    FloatVector v = bits == FLOAT_BITS ? acc : acc.fma(step, shift);
    FloatVector.fromArray(F, gT, at).add(v).intoArray(gT, at);
  }

  /** Classes [j, j+8) x features [i, i+LANES), all rows. */
  private static void accumulate8(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float step,
      float[] shift,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m,
      float[] lanes) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      FloatVector x = load(z, row, bits, i, shifts, mask);
      a0 = x.fma(dj(d, dr), a0);
      a1 = x.fma(dj(d, dr + 1), a1);
      a2 = x.fma(dj(d, dr + 2), a2);
      a3 = x.fma(dj(d, dr + 3), a3);
      a4 = x.fma(dj(d, dr + 4), a4);
      a5 = x.fma(dj(d, dr + 5), a5);
      a6 = x.fma(dj(d, dr + 6), a6);
      a7 = x.fma(dj(d, dr + 7), a7);
    }
    int g = j * m + i;
    a0.intoArray(lanes, 0);
    a1.intoArray(lanes, L);
    a2.intoArray(lanes, 2 * L);
    a3.intoArray(lanes, 3 * L);
    a4.intoArray(lanes, 4 * L);
    a5.intoArray(lanes, 5 * L);
    a6.intoArray(lanes, 6 * L);
    a7.intoArray(lanes, 7 * L);
    for (int k = 0; k < 8; k++) {
      addInto(gT, g + k * m, lanes, k * L, bits, step, shift[j + k]);
    }
  }

  /** Classes [j, j+4) x features [i, i+2*LANES), all rows. */
  private static void accumulate4(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float step,
      float[] shift,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m,
      float[] lanes) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      FloatVector x = load(z, row, bits, i, shifts, mask);
      FloatVector x2 = load(z, row, bits, i + L, shifts, mask);
      FloatVector d0 = dj(d, dr), d1 = dj(d, dr + 1), d2 = dj(d, dr + 2), d3 = dj(d, dr + 3);
      a0 = x.fma(d0, a0);
      a1 = x.fma(d1, a1);
      a2 = x.fma(d2, a2);
      a3 = x.fma(d3, a3);
      b0 = x2.fma(d0, b0);
      b1 = x2.fma(d1, b1);
      b2 = x2.fma(d2, b2);
      b3 = x2.fma(d3, b3);
    }
    int g = j * m + i;
    a0.intoArray(lanes, 0);
    a1.intoArray(lanes, L);
    a2.intoArray(lanes, 2 * L);
    a3.intoArray(lanes, 3 * L);
    b0.intoArray(lanes, 4 * L);
    b1.intoArray(lanes, 5 * L);
    b2.intoArray(lanes, 6 * L);
    b3.intoArray(lanes, 7 * L);
    for (int k = 0; k < 4; k++) {
      addInto(gT, g + k * m, lanes, k * L, bits, step, shift[j + k]);
      addInto(gT, g + k * m + L, lanes, (4 + k) * L, bits, step, shift[j + k]);
    }
  }

  /** Classes [j, j+2) x features [i, i+4*LANES), all rows. */
  private static void accumulate2(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float step,
      float[] shift,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m,
      float[] lanes) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      FloatVector x0 = load(z, row, bits, i, shifts, mask);
      FloatVector x1 = load(z, row, bits, i + L, shifts, mask);
      FloatVector x2 = load(z, row, bits, i + 2 * L, shifts, mask);
      FloatVector x3 = load(z, row, bits, i + 3 * L, shifts, mask);
      FloatVector d0 = dj(d, dr), d1 = dj(d, dr + 1);
      a0 = x0.fma(d0, a0);
      a1 = x1.fma(d0, a1);
      a2 = x2.fma(d0, a2);
      a3 = x3.fma(d0, a3);
      b0 = x0.fma(d1, b0);
      b1 = x1.fma(d1, b1);
      b2 = x2.fma(d1, b2);
      b3 = x3.fma(d1, b3);
    }
    int g = j * m + i;
    a0.intoArray(lanes, 0);
    a1.intoArray(lanes, L);
    a2.intoArray(lanes, 2 * L);
    a3.intoArray(lanes, 3 * L);
    b0.intoArray(lanes, 4 * L);
    b1.intoArray(lanes, 5 * L);
    b2.intoArray(lanes, 6 * L);
    b3.intoArray(lanes, 7 * L);
    for (int q = 0; q < 4; q++) {
      addInto(gT, g + q * L, lanes, q * L, bits, step, shift[j]);
      addInto(gT, g + m + q * L, lanes, (4 + q) * L, bits, step, shift[j + 1]);
    }
  }

  /** Class j x features [i, i+4*LANES), all rows. */
  private static void accumulate1(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float step,
      float[] shift,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m,
      float[] lanes) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      FloatVector d0 = dj(d, dr);
      a0 = load(z, row, bits, i, shifts, mask).fma(d0, a0);
      a1 = load(z, row, bits, i + L, shifts, mask).fma(d0, a1);
      a2 = load(z, row, bits, i + 2 * L, shifts, mask).fma(d0, a2);
      a3 = load(z, row, bits, i + 3 * L, shifts, mask).fma(d0, a3);
    }
    int g = j * m + i;
    a0.intoArray(lanes, 0);
    a1.intoArray(lanes, L);
    a2.intoArray(lanes, 2 * L);
    a3.intoArray(lanes, 3 * L);
    for (int q = 0; q < 4; q++) {
      addInto(gT, g + q * L, lanes, q * L, bits, step, shift[j]);
    }
  }

  /** Class j x features [i, i+LANES), all rows: the remainder of a class block. */
  private static void accumulateOne(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float step,
      float[] shift,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m,
      float[] lanes) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector a0 = FloatVector.zero(F);
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      a0 = load(z, row, bits, i, shifts, mask).fma(dj(d, dr), a0);
    }
    a0.intoArray(lanes, 0);
    addInto(gT, j * m + i, lanes, 0, bits, step, shift[j]);
  }

  @Override
  public String shape() {
    return VectorShape.describe(VectorShape.FLOAT);
  }
}
