package org.lprff.vector.train.loss;

/**
 * Binary logistic loss on a logit s with label t in {0, 1}: {@code loss = log(1 + exp(-s))} for t
 * = 1 and {@code log(1 + exp(s))} for t = 0, computed as {@code max(s, 0) - t s + log1p(exp(-|s|))}
 * (no overflow for any finite s); gradient {@code (sigmoid(s) - t) / n}. The predicted class is 1
 * when s > 0.
 */
public final class LogisticLoss extends Loss {

  static final LogisticLoss INSTANCE = new LogisticLoss();

  private LogisticLoss() {}

  /** The one instance, also after deserialization. */
  private Object readResolve() {
    return INSTANCE;
  }

  public static LogisticLoss instance() {
    return INSTANCE;
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
    return "logistic";
  }

  @Override
  boolean validClass(int label) {
    return label == 0 || label == 1;
  }

  @Override
  String classExpectation() {
    return "0 or 1 for binary classification";
  }

  @Override
  public double compute(float[] scores, int n, float[] targets, int[] classes, float[] gradient) {
    if (n == 0) {
      return 0;
    }
    double inv = 1.0 / n;
    double sum = 0;
    for (int r = 0; r < n; r++) {
      double s = scores[r];
      int t = classes[r];
      double e = Math.exp(-Math.abs(s)); // in (0, 1]: never overflows
      sum += Math.max(s, 0) - t * s + Math.log1p(e);
      if (gradient != null) {
        double sigmoid = s >= 0 ? 1 / (1 + e) : e / (1 + e);
        gradient[r] = (float) ((sigmoid - t) * inv);
      }
    }
    return sum * inv;
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
}
