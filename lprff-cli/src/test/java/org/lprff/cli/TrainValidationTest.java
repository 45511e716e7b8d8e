package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --validation} (early stopping on a validation file, heldout only evaluated at the
 * end) and {@code train --classes K}, on TrainCommandTest's three-sector problem: 1500 training,
 * 500 validation and 500 heldout rows (seeds 1, 3, 2), m = 512 at 8 bits. Deterministic.
 */
class TrainValidationTest {

  @TempDir Path dir;

  /** train, validation, heldout feature files (the latter two --like the first). */
  private Path[] files() throws IOException {
    Path[] out = new Path[3];
    String[] names = {"train", "validation", "heldout"};
    int[] rows = {1500, 500, 500};
    long[] seeds = {1, 3, 2};
    for (int i = 0; i < 3; i++) {
      Path csv = dir.resolve(names[i] + ".csv");
      TrainCommandTest.writeCsv(csv, rows[i], seeds[i], true);
      out[i] = dir.resolve(names[i] + ".arrow");
      if (i == 0) {
        Cli.ok("featurize", "--input", csv.toString(), "--label-column", "y", "--label-type",
            "classes", "--standardize", "--sigma", "2", "--features", "512", "--bits", "8",
            "--projection", "circulant", "--seed", "3", "--output", out[i].toString(), "--quiet");
      } else {
        Cli.ok("featurize", "--input", csv.toString(), "--label-column", "y", "--like",
            out[0].toString(), "--output", out[i].toString(), "--quiet");
      }
    }
    return out;
  }

  private static String json(Cli.Result r) {
    return TrainCommandTest.lastLine(r.out());
  }

  @Test
  void validationStopsTrainingAndHeldoutIsOnlyScored() throws IOException {
    Path[] f = files();
    String train = f[0].toString();
    String validation = f[1].toString();
    String heldout = f[2].toString();
    Path model = dir.resolve("m.lprff");
    Cli.Result split = Cli.ok("train", "--train", train, "--validation", validation, "--heldout",
        heldout, "--task", "classification", "--solver", "sgd", "--model", model.toString(),
        "--json");
    String js = json(split);
    assertTrue(js.contains("\"early_stopping\":\"validation\""), js);
    assertEquals(500, TrainCommandTest.jsonNumber(js, "validation_rows"), js);
    assertTrue(split.err().contains("validation loss"), split.err());
    assertFalse(split.err().contains("heldout loss"), split.err());

    // The same training with the validation file as the (old-style) heldout file: the same
    // epochs and the same validation metric, so the heldout file did not steer training.
    String old = json(Cli.ok("train", "--train", train, "--heldout", validation, "--task",
        "classification", "--solver", "sgd", "--json", "--quiet"));
    assertTrue(old.contains("\"early_stopping\":\"heldout\""), old);
    assertFalse(old.contains("validation_rows"), old);
    for (String key : new String[] {"epochs", "best_epoch", "halvings", "final_lr"}) {
      assertEquals(TrainCommandTest.jsonNumber(old, key), TrainCommandTest.jsonNumber(js, key),
          key);
    }
    assertEquals(TrainCommandTest.jsonNumber(old, "heldout_error_rate"),
        TrainCommandTest.jsonNumber(js, "validation_error_rate"));
    // Swapping the heldout file changes nothing but the heldout metrics.
    String swapped = json(Cli.ok("train", "--train", train, "--validation", validation,
        "--heldout", train, "--task", "classification", "--solver", "sgd", "--json", "--quiet"));
    assertEquals(TrainCommandTest.jsonNumber(js, "epochs"),
        TrainCommandTest.jsonNumber(swapped, "epochs"));
    assertEquals(TrainCommandTest.jsonNumber(js, "validation_error_rate"),
        TrainCommandTest.jsonNumber(swapped, "validation_error_rate"));
    assertEquals(TrainCommandTest.jsonNumber(js, "best_epoch"),
        TrainCommandTest.jsonNumber(swapped, "best_epoch"));

    // The reported heldout error is the final model's on the heldout file.
    String eval = json(Cli.ok("evaluate", "--model", model.toString(), "--data", heldout,
        "--json"));
    double error = TrainCommandTest.jsonNumber(js, "heldout_error_rate");
    assertEquals(error, TrainCommandTest.jsonNumber(eval, "error_rate"), 1e-12);
    assertTrue(error < 0.15, "heldout error " + error);

    String text = Cli.ok("train", "--train", train, "--validation", validation, "--heldout",
        heldout, "--task", "classification", "--solver", "sgd").out();
    assertTrue(text.matches("(?s)validation error rate 0\\.\\d{4} \\(early stopping\\); heldout"
        + " error rate 0\\.\\d{4}.*"), text);
  }

  @Test
  void aValidationFileWithAnotherSpecIsRefused() throws IOException {
    Path[] f = files();
    Path other = dir.resolve("other.arrow");
    Cli.ok("featurize", "--input", dir.resolve("validation.csv").toString(), "--label-column",
        "y", "--label-type", "classes", "--sigma", "2", "--features", "512", "--bits", "4",
        "--projection", "circulant", "--seed", "3", "--output", other.toString(), "--quiet");
    Cli.Result r = Cli.run("train", "--train", f[0].toString(), "--validation",
        other.toString(), "--heldout", f[2].toString(), "--task", "classification");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("validation " + other + " was not featurized like " + f[0]),
        r.err());
  }

  @Test
  void declaredClassesSizeTheModelAndMustCoverTheLabels() throws IOException {
    Path[] f = files();
    Path model = dir.resolve("k5.lprff");
    String js = json(Cli.ok("train", "--train", f[0].toString(), "--heldout", f[2].toString(),
        "--task", "classification", "--classes", "5", "--model", model.toString(), "--json",
        "--quiet"));
    assertEquals(5, TrainCommandTest.jsonNumber(js, "classes"), js);
    // 5 outputs, of which classes 3 and 4 never occur: still a good 3-class classifier.
    assertTrue(TrainCommandTest.jsonNumber(js, "heldout_error_rate") < 0.15, js);
    String eval = json(Cli.ok("evaluate", "--model", model.toString(), "--data",
        f[2].toString(), "--json"));
    assertEquals(TrainCommandTest.jsonNumber(js, "heldout_error_rate"),
        TrainCommandTest.jsonNumber(eval, "error_rate"), 1e-12);

    Cli.Result r = Cli.run("train", "--train", f[0].toString(), "--heldout", f[2].toString(),
        "--task", "classification", "--classes", "2");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("declared classes 2, but " + f[0] + " has class 2 (labels must be"
        + " in [0, 1])"), r.err());
    for (String k : new String[] {"1", "0", "-3"}) {
      r = Cli.run("train", "--train", f[0].toString(), "--heldout", f[2].toString(), "--task",
          "classification", "--classes", k);
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(r.err().contains("--classes is " + k + ", expected >= 2"), r.err());
    }
    r = Cli.run("train", "--train", f[0].toString(), "--heldout", f[2].toString(), "--task",
        "regression", "--classes", "3");
    assertEquals(2, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--classes is 3, expected only with --task classification"),
        r.err());
  }
}
