package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code predict --draws}: the spread columns beside the full-precision prediction, and the
 * refusals (the statistics themselves are PredictionSpreadTest's, in lprff-vector).
 */
class PredictDrawsTest {

  @TempDir Path dir;

  /** A model trained on the synthetic rows of {@link TrainCommandTest} at {@code bits}. */
  Path model(String name, boolean classes, int bits, String quantizer) throws IOException {
    Path trainCsv = dir.resolve(name + "-train.csv");
    TrainCommandTest.writeCsv(trainCsv, 800, 1, classes);
    Path train = dir.resolve(name + "-train.arrow");
    Cli.ok("featurize", "--input", trainCsv.toString(), "--label-column", "y", "--label-type",
        classes ? "classes" : "regression", "--standardize", "--sigma", "2", "--features", "256",
        "--bits", Integer.toString(bits), "--quantizer", quantizer, "--seed", "3", "--output",
        train.toString(), "--quiet");
    Path model = dir.resolve(name + ".lprff");
    Cli.ok("train", "--train", train.toString(), "--heldout", train.toString(), "--task",
        classes ? "classification" : "regression", "--model", model.toString(), "--quiet");
    return model;
  }

  Path heldout(boolean classes) throws IOException {
    Path csv = dir.resolve("heldout-" + classes + ".csv");
    TrainCommandTest.writeCsv(csv, 400, 2, classes);
    return csv;
  }

  /**
   * Regression at 2 bits, K = 16: the prediction column is plain predict's; sd_exact <=
   * sd_bound; lo <= mean <= hi; and pooled over the 400 rows, sum 15 sd^2 / sd_exact^2 is
   * chi-square with 6000 degrees of freedom (PredictionSpreadTest): within 6 standard deviations
   * (+10% for kurtosis), 0.12 of 1.
   */
  @Test
  void regressionWritesTheSpreadBesideThePrediction() throws IOException {
    Path model = model("reg", false, 2, "stochastic");
    Path input = heldout(false);
    Path plain = dir.resolve("plain.csv");
    Path spread = dir.resolve("spread.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", input.toString(),
        "--label-column", "y", "--output", plain.toString());
    Cli.ok("predict", "--model", model.toString(), "--input", input.toString(),
        "--label-column", "y", "--output", spread.toString(), "--draws", "16", "--level", "0.9");
    List<String> lines = Files.readAllLines(spread);
    List<String> plainLines = Files.readAllLines(plain);
    assertEquals("prediction,mean,sd,lo,hi,sd_exact,sd_bound", lines.get(0));
    assertEquals(401, lines.size());
    double t = 0;
    for (int i = 1; i < lines.size(); i++) {
      String[] c = lines.get(i).split(",");
      assertEquals(7, c.length, lines.get(i));
      assertEquals(plainLines.get(i), c[0]);
      double mean = Double.parseDouble(c[1]);
      double sd = Double.parseDouble(c[2]);
      double exact = Double.parseDouble(c[5]);
      double lo = Double.parseDouble(c[3]);
      assertTrue(lo <= mean && mean <= Double.parseDouble(c[4]), lines.get(i));
      assertTrue(exact > 0 && exact <= Double.parseDouble(c[6]), lines.get(i));
      t += 15 * sd * sd / (exact * exact);
    }
    double ratio = t / 6000;
    assertTrue(Math.abs(ratio - 1) <= 6.6 * Math.sqrt(2.0 / 6000), "T / df = " + ratio);
  }

  /** Three classes at 1 bit: the class column is plain predict's; some draws disagree. */
  @Test
  void classificationWritesTheAgreementAndTheClassProbability() throws IOException {
    Path model = model("cls", true, 1, "stochastic");
    Path input = heldout(true);
    Path out = dir.resolve("cls.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", input.toString(),
        "--label-column", "y", "--output", out.toString(), "--draws", "8", "--probabilities");
    List<String> lines = Files.readAllLines(out);
    assertEquals("class,p0,p1,p2,agreement,p_mean,p_lo,p_hi,score,score_mean,score_sd,score_lo,"
        + "score_hi,score_sd_exact,score_sd_bound", lines.get(0));
    int disagreeing = 0;
    for (int i = 1; i < lines.size(); i++) {
      String[] c = lines.get(i).split(",");
      assertEquals(15, c.length, lines.get(i));
      double agreement = Double.parseDouble(c[4]);
      assertTrue(agreement >= 0 && agreement <= 1, lines.get(i));
      assertEquals(0, agreement * 8 - Math.rint(agreement * 8), 1e-6, lines.get(i));
      // p of the predicted class at full precision is the largest of p0..p2
      double p = Double.parseDouble(c[1 + Integer.parseInt(c[0])]);
      assertTrue(p >= Double.parseDouble(c[1]) && p >= Double.parseDouble(c[2])
          && p >= Double.parseDouble(c[3]), lines.get(i));
      assertTrue(Double.parseDouble(c[6]) <= Double.parseDouble(c[7]), lines.get(i));
      disagreeing += agreement < 1 ? 1 : 0;
    }
    assertTrue(disagreeing > 0, "1-bit draws never changed a class");
  }

  @Test
  void refusesWhatHasNoSpreadNamingTheFix() throws IOException {
    Path stochastic = model("s", false, 4, "stochastic");
    Path nearest = model("n", false, 4, "nearest");
    Path input = heldout(false);
    Path out = dir.resolve("p.csv");
    String[][] cases = {
      {stochastic.toString(), "--draws", "1", "draws is 1"},
      {stochastic.toString(), "--draws", "4", "--level", "1.5", "level is 1.5"},
      {stochastic.toString(), "--draws", "4", "--quantized", "drop --quantized"},
      {nearest.toString(), "--draws", "4", "quantizer nearest is deterministic"},
    };
    for (String[] c : cases) {
      String[] args = new String[c.length - 1 + 8];
      String[] base = {"predict", "--model", c[0], "--input", input.toString(), "--label-column",
          "y", "--output"};
      System.arraycopy(base, 0, args, 0, base.length);
      args[base.length] = out.toString();
      System.arraycopy(c, 1, args, base.length + 1, c.length - 2);
      args = java.util.Arrays.copyOf(args, base.length + c.length - 1);
      Cli.Result r = Cli.run(args);
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(r.err().contains(c[c.length - 1]), r.err());
      assertFalse(Files.exists(out), String.join(" ", args));
    }
    Cli.Result r = Cli.run("predict", "--model", nearest.toString(), "--input", input.toString(),
        "--label-column", "y", "--output", out.toString(), "--draws", "4");
    assertTrue(r.err().contains("drop --draws"), r.err());
  }
}
