package org.lprff.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.lprff.arrow.FeatureFile;
import org.lprff.arrow.FeatureFileBatches;
import org.lprff.arrow.FeatureFileBatches.Order;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.cli.output.FeatureFileInfo;

/**
 * Feature files from outside bytes, on every path that reads one: Arrow's file reader
 * ({@link FeatureFile}, {@link FeatureFileBatches#reader}), the memory mapping ({@link
 * FeatureFileBatches#mapped}), {@code info}'s validation of the file and stream framings
 * ({@link FeatureFileInfo}), and Arrow files and streams as input rows ({@code ArrowRowSource}).
 * The seeds (FeatureFileFuzzTestInputs/) are small valid files of both framings; see {@link
 * SeedCorpus}.
 */
class FeatureFileFuzzTest {

  /** The order and label reading depend on the input, so every combination is reached. */
  private static Order order(byte[] input) {
    return Order.values()[input.length % 3];
  }

  @FuzzTest
  void reader(byte[] input) throws Exception {
    Path file = Invariant.write("reader.arrow", input);
    BufferAllocator allocator = Invariant.allocator();
    Invariant.holds(file, () -> {
      try (FeatureFile features = FeatureFile.open(file, allocator)) {
        Drain.featureFile(features);
      }
      try (FeatureFileBatches source = FeatureFileBatches.reader(
          file, allocator, order(input), (input.length & 4) != 0)) {
        Drain.batches(source);
      }
    });
    Invariant.closeChecked(allocator);
  }

  @FuzzTest
  void mapped(byte[] input) throws Exception {
    Path file = Invariant.write("mapped.arrow", input);
    Invariant.holds(file, () -> {
      try (FeatureFileBatches source =
          FeatureFileBatches.mapped(file, order(input), (input.length & 4) != 0)) {
        Drain.batches(source);
      }
    });
  }

  @FuzzTest
  void info(byte[] input) throws Exception {
    Path file = Invariant.write("info.arrow", input);
    BufferAllocator allocator = Invariant.allocator();
    Invariant.holds(file, () -> FeatureFileInfo.read(file, allocator));
    Invariant.closeChecked(allocator);
  }

  @FuzzTest
  void arrowRows(byte[] input) throws Exception {
    Path file = Invariant.write("rows.arrow", input);
    BufferAllocator allocator = Invariant.allocator();
    Invariant.holds(file, () -> {
      RowSources.Options options = RowSources.Options.defaults()
          .withFormat(RowSources.Format.ARROW).withAllocator(allocator).withMaxBatchRows(5)
          .withLabel((input.length & 1) == 0 ? "none" : "last");
      try (RowSource rows = RowSources.open(file, options)) {
        Drain.rows(rows);
      }
    });
    Invariant.closeChecked(allocator);
  }
}
