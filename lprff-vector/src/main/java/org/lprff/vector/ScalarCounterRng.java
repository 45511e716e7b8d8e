package org.lprff.vector;

/**
 * Scalar Threefry-4x32: the reference body of {@link CounterRng}, and the single-value path.
 *
 * <p>The bulk fills compute each Threefry block once and hand its four output words (eight half
 * words) to the requested columns that map to it, so the reference does the same number of block
 * evaluations as the vector body.
 */
final class ScalarCounterRng implements CounterRngKernel {

  /** Skein / Threefish key-schedule parity constant for 32-bit words. */
  static final int KS_PARITY = 0x1BD11BDA;

  /** Rotation constants of Threefry-4x32, by round mod 8: first and second mix of the round. */
  static final int[] ROTATE_A = {10, 11, 13, 23, 6, 17, 25, 18};

  static final int[] ROTATE_B = {26, 21, 27, 5, 20, 11, 10, 20};

  /**
   * Rounds used by {@link CounterRng}: 13 (Random123's threefry4x32_R(13, ...)), see the
   * facade's documentation for why.
   */
  static final int ROUNDS = 13;

  /**
   * Threefry-4x32 with any number of rounds, general 128-bit key: the textbook definition the
   * known-answer tests check (for 13, 20 and 72 rounds). Key injection s follows round 4s - 1
   * only, so an odd round count such as 13 ends on a bare round. Writes the four output words to
   * out[0..3].
   */
  static void threefry4x32(
      int rounds, int k0, int k1, int k2, int k3, int c0, int c1, int c2, int c3, int[] out) {
    threefry4x32(rounds, keySchedule(k0, k1, k2, k3), c0, c1, c2, c3, out);
  }

  /** The 5-word key schedule (k0, k1, k2, k3, 0x1BD11BDA ^ k0 ^ k1 ^ k2 ^ k3). */
  static int[] keySchedule(int k0, int k1, int k2, int k3) {
    return new int[] {k0, k1, k2, k3, KS_PARITY ^ k0 ^ k1 ^ k2 ^ k3};
  }

  static int[] keySchedule(long seed) {
    return keySchedule((int) seed, (int) (seed >>> 32), 0, 0);
  }

  /** Threefry-4x32 with a precomputed key schedule (so bulk callers compute it once). */
  static void threefry4x32(int rounds, int[] ks, int c0, int c1, int c2, int c3, int[] out) {
    int x0 = c0 + ks[0];
    int x1 = c1 + ks[1];
    int x2 = c2 + ks[2];
    int x3 = c3 + ks[3];
    for (int r = 0; r < rounds; r++) {
      if ((r & 1) == 0) {
        x0 += x1;
        x1 = Integer.rotateLeft(x1, ROTATE_A[r & 7]) ^ x0;
        x2 += x3;
        x3 = Integer.rotateLeft(x3, ROTATE_B[r & 7]) ^ x2;
      } else {
        x0 += x3;
        x3 = Integer.rotateLeft(x3, ROTATE_A[r & 7]) ^ x0;
        x2 += x1;
        x1 = Integer.rotateLeft(x1, ROTATE_B[r & 7]) ^ x2;
      }
      if ((r & 3) == 3) {
        // Key injection s after every 4 rounds: rotate the 5-word schedule, add s to word 3.
        int s = (r + 1) >>> 2;
        x0 += ks[s % 5];
        x1 += ks[(s + 1) % 5];
        x2 += ks[(s + 2) % 5];
        x3 += ks[(s + 3) % 5] + s;
      }
    }
    out[0] = x0;
    out[1] = x1;
    out[2] = x2;
    out[3] = x3;
  }

  /** Threefry block index of a column (see {@link CounterRng} for the mapping). */
  static int block(int column) {
    return ((column >>> 5) << 3) | (column & 7);
  }

  /** Output word of its block that a column takes. */
  static int word(int column) {
    return (column >>> 3) & 3;
  }

  /** Threefry block index of a column under the half-word mapping. */
  static int block16(int column) {
    return ((column >>> 6) << 3) | (column & 7);
  }

  /** Which 16-bit half of its word a column takes under the half-word mapping: 0 low, 1 high. */
  static int half(int column) {
    return (column >>> 5) & 1;
  }

  /** The low (half 0) or high (half 1) 16 bits of a word, in [0, 65535]. */
  static int halfOf(int word, int half) {
    return (word >>> (half << 4)) & 0xFFFF;
  }

  static void block(int[] ks, long row, int block, int draw, int[] out) {
    threefry4x32(ROUNDS, ks, block, (int) row, (int) (row >>> 32), draw, out);
  }

  static int bits(long seed, long row, int column, int draw) {
    int[] words = new int[4];
    block(keySchedule(seed), row, block(column), draw, words);
    return words[word(column)];
  }

  static int bits16(long seed, long row, int column, int draw) {
    int[] words = new int[4];
    block(keySchedule(seed), row, block16(column), draw, words);
    return halfOf(words[word(column)], half(column));
  }

  @Override
  public void fillBits(long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    if (count == 0) {
      return;
    }
    int end = firstColumn + count;
    int[] words = new int[4];
    int[] ks = keySchedule(seed);
    for (int group = firstColumn >>> 5; group <= (end - 1) >>> 5; group++) {
      int groupStart = group << 5;
      for (int lane = 0; lane < 8; lane++) {
        boolean computed = false;
        for (int w = 0; w < 4; w++) {
          int column = groupStart + 8 * w + lane;
          if (column >= firstColumn && column < end) {
            if (!computed) {
              block(ks, row, (group << 3) | lane, draw, words);
              computed = true;
            }
            out[off + column - firstColumn] = words[w];
          }
        }
      }
    }
  }

  @Override
  public void fillBits16(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    if (count == 0) {
      return;
    }
    int end = firstColumn + count;
    int[] words = new int[4];
    int[] ks = keySchedule(seed);
    for (int group = firstColumn >>> 6; group <= (end - 1) >>> 6; group++) {
      int groupStart = group << 6;
      for (int lane = 0; lane < 8; lane++) {
        boolean computed = false;
        for (int slot = 0; slot < 8; slot++) { // slot = 4 half + w
          int column = groupStart + 8 * slot + lane;
          if (column >= firstColumn && column < end) {
            if (!computed) {
              block(ks, row, (group << 3) | lane, draw, words);
              computed = true;
            }
            out[off + column - firstColumn] = halfOf(words[slot & 3], slot >>> 2);
          }
        }
      }
    }
  }

  @Override
  public void fillUniform(
      long seed, long row, int firstColumn, int draw, float[] out, int off, int count) {
    int[] bits = new int[Math.min(count, 1024)];
    for (int done = 0; done < count; done += bits.length) {
      int n = Math.min(bits.length, count - done);
      fillBits(seed, row, firstColumn + done, draw, bits, 0, n);
      for (int i = 0; i < n; i++) {
        out[off + done + i] = CounterRng.toUniform(bits[i]);
      }
    }
  }
}
