package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.fixtures.Idx;

/** {@code featurize --rows FROM:TO}: the rows of a range, with their input row ids and bits. */
class RowRangeTest {

  @TempDir Path dir;

  /** 50 IDX images of 2 x 3 random pixels, classes i % 10. */
  private Path[] idx() throws IOException {
    SplittableRandom random = new SplittableRandom(5);
    byte[] pixels = new byte[50 * 6];
    byte[] classes = new byte[50];
    for (int i = 0; i < pixels.length; i++) {
      pixels[i] = (byte) random.nextInt(256);
    }
    for (int i = 0; i < classes.length; i++) {
      classes[i] = (byte) (i % 10);
    }
    Path images = dir.resolve("images.idx");
    Path labels = dir.resolve("labels.idx");
    new Idx.Images(50, 2, 3, pixels, classes).write(images, labels, false);
    return new Path[] {images, labels};
  }

  private Cli.Result featurizeIdx(Path[] idx, Path out, String... more) {
    String[] base = {"featurize", "--input", idx[0].toString(), "--idx-labels", idx[1].toString(),
        "--sigma", "3", "--features", "40", "--bits", "4", "--seed", "9", "--row-ids",
        "--batch-size", "7", "--output", out.toString()};
    String[] args = Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, args, base.length, more.length);
    return Cli.run(args);
  }

  @Test
  void aRangeHasTheWholeFilesRowsIdsLabelsAndBits() throws IOException {
    Path[] idx = idx();
    Path all = dir.resolve("all.arrow");
    Path part = dir.resolve("part.arrow");
    assertEquals(0, featurizeIdx(idx, all).exitCode());
    // Batches of 7 rows: the range starts and ends inside source batches.
    Cli.Result r = featurizeIdx(idx, part, "--rows", "10:35");
    assertEquals(0, r.exitCode(), r.toString());
    assertTrue(r.err().contains("25 rows"), r.err());
    FeatureRows whole = FeatureRows.read(all);
    FeatureRows range = FeatureRows.read(part);
    assertArrayEquals(LongStream.range(10, 35).toArray(), range.rowIds());
    assertArrayEquals(Arrays.copyOfRange(whole.labels(), 10, 35), range.labels());
    for (int i = 0; i < 25; i++) {
      assertArrayEquals(whole.features()[10 + i], range.features()[i], "row " + (10 + i));
    }
    // FROM: runs to the end.
    Path tail = dir.resolve("tail.arrow");
    assertEquals(0, featurizeIdx(idx, tail, "--rows", "44:", "--quiet").exitCode());
    assertArrayEquals(LongStream.range(44, 50).toArray(), FeatureRows.read(tail).rowIds());
    Path one = dir.resolve("one.arrow");
    assertEquals(0, featurizeIdx(idx, one, "--rows", "49:50", "--quiet").exitCode());
    assertArrayEquals(new long[] {49}, FeatureRows.read(one).rowIds());
  }

  @Test
  void standardizeFitsTheRangeOnly() throws IOException {
    Path csv = dir.resolve("all.csv");
    TrainCommandTest.writeCsv(csv, 60, 4, false);
    Path head = dir.resolve("head.csv");
    java.util.List<String> lines = Files.readAllLines(csv);
    // Header + data rows 20..39.
    java.util.List<String> some = new java.util.ArrayList<>(lines.subList(0, 1));
    some.addAll(lines.subList(21, 41));
    Files.write(head, some);
    Path fromRange = dir.resolve("range.arrow");
    Path fromFile = dir.resolve("file.arrow");
    String[] spec = {"--standardize", "--sigma", "2", "--features", "16", "--quiet"};
    Cli.ok(concat(new String[] {"featurize", "--input", csv.toString(), "--rows", "20:40",
        "--output", fromRange.toString()}, spec));
    Cli.ok(concat(new String[] {"featurize", "--input", head.toString(), "--output",
        fromFile.toString()}, spec));
    var a = FeatureRows.read(fromRange).schema().metadata();
    var b = FeatureRows.read(fromFile).schema().metadata();
    assertEquals(b.get("lprff.standardize.mean"), a.get("lprff.standardize.mean"));
    assertEquals(b.get("lprff.standardize.std"), a.get("lprff.standardize.std"));
    assertTrue(a.get("lprff.standardize.mean") != null, a.toString());
  }

  @Test
  void badRangesAreRefusedNamingTheValue() throws IOException {
    Path[] idx = idx();
    Path out = dir.resolve("out.arrow");
    for (String bad : new String[] {"5:3", "5:5", "-1:4", "abc", "10", "1:x"}) {
      Cli.Result r = featurizeIdx(idx, out, "--rows", bad);
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(r.err().contains("--rows is '" + bad + "'"), r.err());
    }
    // IDX knows its size: refused before featurizing.
    Cli.Result r = featurizeIdx(idx, out, "--rows", "40:51");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--rows 40:51 reaches past the end of " + idx[0]), r.err());
    assertTrue(r.err().contains("50 data rows"), r.err());
    r = featurizeIdx(idx, out, "--rows", "50:");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--rows 50: reaches past"), r.err());
    // CSV learns its size at the end: nothing is left at the output.
    Path csv = dir.resolve("x.csv");
    TrainCommandTest.writeCsv(csv, 30, 4, false);
    for (String range : new String[] {"10:31", "30:", "45:60"}) {
      r = Cli.run("featurize", "--input", csv.toString(), "--rows", range, "--sigma", "2",
          "--output", out.toString());
      assertEquals(1, r.exitCode(), r.toString());
      assertTrue(r.err().contains("--rows " + range + " reaches past the end of " + csv
          + ", which has 30 data rows"), r.err());
      assertFalse(Files.exists(out));
    }
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
