package org.lprff.vector.stream;

import java.util.SplittableRandom;

/** The per-epoch row order of shuffling sources: a pure function of (seed, epoch, n). */
public final class Shuffle {

  private Shuffle() {}

  /**
   * A uniformly random permutation of [0, n) (Fisher-Yates), from a {@link SplittableRandom} seeded
   * with a mix of seed and epoch, so that neighbouring seeds and epochs give unrelated orders.
   */
  public static int[] permutation(long seed, int epoch, int n) {
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    SplittableRandom random = new SplittableRandom(mix(seed, epoch));
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    return perm;
  }

  /** SplitMix64's finalizer over seed and epoch. */
  static long mix(long seed, int epoch) {
    long z = seed + 0x9E3779B97F4A7C15L * (epoch + 1L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
