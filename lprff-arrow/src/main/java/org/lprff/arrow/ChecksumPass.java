package org.lprff.arrow;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The checksum pass made before training or scoring on feature files: every record batch of every
 * feature file they read checked against its stored CRC32C ({@link BatchChecksums}), so a damaged
 * file stops the run with a message naming the file and the batch instead of training on wrong
 * bytes.
 */
public final class ChecksumPass {

  private ChecksumPass() {}

  /**
   * Verifies each distinct file of {@code sources} (nulls skipped).
   *
   * @return one line for the progress output: files, batches, bytes and time, and any file
   *     written without checksums
   * @throws BatchChecksums.DamagedBatchException naming the first damaged batch
   */
  public static String verify(FeatureFileBatches... sources) throws IOException {
    long start = System.nanoTime();
    Set<Path> seen = new LinkedHashSet<>();
    List<String> without = new ArrayList<>();
    int batches = 0;
    long bytes = 0;
    for (FeatureFileBatches source : sources) {
      if (source == null || !seen.add(source.path().toAbsolutePath().normalize())) {
        continue;
      }
      BatchChecksums.Report report = source.verify();
      batches += report.checked();
      bytes += report.bytes();
      if (!report.complete()) {
        without.add(source.path() + " (" + (report.recordBatches() - report.checked()) + " of "
            + report.recordBatches() + " record batches have no checksum)");
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    String line = String.format(Locale.ROOT,
        "checksums: %d record batches of %d file%s verified (%.1f MB, CRC32C) in %.2f s",
        batches, seen.size(), seen.size() == 1 ? "" : "s", bytes / 1e6, seconds);
    if (!without.isEmpty()) {
      line += "; not verifiable, written without checksums: " + String.join(", ", without);
    }
    return line;
  }
}
