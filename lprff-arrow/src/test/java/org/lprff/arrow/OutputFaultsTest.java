package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.io.AtomicWrite;
import org.lprff.arrow.io.OutputFaults;
import org.lprff.fixtures.FullDisk;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.arrow.model.FittedModel;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.loss.Task;

/**
 * A full disk, a failing fsync and a failing rename under each writer of outputs (feature files in
 * both framings, model files, whole byte arrays), through {@link AtomicWrite}'s test seam ({@link
 * OutputFaults}): the failure names the target and the system's reason, nothing appears at the
 * target (an older file there stays byte for byte), no temporary sibling is left, and no Arrow
 * memory is held (the allocator of {@link ArrowTestBase}; the model writer's own allocator would
 * add a leak to the failure's suppressed exceptions).
 */
class OutputFaultsTest extends ArrowTestBase {

  @TempDir Path dir;

  @AfterEach
  void removeTheFaults() {
    OutputFaults.clear();
  }

  /** Writes one output to {@code target}. */
  private interface Output {
    void write(Path target) throws IOException;
  }

  @Test
  void featureFilesInBothFramings() throws IOException {
    for (FeatureWriter.Format format : FeatureWriter.Format.values()) {
      FeaturizerSpec spec = FeatureTestData.spec(4, 300);
      FeatureSchema schema = FeatureSchema.of(spec, LabelType.REGRESSION, true);
      float[] rows = FeatureTestData.rows(200, 1);
      float[] labels = FeatureTestData.labels(LabelType.REGRESSION, 200, 2);
      failEverywhere("features-" + format + ".arrow", target -> FeatureWriter.builder(
              target, Featurizer.of(spec), schema, allocator)
          .format(format).batchSize(64).write(FeatureTestData.source(rows, labels, 50)));
    }
  }

  @Test
  void modelFiles() throws IOException {
    FeaturizerSpec spec = FeatureTestData.spec(8, 500);
    SplittableRandom random = new SplittableRandom(5);
    float[] wT = new float[3 * 500];
    for (int i = 0; i < wT.length; i++) {
      wT[i] = (float) random.nextGaussian();
    }
    FittedModel model = new FittedModel(spec, null, Task.multiclass(3), 1e-4,
        LinearModel.of(500, 3, wT, new float[] {1, 2, 3}), Map.of("epochs", "2"));
    failEverywhere("model.lprff", model::save);
  }

  @Test
  void wholeByteArrays() throws IOException {
    byte[] bytes = new byte[10_000];
    new SplittableRandom(6).nextBytes(bytes);
    failEverywhere("summary.md", target -> AtomicWrite.write(target, bytes));
  }

  /**
   * Writes the output once whole to learn its size n, then fails it at byte 0, in the header
   * (8), in the middle, in the footer (n - 16, n - 1), at the fsync and at the rename: each
   * time once onto an absent target and once onto an older complete file.
   */
  private void failEverywhere(String name, Output output) throws IOException {
    Path whole = dir.resolve("whole-" + name);
    output.write(whole);
    byte[] older = Files.readAllBytes(whole);
    long n = older.length;
    List<String> faults = new ArrayList<>();
    for (long at : new long[] {0, 8, n / 2, n - 16, n - 1}) {
      faults.add("full at " + at);
    }
    faults.add("fsync");
    faults.add("rename");
    for (String fault : faults) {
      for (boolean existing : new boolean[] {false, true}) {
        Path target = dir.resolve(name);
        if (existing) {
          Files.write(target, older);
        }
        inject(fault);
        IOException e = assertThrows(IOException.class, () -> output.write(target), fault);
        OutputFaults.clear();
        String where = name + ", " + fault + (existing ? ", over an older file" : "");
        FileSystemException named = assertInstanceOf(FileSystemException.class, e, where);
        assertEquals(target.toString(), named.getFile(), where);
        String reason = fault.startsWith("full") ? FullDisk.NO_SPACE
            : fault.equals("fsync") ? FullDisk.IO_ERROR : "Read-only file system";
        assertTrue(named.getReason().contains(reason), where + ": " + named.getReason());
        for (Throwable suppressed : e.getSuppressed()) {
          assertTrue(!String.valueOf(suppressed.getMessage()).contains("leak"),
              where + ": " + suppressed);
        }
        assertEquals(0, allocator.getAllocatedMemory(), where + ": Arrow memory held");
        if (existing) {
          assertArrayEquals(older, Files.readAllBytes(target), where + ": the older file changed");
          Files.delete(target);
        }
        assertEquals(List.of(whole), listing(), where + ": files left behind");
      }
    }
    Files.delete(whole);
  }

  /** Injects the fault named: a disk full after n bytes, a failing fsync, or a failing rename. */
  private static void inject(String fault) {
    if (fault.startsWith("full at ")) {
      OutputFaults.fullAfter(Long.parseLong(fault.substring(8)));
    } else if (fault.equals("fsync")) {
      OutputFaults.failingFsync();
    } else if (fault.equals("rename")) {
      OutputFaults.failingRename();
    } else {
      throw new IllegalArgumentException(fault);
    }
  }

  private List<Path> listing() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}
