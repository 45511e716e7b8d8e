package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LabelsTest {

  @Test
  void classIndicesGiveTheClassCount() {
    assertEquals(10, Labels.requireClassIndices(new float[] {9, 0, 3, -0f, 2, 99}, 5, 0));
    assertEquals(0, Labels.requireClassIndices(new float[] {1}, 0, 0));
    assertEquals(
        Labels.MAX_CLASS_INDEX + 1,
        Labels.requireClassIndices(new float[] {Labels.MAX_CLASS_INDEX}, 1, 0));
    RowBatch batch = new RowBatch(new float[2], 2, 1, new float[] {1, 4}, 100);
    assertEquals(5, Labels.requireClassIndices(batch));
  }

  @Test
  void badLabelsNameRowAndValue() {
    float[][] bad = {
      {-1}, {2.5f}, {Float.NaN}, {Float.POSITIVE_INFINITY}, {Labels.MAX_CLASS_INDEX + 2f}
    };
    String[] shown = {"-1.0", "2.5", "NaN", "Infinity", "1.6777218E7"};
    for (int i = 0; i < bad.length; i++) {
      float[] labels = {0, 1, bad[i][0]};
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> Labels.requireClassIndices(labels, 3, 40));
      assertTrue(
          e.getMessage().contains("label of row 42 is " + shown[i] + ", not a class index"),
          e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> Labels.requireClassIndices(null, 0, 0));
    assertThrows(
        IllegalArgumentException.class, () -> Labels.requireClassIndices(new float[1], 2, 0));
    RowBatch unlabelled = new RowBatch(new float[2], 2, 1, null, 0);
    assertThrows(IllegalArgumentException.class, () -> Labels.requireClassIndices(unlabelled));
  }
}
