package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.io.OutputFaults;
import org.lprff.fixtures.FullDisk;

/**
 * A full disk, a failing fsync and a failing rename under featurize's feature file, train's model
 * and predict's CSV (lprff-arrow's test seam, {@link OutputFaults}, where a small file system
 * cannot be mounted): exit code 1, one line naming the output and the system's reason, nothing at
 * the output path (an older complete file there stays byte for byte), no temporary sibling left,
 * and no Arrow memory leaked (the run again with --debug prints no leak among the failure's
 * suppressed exceptions: a command's allocator that closes with bytes still held throws).
 */
class DiskFaultsTest {

  @TempDir Path dir;

  @AfterEach
  void clearTheFaults() {
    OutputFaults.clear();
  }

  private Path featurize(String name) throws IOException {
    Path csv = Inputs.Table.random(1500, 4, 11).writeCsv(dir.resolve(name + ".csv"));
    Path features = dir.resolve(name + ".arrow");
    Cli.ok(featurizeArgs(csv, features));
    return features;
  }

  private static String[] featurizeArgs(Path csv, Path features) {
    return new String[] {"featurize", "--input", csv.toString(), "--label-column", "label",
        "--standardize", "--sigma", "2", "--features", "256", "--bits", "4", "--projection",
        "circulant", "--seed", "3", "--batch-size", "256", "--output", features.toString(),
        "--quiet"};
  }

  @Test
  void featurize() throws IOException {
    Path csv = Inputs.Table.random(1500, 4, 11).writeCsv(dir.resolve("rows.csv"));
    failEverywhere(dir.resolve("rows.arrow"), featurizeArgs(csv, dir.resolve("rows.arrow")));
  }

  @Test
  void train() throws IOException {
    Path features = featurize("train");
    Path model = dir.resolve("model.lprff");
    failEverywhere(model, "train", "--train", features.toString(), "--heldout",
        features.toString(), "--task", "regression",
        "--solver", "sgd", "--epochs", "2", "--model", model.toString(), "--quiet");
  }

  @Test
  void predict() throws IOException {
    Path features = featurize("train");
    Path model = dir.resolve("model.lprff");
    Cli.ok("train", "--train", features.toString(), "--heldout",
        features.toString(), "--task", "regression", "--solver", "sgd",
        "--epochs", "2", "--model", model.toString(), "--quiet");
    Path csv = Inputs.Table.random(3000, 4, 12).writeCsv(dir.resolve("new.csv"));
    Path predictions = dir.resolve("predictions.csv");
    failEverywhere(predictions, "predict", "--model", model.toString(), "--input",
        csv.toString(), "--label-column", "label", "--output", predictions.toString());
  }

  /**
   * Runs the command once whole to learn its output's size n, then under a disk full at byte 0,
   * in the header (8), in the middle, in the footer (n - 16, n - 1), a failing fsync and a
   * failing rename: each onto an absent output and onto the older complete one.
   */
  private void failEverywhere(Path target, String... args) throws IOException {
    Cli.ok(args);
    byte[] older = Files.readAllBytes(target);
    long n = older.length;
    Files.delete(target);
    List<Path> inputs = listing();
    List<String> faults = new ArrayList<>();
    for (long at : new long[] {0, 8, n / 2, n - 16, n - 1}) {
      faults.add("full at " + at);
    }
    faults.add("fsync");
    faults.add("rename");
    List<String> debug = new ArrayList<>(List.of(args));
    debug.add("--debug");
    for (String fault : faults) {
      for (boolean existing : new boolean[] {false, true}) {
        String where = args[0] + ", " + fault + (existing ? ", over an older file" : "");
        for (String[] run : List.of(args, debug.toArray(String[]::new))) {
          if (existing) {
            Files.write(target, older);
          }
          inject(fault);
          Cli.Result result = Cli.run(run);
          OutputFaults.clear();
          assertEquals(1, result.exitCode(), where + "\n" + result);
          String first = result.err().lines().findFirst().orElse("");
          if (fault.equals("rename")) {
            assertTrue(first.startsWith("lprff: " + target + ": could not rename the complete ."
                + target.getFileName() + ".tmp-"), where + "\n" + result);
            assertTrue(first.endsWith(" onto it: Read-only file system"), where + "\n" + result);
          } else {
            assertEquals("lprff: " + target + ": "
                + (fault.equals("fsync") ? FullDisk.IO_ERROR : FullDisk.NO_SPACE), first,
                where + "\n" + result);
          }
          if (run == args) {
            assertEquals(1, result.err().lines().count(), where + "\n" + result);
          } else {
            assertFalse(result.err().contains("leaked"), where + "\n" + result);
          }
          if (existing) {
            assertArrayEquals(older, Files.readAllBytes(target), where + ": the older file");
            Files.delete(target);
          }
          assertEquals(inputs, listing(), where + ": files left behind");
        }
      }
    }
  }

  private static void inject(String fault) {
    switch (fault) {
      case "fsync" -> OutputFaults.failingFsync();
      case "rename" -> OutputFaults.failingRename();
      default -> OutputFaults.fullAfter(Long.parseLong(fault.substring("full at ".length())));
    }
  }

  private List<Path> listing() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().toList();
    }
  }
}
