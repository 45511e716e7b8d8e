package org.lprff.vector.simd.panama;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.spi.DenseProjectionBody;

/**
 * Vector API projection, vectorized over features: W is held transposed (d rows of stride >= m
 * floats), so the features [i, i + LANES) of input coordinate j are one contiguous load, and each
 * x[r][j] is broadcast.
 *
 * <p>Register blocking: the main micro-kernel keeps 6 rows x 2 feature vectors = 12 accumulators
 * (FMA latency 4-5 x 2 ports needs 8-10 independent chains) plus 2 weight vectors and a broadcast
 * in 15 of the 16 AVX2 registers; each weight load feeds 6 FMAs and each broadcast 2, so 8 loads
 * per 12 FMAs. Measured: 6 x 2 ~1.35x faster than 4 x 2 at d = 784; 4 rows x 3 vectors (16
 * registers) was slower than 4 x 2, presumably spilling. The loop over j is innermost so an
 * accumulator is loaded/stored once per tile of coordinates, not per FMA.
 *
 * <p>Cache blocking: coordinates go in tiles of {@value #COORDINATE_TILE}; the weight panel of one
 * feature chunk in one tile (128 x 2 vectors = 8 KiB at 8 lanes) stays in L1 while every row
 * block of the batch goes past. Between tiles the partial sums wait in {@code out} (float stores
 * are exact, so the per-output summation is still one FMA chain in j order).
 *
 * <p>Tails: 1 feature vector for the last full vector of features, scalar FMAs for the last
 * {@code count mod LANES} features, 4-row and single-row kernels for the last {@code n mod 6}
 * rows. Micro-kernels are small separate methods so that C2 inlines every vector call (otherwise
 * vectors are boxed).
 */
public final class VectorDenseProjection implements DenseProjectionBody {

  private static final VectorSpecies<Float> F = VectorShape.FLOAT;
  private static final int L = F.length();

  /** Input coordinates per tile; see the class comment. 128 measured faster than 64 and 256. */
  private static final int COORDINATE_TILE = 128;

  @Override
  public void project(
      float[] wT,
      int stride,
      int d,
      float[] rows,
      int rowOffset,
      int n,
      int firstFeature,
      int count,
      float[] out,
      int outOffset) {
    for (int j0 = 0; j0 < d; j0 += COORDINATE_TILE) {
      int j1 = Math.min(d, j0 + COORDINATE_TILE);
      boolean add = j0 > 0;
      int k = 0;
      for (; k + 2 * L <= count; k += 2 * L) {
        int w = firstFeature + k;
        int r = 0;
        for (; r + 6 <= n; r += 6) {
          int x = rowOffset + r * d, o = outOffset + r * count + k;
          rows6x2(wT, stride, rows, x, d, j0, j1, w, out, o, count, add);
        }
        for (; r + 4 <= n; r += 4) {
          int x = rowOffset + r * d, o = outOffset + r * count + k;
          rows4x2(wT, stride, rows, x, d, j0, j1, w, out, o, count, add);
        }
        for (; r < n; r++) {
          int x = rowOffset + r * d, o = outOffset + r * count + k;
          row1x2(wT, stride, rows, x, j0, j1, w, out, o, add);
        }
      }
      for (; k + L <= count; k += L) {
        int w = firstFeature + k;
        int r = 0;
        for (; r + 4 <= n; r += 4) {
          int x = rowOffset + r * d, o = outOffset + r * count + k;
          rows4x1(wT, stride, rows, x, d, j0, j1, w, out, o, count, add);
        }
        for (; r < n; r++) {
          int x = rowOffset + r * d, o = outOffset + r * count + k;
          row1x1(wT, stride, rows, x, j0, j1, w, out, o, add);
        }
      }
      if (k < count) {
        scalarTail(
            wT, stride, d, rows, rowOffset, n, firstFeature, k, count, out, outOffset, j0, j1, add);
      }
    }
  }

  private static FloatVector start(float[] out, int at, boolean add) {
    return add ? FloatVector.fromArray(F, out, at) : FloatVector.zero(F);
  }

  private static FloatVector x(float[] rows, int at) {
    return FloatVector.broadcast(F, rows[at]);
  }

  /** Rows x0, x0 + d, ..., x0 + 5d; features [w, w + 2 LANES); outputs o, o + count, ... */
  private static void rows6x2(
      float[] wT, int stride, float[] rows, int x0, int d, int j0, int j1, int w, float[] out,
      int o0, int count, boolean add) {
    int x1 = x0 + d, x2 = x1 + d, x3 = x2 + d, x4 = x3 + d, x5 = x4 + d;
    int o1 = o0 + count, o2 = o1 + count, o3 = o2 + count, o4 = o3 + count, o5 = o4 + count;
    FloatVector a00 = start(out, o0, add), a01 = start(out, o0 + L, add);
    FloatVector a10 = start(out, o1, add), a11 = start(out, o1 + L, add);
    FloatVector a20 = start(out, o2, add), a21 = start(out, o2 + L, add);
    FloatVector a30 = start(out, o3, add), a31 = start(out, o3 + L, add);
    FloatVector a40 = start(out, o4, add), a41 = start(out, o4 + L, add);
    FloatVector a50 = start(out, o5, add), a51 = start(out, o5 + L, add);
    for (int j = j0; j < j1; j++) {
      int at = j * stride + w;
      FloatVector w0 = FloatVector.fromArray(F, wT, at);
      FloatVector w1 = FloatVector.fromArray(F, wT, at + L);
      FloatVector b0 = x(rows, x0 + j);
      a00 = w0.fma(b0, a00);
      a01 = w1.fma(b0, a01);
      FloatVector b1 = x(rows, x1 + j);
      a10 = w0.fma(b1, a10);
      a11 = w1.fma(b1, a11);
      FloatVector b2 = x(rows, x2 + j);
      a20 = w0.fma(b2, a20);
      a21 = w1.fma(b2, a21);
      FloatVector b3 = x(rows, x3 + j);
      a30 = w0.fma(b3, a30);
      a31 = w1.fma(b3, a31);
      FloatVector b4 = x(rows, x4 + j);
      a40 = w0.fma(b4, a40);
      a41 = w1.fma(b4, a41);
      FloatVector b5 = x(rows, x5 + j);
      a50 = w0.fma(b5, a50);
      a51 = w1.fma(b5, a51);
    }
    a00.intoArray(out, o0);
    a01.intoArray(out, o0 + L);
    a10.intoArray(out, o1);
    a11.intoArray(out, o1 + L);
    a20.intoArray(out, o2);
    a21.intoArray(out, o2 + L);
    a30.intoArray(out, o3);
    a31.intoArray(out, o3 + L);
    a40.intoArray(out, o4);
    a41.intoArray(out, o4 + L);
    a50.intoArray(out, o5);
    a51.intoArray(out, o5 + L);
  }

  /** Rows x0, x0 + d, x0 + 2d, x0 + 3d; features [w, w + 2 LANES); outputs o, o + count, ... */
  private static void rows4x2(
      float[] wT,
      int stride,
      float[] rows,
      int x0,
      int d,
      int j0,
      int j1,
      int w,
      float[] out,
      int o0,
      int count,
      boolean add) {
    int x1 = x0 + d, x2 = x1 + d, x3 = x2 + d;
    int o1 = o0 + count, o2 = o1 + count, o3 = o2 + count;
    FloatVector a00 = start(out, o0, add), a01 = start(out, o0 + L, add);
    FloatVector a10 = start(out, o1, add), a11 = start(out, o1 + L, add);
    FloatVector a20 = start(out, o2, add), a21 = start(out, o2 + L, add);
    FloatVector a30 = start(out, o3, add), a31 = start(out, o3 + L, add);
    for (int j = j0; j < j1; j++) {
      int at = j * stride + w;
      FloatVector w0 = FloatVector.fromArray(F, wT, at);
      FloatVector w1 = FloatVector.fromArray(F, wT, at + L);
      FloatVector b0 = x(rows, x0 + j);
      a00 = w0.fma(b0, a00);
      a01 = w1.fma(b0, a01);
      FloatVector b1 = x(rows, x1 + j);
      a10 = w0.fma(b1, a10);
      a11 = w1.fma(b1, a11);
      FloatVector b2 = x(rows, x2 + j);
      a20 = w0.fma(b2, a20);
      a21 = w1.fma(b2, a21);
      FloatVector b3 = x(rows, x3 + j);
      a30 = w0.fma(b3, a30);
      a31 = w1.fma(b3, a31);
    }
    a00.intoArray(out, o0);
    a01.intoArray(out, o0 + L);
    a10.intoArray(out, o1);
    a11.intoArray(out, o1 + L);
    a20.intoArray(out, o2);
    a21.intoArray(out, o2 + L);
    a30.intoArray(out, o3);
    a31.intoArray(out, o3 + L);
  }

  /** One row, features [w, w + 2 LANES): 2 chains only, used for the last n mod 4 rows. */
  private static void row1x2(
      float[] wT, int stride, float[] rows, int x0, int j0, int j1, int w, float[] out, int o0,
      boolean add) {
    FloatVector a0 = start(out, o0, add), a1 = start(out, o0 + L, add);
    for (int j = j0; j < j1; j++) {
      int at = j * stride + w;
      FloatVector b = x(rows, x0 + j);
      a0 = FloatVector.fromArray(F, wT, at).fma(b, a0);
      a1 = FloatVector.fromArray(F, wT, at + L).fma(b, a1);
    }
    a0.intoArray(out, o0);
    a1.intoArray(out, o0 + L);
  }

  /** 4 rows, features [w, w + LANES): the last full vector of a block of features. */
  private static void rows4x1(
      float[] wT,
      int stride,
      float[] rows,
      int x0,
      int d,
      int j0,
      int j1,
      int w,
      float[] out,
      int o0,
      int count,
      boolean add) {
    int x1 = x0 + d, x2 = x1 + d, x3 = x2 + d;
    int o1 = o0 + count, o2 = o1 + count, o3 = o2 + count;
    FloatVector a0 = start(out, o0, add), a1 = start(out, o1, add);
    FloatVector a2 = start(out, o2, add), a3 = start(out, o3, add);
    for (int j = j0; j < j1; j++) {
      FloatVector w0 = FloatVector.fromArray(F, wT, j * stride + w);
      a0 = w0.fma(x(rows, x0 + j), a0);
      a1 = w0.fma(x(rows, x1 + j), a1);
      a2 = w0.fma(x(rows, x2 + j), a2);
      a3 = w0.fma(x(rows, x3 + j), a3);
    }
    a0.intoArray(out, o0);
    a1.intoArray(out, o1);
    a2.intoArray(out, o2);
    a3.intoArray(out, o3);
  }

  private static void row1x1(
      float[] wT, int stride, float[] rows, int x0, int j0, int j1, int w, float[] out, int o0,
      boolean add) {
    FloatVector a = start(out, o0, add);
    for (int j = j0; j < j1; j++) {
      a = FloatVector.fromArray(F, wT, j * stride + w).fma(x(rows, x0 + j), a);
    }
    a.intoArray(out, o0);
  }

  /** Features [k0, count) of the block (fewer than LANES), every row, coordinates [j0, j1). */
  private static void scalarTail(
      float[] wT,
      int stride,
      int d,
      float[] rows,
      int rowOffset,
      int n,
      int firstFeature,
      int k0,
      int count,
      float[] out,
      int outOffset,
      int j0,
      int j1,
      boolean add) {
    for (int r = 0; r < n; r++) {
      int x = rowOffset + r * d;
      for (int k = k0; k < count; k++) {
        int o = outOffset + r * count + k;
        int i = firstFeature + k;
        float s = add ? out[o] : 0f;
        for (int j = j0; j < j1; j++) {
          s = Math.fma(wT[j * stride + i], rows[x + j], s);
        }
        out[o] = s;
      }
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(F);
  }
}
