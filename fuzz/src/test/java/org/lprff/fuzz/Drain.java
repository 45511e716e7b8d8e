package org.lprff.fuzz;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.lprff.arrow.FeatureFile;
import org.lprff.arrow.FeatureFileBatches;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowSource;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;

/**
 * Reads what a reader returned to its end and touches every value, so a reader that hands out a
 * view past its data fails here (as it would in the caller) rather than passing unnoticed.
 */
final class Drain {

  private Drain() {}

  /** Every record batch of {@code file}, each byte of its columns. */
  static long featureFile(FeatureFile file) throws IOException {
    long sum = file.rowCount() + file.spec().features();
    for (int i = 0; i < file.batchCount(); i++) {
      FeatureFile.Batch batch = file.read(i);
      sum += batch.rows() + bytes(batch.features()) + bytes(batch.labels()) + bytes(batch.rowIds());
    }
    return sum;
  }

  /** Two epochs (the second reshuffled) of mini-batches of 3 rows, every row decoded. */
  static long batches(FeatureFileBatches source) {
    long sum = 0;
    for (int epoch = 0; epoch < 2; epoch++) {
      try (MiniBatchSource.Batches batches = source.epoch(epoch, 3, 11L)) {
        while (batches.hasNext()) {
          MiniBatch batch = batches.next();
          float[] row = new float[batch.features().features()];
          for (int r = 0; r < batch.rows(); r++) {
            batch.features().decode(r, row, 0);
            for (float v : row) {
              sum += Float.floatToRawIntBits(v);
            }
          }
        }
      }
    }
    return sum;
  }

  /** Every row batch of {@code source}, each value and label. */
  static long rows(RowSource source) throws IOException {
    long sum = source.columns() + source.columnNames().size();
    for (RowBatch batch = source.next(); batch != null; batch = source.next()) {
      for (int r = 0; r < batch.rows(); r++) {
        for (int c = 0; c < batch.columns(); c++) {
          sum += Float.floatToRawIntBits(batch.value(r, c));
        }
        if (batch.hasLabels()) {
          sum += Float.floatToRawIntBits(batch.label(r));
        }
      }
    }
    return sum;
  }

  private static long bytes(MemorySegment segment) {
    if (segment == null) {
      return 0;
    }
    long sum = 0;
    for (long i = 0; i < segment.byteSize(); i++) {
      sum += segment.get(ValueLayout.JAVA_BYTE, i);
    }
    return sum;
  }
}
