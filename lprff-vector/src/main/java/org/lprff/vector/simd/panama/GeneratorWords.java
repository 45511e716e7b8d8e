package org.lprff.vector.simd.panama;

/**
 * The counter generator's words around a column that moves upward, for one (seed, row, draw):
 * {@link VectorCounterRng#group}'s output for the groups that hold the column, evaluated again
 * when the column leaves them. The window starts wherever the walk starts, even mid-group, and
 * serves one mapping of {@code CounterRng}: whole 32-bit words ({@link #word}) or 16-bit halves
 * ({@link #half}), never both, and only upward. The rounding bodies use it; no vector goes in
 * or out.
 */
final class GeneratorWords {

  /** The words of the current groups, in their columns' order ({@link VectorCounterRng#WORDS}). */
  final int[] words = new int[VectorCounterRng.WORDS];

  private final int[] ks;
  private final int rowLo;
  private final int rowHi;
  private final int draw;
  /** The first column of the groups in {@link #words}. */
  private int base;
  /** The first column past them: 0 before the first evaluation, so that any column starts one. */
  private int limit;

  GeneratorWords(long seed, long row, int draw) {
    this.ks = VectorCounterRng.keySchedule(seed);
    this.rowLo = (int) row;
    this.rowHi = (int) (row >>> 32);
    this.draw = draw;
  }

  /** Where column's 32-bit word is in {@link #words} (whole-word mapping: 32 columns a group). */
  int word(int column) {
    if (column >= limit) {
      base = column & -VectorCounterRng.GROUP;
      limit = base + VectorCounterRng.WORDS;
      VectorCounterRng.group(ks, rowLo, rowHi, column >>> 5, draw, words, 0);
    }
    return column - base;
  }

  /**
   * Column's position among the half words of {@link #words} (half-word mapping: 64 columns a
   * group), for {@link VectorCounterRng#halfWordIndex} and {@link VectorCounterRng#halfShift}.
   */
  int half(int column) {
    if (column >= limit) {
      base = column & -VectorCounterRng.HALF_GROUP;
      limit = base + VectorCounterRng.GROUPS * VectorCounterRng.HALF_GROUP;
      VectorCounterRng.group(ks, rowLo, rowHi, column >>> 6, draw, words, 0);
    }
    return column - base;
  }
}
