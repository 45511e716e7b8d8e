package org.lprff.vector.simd.spi;


/**
 * The projection step of a featurizer with a dense m x d matrix W: a block of features for a
 * batch of rows. W is held transposed with a padded row stride, {@code wT[j*stride + i] = W[i][j]}
 * (d rows of {@code stride >= m} floats), so consecutive features of one input coordinate are
 * contiguous. Arguments are validated by {@link
 * DenseProjection}; implementations only assert.
 */
public interface DenseProjectionBody extends Body {

  /**
   * {@code out[outOffset + r*count + k] = sum_j W[firstFeature + k][j] * rows[rowOffset + r*d + j]}
   * for r in [0, n), k in [0, count); overwrites exactly those elements of out.
   */
  void project(
      float[] wT,
      int stride,
      int d,
      float[] rows,
      int rowOffset,
      int n,
      int firstFeature,
      int count,
      float[] out,
      int outOffset);
}
