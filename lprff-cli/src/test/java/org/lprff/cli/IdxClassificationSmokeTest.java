package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.fixtures.Idx;

/**
 * scripts/fashion-mnist.sh in small, on the synthetic Fashion-MNIST of lprff-test-fixtures (the
 * real run stays in the script): a gzipped training set of 4,000 images, train rows 0:3000 and
 * validation rows 3000:4000 of it, heldout the first 1000 rows of a test set of 1,200 (a --rows
 * range of the test file), circulant m = 512 at 4 bits, sigma 5, lr 4, 10 classes declared.
 * Measured heldout error 0.134 (validation 0.128; Fashion-MNIST itself: 0.221 and 0.234); the
 * bound 0.3 is far from chance (0.9). Deterministic (fixed seeds).
 */
class IdxClassificationSmokeTest {

  @TempDir Path dir;

  @Test
  void validationSplitTrainsAndScoresTheTestSet() throws IOException {
    Idx.Files trainSet = Idx.Images.fashionLike(4000, 1).write(dir, "train", true);
    Idx.Files testSet = Idx.Images.fashionLike(1200, 2).write(dir, "t10k", true);
    Path trainImages = trainSet.images();
    Path trainLabels = trainSet.labels();
    Path testImages = testSet.images();
    Path testLabels = testSet.labels();
    Path train = dir.resolve("train.arrow");
    Path validation = dir.resolve("validation.arrow");
    Path heldout = dir.resolve("heldout.arrow");
    Cli.ok("featurize", "--input", trainImages.toString(), "--idx-labels", trainLabels.toString(),
        "--rows", "0:3000", "--sigma", "5", "--features", "512", "--bits", "4", "--projection",
        "circulant", "--seed", "1", "--output", train.toString(), "--quiet");
    Cli.ok("featurize", "--input", trainImages.toString(), "--idx-labels", trainLabels.toString(),
        "--rows", "3000:4000", "--like", train.toString(), "--output", validation.toString(),
        "--quiet");
    Cli.ok("featurize", "--input", testImages.toString(), "--idx-labels", testLabels.toString(),
        "--rows", "0:1000", "--like", train.toString(), "--output", heldout.toString(),
        "--quiet");
    String json = TrainCommandTest.lastLine(Cli.ok("train", "--train", train.toString(),
        "--validation", validation.toString(), "--heldout", heldout.toString(), "--task",
        "classification", "--classes", "10", "--solver", "sgd", "--lr", "4", "--json", "--quiet")
        .out());
    assertEquals(3000, TrainCommandTest.jsonNumber(json, "train_rows"), json);
    assertEquals(1000, TrainCommandTest.jsonNumber(json, "validation_rows"), json);
    assertEquals(1000, TrainCommandTest.jsonNumber(json, "heldout_rows"), json);
    assertEquals(10, TrainCommandTest.jsonNumber(json, "classes"), json);
    double error = TrainCommandTest.jsonNumber(json, "heldout_error_rate");
    assertTrue(error < 0.3, "heldout error " + error + ": " + json);
    assertTrue(TrainCommandTest.jsonNumber(json, "validation_error_rate") < 0.3, json);
  }
}
