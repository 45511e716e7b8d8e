package org.lprff.vector.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;

class RowFilterTest {

  private static final int N = 1000;
  private static final int M = 13;
  private static final int BITS = 4;

  /** N packed rows whose bytes encode their index, targets -index. */
  private static InMemoryBatches source() {
    QuantizationScale scale = QuantizationScale.forFeatures(M, BITS);
    int rowBytes = (M * BITS + 7) / 8;
    MemorySegment bytes = Arena.ofAuto().allocate((long) N * rowBytes, 64);
    for (int r = 0; r < N; r++) {
      for (int b = 0; b < rowBytes; b++) {
        bytes.set(ValueLayout.JAVA_BYTE, (long) r * rowBytes + b, (byte) (r * 7 + b));
      }
    }
    float[] targets = new float[N];
    for (int r = 0; r < N; r++) {
      targets[r] = -r;
    }
    return InMemoryBatches.of(FeatureRows.of(new PackedRows(bytes, 0, N, M, scale)), targets);
  }

  /** Row indices (from the targets) and row bytes an epoch hands out, in order. */
  private static List<Integer> visit(MiniBatchSource source, int batch, List<byte[]> bytes) {
    List<Integer> rows = new ArrayList<>();
    try (MiniBatchSource.Batches it = source.epoch(3, batch, 9)) {
      while (it.hasNext()) {
        MiniBatch b = it.next();
        assertTrue(b.rows() >= 1 && b.rows() <= batch);
        FeatureRows z = b.features();
        for (int i = 0; i < b.rows(); i++) {
          rows.add((int) -b.targets()[i]);
          bytes.add(z.segment().asSlice(z.byteOffset() + i * z.rowBytes(), z.rowBytes())
              .toArray(ValueLayout.JAVA_BYTE));
        }
      }
    }
    return rows;
  }

  @Test
  void theSplitAndItsComplementPartitionTheRowsWithTheirBytesAndLabels() {
    InMemoryBatches ordered = source().ordered();
    List<byte[]> all = new ArrayList<>();
    List<Integer> everyRow = visit(ordered, 64, all);
    RowFilter split = RowFilter.validation(ordered, 5);
    RowFilter rest = RowFilter.withoutValidation(ordered, 5);
    List<byte[]> splitBytes = new ArrayList<>();
    List<byte[]> restBytes = new ArrayList<>();
    List<Integer> a = visit(split, 64, splitBytes);
    List<Integer> b = visit(rest, 64, restBytes);
    assertEquals(N, a.size() + b.size());
    assertEquals(split.rows(), a.size());
    assertEquals(rest.rows(), b.size());
    // ~10% (binomial, sd 9.5): 100 +- 48 is five standard deviations
    assertTrue(Math.abs(a.size() - 100) <= 48, a.size() + " validation rows");
    for (int k = 0; k < a.size(); k++) {
      int row = a.get(k);
      assertTrue(RowSplit.validation(5, row), "row " + row);
      assertArrayEquals(all.get(everyRow.indexOf(row)), splitBytes.get(k), "row " + row);
    }
    for (int k = 0; k < b.size(); k++) {
      assertFalse(RowSplit.validation(5, b.get(k)), "row " + b.get(k));
      assertArrayEquals(all.get(everyRow.indexOf(b.get(k))), restBytes.get(k));
    }
    // in order, and the same every epoch
    assertEquals(a.stream().sorted().toList(), a);
    assertEquals(a, visit(split, 17, new ArrayList<>()));
  }
}
