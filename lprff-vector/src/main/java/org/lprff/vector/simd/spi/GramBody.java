package org.lprff.vector.simd.spi;

/**
 * One panel of the Gram matrix update {@code G += C^T C} of the closed-form solver, G in double.
 *
 * <p>Double chunks: C holds k rows <em>packed in column blocks</em> of {@value #BLOCK} columns,
 * each block k rows x {@value #BLOCK} contiguous: entry (r, i) at {@link #at at(k, r, i)}.
 *
 * <p>Float chunks (the exact path of b <= 8-bit codes, whose products are small integers): the
 * same k rows packed twice, GEMM style. The column side {@code cols} in blocks of {@value
 * #FLOAT_BLOCK} columns ({@link #atCols}: a vector of up to 16 floats never straddles two), the
 * row side {@code rows} in blocks of {@value #TILE_ROWS} columns ({@link #atRows}: the 4 values a
 * tile broadcasts per row are adjacent, so a tile's broadcast side is 16 bytes per row). Each entry
 * is summed in float, then added to G; a sum of integers below 2^24 is exact in float.
 *
 * <p>G is row-major stride x stride. A panel is the columns [jp, jEnd) of G's upper triangle
 * (every row up to jEnd); each entry is summed over the chunk's rows in row order with one fused
 * multiply-add per row, starting from 0, then added to G, so every implementation gives identical
 * bits.
 */
public interface GramBody extends Body {

  /** Columns per packed double block: a vector of up to 8 doubles never straddles two blocks. */
  int BLOCK = 8;

  /** Columns per packed block of a float chunk's column side: a vector of up to 16 floats. */
  int FLOAT_BLOCK = 16;

  /** Rows of G per float tile, and columns per block of a float chunk's row side. */
  int TILE_ROWS = 4;

  /** Index of entry (row r, column i) of a packed double chunk of k rows. */
  static int at(int k, int r, int i) {
    return (i / BLOCK) * (k * BLOCK) + r * BLOCK + i % BLOCK;
  }

  /** Index of entry (row r, column i) of a float chunk's column side. */
  static int atCols(int k, int r, int i) {
    return (i / FLOAT_BLOCK) * (k * FLOAT_BLOCK) + r * FLOAT_BLOCK + i % FLOAT_BLOCK;
  }

  /** Index of entry (row r, column i) of a float chunk's row side. */
  static int atRows(int k, int r, int i) {
    return (i / TILE_ROWS) * (k * TILE_ROWS) + r * TILE_ROWS + i % TILE_ROWS;
  }

  /** The column tile width: stride, jp and jEnd must be multiples of it. */
  int unit();

  /** Adds the chunk's products to the entries i <= j of columns [jp, jEnd) of G. */
  void accumulatePanel(double[] c, int k, int stride, double[] g, int jp, int jEnd);

  /** The float tiles' column width: stride, jp and jEnd must be multiples of it. */
  int floatUnit();

  /**
   * Adds the float chunk's products ({@code rows} and {@code cols} the two packings of the same
   * k rows) to the entries i <= j of columns [jp, jEnd) of G, each summed in float.
   */
  void accumulatePanel(float[] rows, float[] cols, int k, int stride, double[] g, int jp, int jEnd);
}
