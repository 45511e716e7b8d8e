package org.lprff.vector.train.loss;

/**
 * {@code loss(y, t) = 0.5 (y - t)^2}, one output, float targets; gradient {@code (y - t) / n}. The
 * mean loss is half the mean squared error; {@code Evaluation.metric()} reports the MSE itself.
 */
public final class SquaredLoss extends Loss {

  static final SquaredLoss INSTANCE = new SquaredLoss();

  private SquaredLoss() {}

  /** The one instance, also after deserialization. */
  private Object readResolve() {
    return INSTANCE;
  }

  public static SquaredLoss instance() {
    return INSTANCE;
  }

  @Override
  public int outputs() {
    return 1;
  }

  @Override
  public boolean usesClasses() {
    return false;
  }

  @Override
  public String name() {
    return "squared";
  }

  @Override
  public double compute(float[] scores, int n, float[] targets, int[] classes, float[] gradient) {
    if (n == 0) {
      return 0;
    }
    double inv = 1.0 / n;
    double sum = 0;
    for (int r = 0; r < n; r++) {
      double residual = (double) scores[r] - targets[r];
      sum += residual * residual;
      if (gradient != null) {
        gradient[r] = (float) (residual * inv);
      }
    }
    return 0.5 * sum * inv;
  }

  @Override
  public double metricSum(float[] scores, int n, float[] targets, int[] classes) {
    double sum = 0;
    for (int r = 0; r < n; r++) {
      double residual = (double) scores[r] - targets[r];
      sum += residual * residual;
    }
    return sum;
  }
}
