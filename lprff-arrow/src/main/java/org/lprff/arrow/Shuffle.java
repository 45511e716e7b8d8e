package org.lprff.arrow;

/**
 * Deterministic permutations for epoch shuffling: a pure function of (seed, epoch, stream),
 * independent of the JDK version (SplitMix64, written out here, rather than a library generator
 * whose algorithm may change). Stream -1 orders the record batches of an epoch; stream k >= 0
 * orders the rows or blocks inside record batch k.
 */
final class Shuffle {

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private long state;

  private Shuffle(long seed, long epoch, long stream) {
    this.state = mix(seed + mix(epoch * GOLDEN + mix(stream ^ 0x5DEECE66DL)));
  }

  /** SplitMix64's finalizer: a bijection of 64-bit values with good avalanche. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private long nextLong() {
    state += GOLDEN;
    return mix(state);
  }

  /** Uniform in [0, bound), bound >= 1: 31 random bits, rejecting the biased top range. */
  private int nextInt(int bound) {
    int bits;
    int value;
    do {
      bits = (int) (nextLong() >>> 33);
      value = bits % bound;
    } while (bits - value + (bound - 1) < 0);
    return value;
  }

  /** A uniformly random permutation of 0..n-1 (Fisher-Yates) for (seed, epoch, stream). */
  static int[] permutation(int n, long seed, long epoch, long stream) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Shuffle random = new Shuffle(seed, epoch, stream);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }

  /** 0..n-1 in order. */
  static int[] identity(int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return order;
  }
}
