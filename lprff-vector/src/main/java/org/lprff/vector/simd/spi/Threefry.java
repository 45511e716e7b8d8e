package org.lprff.vector.simd.spi;


/**
 * Threefry-4x32 (Salmon et al., SC 2011; Random123) and the column-to-counter mappings of the
 * counter-based generator: the definition that the scalar and vector bodies and the single-value
 * path of {@code org.lprff.vector.random.CounterRng} share, so that they agree bit for bit.
 */
public final class Threefry {

  /** Skein / Threefish key-schedule parity constant for 32-bit words. */
  public static final int KS_PARITY = 0x1BD11BDA;

  /** Rotation constants of Threefry-4x32, by round mod 8: first and second mix of the round. */
  public static final int[] ROTATE_A = {10, 11, 13, 23, 6, 17, 25, 18};

  public static final int[] ROTATE_B = {26, 21, 27, 5, 20, 11, 10, 20};

  /**
   * Rounds used by {@code CounterRng}: 13 (Random123's threefry4x32_R(13, ...)), see the
   * facade's documentation for why.
   */
  public static final int ROUNDS = 13;

  /**
   * Threefry-4x32 with any number of rounds, general 128-bit key: the textbook definition the
   * known-answer tests check (for 13, 20 and 72 rounds). Key injection s follows round 4s - 1
   * only, so an odd round count such as 13 ends on a bare round. Writes the four output words to
   * out[0..3].
   */
  public static void threefry4x32(
      int rounds, int k0, int k1, int k2, int k3, int c0, int c1, int c2, int c3, int[] out) {
    threefry4x32(rounds, keySchedule(k0, k1, k2, k3), c0, c1, c2, c3, out);
  }

  /** The 5-word key schedule (k0, k1, k2, k3, 0x1BD11BDA ^ k0 ^ k1 ^ k2 ^ k3). */
  public static int[] keySchedule(int k0, int k1, int k2, int k3) {
    return new int[] {k0, k1, k2, k3, KS_PARITY ^ k0 ^ k1 ^ k2 ^ k3};
  }

  public static int[] keySchedule(long seed) {
    return keySchedule((int) seed, (int) (seed >>> 32), 0, 0);
  }

  /** Threefry-4x32 with a precomputed key schedule (so bulk callers compute it once). */
  public static void threefry4x32(int rounds, int[] ks, int c0, int c1, int c2, int c3, int[] out) {
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

  /** Threefry block index of a column (see {@code CounterRng} for the mapping). */
  public static int block(int column) {
    return ((column >>> 5) << 3) | (column & 7);
  }

  /** Output word of its block that a column takes. */
  public static int word(int column) {
    return (column >>> 3) & 3;
  }

  /** Threefry block index of a column under the half-word mapping. */
  public static int block16(int column) {
    return ((column >>> 6) << 3) | (column & 7);
  }

  /** Which 16-bit half of its word a column takes under the half-word mapping: 0 low, 1 high. */
  public static int half(int column) {
    return (column >>> 5) & 1;
  }

  /** Threefry block index of a column under the byte mapping. */
  public static int block8(int column) {
    return ((column >>> 7) << 3) | (column & 7);
  }

  /** Which byte of its word a column takes under the byte mapping: 0 (low) to 3. */
  public static int byteOf(int column) {
    return (column >>> 5) & 3;
  }

  /** The low (half 0) or high (half 1) 16 bits of a word, in [0, 65535]. */
  public static int halfOf(int word, int half) {
    return (word >>> (half << 4)) & 0xFFFF;
  }

  public static void block(int[] ks, long row, int block, int draw, int[] out) {
    threefry4x32(ROUNDS, ks, block, (int) row, (int) (row >>> 32), draw, out);
  }

  public static int bits(long seed, long row, int column, int draw) {
    int[] words = new int[4];
    block(keySchedule(seed), row, block(column), draw, words);
    return words[word(column)];
  }

  public static int bits16(long seed, long row, int column, int draw) {
    int[] words = new int[4];
    block(keySchedule(seed), row, block16(column), draw, words);
    return halfOf(words[word(column)], half(column));
  }

  public static int bits8(long seed, long row, int column, int draw) {
    int[] words = new int[4];
    block(keySchedule(seed), row, block8(column), draw, words);
    return (words[word(column)] >>> (byteOf(column) << 3)) & 0xFF;
  }

  /**
   * An 8-bit draw d as the rounding's 16-bit fixed-point draw: {@code (d << 8) | 0x80}, that is
   * (d + 1/2) 2^-8 in units of 2^-16 (see {@code CosineCodes}).
   */
  public static int fixedPoint8(int d) {
    return (d << 8) | 0x80;
  }

  /** A uniform float in [0, 1) on the grid k 2^-24: {@code (bits >>> 8) * 0x1p-24f}. */
  public static float toUniform(int bits) {
    return (bits >>> 8) * 0x1p-24f;
  }

  /** h in [0, 65535]: h + 0.5 has 17 significant bits, so both operations are exact. */
  public static float toUniform16(int h) {
    return (h + 0.5f) * 0x1p-16f;
  }

  /** A uniform double in [0, 1) on the grid k 2^-32. */
  public static double toUniformDouble(int bits) {
    return (bits & 0xFFFFFFFFL) * 0x1p-32;
  }

  private Threefry() {}
}
