package org.lprff.vector;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector API products. Packed features are dequantized in registers by {@link
 * PackedLanes#dequantize} ({@code LANES} features at a time) and used at once for a block of
 * classes; no float copy of the batch or of a row is made.
 *
 * <p>Register blocking: a micro-kernel keeps 4 to 8 accumulators (2 FMA ports x latency 4-5 on
 * current x86 and AArch64 cores) plus the decoding constants in the 16 AVX2 registers: blocks of
 * 8 classes x 1 feature vector, 4 x 2, 2 x 2, 1 x 4 (forward) or 2 x 4 (accumulate). Wider class blocks decode each feature
 * vector fewer times, so classes go in blocks of 8, then 4, 2, 1. At most 4 decodes per loop
 * body: more and C2 stops inlining the vector calls (NodeCountInliningCutoff), which boxes every
 * vector and is ~20x slower.
 */
final class VectorProducts implements ProductsKernel {

  private static final VectorSpecies<Float> F = PackedLanes.FLOAT;
  private static final int L = PackedLanes.LANES;

  /**
   * Features per tile of the forward pass: the weights of a tile (at most 8 classes x 512 floats
   * = 16 KiB per class block) stay in L1 while all rows of the batch go past. A multiple of
   * 8 * LANES so the unrolled loops have no remainder inside a full tile.
   */
  private static final int TILE = 512;

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
    long rowBytes = ProductsKernel.rowBytes(m, bits);
    Arrays.fill(y, 0, n * c, 0f);
    int vecEnd = F.loopBound(m);
    for (int t0 = 0; t0 < vecEnd; t0 += TILE) {
      int t1 = Math.min(t0 + TILE, vecEnd);
      for (int r = 0; r < n; r++) {
        long row = offset + r * rowBytes;
        int j = 0;
        while (j < c) {
          int block = classBlock(c - j);
          switch (block) {
            case 8 -> forward8(z, row, bits, lo, step, wT, m, j, t0, t1, y, r * c + j);
            case 4 -> forward4(z, row, bits, lo, step, wT, m, j, t0, t1, y, r * c + j);
            case 2 -> forward2(z, row, bits, lo, step, wT, m, j, t0, t1, y, r * c + j);
            default -> forward1(z, row, bits, lo, step, wT, m, j, t0, t1, y, r * c + j);
          }
          j += block;
        }
      }
    }
    if (vecEnd < m) {
      for (int r = 0; r < n; r++) {
        long row = offset + r * rowBytes;
        for (int i = vecEnd; i < m; i++) {
          float zi = ProductsKernel.feature(z, row, bits, i, lo, step);
          for (int j = 0; j < c; j++) {
            y[r * c + j] += zi * wT[j * m + i];
          }
        }
      }
    }
  }

  private static int classBlock(int remaining) {
    return remaining >= 8 ? 8 : remaining >= 4 ? 4 : remaining >= 2 ? 2 : 1;
  }

  /** Features [i, i + LANES) of the row at {@code row}: dequantized, or loaded for float rows. */
  private static FloatVector load(
      MemorySegment z,
      long row,
      int bits,
      int i,
      IntVector shifts,
      IntVector mask,
      FloatVector lo,
      FloatVector step) {
    if (bits == FLOAT_BITS) {
      return FloatVector.fromMemorySegment(F, z, row + 4L * i, ByteOrder.LITTLE_ENDIAN);
    }
    return PackedLanes.dequantize(z, row, bits, i, shifts, mask, lo, step);
  }

  private static FloatVector w(float[] wT, int at) {
    return FloatVector.fromArray(F, wT, at);
  }

  /** 8 classes x 1 feature vector per step. */
  private static void forward8(
      MemorySegment z,
      long row,
      int bits,
      float lo,
      float step,
      float[] wT,
      int m,
      int j,
      int from,
      int to,
      float[] y,
      int yAt) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    int w0 = j * m, w1 = w0 + m, w2 = w1 + m, w3 = w2 + m;
    int w4 = w3 + m, w5 = w4 + m, w6 = w5 + m, w7 = w6 + m;
    for (int i = from; i < to; i += L) {
      FloatVector x = load(z, row, bits, i, shifts, mask, loV, stepV);
      a0 = x.fma(w(wT, w0 + i), a0);
      a1 = x.fma(w(wT, w1 + i), a1);
      a2 = x.fma(w(wT, w2 + i), a2);
      a3 = x.fma(w(wT, w3 + i), a3);
      a4 = x.fma(w(wT, w4 + i), a4);
      a5 = x.fma(w(wT, w5 + i), a5);
      a6 = x.fma(w(wT, w6 + i), a6);
      a7 = x.fma(w(wT, w7 + i), a7);
    }
    y[yAt] += a0.reduceLanes(VectorOperators.ADD);
    y[yAt + 1] += a1.reduceLanes(VectorOperators.ADD);
    y[yAt + 2] += a2.reduceLanes(VectorOperators.ADD);
    y[yAt + 3] += a3.reduceLanes(VectorOperators.ADD);
    y[yAt + 4] += a4.reduceLanes(VectorOperators.ADD);
    y[yAt + 5] += a5.reduceLanes(VectorOperators.ADD);
    y[yAt + 6] += a6.reduceLanes(VectorOperators.ADD);
    y[yAt + 7] += a7.reduceLanes(VectorOperators.ADD);
  }

  /** 4 classes x 2 feature vectors per step. */
  private static void forward4(
      MemorySegment z,
      long row,
      int bits,
      float lo,
      float step,
      float[] wT,
      int m,
      int j,
      int from,
      int to,
      float[] y,
      int yAt) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    int w0 = j * m, w1 = w0 + m, w2 = w1 + m, w3 = w2 + m;
    int i = from;
    for (; i + 2 * L <= to; i += 2 * L) {
      FloatVector x = load(z, row, bits, i, shifts, mask, loV, stepV);
      FloatVector x2 = load(z, row, bits, i + L, shifts, mask, loV, stepV);
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
      FloatVector x = load(z, row, bits, i, shifts, mask, loV, stepV);
      a0 = x.fma(w(wT, w0 + i), a0);
      a1 = x.fma(w(wT, w1 + i), a1);
      a2 = x.fma(w(wT, w2 + i), a2);
      a3 = x.fma(w(wT, w3 + i), a3);
    }
    y[yAt] += a0.add(b0).reduceLanes(VectorOperators.ADD);
    y[yAt + 1] += a1.add(b1).reduceLanes(VectorOperators.ADD);
    y[yAt + 2] += a2.add(b2).reduceLanes(VectorOperators.ADD);
    y[yAt + 3] += a3.add(b3).reduceLanes(VectorOperators.ADD);
  }

  /** 2 classes x 2 feature vectors per step. */
  private static void forward2(
      MemorySegment z,
      long row,
      int bits,
      float lo,
      float step,
      float[] wT,
      int m,
      int j,
      int from,
      int to,
      float[] y,
      int yAt) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, b0 = a0, b1 = a0;
    int w0 = j * m, w1 = w0 + m;
    int i = from;
    for (; i + 2 * L <= to; i += 2 * L) {
      FloatVector x0 = load(z, row, bits, i, shifts, mask, loV, stepV);
      FloatVector x1 = load(z, row, bits, i + L, shifts, mask, loV, stepV);
      a0 = x0.fma(w(wT, w0 + i), a0);
      a1 = x1.fma(w(wT, w0 + i + L), a1);
      b0 = x0.fma(w(wT, w1 + i), b0);
      b1 = x1.fma(w(wT, w1 + i + L), b1);
    }
    for (; i < to; i += L) {
      FloatVector x = load(z, row, bits, i, shifts, mask, loV, stepV);
      a0 = x.fma(w(wT, w0 + i), a0);
      b0 = x.fma(w(wT, w1 + i), b0);
    }
    y[yAt] += a0.add(a1).reduceLanes(VectorOperators.ADD);
    y[yAt + 1] += b0.add(b1).reduceLanes(VectorOperators.ADD);
  }

  /** 1 class x 4 feature vectors per step. */
  private static void forward1(
      MemorySegment z,
      long row,
      int bits,
      float lo,
      float step,
      float[] wT,
      int m,
      int j,
      int from,
      int to,
      float[] y,
      int yAt) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    int w0 = j * m;
    int i = from;
    for (; i + 4 * L <= to; i += 4 * L) {
      a0 = load(z, row, bits, i, shifts, mask, loV, stepV).fma(w(wT, w0 + i), a0);
      a1 = load(z, row, bits, i + L, shifts, mask, loV, stepV).fma(w(wT, w0 + i + L), a1);
      a2 = load(z, row, bits, i + 2 * L, shifts, mask, loV, stepV).fma(w(wT, w0 + i + 2 * L), a2);
      a3 = load(z, row, bits, i + 3 * L, shifts, mask, loV, stepV).fma(w(wT, w0 + i + 3 * L), a3);
    }
    for (; i < to; i += L) {
      a0 = load(z, row, bits, i, shifts, mask, loV, stepV).fma(w(wT, w0 + i), a0);
    }
    y[yAt] += a0.add(a1).add(a2.add(a3)).reduceLanes(VectorOperators.ADD);
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
    if (n == 0) {
      return;
    }
    long rowBytes = ProductsKernel.rowBytes(m, bits);
    int vecEnd = F.loopBound(m);
    int j = 0;
    while (j < c) {
      int block = classBlock(c - j);
      int width = block == 8 ? L : block == 4 ? 2 * L : 4 * L;
      int i = 0;
      for (; i + width <= vecEnd; i += width) {
        switch (block) {
          case 8 -> accumulate8(z, offset, rowBytes, n, bits, lo, step, d, c, j, i, gT, m);
          case 4 -> accumulate4(z, offset, rowBytes, n, bits, lo, step, d, c, j, i, gT, m);
          case 2 -> accumulate2(z, offset, rowBytes, n, bits, lo, step, d, c, j, i, gT, m);
          default -> accumulate1(z, offset, rowBytes, n, bits, lo, step, d, c, j, i, gT, m);
        }
      }
      for (; i < vecEnd; i += L) {
        for (int k = 0; k < block; k++) {
          accumulateOne(z, offset, rowBytes, n, bits, lo, step, d, c, j + k, i, gT, m);
        }
      }
      j += block;
    }
    for (int i = vecEnd; i < m; i++) {
      for (int r = 0; r < n; r++) {
        float zi = ProductsKernel.feature(z, offset + r * rowBytes, bits, i, lo, step);
        for (int k = 0; k < c; k++) {
          gT[k * m + i] += zi * d[r * c + k];
        }
      }
    }
  }

  private static FloatVector dj(float[] d, int at) {
    return FloatVector.broadcast(F, d[at]);
  }

  private static void addInto(float[] gT, int at, FloatVector acc) {
    FloatVector.fromArray(F, gT, at).add(acc).intoArray(gT, at);
  }

  /** Classes [j, j+8) x features [i, i+LANES), all rows. */
  private static void accumulate8(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      FloatVector x = load(z, row, bits, i, shifts, mask, loV, stepV);
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
    addInto(gT, g, a0);
    addInto(gT, g + m, a1);
    addInto(gT, g + 2 * m, a2);
    addInto(gT, g + 3 * m, a3);
    addInto(gT, g + 4 * m, a4);
    addInto(gT, g + 5 * m, a5);
    addInto(gT, g + 6 * m, a6);
    addInto(gT, g + 7 * m, a7);
  }

  /** Classes [j, j+4) x features [i, i+2*LANES), all rows. */
  private static void accumulate4(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      FloatVector x = load(z, row, bits, i, shifts, mask, loV, stepV);
      FloatVector x2 = load(z, row, bits, i + L, shifts, mask, loV, stepV);
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
    addInto(gT, g, a0);
    addInto(gT, g + L, b0);
    addInto(gT, g + m, a1);
    addInto(gT, g + m + L, b1);
    addInto(gT, g + 2 * m, a2);
    addInto(gT, g + 2 * m + L, b2);
    addInto(gT, g + 3 * m, a3);
    addInto(gT, g + 3 * m + L, b3);
  }

  /** Classes [j, j+2) x features [i, i+4*LANES), all rows. */
  private static void accumulate2(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    FloatVector b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      FloatVector x0 = load(z, row, bits, i, shifts, mask, loV, stepV);
      FloatVector x1 = load(z, row, bits, i + L, shifts, mask, loV, stepV);
      FloatVector x2 = load(z, row, bits, i + 2 * L, shifts, mask, loV, stepV);
      FloatVector x3 = load(z, row, bits, i + 3 * L, shifts, mask, loV, stepV);
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
    addInto(gT, g, a0);
    addInto(gT, g + L, a1);
    addInto(gT, g + 2 * L, a2);
    addInto(gT, g + 3 * L, a3);
    addInto(gT, g + m, b0);
    addInto(gT, g + m + L, b1);
    addInto(gT, g + m + 2 * L, b2);
    addInto(gT, g + m + 3 * L, b3);
  }

  /** Class j x features [i, i+4*LANES), all rows. */
  private static void accumulate1(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      FloatVector d0 = dj(d, dr);
      a0 = load(z, row, bits, i, shifts, mask, loV, stepV).fma(d0, a0);
      a1 = load(z, row, bits, i + L, shifts, mask, loV, stepV).fma(d0, a1);
      a2 = load(z, row, bits, i + 2 * L, shifts, mask, loV, stepV).fma(d0, a2);
      a3 = load(z, row, bits, i + 3 * L, shifts, mask, loV, stepV).fma(d0, a3);
    }
    int g = j * m + i;
    addInto(gT, g, a0);
    addInto(gT, g + L, a1);
    addInto(gT, g + 2 * L, a2);
    addInto(gT, g + 3 * L, a3);
  }

  /** Class j x features [i, i+LANES), all rows: the remainder of a class block. */
  private static void accumulateOne(
      MemorySegment z,
      long offset,
      long rowBytes,
      int n,
      int bits,
      float lo,
      float step,
      float[] d,
      int c,
      int j,
      int i,
      float[] gT,
      int m) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(F, lo);
    FloatVector stepV = FloatVector.broadcast(F, step);
    FloatVector a0 = FloatVector.zero(F);
    long row = offset;
    int dr = j;
    for (int r = 0; r < n; r++, row += rowBytes, dr += c) {
      a0 = load(z, row, bits, i, shifts, mask, loV, stepV).fma(dj(d, dr), a0);
    }
    addInto(gT, j * m + i, a0);
  }
}
