package org.lprff.vector.train.loss;

/**
 * Binary hinge loss on a score s with class t in {0, 1}, read as the sign label y = 2t - 1 (class
 * 0 is -1, class 1 is +1): {@code loss = max(0, 1 - y s)}; the predicted class is 1 when s >= 0
 * (the sign of the score). Labels other than 0 and 1 (a file's -1 included: classes arrive as
 * indices) are refused naming the row.
 *
 * <p>The hinge has no gradient at {@code y s = 1}; {@link #smoothed(double)} gives its quadratic
 * smoothing with width mu > 0 (a Huber hinge, the Moreau envelope of the hinge),
 *
 * <pre>  h_mu(u) = 0 for u >= 1,  (1 - u)^2 / (2 mu) for 1 - mu < u < 1,  1 - u - mu/2 for u <= 1 - mu</pre>
 *
 * with u = y s: convex, its derivative 1/mu-Lipschitz, and {@code h - mu/2 <= h_mu <= h}, so a
 * minimizer of the smoothed mean loss is within mu/2 of the hinge's optimum (what {@code
 * KitchenSinks} uses). The exact hinge ({@code mu = 0}, {@link #instance()}) writes the
 * subgradient {@code -y/n} where {@code y s < 1} and 0 elsewhere.
 */
public final class HingeLoss extends Loss {

  private static final long serialVersionUID = 1L;

  static final HingeLoss INSTANCE = new HingeLoss(0);

  /** The smoothing width mu, 0 for the hinge itself. */
  private final double smoothing;

  private HingeLoss(double smoothing) {
    this.smoothing = smoothing;
  }

  /** The hinge itself. */
  public static HingeLoss instance() {
    return INSTANCE;
  }

  /**
   * The hinge smoothed over a width {@code mu} (see the class comment; 0: the hinge).
   *
   * @throws IllegalArgumentException naming mu unless it is finite and >= 0
   */
  public static HingeLoss smoothed(double mu) {
    if (!(mu >= 0) || Double.isInfinite(mu)) {
      throw new IllegalArgumentException("smoothing mu is " + mu + ", expected finite and >= 0");
    }
    return mu == 0 ? INSTANCE : new HingeLoss(mu);
  }

  /** The smoothing width mu (0: the hinge). */
  public double smoothing() {
    return smoothing;
  }

  @Override
  public int outputs() {
    return 1;
  }

  @Override
  public boolean usesClasses() {
    return true;
  }

  @Override
  public String name() {
    return smoothing == 0 ? "hinge" : "hinge(mu " + smoothing + ")";
  }

  @Override
  boolean validClass(int label) {
    return label == 0 || label == 1;
  }

  @Override
  String classExpectation() {
    return "0 or 1 for the hinge loss (class 0 is the label -1, class 1 is +1)";
  }

  @Override
  public double compute(float[] scores, int n, float[] targets, int[] classes, float[] gradient) {
    if (n == 0) {
      return 0;
    }
    double inv = 1.0 / n;
    double mu = smoothing;
    double sum = 0;
    for (int r = 0; r < n; r++) {
      double y = 2 * classes[r] - 1;
      double margin = 1 - y * scores[r]; // 1 - u
      double loss;
      double slope; // dh/du, in [-1, 0]
      if (margin <= 0) {
        loss = 0;
        slope = 0;
      } else if (margin < mu) {
        loss = margin * margin / (2 * mu);
        slope = -margin / mu;
      } else {
        loss = margin - 0.5 * mu;
        slope = -1;
      }
      sum += loss;
      if (gradient != null) {
        gradient[r] = slope == 0 ? 0f : (float) (slope * y * inv);
      }
    }
    return sum * inv;
  }

  /** The sign of the score, 0 included: class 1 when s >= 0. */
  @Override
  public int predictedClass(float[] scores, int offset) {
    return scores[offset] >= 0 ? 1 : 0;
  }

  @Override
  public double metricSum(float[] scores, int n, float[] targets, int[] classes) {
    int errors = 0;
    for (int r = 0; r < n; r++) {
      int predicted = predictedClass(scores, r);
      errors += predicted != classes[r] ? 1 : 0;
    }
    return errors;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HingeLoss other && Double.compare(other.smoothing, smoothing) == 0;
  }

  @Override
  public int hashCode() {
    return Double.hashCode(smoothing);
  }
}
