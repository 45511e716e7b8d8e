package org.lprff.vector.simd.spi;

/**
 * One panel of the Gram matrix update {@code G += C^T C} of the closed-form solver, in double.
 *
 * <p>C holds a chunk of k rows <em>packed in column blocks</em> of {@value #BLOCK} columns, each
 * block k rows x {@value #BLOCK} contiguous: entry (r, i) at {@link #at at(k, r, i)}. G is
 * row-major stride x stride. A panel is the columns [jp, jEnd) of G's upper triangle (every row up
 * to jEnd); each entry is summed over the chunk's rows in row order with one fused multiply-add
 * per row, starting from 0, then added to G, so every implementation gives identical bits.
 */
public interface GramBody extends Body {

  /** Columns per packed block: a vector of up to 8 doubles never straddles two blocks. */
  int BLOCK = 8;

  /** Index of entry (row r, column i) of a packed chunk of k rows. */
  static int at(int k, int r, int i) {
    return (i / BLOCK) * (k * BLOCK) + r * BLOCK + i % BLOCK;
  }

  /** The column tile width: stride, jp and jEnd must be multiples of it. */
  int unit();

  /** Adds the chunk's products to the entries i <= j of columns [jp, jEnd) of G. */
  void accumulatePanel(double[] c, int k, int stride, double[] g, int jp, int jEnd);
}
