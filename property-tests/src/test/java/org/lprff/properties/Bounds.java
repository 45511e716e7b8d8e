package org.lprff.properties;

/**
 * Deviation bounds for the statistical properties. Each returns the deviation t that a sum or mean
 * of independent variables exceeds with probability at most {@code delta} when the property
 * holds; a check then fails falsely with probability at most delta.
 */
final class Bounds {

  private Bounds() {}

  /**
   * Hoeffding, two-sided, for the mean of n independent variables each in an interval of width
   * {@code width}: P(|mean - E mean| >= t) <= 2 exp(-2 n t^2 / width^2) = delta.
   */
  static double hoeffdingMean(double width, long n, double delta) {
    return width * Math.sqrt(Math.log(2 / delta) / (2.0 * n));
  }

  /**
   * Hoeffding, two-sided, for a sum of independent variables whose widths have squares summing
   * to {@code sumOfSquaredWidths}; the same bound serves McDiarmid's inequality for a function
   * with bounded differences c_k (sumOfSquaredWidths = sum c_k^2).
   */
  static double hoeffdingSum(double sumOfSquaredWidths, double delta) {
    return Math.sqrt(sumOfSquaredWidths * Math.log(2 / delta) / 2);
  }

  /**
   * Bernstein, two-sided, for a sum of independent zero-mean variables X_k with |X_k| <= range and
   * sum of variances <= variance: P(|sum| >= t) <= 2 exp(-t^2 / (2 variance + 2 range t / 3)) =
   * delta, i.e. t = range L / 3 + sqrt((range L / 3)^2 + 2 variance L), L = ln(2 / delta).
   */
  static double bernsteinSum(double variance, double range, double delta) {
    double l = Math.log(2 / delta);
    double a = range * l / 3;
    return a + Math.sqrt(a * a + 2 * variance * l);
  }

  /**
   * Chernoff for a binomial frequency: the smallest q >= p with exp(-n KL(q || p)) <= delta, so a
   * Binomial(n, p') / n with p' <= p exceeds q with probability at most delta (KL the Bernoulli
   * relative entropy; the bound holds for every p' <= p because the tail grows with p').
   */
  static double binomialUpper(double p, long n, double delta) {
    double target = Math.log(1 / delta) / n;
    if (p >= 1) {
      return 1;
    }
    double lo = p;
    double hi = 1;
    if (kl(1, p) <= target) {
      return 1;
    }
    for (int i = 0; i < 200; i++) {
      double mid = 0.5 * (lo + hi);
      if (kl(mid, p) > target) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return hi;
  }

  /** Bernoulli relative entropy KL(q || p) = q ln(q/p) + (1-q) ln((1-q)/(1-p)). */
  static double kl(double q, double p) {
    double a = q == 0 ? 0 : q * Math.log(q / p);
    double b = q == 1 ? 0 : (1 - q) * Math.log((1 - q) / (1 - p));
    return a + b;
  }
}
