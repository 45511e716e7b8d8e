package org.lprff.vector.projection;

/**
 * A random projection x -> W x (W: m x d) with its parameters derived from a seed: immutable and
 * safe for concurrent use. The featurizer asks for one block of features at a time for a batch of
 * rows, so it never holds the whole n x m product.
 */
public interface Projection {

  /** d, the width of an input row. */
  int inputDim();

  /** m, the number of features (rows of W). */
  int features();

  /**
   * The block size this projection computes most efficiently (the padded transform size p for
   * structured projections); the featurizer prefers blocks that are multiples of it. Any block
   * is accepted.
   */
  int preferredBlock();

  /**
   * Rows the featurizer hands {@link #project} at a time, at most: 32 unless a projection needs
   * more (a chunk's block of projections, chunk x block floats, then stays in L1 and L2 for the
   * cosine pass). A projection that reads all its parameters from memory again on every call asks
   * for more rows, so that each pass over them serves more rows. Any number of rows is accepted.
   */
  default int preferredRows() {
    return 32;
  }

  /** Name used in the featurizer spec and the Arrow metadata: dense, circulant, fastfood, orthogonal. */
  String name();

  /**
   * Writes {@code out[outOffset + r * count + k] = (W x_r)[firstFeature + k]} for rows r in
   * [0, n) read from {@code rows[rowOffset + r * d ..]} and k in [0, count).
   *
   * @throws IllegalArgumentException naming the values when a range is out of bounds
   */
  void project(
      float[] rows, int rowOffset, int n, int firstFeature, int count, float[] out, int outOffset);
}
