package org.lprff.vector.testing;

/** Pearson chi-squared statistics and critical values for the statistical tests. */
public final class ChiSquare {

  /** Upper 1e-6 quantile of the standard normal distribution, z with P(Z > z) = 1e-6. */
  static final double Z_1E_6 = 4.753424308822899;

  /**
   * Upper 1e-7 quantile of the standard normal distribution: for tests that combine up to 10
   * statistics into one verdict (union bound, 10 x 1e-7 = 1e-6).
   */
  public static final double Z_1E_7 = 5.1993375821928165;

  private ChiSquare() {}

  /**
   * Upper quantile of chi-squared with df degrees of freedom at false-failure probability 1e-6,
   * by the Wilson-Hilferty approximation: (X/df)^(1/3) is close to normal with mean 1 - 2/(9 df)
   * and variance 2/(9 df), so the quantile is df (1 - 2/(9 df) + z sqrt(2/(9 df)))^3. For df >=
   * 9 its relative error in this tail is well under 1%, and we only use it as a threshold.
   */
  public static double criticalValue1e6(int df) {
    return criticalValue(df, Z_1E_6);
  }

  /** As {@link #criticalValue1e6}, at the false-failure probability P(Z > z) of a normal z. */
  public static double criticalValue(int df, double z) {
    double v = 2.0 / (9.0 * df);
    double c = 1.0 - v + z * Math.sqrt(v);
    return df * c * c * c;
  }

  /** Goodness of fit to the uniform distribution over counts.length bins. */
  public static double uniformStatistic(long[] counts) {
    long n = 0;
    for (long c : counts) {
      n += c;
    }
    double expected = (double) n / counts.length;
    double stat = 0;
    for (long c : counts) {
      double d = c - expected;
      stat += d * d / expected;
    }
    return stat;
  }

  /** Pearson statistic of the test of independence on a contingency table (estimated margins). */
  public static double independenceStatistic(long[][] table) {
    int rows = table.length;
    int cols = table[0].length;
    double[] rowSums = new double[rows];
    double[] colSums = new double[cols];
    double n = 0;
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        rowSums[i] += table[i][j];
        colSums[j] += table[i][j];
        n += table[i][j];
      }
    }
    double stat = 0;
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        double expected = rowSums[i] * colSums[j] / n;
        if (expected == 0) {
          continue; // an empty margin: that cell carries no information
        }
        double d = table[i][j] - expected;
        stat += d * d / expected;
      }
    }
    return stat;
  }
}
