package org.lprff.vector.stream;

/**
 * The seeded split of data rows into train, validation and heldout that the demo and {@code lprff
 * compare} use: a pure function of (seed, row index), so every tool, run and partitioning puts a
 * row in the same part. Row i is heldout iff mix64(seed + i) mod 5 == 0 (20%), validation iff
 * mix64(seed + i) mod 10 == 1 (10%, never heldout, which is 0 or 5 mod 10), train otherwise;
 * mix64 is SplitMix64's finalizer (Steele, Lea, Flood 2014).
 */
public final class RowSplit {

  private RowSplit() {}

  /** SplitMix64's finalizer. */
  public static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** Whether data row i (0-based, header excluded) is in the heldout 20%. */
  public static boolean heldout(long seed, long i) {
    return Long.remainderUnsigned(mix64(seed + i), 5) == 0;
  }

  /**
   * Whether data row i is in the validation 10%: early stopping and the choice of lambda, never
   * the final metric.
   */
  public static boolean validation(long seed, long i) {
    return Long.remainderUnsigned(mix64(seed + i), 10) == 1;
  }
}
