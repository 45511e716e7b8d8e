package org.lprff.vector.train.loss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LossTest {

  /** Loss and gradient against central differences of the mean loss, in double. */
  @Test
  void gradientsMatchFiniteDifferences() {
    SplittableRandom random = new SplittableRandom(11);
    int n = 7;
    float[] targets = new float[n];
    int[] binary = new int[n];
    int[] classes = new int[n];
    for (int r = 0; r < n; r++) {
      targets[r] = (float) (2 * random.nextGaussian());
      binary[r] = random.nextInt(2);
      classes[r] = random.nextInt(5);
    }
    for (Loss loss : List.of(SquaredLoss.instance(), LogisticLoss.instance(), new SoftmaxLoss(5))) {
      int c = loss.outputs();
      float[] scores = new float[n * c];
      for (int k = 0; k < scores.length; k++) {
        // Scores are multiples of 2^-10, so score +- h (h = 2^-12) is exact in float.
        scores[k] = (float) Math.scalb(Math.rint(3 * random.nextGaussian() * 1024), -10);
      }
      int[] labels = loss instanceof SoftmaxLoss ? classes : binary;
      float[] gradient = new float[n * c];
      loss.evaluate(scores, n, targets, labels, gradient);
      float h = 0x1p-12f;
      for (int k = 0; k < scores.length; k++) {
        float saved = scores[k];
        scores[k] = saved + h;
        double plus = loss.evaluate(scores, n, targets, labels);
        scores[k] = saved - h;
        double minus = loss.evaluate(scores, n, targets, labels);
        scores[k] = saved;
        double numeric = (plus - minus) / (2 * h);
        // Central differences: error h^2/6 |f'''| <= 1e-8 for these losses (|f'''| <= 1 per row,
        // times 1/n), plus the double rounding of the losses, ~1e-16 / h = 4e-13; the analytic
        // gradient is rounded to float (relative 6e-8). 1e-6 absolute covers both with margin.
        assertEquals(numeric, gradient[k], 1e-6, loss.name() + " entry " + k);
      }
    }
  }

  @Test
  void valuesAtKnownPoints() {
    float[] g = new float[2];
    // 0.5 (3 - 1)^2 = 2 and 0.5 (0 - 1)^2 = 0.5: mean 1.25; gradients (2, -1) / 2.
    assertEquals(
        1.25, SquaredLoss.instance().evaluate(new float[] {3, 0}, 2, new float[] {1, 1}, null, g));
    assertEquals(1.0f, g[0]);
    assertEquals(-0.5f, g[1]);
    // logistic at s = 0: log 2 for either label.
    assertEquals(
        Math.log(2), LogisticLoss.instance().evaluate(new float[] {0}, 1, null, new int[] {1}),
        1e-15);
    // softmax of equal scores: log k.
    assertEquals(
        Math.log(4), new SoftmaxLoss(4).evaluate(new float[4], 1, null, new int[] {2}), 1e-15);
  }

  /** Huge scores must not overflow: log1p(exp(-|s|)) and log-sum-exp with the max subtracted. */
  @Test
  void stableForLargeScores() {
    float[] g = new float[2];
    double l =
        LogisticLoss.instance().evaluate(new float[] {1e4f, -1e4f}, 2, null, new int[] {0, 0}, g);
    assertEquals(0.5 * 1e4, l, 1e-9); // row 0 costs s = 1e4, row 1 costs ~0
    assertEquals(0.5f, g[0]); // (sigmoid(1e4) - 0) / 2
    assertEquals(0f, g[1]);
    float[] g3 = new float[3];
    double s =
        new SoftmaxLoss(3).evaluate(new float[] {1e4f, 0, -1e4f}, 1, null, new int[] {1}, g3);
    assertEquals(1e4, s, 1e-9);
    assertEquals(1f, g3[0]);
    assertEquals(-1f, g3[1]);
    assertEquals(0f, g3[2]);
    assertTrue(Double.isNaN(SquaredLoss.instance().evaluate(new float[] {Float.NaN}, 1, new float[] {0}, null)));
  }

  @Test
  void refusesBadLabelsNamingRowAndValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LogisticLoss.instance().evaluate(new float[3], 3, null, new int[] {0, 1, 2}));
    assertEquals("classes[2] is 2, expected 0 or 1 for binary classification", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SoftmaxLoss(3).evaluate(new float[6], 2, null, new int[] {3, 0}));
    assertEquals("classes[0] is 3, expected a class in [0, 3)", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SoftmaxLoss(3).checkLabels(2, null, new int[] {0, -1}, new long[] {40, 41}));
    assertEquals("classes[1] (row id 41) is -1, expected a class in [0, 3)", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SquaredLoss.instance().evaluate(new float[2], 2, new float[] {0, Float.NaN}, null));
    assertEquals("targets[1] is NaN, expected a finite value", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SquaredLoss.instance().evaluate(new float[2], 2, null, new int[2]));
    assertEquals("squared loss needs float targets, but targets is null", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SoftmaxLoss(3).evaluate(new float[5], 2, null, new int[2]));
    assertEquals("scores has length 5, expected at least n * c = 2 * 3 = 6", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new SoftmaxLoss(1));
    assertEquals("classes is 1, expected >= 2", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Task.multiclass(0));
    assertEquals("classes is 0, expected >= 2", e.getMessage());
  }

  @Test
  void tasksPickTheirLoss() {
    assertEquals(SquaredLoss.instance(), Task.REGRESSION.loss());
    assertEquals(LogisticLoss.instance(), Task.BINARY.loss());
    assertEquals(new SoftmaxLoss(7), Task.multiclass(7).loss());
    assertEquals(7, Task.multiclass(7).outputs());
    assertEquals(1, Task.BINARY.outputs());
  }

  /**
   * Every loss travels to a cluster's executors inside a full-batch pass (FullBatchObjective's
   * LossGradient): serialized and read back, it computes the same loss, and the stateless ones
   * are their one instance again.
   */
  @Test
  void everyLossTravelsToAClusterIntact() throws Exception {
    float[] scores = {0.5f, -1.25f, 2f};
    float[] targets = {1f, -1f, 0.25f};
    int[] binary = {1, 0, 1};
    for (Loss loss : List.of(SquaredLoss.INSTANCE, LogisticLoss.INSTANCE, new SoftmaxLoss(3),
        HingeLoss.smoothed(0.5))) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(loss);
      }
      Loss back;
      try (ObjectInputStream in =
          new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        back = (Loss) in.readObject();
      }
      int n = loss instanceof SoftmaxLoss ? 1 : 3;
      int[] classes = loss instanceof SoftmaxLoss ? new int[] {2} : binary;
      assertEquals(loss.evaluate(scores, n, targets, classes),
          back.evaluate(scores, n, targets, classes), loss.name());
      if (loss == SquaredLoss.INSTANCE || loss == LogisticLoss.INSTANCE) {
        assertSame(loss, back, loss.name());
      }
    }
  }
}
