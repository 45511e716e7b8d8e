package org.lprff.vector.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MedianHeuristicTest {

  private static float[] gaussianRows(int n, int d, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n * d];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) r.nextGaussian();
    }
    return x;
  }

  @Test
  void twoRowsAreTheirDistance() {
    // Every pair of 2 rows is (0, 1) or (1, 0): the median is their distance, 5.
    assertEquals(5.0, MedianHeuristic.distance(new float[] {0, 0, 3, 4}, 2, 2, 9), 1e-12);
  }

  /**
   * Rows N(0, I_d): ||x - y||^2 = 2 chi^2_d, so the median distance is sqrt(2 m_d), m_d the median
   * of chi^2_d (9.34182 for d = 10), 4.32. The sample median of 2000 pairs of 5000 rows has a
   * standard error of about 1 / (2 f sqrt(2000)) = 0.028 (f = 0.40, the distance's density at its
   * median); 6% (0.26) is 9 standard errors (false failure < 1e-15; the seed is fixed anyway).
   * A heuristic over squared distances (18.7) or over one coordinate (0.95) is refused.
   */
  @Test
  void gaussianRowsGiveTheChiSquaredMedian() {
    int n = 5000;
    int d = 10;
    double expected = Math.sqrt(2 * 9.34182);
    double got = MedianHeuristic.distance(gaussianRows(n, d, 3), n, d, 1);
    assertEquals(expected, got, 0.06 * expected, "median distance");
  }

  @Test
  void seededAndDeterministic() {
    float[] x = gaussianRows(300, 4, 5);
    double a = MedianHeuristic.distance(x, 300, 4, 1);
    assertEquals(a, MedianHeuristic.distance(x, 300, 4, 1));
    assertNotEquals(a, MedianHeuristic.distance(x, 300, 4, 2), "another seed, other pairs");
  }

  @Test
  void refusesTooFewRows() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MedianHeuristic.distance(new float[] {1, 2}, 1, 2, 0));
    assertTrue(e.getMessage().contains("got 1 rows of d = 2"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> MedianHeuristic.distance(new float[3], 2, 2, 0));
  }

  /** The sample does not depend on how the stream is batched, nor on the order of the batches. */
  @Test
  void samplerIgnoresBatching() {
    int n = 9000;
    int d = 3;
    float[] x = gaussianRows(n, d, 11);
    MedianHeuristic.Sampler whole = new MedianHeuristic.Sampler(d, 4);
    whole.add(x, n, 0);
    MedianHeuristic.Sampler pieces = new MedianHeuristic.Sampler(d, 4);
    // Batches of 7 rows, the second half of the stream first.
    for (int from : new int[] {n / 2, 0}) {
      for (int r = from; r < from + n / 2; r += 7) {
        int rows = Math.min(7, from + n / 2 - r);
        float[] batch = new float[rows * d];
        System.arraycopy(x, r * d, batch, 0, rows * d);
        pieces.add(batch, rows, r);
      }
    }
    assertEquals(MedianHeuristic.SAMPLE_ROWS, whole.rows());
    assertArrayEquals(whole.sample(), pieces.sample());
    assertEquals(whole.distance(), pieces.distance());
  }

  /**
   * The sample spreads over the stream: rows whose value is their id, 20,000 of them; the mean id
   * of 4096 kept rows is 10,000 with a standard deviation of about 5774 / 64 = 90 (less, sampling
   * without replacement); 600 is 6.6 of them (false failure < 1e-10). Keeping the first 4096 rows
   * (mean 2048) or the last is refused.
   */
  @Test
  void samplerSpreadsOverTheStream() {
    int n = 20_000;
    float[] ids = new float[n];
    for (int i = 0; i < n; i++) {
      ids[i] = i;
    }
    MedianHeuristic.Sampler s = new MedianHeuristic.Sampler(1, 0);
    s.add(ids, n, 0);
    double mean = 0;
    for (float v : s.sample()) {
      mean += v / s.rows();
    }
    assertEquals(10_000, mean, 600);
  }

  @Test
  void samplerOfFewRowsKeepsThemAll() {
    MedianHeuristic.Sampler s = new MedianHeuristic.Sampler(2, 0);
    s.add(new float[] {0, 0, 3, 4}, 2, 0);
    assertEquals(2, s.rows());
    assertEquals(5.0, s.distance(), 1e-12);
    MedianHeuristic.Sampler one = new MedianHeuristic.Sampler(2, 0);
    one.add(new float[] {1, 1}, 1, 0);
    assertThrows(IllegalArgumentException.class, one::distance);
  }
}
