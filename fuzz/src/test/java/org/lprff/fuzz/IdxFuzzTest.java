package org.lprff.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.arrow.input.RowSources.Format;
import org.lprff.fixtures.Idx;

/** IDX images and labels files from outside bytes, each against a valid partner file. */
class IdxFuzzTest {

  /** Three 2x2 images and their labels, valid. */
  private static final Path IMAGES;
  private static final Path LABELS;

  static {
    try {
      IMAGES = Invariant.write("valid-images-idx3-ubyte",
          Idx.file(Idx.IMAGES, new int[] {3, 2, 2}, new byte[12]));
      LABELS = Invariant.write("valid-labels-idx1-ubyte",
          Idx.file(Idx.LABELS, new int[] {3}, new byte[] {0, 1, 2}));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void read(Path images, Path labels, Path fuzzed) {
    RowSources.Options options = RowSources.Options.defaults().withFormat(Format.IDX)
        .withMaxBatchRows(2).withIdxLabels(labels);
    Invariant.holds(fuzzed, () -> {
      try (RowSource rows = RowSources.open(images, options)) {
        Drain.rows(rows);
      }
    });
  }

  @FuzzTest
  void images(byte[] input) throws Exception {
    Path file = Invariant.write("images-idx3-ubyte", input);
    // Odd lengths read the images alone, even ones against three labels.
    read(file, (input.length & 1) == 0 ? LABELS : null, file);
  }

  @FuzzTest
  void labels(byte[] input) throws Exception {
    Path file = Invariant.write("labels-idx1-ubyte", input);
    read(IMAGES, file, file);
  }
}
