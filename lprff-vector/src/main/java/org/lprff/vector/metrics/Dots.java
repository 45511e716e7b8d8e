package org.lprff.vector.metrics;

/** The double dot product of the metrics' dense linear algebra. */
final class Dots {

  private Dots() {}

  /**
   * sum_j a[aOff + j] b[bOff + j] for j < n, with two accumulators (even and odd j, the odd tail
   * into the even one, added at the end): independent add chains, since the JIT may not reorder
   * a double sum. Every caller sums in this one order, so results do not depend on who asks.
   */
  static double dot(double[] a, int aOff, double[] b, int bOff, int n) {
    double s0 = 0;
    double s1 = 0;
    int j = 0;
    for (; j + 1 < n; j += 2) {
      s0 += a[aOff + j] * b[bOff + j];
      s1 += a[aOff + j + 1] * b[bOff + j + 1];
    }
    if (j < n) {
      s0 += a[aOff + j] * b[bOff + j];
    }
    return s0 + s1;
  }
}
