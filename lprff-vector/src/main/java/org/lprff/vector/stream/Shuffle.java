package org.lprff.vector.stream;

/**
 * The row order of every shuffling source: one permutation per (seed, epoch, stream).
 *
 * <p><b>Determinism policy.</b> A permutation is a pure function of (n, seed, epoch, stream): the
 * same on every JVM, JDK version and platform (SplitMix64, written out here, rather than a library
 * generator whose algorithm may change), and independent of the batch size, the thread count and
 * what was read before. Stream {@link #EPOCH_ORDER} (-1) orders the units of an epoch (the
 * record batches of a file, or the rows of an in-memory data set); stream k >= 0 orders the rows
 * or blocks inside unit k. Shuffles choose the training order only: feature bytes never depend on
 * them (their randomness is the counter RNG's, keyed by row id).
 */
public final class Shuffle {

  /** The stream that orders an epoch's units: record batches, or the rows of a whole data set. */
  public static final long EPOCH_ORDER = -1;

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private long state;

  private Shuffle(long seed, long epoch, long stream) {
    this.state = mix(seed + mix(epoch * GOLDEN + mix(stream ^ 0x5DEECE66DL)));
  }

  /** SplitMix64's finalizer ({@link RowSplit#mix64}): a bijection with good avalanche. */
  private static long mix(long z) {
    return RowSplit.mix64(z);
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

  /**
   * A uniformly random permutation of 0..n-1 (Fisher-Yates) for (seed, epoch, stream).
   *
   * @throws IllegalArgumentException if n < 0
   */
  public static int[] permutation(int n, long seed, long epoch, long stream) {
    int[] order = identity(n);
    Shuffle random = new Shuffle(seed, epoch, stream);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }

  /**
   * 0..n-1 in order.
   *
   * @throws IllegalArgumentException if n < 0
   */
  public static int[] identity(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return order;
  }
}
