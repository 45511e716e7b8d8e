package org.lprff.vector.simd.panama;

/**
 * The counter generator's words around a column that moves upward, for one (seed, row, draw):
 * {@link VectorCounterRng#group}'s output for the groups that hold the column, evaluated again
 * when the column leaves them. The window starts wherever the walk starts, even mid-group, and
 * serves the whole-word mapping of {@code CounterRng} ({@link #word}), only upward: the b = 16
 * rounding uses it (the b <= 8 loops take a block's half words from {@link
 * VectorCounterRng#drawBlock16} instead). No vector goes in or out.
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
}
