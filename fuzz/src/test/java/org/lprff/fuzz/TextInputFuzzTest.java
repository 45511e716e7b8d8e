package org.lprff.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.arrow.input.RowSources.Format;

/**
 * The text readers (CSV, LIBSVM) and format detection from outside bytes, gzipped or not; rows in
 * batches of 5 so batch boundaries are crossed.
 */
class TextInputFuzzTest {

  private static void read(Path file, RowSources.Options options) {
    Invariant.holds(file, () -> {
      try (RowSource rows = RowSources.open(file, options)) {
        Drain.rows(rows);
      }
    });
  }

  @FuzzTest
  void csv(byte[] input) throws Exception {
    Path file = Invariant.write("table.csv", input);
    read(file, RowSources.Options.defaults().withFormat(Format.CSV).withMaxBatchRows(5)
        .withLabel((input.length & 1) == 0 ? "none" : "last"));
  }

  @FuzzTest
  void libsvm(byte[] input) throws Exception {
    Path file = Invariant.write("rows.libsvm", input);
    // Dimension 0: found in a first pass; else a fixed 4 (indices beyond it are errors).
    read(file, RowSources.Options.defaults().withFormat(Format.LIBSVM).withMaxBatchRows(5)
        .withLibsvmDimension((input.length & 1) == 0 ? 0 : 4));
  }

  /** Any bytes, the format detected from content (gzip, IDX, Arrow, LIBSVM, CSV). */
  @FuzzTest
  void detect(byte[] input) throws Exception {
    Path file = Invariant.write("input.data", input);
    read(file, RowSources.Options.defaults().withMaxBatchRows(5));
  }
}
