package org.lprff.vector.train.loss;

/**
 * A per-row loss of a linear model's scores, averaged over a mini-batch, and its gradient.
 *
 * <p>For n rows of c scores ({@code scores[r*c + j]}, row-major), {@link #evaluate} returns the mean
 * loss {@code L = (1/n) sum_r loss(scores_r, label_r)}, computed in double, and, when asked, writes
 * the gradient of that mean, {@code gradient[r*c + j] = dL / dscores[r*c + j]} (the 1/n is
 * included), rounded to float. The solver turns it into the weight gradient {@code Z^T D} and the
 * bias gradient {@code sum_r D_r}.
 *
 * <p>Labels: {@link SquaredLoss} reads float {@code targets}; {@link LogisticLoss}, {@link
 * SoftmaxLoss} and {@link HingeLoss} read int class indices {@code classes}. Only the first n
 * entries of a label array are read (arrays may be longer, as reused buffers are). Invalid labels are refused naming the row and
 * value. Non-finite scores are not refused: they give a non-finite loss, which the solver reports
 * as divergence.
 *
 * <p>Stateless and thread-safe; serializable, so a full-batch pass that carries its loss runs on
 * a cluster's executors.
 */
public abstract sealed class Loss implements java.io.Serializable
    permits SquaredLoss, LogisticLoss, SoftmaxLoss, HingeLoss {
  private static final long serialVersionUID = 1L;


  Loss() {}

  /** Scores per row, c. */
  public abstract int outputs();

  /** True if this loss reads int class labels, false if it reads float targets. */
  public abstract boolean usesClasses();

  /** A short name for messages: {@code squared}, {@code logistic}, {@code softmax(k)}. */
  public abstract String name();

  /**
   * The class the scores of one row, {@code scores[offset .. offset + outputs())}, predict: the
   * one decision rule of every model (the library, the command line, Spark and the Python package
   * follow it). One output: class 1 when the score, a logit, is > 0 ({@link HingeLoss}: the sign
   * of the score, 0 included); more: the first index of the largest score, NaN never winning.
   */
  public int predictedClass(float[] scores, int offset) {
    int c = outputs();
    return c == 1 ? (scores[offset] > 0 ? 1 : 0) : SoftmaxLoss.argmax(scores, offset, c);
  }

  /**
   * The mean loss of n rows; if {@code gradient} is not null, writes dL/dscores into its first
   * n*c entries.
   *
   * @throws IllegalArgumentException naming the value if n < 0, an array is null or too short, or
   *     a label is invalid (row and value)
   */
  public final double evaluate(
      float[] scores, int n, float[] targets, int[] classes, float[] gradient) {
    checkArrays(scores, n, targets, classes, gradient);
    checkLabels(n, targets, classes, null);
    return compute(scores, n, targets, classes, gradient);
  }

  /** {@link #evaluate} without a gradient. */
  public final double evaluate(float[] scores, int n, float[] targets, int[] classes) {
    return evaluate(scores, n, targets, classes, null);
  }

  /**
   * Checks the first n labels; messages name the batch row, the row id when {@code rowIds} is not
   * null, and the value.
   */
  public final void checkLabels(int n, float[] targets, int[] classes, long[] rowIds) {
    if (usesClasses()) {
      if (classes == null) {
        throw new IllegalArgumentException(
            name() + " loss needs int class labels, but classes is null");
      }
      checkLength("classes", classes.length, n);
      for (int r = 0; r < n; r++) {
        int label = classes[r];
        if (!validClass(label)) {
          throw new IllegalArgumentException(
              "classes[" + r + "]" + rowId(rowIds, r) + " is " + label + ", expected "
                  + classExpectation());
        }
      }
    } else {
      if (targets == null) {
        throw new IllegalArgumentException(
            name() + " loss needs float targets, but targets is null");
      }
      checkLength("targets", targets.length, n);
      for (int r = 0; r < n; r++) {
        float t = targets[r];
        if (!Float.isFinite(t)) {
          throw new IllegalArgumentException(
              "targets[" + r + "]" + rowId(rowIds, r) + " is " + t + ", expected a finite value");
        }
      }
    }
  }

  /**
   * The loss of validated arguments (array lengths and {@link #checkLabels}): a solver's inner
   * loop, which checks the labels once per batch; {@link #evaluate} checks them itself.
   */
  public abstract double compute(
      float[] scores, int n, float[] targets, int[] classes, float[] gradient);

  /**
   * The sum over n validated rows of the task's metric: squared error (y - t)^2 for regression,
   * 1 per misclassified row for classification.
   */
  public abstract double metricSum(float[] scores, int n, float[] targets, int[] classes);

  boolean validClass(int label) {
    return true;
  }

  String classExpectation() {
    return "";
  }

  private void checkArrays(
      float[] scores, int n, float[] targets, int[] classes, float[] gradient) {
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    long need = (long) n * outputs();
    if (scores == null) {
      throw new IllegalArgumentException("scores is null");
    }
    if (scores.length < need) {
      throw new IllegalArgumentException(
          "scores has length " + scores.length + ", expected at least n * c = " + n + " * "
              + outputs() + " = " + need);
    }
    if (gradient != null && gradient.length < need) {
      throw new IllegalArgumentException(
          "gradient has length " + gradient.length + ", expected at least n * c = " + n + " * "
              + outputs() + " = " + need);
    }
  }

  private static void checkLength(String name, int length, int n) {
    if (length < n) {
      throw new IllegalArgumentException(
          name + " has length " + length + ", expected at least n = " + n);
    }
  }

  private static String rowId(long[] rowIds, int r) {
    return rowIds == null ? "" : " (row id " + rowIds[r] + ")";
  }
}
