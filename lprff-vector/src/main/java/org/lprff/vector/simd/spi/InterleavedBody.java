package org.lprff.vector.simd.spi;


/**
 * Operations on rows stored interleaved, the layout of {@code Fwht.transformInterleaved}: element
 * i of row c at {@code [i * width + c]}, c in [0, width). The structured projections move a group
 * of rows into this layout, apply their diagonals D, G, S and permutations Pi there (the same one
 * float multiply per element as in contiguous layout, so both layouts give identical bits) and
 * move the results back.
 */
public interface InterleavedBody extends Body {

  /** {@code dst[i w + c] = src[i w + c] * diagonal[i]}, i in [0, n); dst may be src. */
  void scale(float[] src, float[] diagonal, float[] dst, int n, int width);

  /**
   * {@code dst[i w + c] = diagonal[i] * src[permutation[i] w + c]}, i in [0, n): {@code (D Pi
   * x)_i = d_i x_pi(i)} for every vector; dst must not be src.
   */
  void permuteScale(float[] src, int[] permutation, float[] diagonal, float[] dst, int n, int width);

  /**
   * Into the layout: {@code dst[i w + c] = rows[rowOffset + c rowStride + i]} for i in [0, length),
   * c in [0, w); elements from length on are left as they are (the zero padding).
   */
  void interleave(
      float[] rows, int rowOffset, int rowStride, int length, float[] dst, int width);

  /**
   * Out of the layout: {@code out[outOffset + c outStride + e] = src[(first + e) w + c]} for e in
   * [0, count), c in [0, w).
   */
  void deinterleave(
      float[] src, int first, int count, int width, float[] out, int outOffset, int outStride);

  /**
   * {@code out = circ(g) x} for each of the width interleaved vectors of x (length n = {@code
   * s.n}), bit for bit as {@link FftBody#circulant} computes each one; scratch holds n width
   * floats; out may be x.
   */
  void circulant(float[] x, CirculantSpectrum s, float[] scratch, float[] out, int width);

  /**
   * Rows side by side in the interleaved layout that suit this body: one register of floats for
   * the vector body, so each element of the group is one vector and no level needs a shuffle. Any
   * width gives the same bits.
   */
  default int width() {
    return 8;
  }
}
