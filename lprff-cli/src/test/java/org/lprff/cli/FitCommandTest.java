package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.model.FittedModel;
import org.lprff.report.Json;
import org.lprff.vector.kernel.MedianHeuristic;

/** {@code lprff fit}: raw rows to a model with σ chosen, and {@code featurize --sigma median}. */
class FitCommandTest {

  @TempDir Path dir;

  /**
   * n rows of 3 columns (own offsets and scales) and label sin(3 z0) + z1 / 2 + 0.05 noise, z the
   * standardized columns: a target whose best σ is well below the median distance.
   */
  private static Path csv(Path path, int n, long seed) throws IOException {
    Random r = new Random(seed);
    List<String> lines = new ArrayList<>();
    lines.add("a,b,c,label");
    for (int i = 0; i < n; i++) {
      double z0 = r.nextGaussian();
      double z1 = r.nextGaussian();
      double z2 = r.nextGaussian();
      double y = Math.sin(3 * z0) + z1 / 2 + 0.05 * r.nextGaussian();
      lines.add((10 + 4 * z0) + "," + (-3 + 0.2 * z1) + "," + (100 * z2) + "," + y);
    }
    return Files.write(path, lines);
  }

  @Test
  @SuppressWarnings("unchecked")
  void fitChoosesSigmaAndPredictAppliesTheModelToRawRows() throws IOException {
    Path train = csv(dir.resolve("train.csv"), 2000, 1);
    Path heldout = csv(dir.resolve("heldout.csv"), 500, 2);
    Path model = dir.resolve("m.lprff");
    Cli.Result result = Cli.ok("fit", "--input", train.toString(), "--task", "regression",
        "--features", "512", "--model", model.toString(), "--json");
    Map<String, Object> o = (Map<String, Object>) Json.parse(result.out());
    assertEquals("search", o.get("sigma_rule"));
    List<Map<String, Object>> trials = (List<Map<String, Object>>) o.get("sigma_trials");
    assertTrue(trials.size() >= 12, "9 coarse and 3 fine trials at least: " + trials.size());
    double sigma = ((Number) o.get("sigma")).doubleValue();
    double low = Double.POSITIVE_INFINITY;
    double high = 0;
    int fine = 0;
    for (Map<String, Object> t : trials) {
      if (t.get("stage").equals("fine")) {
        fine++;
        double s = ((Number) t.get("sigma")).doubleValue();
        low = Math.min(low, s);
        high = Math.max(high, s);
        assertEquals(512, ((Number) t.get("features")).intValue(), "fine trials at m");
      }
    }
    assertEquals(5, fine, "five fine trials, an octave either side of the coarse best");
    assertTrue(sigma >= low && sigma <= high, sigma + " outside the fine trials' [" + low + ", "
        + high + "]");
    double median = ((Number) o.get("median_distance")).doubleValue();
    assertTrue(sigma < median, "sin(3 z0) wants sigma below the median distance " + median);
    assertEquals("none", o.get("sigma_edge"));
    assertEquals(512, ((Number) o.get("features")).intValue());
    assertEquals(4, ((Number) o.get("bits")).intValue(), "fit's default bits");
    assertTrue(result.err().contains("choosing sigma: median distance"), result.err());
    assertTrue(result.err().contains("  fine: sigma"), result.err());

    FittedModel fitted = FittedModel.load(model);
    assertEquals(sigma, fitted.spec().kernel().lengthScale());
    assertEquals("search", fitted.training().get("sigma_rule"));

    Path predictions = dir.resolve("p.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", heldout.toString(),
        "--label-column", "label", "--output", predictions.toString());
    List<String> lines = Files.readAllLines(predictions);
    List<String> truth = Files.readAllLines(heldout);
    double mse = 0;
    double variance = 0;
    for (int i = 1; i < lines.size(); i++) {
      String[] row = truth.get(i).split(",");
      double y = Double.parseDouble(row[3]);
      double p = Double.parseDouble(lines.get(i).split(",")[0]);
      mse += (p - y) * (p - y);
      variance += y * y;
    }
    // The target's variance is about 0.75 (0.5 from the sine, 0.25 from z1); its noise 0.0025.
    assertTrue(mse < 0.1 * variance, "heldout MSE " + mse / 500 + ", mean y^2 " + variance / 500);
  }

  @Test
  void aGivenSigmaIsUsedAsIs() throws IOException {
    Path train = csv(dir.resolve("train.csv"), 300, 3);
    Path model = dir.resolve("m.lprff");
    Cli.Result r = Cli.ok("fit", "-i", train.toString(), "--task", "regression", "--sigma",
        "0.7", "--features", "256", "--bits", "8", "-o", model.toString());
    assertTrue(r.out().startsWith("fit: sigma 0.7 (given)"), r.out());
    FittedModel fitted = FittedModel.load(model);
    assertEquals(0.7, fitted.spec().kernel().lengthScale());
    assertEquals(8, fitted.spec().bits());
    assertFalse(fitted.training().containsKey("sigma_search"));
  }

  @Test
  void badInputIsNamed() throws IOException {
    Path train = csv(dir.resolve("train.csv"), 300, 3);
    Path model = dir.resolve("m.lprff");
    Cli.Result r = Cli.run("fit", "-i", train.toString(), "--task", "regression", "--sigma",
        "wide", "-o", model.toString());
    assertEquals(2, r.exitCode());
    assertTrue(r.err().contains("--sigma is 'wide', expected a number > 0, median or auto"),
        r.err());

    Path tiny = csv(dir.resolve("tiny.csv"), 12, 3);
    r = Cli.run("fit", "-i", tiny.toString(), "--task", "regression", "-o", model.toString());
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("validation split of 12 training rows left"), r.err());

    r = Cli.run("fit", "-i", train.toString(), "--task", "classification", "-o",
        model.toString());
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("label of row"), "real-valued labels are no classes: " + r.err());
    assertFalse(Files.exists(model), "no model is written on failure");

    Path csv = dir.resolve("x.csv");
    r = Cli.run("featurize", "-i", train.toString(), "--sigma", "auto", "-o", csv.toString());
    assertEquals(2, r.exitCode());
    assertTrue(r.err().contains("--sigma auto chooses sigma on labelled validation rows"),
        r.err());
  }

  /** --sigma median: the heuristic over the rows the featurizer sees, written as lprff.sigma. */
  @Test
  void featurizeWithTheMedianHeuristic() throws IOException {
    Inputs.Table table = Inputs.Table.random(500, 4, 5);
    Path input = table.writeCsv(dir.resolve("rows.csv"));
    for (boolean standardize : new boolean[] {false, true}) {
      Path out = dir.resolve("f" + standardize + ".arrow");
      List<String> args = new ArrayList<>(List.of("featurize", "-i", input.toString(),
          "--sigma", "median", "--features", "64", "--seed", "9", "-o", out.toString()));
      if (standardize) {
        args.add("--standardize");
      }
      Cli.Result r = Cli.ok(args.toArray(String[]::new));
      float[] rows = standardize ? table.standardized(table.means(), table.stds())
          : table.values();
      MedianHeuristic.Sampler sampler = new MedianHeuristic.Sampler(4, 9);
      sampler.add(rows, 500, 0);
      double expected = sampler.distance();
      double written = FeatureRows.read(out).schema().spec().kernel().lengthScale();
      assertEquals(expected, written, 1e-6 * expected, "standardize " + standardize);
      assertTrue(r.err().contains("the median distance between 2000 seeded pairs of 500 sampled"
          + " rows"), r.err());
    }
  }

  /**
   * Pipes: CSV rows on standard input and the feature stream on standard output are the bytes of
   * the same command on files (--ipc stream); predictions on standard output are the CSV file's
   * text; fit reads its rows from standard input too.
   */
  @Test
  void standardInputAndOutput() throws IOException {
    Path rows = csv(dir.resolve("rows.csv"), 400, 6);
    byte[] csvBytes = Files.readAllBytes(rows);
    Path file = dir.resolve("f.arrows");
    String[] spec = {"--standardize", "--sigma", "median", "--features", "96", "--bits", "4",
        "--projection", "circulant", "--label-column", "label", "--batch-size", "64"};
    List<String> toFile = new ArrayList<>(List.of("featurize", "-i", rows.toString(), "--ipc",
        "stream", "-o", file.toString()));
    toFile.addAll(List.of(spec));
    Cli.ok(toFile.toArray(String[]::new));
    List<String> toPipe = new ArrayList<>(List.of("featurize", "-i", "-", "-o", "-"));
    toPipe.addAll(List.of(spec));
    Cli.Piped piped = Cli.piped(csvBytes, toPipe.toArray(String[]::new));
    assertEquals(0, piped.exitCode(), piped.toString());
    assertTrue(java.util.Arrays.equals(Files.readAllBytes(file), piped.out()),
        "the stream on standard output is the stream file's bytes");
    assertTrue(piped.err().contains("wrote the stream to standard output: 400 rows"),
        piped.err());

    Cli.Piped fileFraming = Cli.piped(csvBytes, "featurize", "-i", "-", "-o", "-", "--ipc",
        "file", "--sigma", "1");
    assertEquals(2, fileFraming.exitCode());
    assertTrue(fileFraming.err().contains("--ipc file with --output -"), fileFraming.err());

    Path model = dir.resolve("m.lprff");
    Cli.Piped fit = Cli.piped(csvBytes, "fit", "-i", "-", "--task", "regression", "--sigma",
        "median", "--features", "128", "-o", model.toString(), "-q");
    assertEquals(0, fit.exitCode(), fit.toString());
    Path predictions = dir.resolve("p.csv");
    Cli.ok("predict", "--model", model.toString(), "-i", rows.toString(), "--label-column",
        "label", "-o", predictions.toString());
    Cli.Piped predicted = Cli.piped(csvBytes, "predict", "--model", model.toString(), "-i", "-",
        "--label-column", "label", "-o", "-");
    assertEquals(0, predicted.exitCode(), predicted.toString());
    assertEquals(Files.readString(predictions),
        new String(predicted.out(), java.nio.charset.StandardCharsets.UTF_8));

    Cli.Piped empty = Cli.piped(new byte[0], "featurize", "-i", "-", "-o", "-", "--sigma", "1");
    assertEquals(1, empty.exitCode());
    assertTrue(empty.err().contains("standard input is empty"), empty.err());
    try (var left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      assertFalse(left.anyMatch(p -> p.getFileName().toString().startsWith("lprff-stdin-")
          && Files.exists(p.resolve("stdin.csv"))), "no spooled input is left behind");
    }
  }
}
