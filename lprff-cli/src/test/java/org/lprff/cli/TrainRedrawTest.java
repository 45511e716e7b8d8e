package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.model.FittedModel;
import org.lprff.cli.options.RedrawOptions;
import org.lprff.cli.workflow.RedrawTraining;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;

/**
 * {@code train --redraw}: raw rows featurized per mini-batch with draw = epoch. The rows of
 * {@link TrainCommandTest} (y = sin(x0) + 0.5 x1^2 - x2 x3 + noise, Var(y) ~ 1.9).
 */
class TrainRedrawTest {

  @TempDir Path dir;

  Path csv(String name, int n, long seed, boolean classes) throws IOException {
    Path file = dir.resolve(name + ".csv");
    TrainCommandTest.writeCsv(file, n, seed, classes);
    return file;
  }

  @Test
  void trainsOnRawRowsAndWritesTheSpecItDrew() throws IOException {
    Path train = csv("train", 1500, 1, false);
    Path heldout = csv("heldout", 500, 2, false);
    Path model = dir.resolve("redraw.lprff");
    Cli.Result r = Cli.ok("train", "--redraw", "--train", train.toString(), "--heldout",
        heldout.toString(), "--label-column", "y", "--sigma", "2", "-m", "512", "-b", "2",
        "--projection", "circulant", "--seed", "3", "--task", "regression", "--epochs", "40",
        "--model", model.toString(), "--json");
    String json = TrainCommandTest.lastLine(r.out());
    assertTrue(TrainCommandTest.jsonNumber(json, "heldout_mse") < 0.4, r.toString());
    assertTrue(json.contains("\"solver\":\"sgd\""), json); // auto is SGD under --redraw
    FittedModel m = FittedModel.load(model);
    assertEquals(new FeaturizerSpec(new KernelFunction.Gaussian(2), 4, 512, 2, "circulant", 3,
        Quantizer.STOCHASTIC), m.spec());
    assertEquals("epoch", m.training().get(RedrawTraining.KEY_DRAWS));
    assertNotNull(m.standardization(), "standardized by default");
    // predict reads it like any model: full precision, the training statistics
    Path out = dir.resolve("p.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", heldout.toString(),
        "--label-column", "y", "--output", out.toString());
    double mse = TrainCommandTest.mse(TrainCommandTest.predictions(out),
        TrainCommandTest.labels(heldout));
    assertEquals(TrainCommandTest.jsonNumber(json, "heldout_mse"), mse, 1e-3 * mse);
  }

  /**
   * The training source the command builds: epoch 0's rows are featurize's bytes of the same
   * file (same standardization, spec and row ids), epoch 1's differ (fresh draws).
   */
  @Test
  void epochZeroIsFeaturizesFileAndEpochOneIsFresh() throws IOException {
    Path train = csv("train", 300, 1, false);
    Path file = dir.resolve("train.arrow");
    Cli.ok("featurize", "--input", train.toString(), "--label-column", "y", "--standardize",
        "--sigma", "2", "-m", "64", "-b", "2", "--projection", "circulant", "--seed", "3",
        "--output", file.toString(), "--quiet");
    RedrawOptions options = new RedrawOptions();
    options.enabled = true;
    options.labelColumn = "y";
    options.kernel.sigma = "2";
    options.features = 64;
    options.bits = 2;
    options.projection = "circulant";
    RedrawTraining.Prepared p =
        RedrawTraining.prepare(train, null, train, options, false, 3);
    FeatureRows stored = FeatureRows.read(file);
    assertEquals(stored.schema().spec(), p.spec());
    float[][] epoch0 = rows(p.train().ordered(), 0, p.spec());
    float[][] epoch1 = rows(p.train().ordered(), 1, p.spec());
    int differ = 0;
    for (int i = 0; i < 300; i++) {
      float[] fromFile = new float[64];
      org.lprff.vector.stream.FeatureRows.of(p.spec(),
          MemorySegment.ofArray(stored.features()[i]), 0, 1).decode(0, fromFile, 0);
      assertArrayEquals(fromFile, epoch0[i], "row " + i);
      differ += Arrays.equals(epoch0[i], epoch1[i]) ? 0 : 1;
    }
    assertTrue(differ > 250, differ + " of 300 rows changed between epochs 0 and 1");
  }

  private static float[][] rows(MiniBatchSource source, int epoch, FeaturizerSpec spec) {
    float[][] out = new float[(int) source.rows()][spec.features()];
    int i = 0;
    for (MiniBatchSource.Batches b = source.epoch(epoch, 64, 1); b.hasNext(); ) {
      MiniBatch batch = b.next();
      for (int r = 0; r < batch.features().rows(); r++) {
        batch.features().decode(r, out[i++], 0);
      }
    }
    return out;
  }

  @Test
  void refusesWhatItCannotDoNamingTheFix() throws IOException {
    Path train = csv("train", 200, 1, false);
    Path heldout = csv("heldout", 50, 2, false);
    String[] base = {"train", "--train", train.toString(), "--heldout", heldout.toString(),
        "--label-column", "y", "--sigma", "2", "-m", "64", "--quiet"};
    String[][] cases = {
      {"--task", "regression", "--redraw", "--solver", "closed-form",
          "--solver closed-form reads every row"},
      {"--task", "regression", "--redraw", "--solver", "lbfgs", "use --solver sgd"},
      {"--task", "regression", "--redraw", "--quantizer", "nearest",
          "quantizer nearest gives the same codes"},
      {"--task", "regression", "--redraw", "-b", "32", "--bits 32 rounds nothing"},
      {"--redraw", "--log-label", "--task", "classification", "drop it for --task"},
      {"--task", "regression", "-b", "4", "add --redraw to train on raw rows"},
    };
    for (String[] c : cases) {
      String[] args = Arrays.copyOf(base, base.length + c.length - 1);
      System.arraycopy(c, 0, args, base.length, c.length - 1);
      Cli.Result r = Cli.run(args);
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(r.err().contains(c[c.length - 1]), r.err());
    }
    // a feature file where raw rows are expected: the reader's message names the file
    Cli.Result r = Cli.run("train", "--redraw", "--train", dir.resolve("none.csv").toString(),
        "--heldout", heldout.toString(), "--sigma", "2", "--task", "regression");
    assertFalse(r.exitCode() == 0, r.toString());
    assertTrue(r.err().contains("none.csv"), r.err());
    assertFalse(Files.exists(dir.resolve("redraw.lprff")));
  }
}
