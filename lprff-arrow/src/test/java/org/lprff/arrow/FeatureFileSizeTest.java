package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * Bytes on disk per row at m = 4096: a file is its packed rows (ceil(m b / 8) bytes, 4 m for
 * b = 32) plus the 8-byte row id of each row, plus a fixed overhead (magic, schema message and
 * footer with the metadata, record batch header, padding). Non-nullable columns are written
 * without validity bitmaps, so nothing else grows with the rows.
 */
class FeatureFileSizeTest extends ArrowTestBase {

  private static final int M = 4096;

  @TempDir Path dir;

  private long size(FeaturizerSpec spec, int rows) throws IOException {
    Path file = dir.resolve("m" + spec.features() + "-b" + spec.bits() + "-" + rows + ".arrow");
    // One record batch per file, so both sizes have the same framing.
    FeatureTestData.write(file, spec, LabelType.NONE, rows, rows, FeatureWriter.Format.FILE, null, allocator);
    return Files.size(file);
  }

  @Test
  void eachRowCostsItsPackedBytesAndItsRowIdOnly() throws IOException {
    for (int bits : FeatureTestData.BITS) {
      FeaturizerSpec spec = FeatureTestData.spec(bits, M);
      long perRow = (bits == 32 ? 4L * M : (long) M * bits / 8) + 8;
      long small = size(spec, 64);
      long large = size(spec, 128);
      // The two files differ by 64 rows; buffer padding to 8 bytes may add up to 7 bytes to
      // each of the two buffers (features, row ids), so the difference is exact to 14 bytes.
      long marginal = large - small;
      assertTrue(Math.abs(marginal - 64 * perRow) <= 14,
          "bits " + bits + ": 64 more rows cost " + marginal + " bytes, expected " + 64 * perRow);
      // Measured about 1.9 KiB (metadata twice: schema message and footer); 4 KiB leaves room
      // for new metadata keys without hiding a per-row cost.
      long fixed = small - 64 * perRow;
      assertTrue(fixed >= 0 && fixed < 4096, "bits " + bits + ": fixed overhead " + fixed);
    }
  }
}
