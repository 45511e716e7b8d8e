package org.lprff.vector.kernel;

import java.util.Arrays;
import java.util.PriorityQueue;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.stream.RowSplit;

/**
 * The median heuristic for a kernel's length scale: the median Euclidean distance between rows of
 * the data (Gretton et al. 2012; scikit-learn's {@code gamma='scale'} is a cousin), the usual
 * unsupervised default and the centre of {@code lprff fit}'s search. Seeded, so the same rows
 * give the same value on every machine: {@value #PAIRS} pairs of distinct rows (i, j), each drawn
 * by the counter-based generator from (seed, {@link #STREAM}, pair index).
 *
 * <p>For rows that arrive as a stream, {@link Sampler} keeps a seeded sample of {@value
 * #SAMPLE_ROWS} rows (those whose hash of (seed, row id) is smallest), independent of how the
 * stream is batched; the heuristic is then taken over the sample.
 */
public final class MedianHeuristic {

  /** Pairs of rows whose distances are sorted. */
  public static final int PAIRS = 2000;

  /** Rows a {@link Sampler} keeps. */
  public static final int SAMPLE_ROWS = 4096;

  /** The generator's stream of the pairs ("median" in ASCII). */
  static final long STREAM = 0x6d656469616eL;

  private MedianHeuristic() {}

  /**
   * The median distance over {@value #PAIRS} seeded pairs of distinct rows among n rows of d
   * values ({@code x} row-major).
   *
   * @throws IllegalArgumentException if n < 2 or x holds fewer than n d values
   */
  public static double distance(float[] x, int n, int d, long seed) {
    if (x == null || n < 2 || d < 1 || (long) n * d > x.length) {
      throw new IllegalArgumentException("the median heuristic needs at least 2 rows of d >= 1"
          + " values; got " + n + " rows of d = " + d + (x == null ? " and no values"
          : " in " + x.length + " values"));
    }
    double[] distances = new double[PAIRS];
    for (int k = 0; k < PAIRS; k++) {
      long a = Integer.toUnsignedLong(CounterRng.bits(seed, STREAM, k, 0));
      long b = Integer.toUnsignedLong(CounterRng.bits(seed, STREAM, k, 1));
      int i = (int) (a % n);
      int j = (int) (b % (n - 1));
      j = j >= i ? j + 1 : j;
      double sum = 0;
      for (int c = 0; c < d; c++) {
        double diff = x[i * d + c] - x[j * d + c];
        sum += diff * diff;
      }
      distances[k] = Math.sqrt(sum);
    }
    Arrays.sort(distances);
    return (distances[PAIRS / 2 - 1] + distances[PAIRS / 2]) / 2;
  }

  /**
   * A seeded sample of a stream of rows: the {@value #SAMPLE_ROWS} rows with the smallest {@code
   * mix64(seed + row id)}, whatever the batches. Not thread-safe.
   */
  public static final class Sampler {
    private final int d;
    private final long seed;
    // Max-heap on the hash: the root is the first row to give up its place.
    private final PriorityQueue<long[]> kept =
        new PriorityQueue<>((a, b) -> Long.compareUnsigned(b[0], a[0]));
    private final float[][] rows = new float[SAMPLE_ROWS][];
    private int used;

    /** A sampler of rows of d values. */
    public Sampler(int d, long seed) {
      if (d < 1) {
        throw new IllegalArgumentException("d is " + d + ", expected >= 1");
      }
      this.d = d;
      this.seed = seed;
    }

    /** Offers n rows of {@code x} (row-major), their ids firstRowId, firstRowId + 1, ... */
    public void add(float[] x, int n, long firstRowId) {
      for (int r = 0; r < n; r++) {
        long hash = RowSplit.mix64(seed + firstRowId + r);
        int slot;
        if (used < SAMPLE_ROWS) {
          slot = used++;
          rows[slot] = new float[d];
        } else if (Long.compareUnsigned(hash, kept.peek()[0]) < 0) {
          slot = (int) kept.poll()[1];
        } else {
          continue;
        }
        System.arraycopy(x, r * d, rows[slot], 0, d);
        kept.add(new long[] {hash, slot});
      }
    }

    /** Rows kept so far. */
    public int rows() {
      return used;
    }

    /** The rows kept, {@link #rows()} x d row-major, in the order of their hashes. */
    public float[] sample() {
      long[][] order = kept.toArray(new long[0][]);
      Arrays.sort(order, (a, b) -> Long.compareUnsigned(a[0], b[0]));
      float[] x = new float[order.length * d];
      for (int k = 0; k < order.length; k++) {
        System.arraycopy(rows[(int) order[k][1]], 0, x, k * d, d);
      }
      return x;
    }

    /**
     * The median heuristic over the sample (in hash order, so the value does not depend on the
     * order the rows arrived in).
     *
     * @throws IllegalArgumentException if fewer than 2 rows were offered
     */
    public double distance() {
      return MedianHeuristic.distance(sample(), used, d, seed);
    }
  }
}
