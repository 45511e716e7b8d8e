package org.lprff.vector.metrics;

/**
 * Heldout classification metrics: error rate and log-loss (mean negative log-likelihood, natural
 * logarithm), for c classes labelled 0..c-1 with scores that are logits (softmax for c >= 2
 * columns, or one margin per row for binary labels 0/1 with P(1) = sigmoid(margin)).
 */
public final class ClassificationMetrics {

  private ClassificationMetrics() {}

  /**
   * The fraction of i with predicted[i] != labels[i].
   *
   * @throws IllegalArgumentException naming the value if an array is null or empty or the lengths
   *     differ
   */
  public static double errorRate(int[] predicted, int[] labels) {
    if (predicted == null || labels == null) {
      throw new IllegalArgumentException((predicted == null ? "predicted" : "labels") + " is null");
    }
    if (predicted.length != labels.length) {
      throw new IllegalArgumentException(
          "predicted has length " + predicted.length + " and labels has length " + labels.length
              + ", expected equal lengths");
    }
    if (labels.length == 0) {
      throw new IllegalArgumentException("labels is empty, expected n >= 1");
    }
    long wrong = 0;
    for (int i = 0; i < labels.length; i++) {
      if (predicted[i] != labels[i]) {
        wrong++;
      }
    }
    return (double) wrong / labels.length;
  }

  /**
   * Error rate of the arg-max class of each row of an n x c row-major score matrix (ties go to
   * the lowest class index).
   *
   * @throws IllegalArgumentException naming the value for null arrays, n < 1, c < 2, a short
   *     score array, a label outside [0, c) or a score that is not finite
   */
  public static double errorRate(double[] scores, int n, int classes, int[] labels) {
    checkScores(scores, n, classes, labels);
    long wrong = 0;
    for (int i = 0; i < n; i++) {
      int best = 0;
      double top = scores[i * classes];
      for (int k = 1; k < classes; k++) {
        if (scores[i * classes + k] > top) {
          top = scores[i * classes + k];
          best = k;
        }
      }
      if (best != labels[i]) {
        wrong++;
      }
    }
    return (double) wrong / n;
  }

  /**
   * Error rate of binary margins: class 1 when margin > 0, else 0; labels 0 or 1.
   *
   * @throws IllegalArgumentException naming the value for null or empty arrays, different
   *     lengths, a label other than 0 and 1, or a margin that is not finite
   */
  public static double binaryErrorRate(double[] margins, int[] labels) {
    checkBinary(margins, labels);
    long wrong = 0;
    for (int i = 0; i < labels.length; i++) {
      int predicted = margins[i] > 0 ? 1 : 0;
      if (predicted != labels[i]) {
        wrong++;
      }
    }
    return (double) wrong / labels.length;
  }

  /**
   * Mean log-loss of softmax probabilities: (1/n) sum_i (logsumexp_k s_ik - s_i,label_i),
   * computed stably: the row maximum is subtracted before exponentiating, so nothing overflows
   * and the sum of exponentials lies in [1, c].
   *
   * @throws IllegalArgumentException as {@link #errorRate(double[], int, int, int[])}
   */
  public static double logLoss(double[] scores, int n, int classes, int[] labels) {
    checkScores(scores, n, classes, labels);
    double sum = 0;
    for (int i = 0; i < n; i++) {
      int base = i * classes;
      double max = Double.NEGATIVE_INFINITY;
      for (int k = 0; k < classes; k++) {
        max = Math.max(max, scores[base + k]);
      }
      double exps = 0;
      for (int k = 0; k < classes; k++) {
        exps += Math.exp(scores[base + k] - max);
      }
      // exps is in [1, c]: its log is exact to a few ulps.
      sum += max + Math.log(exps) - scores[base + labels[i]];
    }
    return sum / n;
  }

  /**
   * Mean binary log-loss with P(1) = sigmoid(margin): (1/n) sum softplus(-(2 y - 1) margin), with
   * softplus(t) = max(t, 0) + log1p(exp(-|t|)) (no overflow, accurate for large |t|).
   *
   * @throws IllegalArgumentException as {@link #binaryErrorRate}
   */
  public static double binaryLogLoss(double[] margins, int[] labels) {
    checkBinary(margins, labels);
    double sum = 0;
    for (int i = 0; i < labels.length; i++) {
      double t = labels[i] == 1 ? -margins[i] : margins[i];
      sum += softplus(t);
    }
    return sum / labels.length;
  }

  /** log(1 + e^t) without overflow, for finite t. */
  static double softplus(double t) {
    return Math.max(t, 0) + Math.log1p(Math.exp(-Math.abs(t)));
  }

  private static void checkScores(double[] scores, int n, int classes, int[] labels) {
    if (scores == null || labels == null) {
      throw new IllegalArgumentException((scores == null ? "scores" : "labels") + " is null");
    }
    if (n < 1) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 1");
    }
    if (classes < 2) {
      throw new IllegalArgumentException(
          "classes is " + classes + ", expected >= 2 (use the binary methods for one margin)");
    }
    long need = (long) n * classes;
    if (scores.length < need) {
      throw new IllegalArgumentException(
          "scores has length " + scores.length + ", expected at least n * classes = " + n + " * "
              + classes + " = " + need);
    }
    if (labels.length < n) {
      throw new IllegalArgumentException(
          "labels has length " + labels.length + ", expected at least n = " + n);
    }
    for (int i = 0; i < n; i++) {
      if (labels[i] < 0 || labels[i] >= classes) {
        throw new IllegalArgumentException(
            "labels[" + i + "] is " + labels[i] + ", expected in [0, " + classes + ")");
      }
    }
    for (int i = 0; i < (int) need; i++) {
      if (!Double.isFinite(scores[i])) {
        throw new IllegalArgumentException(
            "scores[" + i + "] (row " + i / classes + ", class " + i % classes + ") is "
                + scores[i] + ", expected finite");
      }
    }
  }

  private static void checkBinary(double[] margins, int[] labels) {
    if (margins == null || labels == null) {
      throw new IllegalArgumentException((margins == null ? "margins" : "labels") + " is null");
    }
    if (margins.length != labels.length) {
      throw new IllegalArgumentException(
          "margins has length " + margins.length + " and labels has length " + labels.length
              + ", expected equal lengths");
    }
    if (labels.length == 0) {
      throw new IllegalArgumentException("labels is empty, expected n >= 1");
    }
    for (int i = 0; i < labels.length; i++) {
      if (labels[i] != 0 && labels[i] != 1) {
        throw new IllegalArgumentException(
            "labels[" + i + "] is " + labels[i] + ", expected 0 or 1");
      }
      if (!Double.isFinite(margins[i])) {
        throw new IllegalArgumentException(
            "margins[" + i + "] is " + margins[i] + ", expected finite");
      }
    }
  }
}
