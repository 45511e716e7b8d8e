package org.lprff.vector.train.loss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

class HingeLossTest {

  private static final float[] SCORES = {-2f, -0.5f, 0f, 0.25f, 0.9f, 1f, 3f, -1.1f};
  private static final int[] CLASSES = {0, 1, 1, 0, 1, 1, 0, 0};

  /** max(0, 1 - y s) with y = 2t - 1, in double. */
  private static double hinge(double s, int t) {
    return Math.max(0, 1 - (2 * t - 1) * s);
  }

  @Test
  void valuesAndSubgradientOfTheHinge() {
    int n = SCORES.length;
    float[] g = new float[n];
    double mean = HingeLoss.instance().evaluate(SCORES, n, null, CLASSES, g);
    double expected = 0;
    for (int r = 0; r < n; r++) {
      expected += hinge(SCORES[r], CLASSES[r]) / n;
      int y = 2 * CLASSES[r] - 1;
      // -y / n where the margin y s is below 1, else 0 (0 at y s = 1 exactly: row 5).
      float sub = y * SCORES[r] < 1 ? (float) (-y / (double) n) : 0f;
      assertEquals(sub, g[r], "row " + r);
    }
    assertEquals(expected, mean, 1e-15);
    // Class 0 is -1: a score of -2 is beyond the margin (loss 0); class 1 at -0.5 costs 1.5.
    assertEquals(0, hinge(-2, 0));
    assertEquals(1.5, HingeLoss.instance().evaluate(new float[] {-0.5f}, 1, null, new int[] {1}),
        1e-15);
  }

  @Test
  void smoothedHingeIsWithinHalfMuAndItsGradientMatchesFiniteDifferences() {
    for (double mu : new double[] {1, 0.25, 1e-3}) {
      HingeLoss loss = HingeLoss.smoothed(mu);
      for (int t = 0; t <= 1; t++) {
        for (double s = -3; s <= 3; s += 0.0137) {
          float[] score = {(float) s};
          int[] label = {t};
          float[] g = new float[1];
          double value = loss.evaluate(score, 1, null, label, g);
          double exact = hinge(score[0], t);
          assertTrue(value <= exact + 1e-12 && value >= exact - mu / 2 - 1e-12,
              "mu " + mu + " s " + s + ": " + value + " vs hinge " + exact);
          double h = 1e-4;
          double up = loss.evaluate(new float[] {(float) (score[0] + h)}, 1, null, label);
          double down = loss.evaluate(new float[] {(float) (score[0] - h)}, 1, null, label);
          double numeric = (up - down) / (((float) (score[0] + h)) - ((float) (score[0] - h)));
          // Central differences are exact for the linear and quadratic pieces; near the two
          // knots they mix pieces, off by at most h / mu.
          assertEquals(numeric, g[0], 1e-3 + 2 * h / mu, "mu " + mu + " s " + s + " t " + t);
        }
      }
    }
  }

  @Test
  void labelsOtherThanZeroAndOneAreRefusedNamingTheRow() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> HingeLoss.instance().evaluate(new float[3], 3, null, new int[] {0, 1, -1}));
    assertTrue(e.getMessage().contains("classes[2]") && e.getMessage().contains("-1")
        && e.getMessage().contains("class 0 is the label -1"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> HingeLoss.instance().checkLabels(2, null, new int[] {2, 0}, new long[] {70, 71}));
    assertTrue(e.getMessage().contains("classes[0] (row id 70) is 2"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> HingeLoss.smoothed(-1));
    assertThrows(IllegalArgumentException.class, () -> HingeLoss.smoothed(Double.NaN));
  }

  @Test
  void theSignOfTheScoreIsTheClassZeroIncluded() {
    float[] scores = {0f, -0f, -1e-7f, 2f};
    int[] classes = {1, 1, 0, 1};
    assertEquals(0, HingeLoss.instance().metricSum(scores, 4, null, classes));
    // The logistic task reads a score of 0 (either sign) as class 0.
    assertEquals(2, LogisticLoss.instance().metricSum(scores, 4, null, classes));
  }

  @Test
  void theSmoothedLossTravelsToAClusterIntact() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(HingeLoss.smoothed(0.125));
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertEquals(HingeLoss.smoothed(0.125), in.readObject());
    }
  }
}
