package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every failure is one line {@code lprff: <message>} on standard error with exit code 1 (usage
 * errors: 2), no stack trace without --debug, and no output file or temporary left behind.
 */
class ErrorsTest {

  @TempDir Path dir;

  /** Runs, expects {@code code}, one error line containing every fragment, nothing new in dir. */
  private String fails(int code, List<String> fragments, String... args) throws IOException {
    List<String> before = Inputs.list(dir);
    Cli.Result result = Cli.run(args);
    assertEquals(code, result.exitCode(), result.toString());
    assertEquals("", result.out());
    String err = result.err();
    assertTrue(err.startsWith("lprff: "), err);
    for (String fragment : fragments) {
      assertTrue(err.contains(fragment), "missing '" + fragment + "' in: " + err);
    }
    assertFalse(err.contains("\tat "), "no stack trace without --debug: " + err);
    if (code == 1) {
      assertEquals(1, err.lines().count(), "one line: " + err);
    }
    assertEquals(before, Inputs.list(dir), "no output and no temporary file left");
    return err;
  }

  private String[] featurize(Path input, String... more) {
    String[] base = {"featurize", "-i", input.toString(), "--sigma", "1", "-m", "16",
        "-o", dir.resolve("out.arrow").toString()};
    String[] all = Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @Test
  void raggedCsvRowNamesTheLine() throws IOException {
    Path csv = Files.writeString(dir.resolve("ragged.csv"), "a,b,y\n1,2,3\n4,5\n");
    fails(1, List.of("ragged.csv", "line 3"), featurize(csv));
  }

  @Test
  void nonNumericCellNamesLineAndColumn() throws IOException {
    Path csv = Files.writeString(dir.resolve("text.csv"), "a,b,y\n1,2,3\n4,five,6\n");
    fails(1, List.of("text.csv", "line 3", "'b'", "five"), featurize(csv));
  }

  /** A failure after some record batches were written still leaves nothing (atomic writer). */
  @Test
  void badRowAfterManyBatchesLeavesNoOutput() throws IOException {
    StringBuilder text = new StringBuilder("a,b,y\n");
    for (int r = 0; r < 5000; r++) {
      text.append(r).append(',').append(r % 7).append(",1\n");
    }
    text.append("1,oops,2\n");
    Path csv = Files.writeString(dir.resolve("late.csv"), text);
    // --quiet: on a loaded machine the run can pass the 0.5 s progress interval
    fails(1, List.of("line 5002", "oops"), featurize(csv, "--batch-size", "100", "--quiet"));
  }

  /** An output that existed before a failed run keeps its old content. */
  @Test
  void existingOutputIsUntouchedByAFailedRun() throws IOException {
    Path out = Files.writeString(dir.resolve("out.arrow"), "previous content");
    Path csv = Files.writeString(dir.resolve("bad.csv"), "a,b,y\n1,2,3\n4,x,6\n");
    fails(1, List.of("bad.csv", "line 3"), featurize(csv));
    assertEquals("previous content", Files.readString(out));
  }

  @Test
  void headerOnlyCsvHasNoRows() throws IOException {
    Path csv = Files.writeString(dir.resolve("empty.csv"), "a,b,y\n");
    fails(1, List.of("empty.csv", "no data rows"), featurize(csv));
    fails(1, List.of("empty.csv", "no data rows"), featurize(csv, "--standardize"));
  }

  @Test
  void emptyFile() throws IOException {
    Path csv = Files.writeString(dir.resolve("nothing.csv"), "");
    fails(1, List.of("nothing.csv", "empty"), featurize(csv));
  }

  @Test
  void missingInput() throws IOException {
    fails(1, List.of("no such file", "absent.csv"), featurize(dir.resolve("absent.csv")));
  }

  @Test
  void nonIntegerClassLabel() throws IOException {
    Path csv = Files.writeString(dir.resolve("classes.csv"), "a,y\n1,0\n2,1.5\n");
    fails(1, List.of("classes.csv", "label of row 1 is 1.5", "not a class index"),
        featurize(csv, "--label-type", "classes"));
  }

  @Test
  void missingOutputDirectory() throws IOException {
    Path csv = Files.writeString(dir.resolve("x.csv"), "a,y\n1,0\n");
    fails(1, List.of("directory", "does not exist"), "featurize", "-i", csv.toString(),
        "--sigma", "1", "-o", dir.resolve("no/such/dir/out.arrow").toString());
  }

  @Test
  void outputMustNotBeTheInput() throws IOException {
    Path csv = Files.writeString(dir.resolve("x.csv"), "a,y\n1,0\n");
    fails(1, List.of("also an input"), "featurize", "-i", csv.toString(), "--sigma", "1",
        "-o", csv.toString());
  }

  /** A feature file cut short: info and --like refuse it, naming the file. */
  @ParameterizedTest(name = "IPC {0}")
  @ValueSource(strings = {"file", "stream"})
  void truncatedFeatureFile(String ipc) throws IOException {
    Path csv = Inputs.Table.random(100, 3, 1).writeCsv(dir.resolve("x.csv"));
    Path good = dir.resolve("good.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--sigma", "1", "-m", "64", "--batch-size", "10",
        "--ipc", ipc, "-o", good.toString(), "-q");
    byte[] bytes = Files.readAllBytes(good);
    for (int keep : new int[] {bytes.length / 2, bytes.length - 8, bytes.length - 1, 7}) {
      Path cut = dir.resolve("cut-" + keep + ".arrow");
      Files.write(cut, Arrays.copyOf(bytes, keep));
      fails(1, List.of(cut.toString()), "info", cut.toString());
      fails(1, List.of(cut.toString()), "featurize", "-i", csv.toString(), "--like",
          cut.toString(), "-o", dir.resolve("out.arrow").toString());
    }
  }

  /** Flipped bytes inside the footer or a message are refused too. */
  @Test
  void corruptFeatureFile() throws IOException {
    Path csv = Inputs.Table.random(30, 3, 1).writeCsv(dir.resolve("x.csv"));
    Path good = dir.resolve("good.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--sigma", "1", "-m", "64", "-o", good.toString(),
        "-q");
    byte[] bytes = Files.readAllBytes(good);
    bytes[bytes.length - 20] ^= 0x5a; // inside the footer
    Path corrupt = Files.write(dir.resolve("corrupt.arrow"), bytes);
    fails(1, List.of(corrupt.toString()), "info", corrupt.toString());
  }

  @Test
  void notAFeatureFile() throws IOException {
    Path csv = Files.writeString(dir.resolve("x.csv"), "a,y\n1,0\n");
    fails(1, List.of("x.csv", "not an Arrow IPC file or stream"), "info", csv.toString());
    Path empty = Files.write(dir.resolve("empty.arrow"), new byte[0]);
    fails(1, List.of("empty.arrow", "empty"), "info", empty.toString());
    fails(1, List.of("no such file"), "info", dir.resolve("absent.arrow").toString());
  }

  /** An Arrow file that is not a feature file (input rows, say) is named as such. */
  @Test
  void arrowFileWithoutLprffMetadata() throws IOException {
    Path csv = Inputs.Table.random(5, 2, 1).writeCsv(dir.resolve("x.csv"));
    Path features = dir.resolve("f.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--sigma", "1", "-m", "8", "-o",
        features.toString(), "-q");
    // Reuse the file as --input of another run: it is valid Arrow input, but not lprff rows.
    fails(1, List.of("f.arrow"), "featurize", "-i", features.toString(), "--sigma", "1",
        "-o", dir.resolve("out.arrow").toString());
  }

  @Test
  void usageErrorsExitWithTwo() throws IOException {
    Path csv = Files.writeString(dir.resolve("x.csv"), "a,y\n1,0\n");
    String out = dir.resolve("out.arrow").toString();
    fails(2, List.of("Missing required option", "--output"), "featurize", "-i", csv.toString(),
        "--sigma", "1");
    fails(2, List.of("Missing required option", "--input"), "featurize", "-o", out);
    fails(2, List.of("--sigma is required"), "featurize", "-i", csv.toString(), "-o", out);
    fails(2, List.of("--bits is 3; expected 1, 2, 4, 8, 16 or 32 (float32)"), "featurize", "-i", csv.toString(), "--sigma", "1",
        "--bits", "3", "-o", out);
    fails(2, List.of("Unknown option", "--sigmaa"), "featurize", "-i", csv.toString(),
        "--sigmaa", "1", "-o", out);
    fails(2, List.of("projection 'circulant' needs a Gaussian"), "featurize", "-i",
        csv.toString(), "--kernel", "laplacian", "--sigma", "1", "--projection", "circulant",
        "-o", out);
    fails(2, List.of("--nu", "--length-scale"), "featurize", "-i", csv.toString(), "--kernel",
        "matern", "-o", out);
    fails(2, List.of("--ipc is 'arrow'"), "featurize", "-i", csv.toString(), "--sigma", "1",
        "--ipc", "arrow", "-o", out);
    fails(2, List.of("--label-column last does not apply to LIBSVM"), "featurize", "-i",
        Files.writeString(dir.resolve("x.libsvm"), "1 1:2\n").toString(), "--label-column",
        "last", "--sigma", "1", "-o", out);
    String usage = fails(2, List.of("Invalid value", "--features"), "featurize", "-i",
        csv.toString(), "--sigma", "1", "--features", "many", "-o", out);
    assertTrue(usage.contains("Try 'lprff featurize --help'"), usage);
    fails(2, List.of("missing a command"));
  }

  @Test
  void debugPrintsTheStackTrace() throws IOException {
    Cli.Result result = Cli.run("info", dir.resolve("absent.arrow").toString(), "--debug");
    assertEquals(1, result.exitCode());
    assertTrue(result.err().startsWith("lprff: no such file: "), result.err());
    assertTrue(result.err().contains("\tat "), "a stack trace: " + result.err());
  }
}
