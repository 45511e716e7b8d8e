package org.lprff.vector.metrics;

/**
 * Heldout regression metrics of arrays, for the tests of exact kernel ridge and Nyström; users
 * get the heldout MSE from {@code org.lprff.vector.train.model.Evaluation}.
 */
public final class RegressionMetrics {

  private RegressionMetrics() {}

  /**
   * Mean squared error (1/n) sum (predicted_i - actual_i)^2, accumulated in double (each term
   * non-negative, so the relative rounding error is at most n u).
   *
   * @throws IllegalArgumentException naming the value if an array is null or empty, the lengths
   *     differ, or a value is not finite
   */
  public static double mse(double[] predicted, double[] actual) {
    check(predicted, actual);
    double sum = 0;
    for (int i = 0; i < predicted.length; i++) {
      double e = predicted[i] - actual[i];
      sum += e * e;
    }
    return sum / predicted.length;
  }

  /** {@link #mse(double[], double[])} of float predictions against float targets. */
  public static double mse(float[] predicted, float[] actual) {
    if (predicted == null || actual == null) {
      throw new IllegalArgumentException((predicted == null ? "predicted" : "actual") + " is null");
    }
    return mse(toDouble(predicted), toDouble(actual));
  }

  static double[] toDouble(float[] values) {
    double[] out = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }

  private static void check(double[] predicted, double[] actual) {
    if (predicted == null || actual == null) {
      throw new IllegalArgumentException((predicted == null ? "predicted" : "actual") + " is null");
    }
    if (predicted.length != actual.length) {
      throw new IllegalArgumentException(
          "predicted has length " + predicted.length + " and actual has length " + actual.length
              + ", expected equal lengths");
    }
    if (predicted.length == 0) {
      throw new IllegalArgumentException("predicted and actual are empty, expected n >= 1");
    }
    for (int i = 0; i < predicted.length; i++) {
      if (!Double.isFinite(predicted[i])) {
        throw new IllegalArgumentException(
            "predicted[" + i + "] is " + predicted[i] + ", expected finite");
      }
      if (!Double.isFinite(actual[i])) {
        throw new IllegalArgumentException("actual[" + i + "] is " + actual[i] + ", expected finite");
      }
    }
  }
}
