package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Every row of a source, concatenated, after checking the batch contract on the way: batch ids run
 * on without gaps, every batch but the last is full, columns and label presence match the source,
 * and {@code next()} keeps answering null at the end.
 */
record Drained(float[] values, float[] labels, int rows, int columns, List<Integer> batchSizes) {

  static Drained of(RowSource source) throws IOException {
    int d = source.columns();
    boolean labelled = source.label() == LabelKind.PRESENT;
    float[] values = new float[0];
    float[] labels = labelled ? new float[0] : null;
    List<Integer> sizes = new ArrayList<>();
    long rows = 0;
    for (RowBatch batch = source.next(); batch != null; batch = source.next()) {
      assertEquals(rows, batch.firstRowId(), "firstRowId of batch " + sizes.size());
      assertEquals(d, batch.columns(), "columns of batch " + sizes.size());
      assertEquals(labelled, batch.hasLabels(), "label presence of batch " + sizes.size());
      assertTrue(
          batch.rows() >= 1 && batch.rows() <= source.maxBatchRows(), "batch size " + batch.rows());
      if (!sizes.isEmpty()) {
        assertEquals(
            source.maxBatchRows(),
            sizes.get(sizes.size() - 1),
            "a batch before the last is not full");
      }
      int n = batch.rows();
      if ((rows + n) * d > values.length) { // doubling: linear time over many small batches
        values = Arrays.copyOf(values, (int) Math.max((rows + n) * d, 2L * values.length));
      }
      System.arraycopy(batch.values(), 0, values, (int) rows * d, n * d);
      if (labelled) {
        if (rows + n > labels.length) {
          labels = Arrays.copyOf(labels, (int) Math.max(rows + n, 2L * labels.length));
        }
        System.arraycopy(batch.labels(), 0, labels, (int) rows, n);
      }
      rows += n;
      sizes.add(n);
    }
    assertNull(source.next(), "next() after the end");
    return new Drained(
        Arrays.copyOf(values, (int) rows * d),
        labels == null ? null : Arrays.copyOf(labels, (int) rows),
        (int) rows,
        d,
        sizes);
  }

  /** Asserts both drains hold the same rows, bit for bit. */
  void assertSameRows(Drained other) {
    assertEquals(rows, other.rows, "rows");
    assertEquals(columns, other.columns, "columns");
    assertTrue(Arrays.equals(values, other.values), "values differ");
    assertTrue(Arrays.equals(labels, other.labels), "labels differ");
  }

  static void assertSameArray(float[] expected, float[] actual) {
    if (expected == null) {
      assertSame(null, actual);
      return;
    }
    assertEquals(expected.length, actual.length, "length");
    for (int i = 0; i < expected.length; i++) {
      assertEquals(
          Float.floatToIntBits(expected[i]),
          Float.floatToIntBits(actual[i]),
          "index " + i + ": expected " + expected[i] + ", got " + actual[i]);
    }
  }
}
