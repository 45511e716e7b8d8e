package org.lprff.vector.testing;

import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;

/**
 * Exact CDFs of the distributions the parameter draws follow, and the one-sample
 * Kolmogorov–Smirnov test with the Dvoretzky–Kiefer–Wolfowitz bound.
 *
 * <p>DKW with Massart's constant: for N iid draws from a continuous F, P(sup |F_N - F| > eps) <=
 * 2 exp(-2 N eps^2). So eps = sqrt(ln(2/alpha) / (2N)) is a rigorous (not asymptotic) threshold
 * with false-failure probability at most alpha.
 */
public final class Distributions {

  private Distributions() {}

  /** DKW threshold for N draws at false-failure probability alpha. */
  public static double dkwBound(int n, double alpha) {
    return Math.sqrt(Math.log(2 / alpha) / (2.0 * n));
  }

  /** sup_x |F_N(x) - F(x)| of the samples (sorted in place) against F. */
  public static double ksDistance(double[] samples, DoubleUnaryOperator cdf) {
    Arrays.sort(samples);
    int n = samples.length;
    double d = 0;
    for (int i = 0; i < n; i++) {
      double f = cdf.applyAsDouble(samples[i]);
      d = Math.max(d, Math.max((i + 1.0) / n - f, f - (double) i / n));
    }
    return d;
  }

  /**
   * Standard normal CDF by the series Phi(x) = 1/2 + phi(x) sum_{n>=0} x^(2n+1) / (1 3 5 ...
   * (2n+1)) (all terms of one sign, so the sum is accurate; adding it to 1/2 leaves an absolute error
   * near 1e-16, which is what a KS distance needs).
   * Beyond |x| = 9 the tail is below 1.2e-19, returned as 0 or 1.
   */
  public static double normalCdf(double x) {
    if (x < -9) {
      return 0;
    }
    if (x > 9) {
      return 1;
    }
    double term = x;
    double sum = x;
    for (int n = 1; n < 500 && Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
      term *= x * x / (2 * n + 1);
      sum += term;
    }
    return 0.5 + Math.exp(-x * x / 2) / Math.sqrt(2 * Math.PI) * sum;
  }

  /** Standard Cauchy CDF. */
  public static double cauchyCdf(double x) {
    return 0.5 + Math.atan(x) / Math.PI;
  }

  /**
   * Student t CDF for 1, 3 or 5 degrees of freedom, closed forms with theta = atan(t / sqrt(nu)):
   * 1/2 + (theta + sin theta cos theta (1 + (2/3) cos^2 theta [nu = 5]) [nu >= 3]) / pi.
   */
  public static double studentCdf(int nu, double t) {
    double theta = Math.atan(t / Math.sqrt(nu));
    double c2 = 1 / (1 + t * t / nu); // cos^2 theta
    double sc = t / Math.sqrt(nu) * c2; // sin theta cos theta
    return switch (nu) {
      case 1 -> 0.5 + theta / Math.PI;
      case 3 -> 0.5 + (theta + sc) / Math.PI;
      case 5 -> 0.5 + (theta + sc * (1 + 2 * c2 / 3)) / Math.PI;
      default -> throw new IllegalArgumentException("nu " + nu);
    };
  }

  /** Student t density, for checking the CDF. */
  public static double studentDensity(int nu, double t) {
    double c = switch (nu) {
      case 1 -> 1 / Math.PI;
      case 3 -> 2 / (Math.PI * Math.sqrt(3));
      case 5 -> 8 / (3 * Math.PI * Math.sqrt(5));
      default -> throw new IllegalArgumentException("nu " + nu);
    };
    return c * Math.pow(1 + t * t / nu, -(nu + 1) / 2.0);
  }

  /**
   * Chi-squared CDF for 1, 3, 5 degrees of freedom: P(1/2 + k, x/2) = erf(sqrt(x/2)) - sqrt(2x/pi)
   * e^(-x/2) (0 [k=0]; 1 [k=1]; 1 + x/3 [k=2]), with erf(sqrt(x/2)) = 2 Phi(sqrt x) - 1.
   */
  public static double chiSquaredCdf(int dof, double x) {
    if (x <= 0) {
      return 0;
    }
    double erf = 2 * normalCdf(Math.sqrt(x)) - 1;
    double tail = Math.sqrt(2 * x / Math.PI) * Math.exp(-x / 2);
    return switch (dof) {
      case 1 -> erf;
      case 3 -> erf - tail;
      case 5 -> erf - tail * (1 + x / 3);
      default -> throw new IllegalArgumentException("dof " + dof);
    };
  }

  /** Chi-squared density x^(k/2-1) e^(-x/2) / (2^(k/2) Gamma(k/2)) for k = 1, 3, 5. */
  public static double chiSquaredDensity(int dof, double x) {
    double base = Math.exp(-x / 2) / Math.sqrt(2 * Math.PI);
    return switch (dof) {
      case 1 -> base / Math.sqrt(x);
      case 3 -> base * Math.sqrt(x);
      case 5 -> base * x * Math.sqrt(x) / 3;
      default -> throw new IllegalArgumentException("dof " + dof);
    };
  }
}
