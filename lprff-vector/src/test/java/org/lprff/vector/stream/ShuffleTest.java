package org.lprff.vector.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ShuffleTest {

  /**
   * Chi-square goodness of fit of the 24 orders of 4 items over 24,000 epochs (expected 1,000
   * each; 23 degrees of freedom). Bound 72: the Wilson-Hilferty approximation of the chi-square
   * quantile at 1 - 1e-6 is 71.2, so a correct shuffle fails with probability about 1e-6 (the
   * seed is fixed, so the outcome is in fact deterministic). The naive shuffle (swap each
   * position with any position) is biased, and the same statistic exceeds the bound on it.
   */
  @Test
  void shufflesAreUniformOverPermutations() {
    int samples = 24_000;
    long[] counts = new long[24];
    for (int epoch = 0; epoch < samples; epoch++) {
      counts[rank(Shuffle.permutation(4, 17, epoch, Shuffle.EPOCH_ORDER))]++;
    }
    assertTrue(chiSquare(counts, samples) < 72, "chi-square " + chiSquare(counts, samples));

    long[] naive = new long[24];
    SplittableRandom random = new SplittableRandom(17);
    for (int s = 0; s < samples; s++) {
      int[] order = {0, 1, 2, 3};
      for (int i = 0; i < 4; i++) {
        int j = random.nextInt(4);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      naive[rank(order)]++;
    }
    assertTrue(chiSquare(naive, samples) > 72, "the test cannot see the naive shuffle's bias");
  }

  @Test
  void permutationsArePermutationsAndDependOnEveryInput() {
    int[] base = Shuffle.permutation(100, 1, 2, 3);
    int[] sorted = base.clone();
    Arrays.sort(sorted);
    assertArrayEquals(Shuffle.identity(100), sorted);
    assertArrayEquals(base, Shuffle.permutation(100, 1, 2, 3));
    assertNotEquals(Arrays.toString(base), Arrays.toString(Shuffle.permutation(100, 9, 2, 3)));
    assertNotEquals(Arrays.toString(base), Arrays.toString(Shuffle.permutation(100, 1, 9, 3)));
    assertNotEquals(Arrays.toString(base), Arrays.toString(Shuffle.permutation(100, 1, 2, 9)));
    assertEquals(0, Shuffle.permutation(0, 1, 2, 3).length);
    assertArrayEquals(new int[] {0}, Shuffle.permutation(1, 1, 2, 3));
    assertMessage(() -> Shuffle.permutation(-3, 1, 2, 3), "n is -3, expected >= 0");
  }

  /**
   * The policy pins the algorithm, not just its properties: these orders must stay the same on
   * every JDK and platform (a change would silently change every training run's order). The
   * values are those of the file sources' shuffle before it moved here, so training on feature
   * files visits rows in the same order as before.
   */
  @Test
  void permutationsArePinned() {
    assertEquals(
        "[1, 4, 2, 0, 6, 3, 7, 5]", Arrays.toString(Shuffle.permutation(8, 42, 0, Shuffle.EPOCH_ORDER)));
    assertEquals("[5, 2, 7, 3, 1, 4, 0, 6]", Arrays.toString(Shuffle.permutation(8, 42, 1, 0)));
  }

  /** The lexicographic rank of a permutation of 0..3 (Lehmer code). */
  private static int rank(int[] p) {
    int rank = 0;
    List<Integer> left = new ArrayList<>(List.of(0, 1, 2, 3));
    int[] factorial = {6, 2, 1, 1};
    for (int i = 0; i < 4; i++) {
      int index = left.indexOf(p[i]);
      rank += index * factorial[i];
      left.remove(index);
    }
    return rank;
  }

  private static double chiSquare(long[] counts, int samples) {
    double expected = (double) samples / counts.length;
    double sum = 0;
    for (long c : counts) {
      sum += (c - expected) * (c - expected) / expected;
    }
    return sum;
  }
}
