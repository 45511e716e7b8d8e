package org.lprff.vector.train.fullbatch;

/** The double vector arithmetic of the full-batch solvers (L-BFGS and conjugate gradients). */
final class DoubleVectors {

  private DoubleVectors() {}

  /** sum_k a[k] b[k], in index order. */
  static double dot(double[] a, double[] b) {
    double sum = 0;
    for (int k = 0; k < a.length; k++) {
      sum += a[k] * b[k];
    }
    return sum;
  }

  /** The Euclidean norm of a. */
  static double norm(double[] a) {
    return Math.sqrt(dot(a, a));
  }

  /** max_k |a[k]| (0 for an empty a). */
  static double maxAbs(double[] a) {
    double max = 0;
    for (double v : a) {
      max = Math.max(max, Math.abs(v));
    }
    return max;
  }

  /** y += alpha x. */
  static void axpy(double alpha, double[] x, double[] y) {
    for (int k = 0; k < x.length; k++) {
      y[k] += alpha * x[k];
    }
  }

  /** into[k] += from[k]: two parts' double sums added. */
  static void addTo(double[] from, double[] into) {
    for (int k = 0; k < from.length; k++) {
      into[k] += from[k];
    }
  }

  /** into[k] += from[k]: float partial sums gathered in double. */
  static void addTo(float[] from, double[] into) {
    for (int k = 0; k < from.length; k++) {
      into[k] += from[k];
    }
  }
}
