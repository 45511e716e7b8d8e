package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The quantizers of issue 17 through the command line, on {@link TrainCommandTest}'s synthetic
 * regression (1500 train, 500 heldout rows): featurize writes what info shows, train fits the
 * model the spec's reader sees (m / block weights for Sigma-Delta), and predict scores raw rows
 * of a deterministic quantizer at its own bits, so its MSE is evaluate's on the heldout file.
 */
class QuantizerCommandsTest {

  @TempDir static Path dir;
  static Path trainCsv;
  static Path heldoutCsv;

  @BeforeAll
  static void data() throws IOException {
    trainCsv = dir.resolve("train.csv");
    heldoutCsv = dir.resolve("heldout.csv");
    TrainCommandTest.writeCsv(trainCsv, 1500, 1, false);
    TrainCommandTest.writeCsv(heldoutCsv, 500, 2, false);
  }

  @ParameterizedTest(name = "{0} at {1} bits")
  @CsvSource({"lloyd-max, 2, 512", "shared-threshold, 1, 512", "nearest, 4, 512",
      "sigma-delta:2:4, 2, 128", "sigma-delta:1:8, 1, 64"})
  void featurizeTrainEvaluateAndPredictAgree(String quantizer, int bits, int modelFeatures)
      throws IOException {
    String name = quantizer.replace(':', '-') + "-" + bits;
    Path train = dir.resolve(name + "-train.arrow");
    Path heldout = dir.resolve(name + "-heldout.arrow");
    Cli.ok("featurize", "--input", trainCsv.toString(), "--label-column", "y", "--label-type",
        "regression", "--standardize", "--sigma", "2", "--features", "512", "--bits",
        Integer.toString(bits), "--quantizer", quantizer, "--seed", "3", "--output",
        train.toString(), "--quiet");
    Cli.ok("featurize", "--input", heldoutCsv.toString(), "--label-column", "y", "--label-type",
        "regression", "--like", train.toString(), "--output", heldout.toString(), "--quiet");

    JsonNode info = CompareCommandTest.json(Cli.ok("info", "--json", train.toString()));
    assertEquals(quantizer, info.get("quantizer").asText());
    assertEquals(modelFeatures, info.get("model_features").asInt());
    boolean lloydMax = quantizer.equals("lloyd-max");
    assertEquals(lloydMax ? 1 << bits : 0, info.get("codebook").size(), info.toString());
    assertEquals(lloydMax, info.get("scale").isNull(), info.toString());
    assertEquals(quantizer.startsWith("sigma-delta") ? 512 / modelFeatures : 0,
        info.get("condensation").size(), info.toString());

    Path model = dir.resolve(name + ".lprff");
    String trained = TrainCommandTest.lastLine(Cli.ok("train", "--train", train.toString(),
        "--heldout", heldout.toString(), "--task", "regression", "--solver", "closed-form", "--model", model.toString(),
        "--json").out());
    double mse = TrainCommandTest.jsonNumber(trained, "heldout_mse");
    assertTrue(mse < 0.6, quantizer + ": heldout MSE " + mse);
    assertEquals(512, TrainCommandTest.jsonNumber(trained, "features"), trained);
    assertEquals(modelFeatures, TrainCommandTest.jsonNumber(trained, "model_features"), trained);
    String eval = TrainCommandTest.lastLine(Cli.ok("evaluate", "--model", model.toString(),
        "--data", heldout.toString(), "--json").out());
    assertEquals(mse, TrainCommandTest.jsonNumber(eval, "mse"), 1e-9 * mse, eval);

    // predict featurizes the raw rows at the model's bits (deterministic quantizer) like the
    // heldout file: evaluate's MSE up to float summation order and the CSV's rounding of y.
    Path predictions = dir.resolve(name + ".csv");
    Cli.ok("predict", "--model", model.toString(), "--input", heldoutCsv.toString(),
        "--label-column", "y", "--output", predictions.toString());
    double predicted = TrainCommandTest.mse(TrainCommandTest.predictions(predictions),
        TrainCommandTest.labels(heldoutCsv));
    assertEquals(mse, predicted, 1e-3 * mse, quantizer);
  }

  /**
   * The acceptance command: one row per quantizer and b on the same features, with
   * training memory (equal at equal b but for Sigma-Delta's smaller model), full precision once.
   */
  @Test
  void compareListsOneRowPerQuantizerAndBits() throws IOException {
    JsonNode root = CompareCommandTest.json(Cli.ok("compare", "--train", trainCsv.toString(),
        "--heldout", heldoutCsv.toString(), "--label-column", "y", "--sigma", "2",
        "--features", "256", "--bits", "1,2,32", "--quantizer",
        "stochastic,lloyd-max,sigma-delta,shared-threshold", "--rows", "200", "--json",
        "--quiet"));
    Map<String, JsonNode> rows = CompareCommandTest.byMethod(root);
    for (String q : new String[] {"", "/lloyd-max", "/sigma-delta:1:8", "/shared-threshold"}) {
      for (int b : new int[] {1, 2}) {
        JsonNode row = rows.get("circulant/" + b + q + "@256");
        assertTrue(row != null, "circulant/" + b + q + " missing: " + rows.keySet());
        JsonNode memory = row.get("training_memory");
        JsonNode reference = rows.get("circulant/" + b + "@256").get("training_memory");
        assertEquals(reference.get("mini_batch_bits").asLong(),
            memory.get("mini_batch_bits").asLong(), q);
        assertEquals(q.startsWith("/sigma") ? 32 : 256, row.get("features").asInt(), q);
        assertTrue(Double.isFinite(row.get("heldout_metric").asDouble()), row.toString());
      }
    }
    // Full precision once, and Sigma-Delta's condensed full-precision map beside it.
    assertEquals(10, rows.size(), rows.keySet().toString());
    assertTrue(rows.containsKey("circulant/32/sigma-delta:1:8@256"), rows.keySet().toString());
  }

  /** Pairs a quantizer cannot code are left out of a list, and said so; the others run. */
  @Test
  void compareSkipsBitsAQuantizerCannotCode() throws IOException {
    Cli.Result r = Cli.ok("compare", "--train", trainCsv.toString(), "--heldout",
        heldoutCsv.toString(), "--label-column", "y", "--sigma", "2", "--features", "64",
        "--bits", "1,2,16", "--quantizer", "stochastic,sigma-delta:2:4,lloyd-max", "--rows",
        "100", "--json");
    assertTrue(r.err().contains("skipped (the quantizer cannot code those bits):"
        + " sigma-delta:2:4 at b = 1, sigma-delta:2:4 at b = 16, lloyd-max at b = 16"), r.err());
    Map<String, JsonNode> rows = CompareCommandTest.byMethod(CompareCommandTest.json(r));
    assertEquals(java.util.Set.of("circulant/1@64", "circulant/1/lloyd-max@64", "circulant/2@64",
        "circulant/2/sigma-delta:2:4@64", "circulant/2/lloyd-max@64", "circulant/16@64"),
        rows.keySet());
  }

  @Test
  void badQuantizersAreNamed() {
    Cli.Result unknown = Cli.run("compare", "--train", trainCsv.toString(), "--label-column",
        "y", "--sigma", "2", "--quantizer", "stochastic,lloyd", "--quiet");
    assertEquals(2, unknown.exitCode(), unknown.toString());
    assertTrue(unknown.err().contains("'lloyd', expected one of stochastic"), unknown.err());
    Cli.Result bits = Cli.run("compare", "--train", trainCsv.toString(), "--label-column", "y",
        "--sigma", "2", "--quantizer", "lloyd-max", "--bits", "16", "--quiet");
    assertTrue(bits.err().contains("cannot code lloyd-max at b = 16"), bits.err());
    Cli.Result order = Cli.run("featurize", "--input", trainCsv.toString(), "--label-column",
        "y", "--sigma", "2", "--quantizer", "sigma-delta:2:8", "--bits", "1", "--output",
        dir.resolve("x.arrow").toString());
    assertTrue(order.err().contains("order 2 needs at least 2 bits"), order.err());
    Cli.Result twice = Cli.run("featurize", "--input", trainCsv.toString(), "--label-column",
        "y", "--sigma", "2", "--quantizer", "stochastic,nearest", "--output", dir.resolve("y.arrow").toString());
    assertTrue(twice.err().contains("expected one quantizer"), twice.err());
  }
}
