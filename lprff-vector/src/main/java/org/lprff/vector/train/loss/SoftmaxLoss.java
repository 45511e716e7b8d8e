package org.lprff.vector.train.loss;

/**
 * Softmax cross-entropy over k scores with label t in [0, k): {@code loss = logsumexp(s) - s_t},
 * computed with the maximum subtracted ({@code lse = max + log sum_j exp(s_j - max)}, no overflow
 * for finite scores); gradient {@code (softmax(s)_j - [j = t]) / n}. The predicted class is the
 * first index of the largest score.
 */
public final class SoftmaxLoss extends Loss {

  private final int classes;

  /** Softmax over {@code classes} >= 2 outputs. */
  public SoftmaxLoss(int classes) {
    if (classes < 2) {
      throw new IllegalArgumentException("classes is " + classes + ", expected >= 2");
    }
    this.classes = classes;
  }

  public int classes() {
    return classes;
  }

  @Override
  public int outputs() {
    return classes;
  }

  @Override
  public boolean usesClasses() {
    return true;
  }

  @Override
  public String name() {
    return "softmax(" + classes + ")";
  }

  @Override
  boolean validClass(int label) {
    return label >= 0 && label < classes;
  }

  @Override
  String classExpectation() {
    return "a class in [0, " + classes + ")";
  }

  @Override
  public double compute(float[] scores, int n, float[] targets, int[] labels, float[] gradient) {
    if (n == 0) {
      return 0;
    }
    int k = classes;
    double inv = 1.0 / n;
    double sum = 0;
    for (int r = 0; r < n; r++) {
      int base = r * k;
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < k; j++) {
        max = Math.max(max, scores[base + j]);
      }
      double total = 0;
      for (int j = 0; j < k; j++) {
        total += Math.exp(scores[base + j] - max);
      }
      double logTotal = Math.log(total);
      int t = labels[r];
      sum += max + logTotal - scores[base + t];
      if (gradient != null) {
        for (int j = 0; j < k; j++) {
          double p = Math.exp(scores[base + j] - max - logTotal);
          gradient[base + j] = (float) (((j == t ? p - 1 : p)) * inv);
        }
      }
    }
    return sum * inv;
  }

  @Override
  public double metricSum(float[] scores, int n, float[] targets, int[] labels) {
    int errors = 0;
    for (int r = 0; r < n; r++) {
      errors += predictedClass(scores, r * classes) != labels[r] ? 1 : 0;
    }
    return errors;
  }

  /** First index of the largest of {@code a[off .. off + k)}; NaN never wins. */
  public static int argmax(float[] a, int off, int k) {
    int best = 0;
    float bestValue = a[off];
    for (int j = 1; j < k; j++) {
      if (a[off + j] > bestValue || Float.isNaN(bestValue)) {
        bestValue = a[off + j];
        best = j;
      }
    }
    return best;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SoftmaxLoss s && s.classes == classes;
  }

  @Override
  public int hashCode() {
    return classes;
  }

  @Override
  public String toString() {
    return name();
  }
}
