package org.lprff.vector.simd.spi;


/**
 * The projection step of a featurizer with a dense m x d matrix W: a block of features for a
 * batch of rows. W is held packed in panels of P consecutive features (P = {@link #panelWidth()}
 * of the body the facade packs for), each panel the d x P matrix of its features' weights,
 * coordinate by coordinate:
 * {@code panels[(i / P) * P * d + j * P + i % P] = W[i][j]}; the last panel is padded with zeros to
 * P features. A micro-kernel thus streams its weights from one contiguous run of memory, in the
 * order it reads them. Arguments are validated by {@link
 * org.lprff.vector.projection.DenseProjection}; implementations only assert.
 */
public interface DenseProjectionBody extends Body {

  /**
   * The panel width P this body is fastest with (the width of its widest micro-kernel); {@link
   * #project} accepts any P >= 1.
   */
  int panelWidth();

  /**
   * {@code out[outOffset + r*count + k] = sum_j W[firstFeature + k][j] * rows[rowOffset + r*d + j]}
   * for r in [0, n), k in [0, count), W packed in panels of {@code panel} features as described
   * above; overwrites exactly those elements of out.
   */
  void project(
      float[] panels,
      int panel,
      int d,
      float[] rows,
      int rowOffset,
      int n,
      int firstFeature,
      int count,
      float[] out,
      int outOffset);

  /** The index of W[i][j] in the panels of width {@code panel} of an m x d matrix. */
  static int at(int panel, int d, int i, int j) {
    return (i / panel) * panel * d + j * panel + i % panel;
  }
}
