package org.lprff.vector.simd.panama;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.spi.DenseProjectionBody;

/**
 * Vector API projection, a blocked GEMM vectorized over features: W comes packed in panels of
 * {@link #PANEL} features (see {@link DenseProjectionBody}), so the features [i, i + LANES) of
 * coordinate j are one contiguous load and a micro-kernel reads its weights as one sequential
 * stream; each x[r][j] is broadcast.
 *
 * <p>Register blocking, from the lane count: with 16 lanes (AVX-512: 32 registers) the main
 * micro-kernel keeps 4 rows x 4 feature vectors = 16 accumulators, 4 weight vectors and a
 * broadcast (21 registers); with 8 lanes (AVX2: 16 registers) 6 rows x 2 vectors = 12
 * accumulators, 2 weights and a broadcast (15). Either hides the FMA latency (4 cycles x 2 ports
 * needs 8 independent chains) and needs fewer loads than FMAs (8 per 16, 8 per 12). On AVX2, 6 x 2
 * measured ~1.35x faster than 4 x 2 at d = 784, and 4 x 3 (16 registers) slower, presumably
 * spilling. On AVX-512, 6 x 4 (29 registers) ran 10x slower than 4 x 4: its vectors were boxed,
 * the method apparently too large for C2 to inline every vector call. The panel is as wide as the
 * main micro-kernel, so the featurizer's blocks of 512 features are whole panels. The loop over j is innermost so an accumulator is loaded/stored once
 * per tile of coordinates, not per FMA.
 *
 * <p>Cache blocking: a panel is walked in tiles of coordinates (64 with 16 lanes, 128 with 8); a
 * tile of the panel (16 KiB, 8 KiB) stays in L1 while every row block of the batch goes past, and
 * the next tile follows it in memory, so the hardware prefetcher streams it. Between tiles the
 * partial sums wait in {@code out} (float stores are exact). On AVX-512 at d = 784, tiles of 64
 * and 128 coordinates measured alike, 256 about 1.3x slower. Rows are blocked by the caller: the
 * featurizer hands 128 rows per call ({@code DenseProjection.preferredRows()}), so each panel
 * loaded from memory serves 128 rows.
 *
 * <p>Summation order: every output is one FMA chain over j in increasing order from 0 (the
 * scalar tail too, with {@link Math#fma}), whichever kernel, tile or panel width computes it, so
 * the results do not depend on the blocking; they equal those of the earlier kernel over W
 * transposed, and the feature files' digests did not change.
 *
 * <p>Tails: narrower micro-kernels (2 and 1 vectors) for a panel's last features or a block that
 * starts inside a panel, scalar FMAs for fewer than LANES features, 4-row and single-row kernels
 * for the last rows. Micro-kernels are small separate methods so that C2 inlines every vector
 * call (otherwise vectors are boxed).
 */
public final class VectorDenseProjection implements DenseProjectionBody {

  private static final VectorSpecies<Float> F = VectorShape.FLOAT;
  private static final int L = F.length();

  /** Vectors of the main micro-kernel: 4 with 32 registers (16 lanes), 2 with 16 (8 lanes). */
  private static final int VECTORS = L >= 16 ? 4 : 2;

  /** Features per panel: the main micro-kernel's width. */
  static final int PANEL = VECTORS * L;

  /**
   * Input coordinates per tile: a tile of a panel is 16 KiB with 16 lanes (64 x 64 floats), 8 KiB
   * with 8 (128 x 16); see the class comment.
   */
  private static final int COORDINATE_TILE = L >= 16 ? 64 : 128;

  @Override
  public int panelWidth() {
    return PANEL;
  }

  @Override
  public void project(
      float[] panels,
      int panel,
      int d,
      float[] rows,
      int rowOffset,
      int n,
      int firstFeature,
      int count,
      float[] out,
      int outOffset) {
    assert panel >= 1 && d >= 1 && n >= 0 && count >= 0;
    // One panel at a time (its part of [firstFeature, firstFeature + count)), all its tiles.
    for (int k = 0; k < count; ) {
      int i = firstFeature + k;
      int column = i % panel;
      int width = Math.min(panel - column, count - k);
      int w = (i / panel) * panel * d + column;
      for (int j0 = 0; j0 < d; j0 += COORDINATE_TILE) {
        int j1 = Math.min(d, j0 + COORDINATE_TILE);
        slab(panels, panel, d, w, width, rows, rowOffset, n, j0, j1, out, outOffset + k, count,
            j0 > 0);
      }
      k += width;
    }
  }

  /**
   * Features [0, width) of the slab at {@code w} (coordinate j of feature f at {@code w + j*panel
   * + f}), coordinates [j0, j1), every row; outputs of row r at {@code o + r*count}.
   */
  private static void slab(
      float[] p, int panel, int d, int w, int width, float[] rows, int x, int n, int j0, int j1,
      float[] out, int o, int count, boolean add) {
    int f = 0;
    if (VECTORS == 4) {
      for (; f + 4 * L <= width; f += 4 * L) {
        int r = 0;
        for (; r + 4 <= n; r += 4) {
          rows4x4(p, panel, rows, x + r * d, d, j0, j1, w + f, out, o + r * count + f, count, add);
        }
        for (; r < n; r++) {
          row1x4(p, panel, rows, x + r * d, j0, j1, w + f, out, o + r * count + f, add);
        }
      }
    }
    for (; f + 2 * L <= width; f += 2 * L) {
      int r = 0;
      for (; r + 6 <= n; r += 6) {
        rows6x2(p, panel, rows, x + r * d, d, j0, j1, w + f, out, o + r * count + f, count, add);
      }
      for (; r + 4 <= n; r += 4) {
        rows4x2(p, panel, rows, x + r * d, d, j0, j1, w + f, out, o + r * count + f, count, add);
      }
      for (; r < n; r++) {
        row1x2(p, panel, rows, x + r * d, j0, j1, w + f, out, o + r * count + f, add);
      }
    }
    for (; f + L <= width; f += L) {
      int r = 0;
      for (; r + 4 <= n; r += 4) {
        rows4x1(p, panel, rows, x + r * d, d, j0, j1, w + f, out, o + r * count + f, count, add);
      }
      for (; r < n; r++) {
        row1x1(p, panel, rows, x + r * d, j0, j1, w + f, out, o + r * count + f, add);
      }
    }
    if (f < width) {
      scalarTail(p, panel, d, w, f, width, rows, x, n, j0, j1, out, o, count, add);
    }
  }

  private static FloatVector start(float[] out, int at, boolean add) {
    return add ? FloatVector.fromArray(F, out, at) : FloatVector.zero(F);
  }

  private static FloatVector x(float[] rows, int at) {
    return FloatVector.broadcast(F, rows[at]);
  }

  /** Rows x0, x0 + d, x0 + 2d, x0 + 3d; features [w, w + 4 LANES); outputs o, o + count, ... */
  private static void rows4x4(
      float[] p, int panel, float[] rows, int x0, int d, int j0, int j1, int w, float[] out,
      int o0, int count, boolean add) {
    int x1 = x0 + d, x2 = x1 + d, x3 = x2 + d;
    int o1 = o0 + count, o2 = o1 + count, o3 = o2 + count;
    FloatVector a00 = start(out, o0, add), a01 = start(out, o0 + L, add);
    FloatVector a02 = start(out, o0 + 2 * L, add), a03 = start(out, o0 + 3 * L, add);
    FloatVector a10 = start(out, o1, add), a11 = start(out, o1 + L, add);
    FloatVector a12 = start(out, o1 + 2 * L, add), a13 = start(out, o1 + 3 * L, add);
    FloatVector a20 = start(out, o2, add), a21 = start(out, o2 + L, add);
    FloatVector a22 = start(out, o2 + 2 * L, add), a23 = start(out, o2 + 3 * L, add);
    FloatVector a30 = start(out, o3, add), a31 = start(out, o3 + L, add);
    FloatVector a32 = start(out, o3 + 2 * L, add), a33 = start(out, o3 + 3 * L, add);
    for (int j = j0; j < j1; j++) {
      int at = j * panel + w;
      FloatVector w0 = FloatVector.fromArray(F, p, at);
      FloatVector w1 = FloatVector.fromArray(F, p, at + L);
      FloatVector w2 = FloatVector.fromArray(F, p, at + 2 * L);
      FloatVector w3 = FloatVector.fromArray(F, p, at + 3 * L);
      FloatVector b0 = x(rows, x0 + j);
      a00 = w0.fma(b0, a00);
      a01 = w1.fma(b0, a01);
      a02 = w2.fma(b0, a02);
      a03 = w3.fma(b0, a03);
      FloatVector b1 = x(rows, x1 + j);
      a10 = w0.fma(b1, a10);
      a11 = w1.fma(b1, a11);
      a12 = w2.fma(b1, a12);
      a13 = w3.fma(b1, a13);
      FloatVector b2 = x(rows, x2 + j);
      a20 = w0.fma(b2, a20);
      a21 = w1.fma(b2, a21);
      a22 = w2.fma(b2, a22);
      a23 = w3.fma(b2, a23);
      FloatVector b3 = x(rows, x3 + j);
      a30 = w0.fma(b3, a30);
      a31 = w1.fma(b3, a31);
      a32 = w2.fma(b3, a32);
      a33 = w3.fma(b3, a33);
    }
    a00.intoArray(out, o0);
    a01.intoArray(out, o0 + L);
    a02.intoArray(out, o0 + 2 * L);
    a03.intoArray(out, o0 + 3 * L);
    a10.intoArray(out, o1);
    a11.intoArray(out, o1 + L);
    a12.intoArray(out, o1 + 2 * L);
    a13.intoArray(out, o1 + 3 * L);
    a20.intoArray(out, o2);
    a21.intoArray(out, o2 + L);
    a22.intoArray(out, o2 + 2 * L);
    a23.intoArray(out, o2 + 3 * L);
    a30.intoArray(out, o3);
    a31.intoArray(out, o3 + L);
    a32.intoArray(out, o3 + 2 * L);
    a33.intoArray(out, o3 + 3 * L);
  }

  /** One row, features [w, w + 4 LANES): 4 chains, for the last n mod 4 rows. */
  private static void row1x4(
      float[] p, int panel, float[] rows, int x0, int j0, int j1, int w, float[] out, int o0,
      boolean add) {
    FloatVector a0 = start(out, o0, add), a1 = start(out, o0 + L, add);
    FloatVector a2 = start(out, o0 + 2 * L, add), a3 = start(out, o0 + 3 * L, add);
    for (int j = j0; j < j1; j++) {
      int at = j * panel + w;
      FloatVector b = x(rows, x0 + j);
      a0 = FloatVector.fromArray(F, p, at).fma(b, a0);
      a1 = FloatVector.fromArray(F, p, at + L).fma(b, a1);
      a2 = FloatVector.fromArray(F, p, at + 2 * L).fma(b, a2);
      a3 = FloatVector.fromArray(F, p, at + 3 * L).fma(b, a3);
    }
    a0.intoArray(out, o0);
    a1.intoArray(out, o0 + L);
    a2.intoArray(out, o0 + 2 * L);
    a3.intoArray(out, o0 + 3 * L);
  }

  /** Rows x0, x0 + d, ..., x0 + 5d; features [w, w + 2 LANES); outputs o, o + count, ... */
  private static void rows6x2(
      float[] p, int panel, float[] rows, int x0, int d, int j0, int j1, int w, float[] out,
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
      int at = j * panel + w;
      FloatVector w0 = FloatVector.fromArray(F, p, at);
      FloatVector w1 = FloatVector.fromArray(F, p, at + L);
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
      float[] p,
      int panel,
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
      int at = j * panel + w;
      FloatVector w0 = FloatVector.fromArray(F, p, at);
      FloatVector w1 = FloatVector.fromArray(F, p, at + L);
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
      float[] p, int panel, float[] rows, int x0, int j0, int j1, int w, float[] out, int o0,
      boolean add) {
    FloatVector a0 = start(out, o0, add), a1 = start(out, o0 + L, add);
    for (int j = j0; j < j1; j++) {
      int at = j * panel + w;
      FloatVector b = x(rows, x0 + j);
      a0 = FloatVector.fromArray(F, p, at).fma(b, a0);
      a1 = FloatVector.fromArray(F, p, at + L).fma(b, a1);
    }
    a0.intoArray(out, o0);
    a1.intoArray(out, o0 + L);
  }

  /** 4 rows, features [w, w + LANES): the last full vector of a block of features. */
  private static void rows4x1(
      float[] p,
      int panel,
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
      FloatVector w0 = FloatVector.fromArray(F, p, j * panel + w);
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
      float[] p, int panel, float[] rows, int x0, int j0, int j1, int w, float[] out, int o0,
      boolean add) {
    FloatVector a = start(out, o0, add);
    for (int j = j0; j < j1; j++) {
      a = FloatVector.fromArray(F, p, j * panel + w).fma(x(rows, x0 + j), a);
    }
    a.intoArray(out, o0);
  }

  /** Features [f0, width) of the slab (fewer than LANES), every row, coordinates [j0, j1). */
  private static void scalarTail(
      float[] p, int panel, int d, int w, int f0, int width, float[] rows, int x, int n, int j0,
      int j1, float[] out, int o, int count, boolean add) {
    for (int r = 0; r < n; r++) {
      int xr = x + r * d;
      for (int f = f0; f < width; f++) {
        int at = o + r * count + f;
        float s = add ? out[at] : 0f;
        for (int j = j0; j < j1; j++) {
          s = Math.fma(p[w + j * panel + f], rows[xr + j], s);
        }
        out[at] = s;
      }
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(F);
  }
}
