package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AbstractRowSourceTest {

  /** Rows r = 0..total-1 of 3 columns valued r + c / 10, label -r; records each read's size. */
  private static final class Counting extends AbstractRowSource {
    final int total;
    final List<Integer> asked = new ArrayList<>();
    int produced;

    Counting(int total, int maxBatchRows, boolean labelled) {
      this.total = total;
      shape(3, maxBatchRows, labelled, "counting");
    }

    @Override
    protected int read(int maxRows) {
      asked.add(maxRows);
      assertEquals(produced, rowsRead(), "rowsRead() is the next row's id");
      int n = Math.min(maxRows, total - produced);
      for (int i = 0; i < n; i++) {
        int r = produced + i;
        for (int c = 0; c < 3; c++) {
          values[i * 3 + c] = r + c / 10f;
        }
        if (labels != null) {
          labels[i] = -r;
        }
      }
      produced += n;
      return n;
    }

    @Override
    public List<String> columnNames() {
      return List.of("a", "b", "c");
    }

    @Override
    public void close() {}
  }

  @Test
  void batchesCarryRunningIdsInReusedBuffersAndStopAtTheFirstShortRead() throws IOException {
    Counting source = new Counting(10, 4, true);
    assertEquals(3, source.columns());
    assertEquals(4, source.maxBatchRows());
    assertEquals(LabelKind.PRESENT, source.label());
    float[] buffer = null;
    long expectedId = 0;
    for (int expectedRows : new int[] {4, 4, 2}) {
      RowBatch batch = source.next();
      assertEquals(expectedRows, batch.rows());
      assertEquals(3, batch.columns());
      assertEquals(expectedId, batch.firstRowId());
      if (buffer != null) {
        assertSame(buffer, batch.values(), "the buffers are reused");
      }
      buffer = batch.values();
      for (int i = 0; i < batch.rows(); i++) {
        assertEquals(expectedId + i + 0.2f, batch.value(i, 2));
        assertEquals(-(expectedId + i), batch.label(i));
      }
      expectedId += expectedRows;
    }
    assertNull(source.next());
    assertNull(source.next());
    // The short read (2 < 4) ended the input: read is never asked again.
    assertEquals(List.of(4, 4, 4), source.asked);
  }

  @Test
  void anInputThatEndsOnABatchBoundaryEndsWithAnEmptyRead() throws IOException {
    Counting source = new Counting(8, 4, false);
    assertEquals(LabelKind.NONE, source.label());
    assertEquals(4, source.next().rows());
    RowBatch second = source.next();
    assertEquals(4, second.rows());
    assertNull(second.labels());
    assertNull(source.next());
    assertNull(source.next());
    assertEquals(List.of(4, 4, 4), source.asked);
  }

  @Test
  void shapeRefusesBatchesThatDoNotFit() {
    IllegalArgumentException zero =
        assertThrows(IllegalArgumentException.class, () -> new Counting(1, 0, false));
    assertEquals("maxBatchRows is 0, expected >= 1", zero.getMessage());
    IllegalArgumentException huge =
        assertThrows(IllegalArgumentException.class, () -> new Counting(1, 1 << 30, false));
    assertTrue(huge.getMessage().startsWith("counting: a batch of 1073741824 rows x 3 columns does"
        + " not fit in one float array"), huge.getMessage());
  }
}
