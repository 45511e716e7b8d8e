package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/fashion-mnist.sh in small (real data; skipped without it): train rows 0:3000, validation
 * rows 50000:51000 of the official training set, heldout the first 1000 test rows (a --rows range
 * of the test file), circulant m = 512 at 4 bits, sigma 5, lr 4, 10 classes declared. Measured
 * heldout error 0.221 (validation 0.234); the bound 0.3 is far from chance (0.9). Deterministic
 * (fixed seeds).
 */
class FashionMnistSmokeTest {

  @TempDir Path dir;

  @Test
  void validationSplitTrainsAndScoresTheTestSet() throws IOException {
    Path trainImages = TestData.file("fashion-mnist/train-images-idx3-ubyte.gz");
    Path trainLabels = TestData.file("fashion-mnist/train-labels-idx1-ubyte.gz");
    Path testImages = TestData.file("fashion-mnist/t10k-images-idx3-ubyte.gz");
    Path testLabels = TestData.file("fashion-mnist/t10k-labels-idx1-ubyte.gz");
    Path train = dir.resolve("train.arrow");
    Path validation = dir.resolve("validation.arrow");
    Path heldout = dir.resolve("heldout.arrow");
    Cli.ok("featurize", "--input", trainImages.toString(), "--idx-labels", trainLabels.toString(),
        "--rows", "0:3000", "--sigma", "5", "--features", "512", "--bits", "4", "--projection",
        "circulant", "--seed", "1", "--output", train.toString(), "--quiet");
    Cli.ok("featurize", "--input", trainImages.toString(), "--idx-labels", trainLabels.toString(),
        "--rows", "50000:51000", "--like", train.toString(), "--output", validation.toString(),
        "--quiet");
    Cli.ok("featurize", "--input", testImages.toString(), "--idx-labels", testLabels.toString(),
        "--rows", "0:1000", "--like", train.toString(), "--output", heldout.toString(),
        "--quiet");
    String json = TrainCommandTest.lastLine(Cli.ok("train", "--train", train.toString(),
        "--validation", validation.toString(), "--heldout", heldout.toString(), "--task",
        "classification", "--classes", "10", "--lr", "4", "--json", "--quiet").out());
    assertEquals(3000, TrainCommandTest.jsonNumber(json, "train_rows"), json);
    assertEquals(1000, TrainCommandTest.jsonNumber(json, "validation_rows"), json);
    assertEquals(1000, TrainCommandTest.jsonNumber(json, "heldout_rows"), json);
    assertEquals(10, TrainCommandTest.jsonNumber(json, "classes"), json);
    double error = TrainCommandTest.jsonNumber(json, "heldout_error_rate");
    assertTrue(error < 0.3, "heldout error " + error + ": " + json);
    assertTrue(TrainCommandTest.jsonNumber(json, "validation_error_rate") < 0.3, json);
  }
}
