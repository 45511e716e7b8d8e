package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RowBatchTest {

  @Test
  void accessorsAndCopy() {
    float[] values = {1, 2, 3, 4, 5, 6, 99, 99}; // a reused buffer, longer than the batch
    float[] labels = {7, 8, 99};
    RowBatch batch = new RowBatch(values, 3, 2, labels, 10);
    assertEquals(4f, batch.value(1, 1));
    assertEquals(8f, batch.label(1));
    assertEquals(13L, batch.endRowId());
    RowBatch copy = batch.copy();
    assertNotSame(values, copy.values());
    assertEquals(6, copy.values().length);
    assertEquals(3, copy.labels().length);
    assertEquals(batch, copy);
    assertEquals(batch.hashCode(), copy.hashCode());
    values[0] = -1;
    assertNotEquals(batch, copy, "the copy does not share the reused buffer");
    assertThrows(IndexOutOfBoundsException.class, () -> batch.value(3, 0));
    assertThrows(IndexOutOfBoundsException.class, () -> batch.value(0, 2));
    assertThrows(IllegalStateException.class, () -> new RowBatch(values, 1, 2, null, 0).label(0));
  }

  @Test
  void invalidShapesNameTheirValues() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new RowBatch(new float[5], 3, 2, null, 0));
    assertTrue(
        e.getMessage()
            .contains("values has length 5, expected at least rows * columns = 3 * 2 = 6"));
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new RowBatch(new float[6], 3, 2, new float[2], 0));
    assertTrue(e.getMessage().contains("labels has length 2"));
    e =
        assertThrows(
            IllegalArgumentException.class, () -> new RowBatch(new float[6], 3, 2, null, -1));
    assertTrue(e.getMessage().contains("firstRowId is -1"));
    assertThrows(IllegalArgumentException.class, () -> new RowBatch(new float[6], -1, 2, null, 0));
  }
}
