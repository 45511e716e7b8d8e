package org.lprff.vector.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MetricsTest {

  @Test
  void mseIsTheMeanSquaredDifference() {
    assertEquals((1 + 4 + 0.25) / 3, RegressionMetrics.mse(new double[] {1, 2, 3.5}, new double[] {0, 4, 3}), 1e-15);
    assertEquals(0, RegressionMetrics.mse(new double[] {7}, new double[] {7}));
    assertEquals(0.25, RegressionMetrics.mse(new float[] {1.5f, 2}, new float[] {1, 2.5f}));
  }

  @Test
  void errorRates() {
    assertEquals(0.5, ClassificationMetrics.errorRate(new int[] {0, 1, 2, 2}, new int[] {0, 2, 2, 1}));
    // Arg-max with ties to the lowest index: row 1 ties classes 0 and 2 -> 0.
    double[] scores = {0.1, 0.9, 0.0, 2.0, -1.0, 2.0, -3.0, -2.0, -1.0};
    assertEquals(1.0 / 3, ClassificationMetrics.errorRate(scores, 3, 3, new int[] {1, 2, 2}), 1e-15);
    assertEquals(
        0.25,
        ClassificationMetrics.binaryErrorRate(new double[] {0.5, -0.5, 0.0, 3}, new int[] {1, 0, 1, 1}));
  }

  /** The textbook log-loss with probabilities, for moderate scores where it is accurate. */
  private static double naiveLogLoss(double[] scores, int n, int c, int[] labels) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
      double z = 0;
      for (int k = 0; k < c; k++) {
        z += Math.exp(scores[i * c + k]);
      }
      sum += -Math.log(Math.exp(scores[i * c + labels[i]]) / z);
    }
    return sum / n;
  }

  @Test
  void logLossMatchesTheTextbookFormulaAndIsStable() {
    SplittableRandom random = new SplittableRandom(1);
    int n = 200;
    int c = 5;
    double[] scores = new double[n * c];
    int[] labels = new int[n];
    for (int i = 0; i < n; i++) {
      labels[i] = random.nextInt(c);
      for (int k = 0; k < c; k++) {
        scores[i * c + k] = 3 * random.nextGaussian();
      }
    }
    // Moderate scores: both formulas are accurate to ~1e-15 relative per term.
    assertEquals(naiveLogLoss(scores, n, c, labels), ClassificationMetrics.logLoss(scores, n, c, labels), 1e-12);
    // Softmax is shift invariant; the stable form must be too, even where exp overflows.
    double[] shifted = scores.clone();
    for (int i = 0; i < shifted.length; i++) {
      shifted[i] += 1000;
    }
    assertEquals(
        ClassificationMetrics.logLoss(scores, n, c, labels),
        ClassificationMetrics.logLoss(shifted, n, c, labels),
        1e-9);
    assertEquals(Math.log(2), ClassificationMetrics.logLoss(new double[] {5, 5}, 1, 2, new int[] {0}), 1e-15);
    assertEquals(2000, ClassificationMetrics.logLoss(new double[] {-1000, 1000}, 1, 2, new int[] {0}), 1e-9);

    // Binary: softplus(-(2y-1) margin); margins 0 -> log 2; huge margins neither overflow nor
    // lose the tail: softplus(-40) = log1p(e^-40) = e^-40 to within 1e-17 relative.
    assertEquals(Math.log(2), ClassificationMetrics.binaryLogLoss(new double[] {0}, new int[] {1}), 1e-15);
    assertEquals(1000, ClassificationMetrics.binaryLogLoss(new double[] {1000}, new int[] {0}), 1e-12);
    assertEquals(Math.exp(-40), ClassificationMetrics.binaryLogLoss(new double[] {40}, new int[] {1}), 1e-30);
    double[] margins = {0.3, -1.2, 2.5};
    int[] binary = {1, 0, 0};
    double expected = 0;
    for (int i = 0; i < 3; i++) {
      double p = 1 / (1 + Math.exp(-margins[i]));
      expected -= binary[i] == 1 ? Math.log(p) : Math.log(1 - p);
    }
    assertEquals(expected / 3, ClassificationMetrics.binaryLogLoss(margins, binary), 1e-14);
    // Binary with margin m equals two-class softmax with scores (0, m).
    double[] twoClass = {0, 0.3, 0, -1.2, 0, 2.5};
    assertEquals(
        ClassificationMetrics.logLoss(twoClass, 3, 2, binary),
        ClassificationMetrics.binaryLogLoss(margins, binary),
        1e-15);
    assertTrue(ClassificationMetrics.logLoss(scores, n, c, labels) > 0);
  }

  @Test
  void rejectsBadArgumentsNamingTheValue() {
    assertMessage("predicted is null", () -> RegressionMetrics.mse(null, new double[1]));
    assertMessage(
        "predicted has length 2 and actual has length 3",
        () -> RegressionMetrics.mse(new double[2], new double[3]));
    assertMessage("predicted and actual are empty", () -> RegressionMetrics.mse(new double[0], new double[0]));
    assertMessage(
        "predicted[1] is NaN", () -> RegressionMetrics.mse(new double[] {0, Double.NaN}, new double[2]));
    assertMessage(
        "actual[0] is Infinity",
        () -> RegressionMetrics.mse(new double[1], new double[] {Double.POSITIVE_INFINITY}));
    assertMessage("labels is empty", () -> ClassificationMetrics.errorRate(new int[0], new int[0]));
    assertMessage(
        "predicted has length 1 and labels has length 2",
        () -> ClassificationMetrics.errorRate(new int[1], new int[2]));
    assertMessage(
        "labels[1] is 3, expected in [0, 3)",
        () -> ClassificationMetrics.logLoss(new double[6], 2, 3, new int[] {0, 3}));
    assertMessage(
        "classes is 1, expected >= 2", () -> ClassificationMetrics.logLoss(new double[2], 2, 1, new int[2]));
    assertMessage(
        "scores has length 5, expected at least n * classes = 2 * 3 = 6",
        () -> ClassificationMetrics.errorRate(new double[5], 2, 3, new int[2]));
    assertMessage(
        "scores[4] (row 1, class 1) is NaN",
        () -> ClassificationMetrics.logLoss(new double[] {0, 0, 0, 0, Double.NaN, 0}, 2, 3, new int[2]));
    assertMessage(
        "labels[0] is 2, expected 0 or 1",
        () -> ClassificationMetrics.binaryLogLoss(new double[1], new int[] {2}));
    assertMessage(
        "margins[0] is -Infinity",
        () -> ClassificationMetrics.binaryErrorRate(new double[] {Double.NEGATIVE_INFINITY}, new int[] {0}));
    assertMessage("n is 0", () -> ClassificationMetrics.logLoss(new double[2], 0, 2, new int[0]));
  }
}
