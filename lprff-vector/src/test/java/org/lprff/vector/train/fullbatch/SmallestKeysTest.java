package org.lprff.vector.train.fullbatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The conjugate gradients' sketch sample: the rows of the s smallest hashed row ids. */
class SmallestKeysTest {

  /** The sample is the brute-force s smallest keys, whatever the order and the merging. */
  @Test
  void smallestKeysKeepsTheSmallestKeysWhateverTheOrderAndSplit() {
    int n = 5000;
    int m = 3;
    int s = 100;
    long seed = 77;
    Long[] ids = new Long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = (long) i * 7 + 3;
    }
    Long[] byKey = ids.clone();
    Arrays.sort(byKey, (a, b) -> Long.compareUnsigned(SmallestKeys.key(seed, a),
        SmallestKeys.key(seed, b)));
    float[] expected = new float[s * m];
    for (int r = 0; r < s; r++) {
      for (int i = 0; i < m; i++) {
        expected[r * m + i] = byKey[r] + i;
      }
    }
    List<Long> shuffled = new ArrayList<>(Arrays.asList(ids));
    java.util.Collections.shuffle(shuffled, new java.util.Random(1));
    SmallestKeys[] parts = {new SmallestKeys(s, m), new SmallestKeys(s, m),
        new SmallestKeys(s, m)};
    SmallestKeys whole = new SmallestKeys(s, m);
    SplittableRandom random = new SplittableRandom(2);
    for (long id : shuffled) {
      float[] row = {id, id + 1, id + 2};
      long key = SmallestKeys.key(seed, id);
      if (whole.wants(key, id)) {
        whole.offer(key, id, row, 0);
      }
      parts[random.nextInt(3)].offer(key, id, row, 0);
    }
    parts[2].addAll(parts[0]);
    parts[2].addAll(parts[1]);
    assertArrayEquals(expected, whole.rowsInKeyOrder());
    assertArrayEquals(expected, parts[2].rowsInKeyOrder());
  }
}
