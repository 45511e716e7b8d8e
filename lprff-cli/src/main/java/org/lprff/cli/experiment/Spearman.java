package org.lprff.cli.experiment;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Spearman's rank correlation: each side replaced by its ranks (tied values share the average of
 * the ranks they span), then Pearson's correlation of the two rank vectors. With no ties this is
 * 1 - 6 Σd² / (n (n² - 1)); with ties only the Pearson form is right, so that is what is computed.
 */
public final class Spearman {

  private Spearman() {}

  /**
   * ρ of the pairs (x[i], y[i]): NaN with fewer than 3 pairs or when either side is constant
   * (its ranks have no variance).
   *
   * @throws IllegalArgumentException if the lengths differ or a value is NaN
   */
  public static double rho(double[] x, double[] y) {
    if (x.length != y.length) {
      throw new IllegalArgumentException(
          "x has " + x.length + " values but y has " + y.length);
    }
    if (x.length < 3) {
      return Double.NaN;
    }
    return pearson(ranks(x), ranks(y));
  }

  /** The 1-based ranks of v, ties given the average of the ranks they span. */
  static double[] ranks(double[] v) {
    int n = v.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      if (Double.isNaN(v[i])) {
        throw new IllegalArgumentException("value " + i + " is NaN: NaN has no rank");
      }
      order[i] = i;
    }
    // Double.compare orders -0.0 before 0.0; as values they are equal, so compare with < and ==.
    Arrays.sort(order, Comparator.comparingDouble(i -> v[i] == 0 ? 0.0 : v[i]));
    double[] rank = new double[n];
    for (int start = 0; start < n; ) {
      int end = start + 1;
      while (end < n && v[order[end]] == v[order[start]]) {
        end++;
      }
      // positions start..end-1 hold ranks start+1..end: their average
      double average = (start + 1 + end) / 2.0;
      for (int k = start; k < end; k++) {
        rank[order[k]] = average;
      }
      start = end;
    }
    return rank;
  }

  /** Pearson's r, NaN when either side has no variance; clamped to [-1, 1] against rounding. */
  static double pearson(double[] a, double[] b) {
    assert a.length == b.length;
    int n = a.length;
    double meanA = 0;
    double meanB = 0;
    for (int i = 0; i < n; i++) {
      meanA += a[i];
      meanB += b[i];
    }
    meanA /= n;
    meanB /= n;
    double saa = 0;
    double sbb = 0;
    double sab = 0;
    for (int i = 0; i < n; i++) {
      double da = a[i] - meanA;
      double db = b[i] - meanB;
      saa += da * da;
      sbb += db * db;
      sab += da * db;
    }
    if (saa == 0 || sbb == 0) {
      return Double.NaN;
    }
    return Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
  }
}
