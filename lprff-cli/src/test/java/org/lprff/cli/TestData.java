package org.lprff.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The real data sets of {@code ../shared/data} (from the module directory, the tests' working
 * directory: {@code ../../shared/data}), or of the folder named by the system property {@code
 * lprff.data}. A test that needs them is skipped, with a message, when the folder is absent.
 */
final class TestData {

  private TestData() {}

  static final int DIAMONDS_ROWS = 53_940;

  /** The data folder; skips the calling test when it is absent. */
  static Path dir() {
    String property = System.getProperty("lprff.data");
    Path dir =
        (property != null && !property.isBlank())
            ? Path.of(property)
            : Path.of("../../shared/data");
    Assumptions.assumeTrue(
        Files.isDirectory(dir),
        "skipped: real data folder "
            + dir.toAbsolutePath().normalize()
            + " is absent (set -Dlprff.data=/path/to/shared/data to run this test)");
    return dir;
  }

  static Path file(String name) {
    Path path = dir().resolve(name);
    Assumptions.assumeTrue(Files.isRegularFile(path), "skipped: " + path + " is absent");
    return path;
  }
}
