package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.model.FittedModel;

/**
 * train → model → evaluate → predict on small synthetic problems (in-process).
 *
 * <p>Regression: y = sin(x0) + 0.5 x1^2 - x2 x3 + 0.05 noise, x ~ N(0, 1)^4, 1500 train and 500
 * heldout rows; a Gaussian kernel fit should reach heldout MSE well below Var(y) (~1.9): the
 * bound is 0.4 (measured 0.30 at 4 bits). Classes: 3 classes by the angle of (x0, x1) (three 120-degree sectors),
 * noiseless; error rate bound 0.15 (chance is 0.67). Both deterministic (fixed seeds).
 */
class TrainCommandTest {

  @TempDir Path dir;

  static void writeCsv(Path file, int n, long seed, boolean classes) throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    StringBuilder s = new StringBuilder("x0,x1,x2,x3,y\n");
    for (int i = 0; i < n; i++) {
      double[] x = new double[4];
      for (int j = 0; j < 4; j++) {
        x[j] = r.nextGaussian();
      }
      String y;
      if (classes) {
        double angle = Math.atan2(x[1], x[0]) + Math.PI; // [0, 2pi]
        y = Integer.toString(Math.min(2, (int) (angle / (2 * Math.PI / 3))));
      } else {
        y = String.format(Locale.ROOT, "%.6f",
            Math.sin(x[0]) + 0.5 * x[1] * x[1] - x[2] * x[3] + 0.05 * r.nextGaussian());
      }
      s.append(String.format(Locale.ROOT, "%.6f,%.6f,%.6f,%.6f,%s%n", x[0], x[1], x[2], x[3], y));
    }
    Files.writeString(file, s);
  }

  /** Featurizes train and heldout CSVs (heldout --like train) at the given bits. */
  Path[] features(String name, boolean classes, int bits) throws IOException {
    Path trainCsv = dir.resolve(name + "-train.csv");
    Path heldoutCsv = dir.resolve(name + "-heldout.csv");
    writeCsv(trainCsv, 1500, 1, classes);
    writeCsv(heldoutCsv, 500, 2, classes);
    Path train = dir.resolve(name + "-train.arrow");
    Path heldout = dir.resolve(name + "-heldout.arrow");
    String labelType = classes ? "classes" : "regression";
    Cli.ok("featurize", "--input", trainCsv.toString(), "--label-column", "y", "--label-type",
        labelType, "--standardize", "--sigma", "2", "--features", "512", "--bits",
        Integer.toString(bits), "--projection", "circulant", "--seed", "3", "--output",
        train.toString(), "--quiet");
    Cli.ok("featurize", "--input", heldoutCsv.toString(), "--label-column", "y", "--label-type",
        labelType, "--like", train.toString(), "--output", heldout.toString(), "--quiet");
    return new Path[] {train, heldout, trainCsv, heldoutCsv};
  }

  static double jsonNumber(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":(-?[0-9.eE+-]+)").matcher(json);
    assertTrue(m.find(), key + " missing in " + json);
    return Double.parseDouble(m.group(1));
  }

  static String lastLine(String text) {
    String[] lines = text.strip().split("\\R");
    return lines[lines.length - 1];
  }

  @Test
  void regressionTrainsWritesAModelAndReportsJson() throws IOException {
    Path[] f = features("reg", false, 4);
    Path model = dir.resolve("reg.lprff");
    Cli.Result r = Cli.ok("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "sgd", "--model", model.toString(), "--json");
    String json = lastLine(r.out());
    assertTrue(json.startsWith("{") && json.endsWith("}"), json);
    double mse = jsonNumber(json, "heldout_mse");
    assertTrue(mse < 0.4, "heldout MSE " + mse + "\n" + r);
    assertTrue(jsonNumber(json, "epochs") >= 1);
    assertTrue(json.contains("\"stop_reason\":\""), json);
    // TrainingMemory at m = 512, b = 4, batch 250, c = 1: mini-batch 4 * 512 * 250 bits
    assertEquals(4 * 512 * 250, jsonNumber(json, "mini_batch_bits"));
    assertTrue(r.err().contains("epoch   0"), r.err());
    assertTrue(Files.isRegularFile(model));

    // evaluate on the heldout file: the same metric as train reported (same model, same rows)
    String eval = lastLine(Cli.ok("evaluate", "--model", model.toString(), "--data",
        f[1].toString(), "--json").out());
    assertEquals(mse, jsonNumber(eval, "mse"), 1e-9 * mse, eval);

    // predict raw heldout rows: full precision (default) and --quantized (4 bits)
    Path full = dir.resolve("full.csv");
    Path quant = dir.resolve("quant.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", f[3].toString(), "--label-column",
        "y", "--output", full.toString());
    Cli.ok("predict", "--model", model.toString(), "--input", f[3].toString(), "--label-column",
        "y", "--output", quant.toString(), "--quantized");
    double[] y = labels(f[3]);
    double[] pFull = predictions(full);
    double[] pQuant = predictions(quant);
    assertEquals(y.length, pFull.length);
    assertEquals(y.length, pQuant.length);
    double mseFull = mse(pFull, y);
    double mseQuant = mse(pQuant, y);
    // --quantized featurizes exactly like the heldout file (same spec, seeds, row ids): the
    // evaluate MSE up to float32 summation order and CSV rounding of y (1e-6)
    assertEquals(mse, mseQuant, 1e-3 * mse);
    // full precision drops the test-time quantization noise: different predictions, an MSE in
    // the same range (bound 0.4 as above; measured close to the quantized one)
    assertTrue(mse(pFull, pQuant) > 0, "full and quantized predictions are identical");
    assertTrue(mseFull < 0.4, "full-precision MSE " + mseFull);
    assertTrue(Math.abs(mseFull - mseQuant) < 0.1 * mseQuant, mseFull + " vs " + mseQuant);
  }

  /**
   * Without --heldout, train writes the model it would write with one (the full-batch solvers and
   * SGD choose on the training rows alone) and its JSON has no heldout figures; the model scores
   * the heldout file as train would have.
   */
  @Test
  void withoutAHeldoutFileTrainWritesTheSameModel() throws IOException {
    Path[] f = features("noheld", false, 4);
    for (String solver : new String[] {"auto", "sgd"}) {
      Path with = dir.resolve(solver + "-with.lprff");
      Path without = dir.resolve(solver + "-without.lprff");
      String withJson = lastLine(Cli.ok("train", "--train", f[0].toString(), "--validation",
          f[0].toString(), "--heldout", f[1].toString(), "--task", "regression", "--solver",
          solver, "--model", with.toString(), "--json", "--quiet").out());
      Cli.Result r = Cli.ok("train", "--train", f[0].toString(), "--validation",
          f[0].toString(), "--task", "regression", "--solver", solver, "--model",
          without.toString(), "--json");
      String json = lastLine(r.out());
      assertFalse(json.contains("heldout"), json);
      assertTrue(json.contains("\"validation_mse\":"), json);
      assertTrue(Files.isRegularFile(without));
      FittedModel a = FittedModel.load(with);
      FittedModel b = FittedModel.load(without);
      assertEquals(a.weights(), b.weights(), solver + ": the same model without --heldout");
      assertFalse(b.training().containsKey("heldout_metric"), b.training().toString());
      String eval = lastLine(Cli.ok("evaluate", "--model", without.toString(), "--data",
          f[1].toString(), "--json").out());
      assertEquals(jsonNumber(withJson, "heldout_mse"), jsonNumber(eval, "mse"), 1e-9);
    }
    // Nothing to stop early on but a split of the training rows: SGD still trains.
    Path split = dir.resolve("split.lprff");
    String summary = lastLine(Cli.ok("train", "--train", f[0].toString(), "--task", "regression",
        "--model", split.toString()).out());
    assertTrue(summary.startsWith("no heldout set;"), summary);
    assertTrue(Files.isRegularFile(split));
  }

  /**
   * --solver closed-form: the exact ridge minimizer of the objective SGD descends, so its heldout
   * MSE is at most SGD's (bound 1.05x; measured MEASURED_RATIO) and far below Var(y); the model file
   * evaluates to the same MSE; classification reports an error rate and no log-loss.
   */
  @Test
  void closedFormSolvesRidgeAndClassifiesByLeastSquares() throws IOException {
    Path[] f = features("exact", false, 4);
    Path model = dir.resolve("exact.lprff");
    String sgd = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--json", "--quiet").out());
    Cli.Result r = Cli.ok("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "closed-form", "--model", model.toString(), "--json");
    String json = lastLine(r.out());
    assertTrue(json.contains("\"solver\":\"closed-form\"") && json.contains(
        "\"stop_reason\":\"solved\"") && json.contains("\"lr\":null"), json);
    assertEquals(0, jsonNumber(json, "epochs"));
    double exact = jsonNumber(json, "heldout_mse");
    assertTrue(exact < 1.05 * jsonNumber(sgd, "heldout_mse"), json + "\n" + sgd);
    assertTrue(r.err().contains("closed form: Cholesky solve of the 512 x 512 system"), r.err());
    String eval = lastLine(Cli.ok("evaluate", "--model", model.toString(), "--data",
        f[1].toString(), "--json").out());
    assertEquals(exact, jsonNumber(eval, "mse"), 1e-9 * exact, eval);

    Path[] c = features("exact3", true, 8);
    String cls = lastLine(Cli.ok("train", "--train", c[0].toString(), "--heldout",
        c[1].toString(), "--task", "classification", "--solver", "closed-form", "--json",
        "--quiet").out());
    assertTrue(jsonNumber(cls, "heldout_error_rate") < 0.15, cls);
    assertFalse(cls.contains("log_loss"), cls);

    Cli.Result bad = Cli.run("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "newton");
    assertEquals(2, bad.exitCode(), bad.toString());
    assertTrue(bad.err().contains("--solver is 'newton', expected sgd, lbfgs, cg, closed-form, rks, halp or auto"),
        bad.err());
  }

  /**
   * --solver halp: LM-HALP trains an 8-bit model (the default) whose heldout MSE is within 10% of
   * SGD's on the same 4-bit features (both early-stopping on the heldout file, the paper's
   * protocol); the JSON reports the model bits and Table 1's memory with the model at 8 bits;
   * 16 bits is taken; bad bits and a halp option given to another solver are usage errors.
   */
  @Test
  void halpTrainsALowPrecisionModel() throws IOException {
    Path[] f = features("halp", false, 4);
    String sgd = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--solver", "sgd", "--json", "--quiet").out());
    Cli.Result r = Cli.ok("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "halp", "--json");
    String json = lastLine(r.out());
    assertTrue(json.contains("\"solver\":\"halp\"") && json.contains("\"model_bits\":8")
        && json.contains("\"early_stopping\":\"heldout\""), json);
    assertEquals(8L * 512, (long) jsonNumber(json.substring(json.indexOf("training_memory")),
        "model_bits"), json);
    assertTrue(r.err().contains("halp: 8-bit model, mu 1.00000"), r.err());
    double halp = jsonNumber(json, "heldout_mse");
    assertTrue(halp < 1.1 * jsonNumber(sgd, "heldout_mse"), json + "\n" + sgd);
    assertTrue(jsonNumber(json, "lr") > 0, json);

    String sixteen = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--solver", "halp", "--model-bits", "16",
        "--json", "--quiet").out());
    assertTrue(sixteen.contains("\"model_bits\":16"), sixteen);

    Cli.Result bad = Cli.run("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "halp", "--model-bits", "12");
    assertEquals(2, bad.exitCode(), bad.toString());
    assertTrue(bad.err().contains("--model-bits is 12, expected 8 or 16"), bad.err());
    bad = Cli.run("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "sgd", "--model-bits", "16");
    assertEquals(2, bad.exitCode(), bad.toString());
    assertTrue(bad.err().contains("--model-bits 16 is --solver halp's, but --solver is sgd"),
        bad.err());
  }

  /**
   * --solver lbfgs and --solver cg reach the closed form's optimum of the same objective: the
   * heldout MSE of the models agrees to 1e-3 relative (all minimize J; the iterative solvers stop
   * within ~1e-6 of its value).
   * With a list of l2 it keeps the one with the lowest heldout loss and records the path;
   * classification trains logistic/softmax models and so reports a log-loss.
   */
  @Test
  void lbfgsReachesTheClosedFormOptimum() throws IOException {
    Path[] f = features("lbfgs", false, 4);
    String exact = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--solver", "closed-form", "--l2", "1e-4",
        "--json", "--quiet").out());
    Cli.Result r = Cli.ok("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "lbfgs", "--l2", "1e-4", "--json");
    String json = lastLine(r.out());
    assertTrue(json.contains("\"solver\":\"lbfgs\"") && json.contains("\"lr\":null")
        && json.contains("\"stop_reason\":\"converged\""), json);
    assertTrue(r.err().contains("lbfgs: l2 1.0E-4, iteration   0, objective"), r.err());
    double mse = jsonNumber(exact, "heldout_mse");
    assertEquals(mse, jsonNumber(json, "heldout_mse"), 1e-3 * mse, json + "\n" + exact);
    assertTrue(jsonNumber(json, "passes") >= jsonNumber(json, "epochs"), json);

    String path = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--solver", "lbfgs", "--l2", "1e-2,1e-4",
        "--json", "--quiet").out());
    // without --validation a seeded split of the training rows chooses; the heldout never does
    assertTrue(path.contains("\"l2_selection\":[{\"l2\":0.01,\"validation_split_loss\":"),
        path);
    assertEquals(1e-4, jsonNumber(path, "l2"), 0, path);

    // --solver cg: the same optimum by preconditioned conjugate gradients (regression only)
    String cg = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--solver", "cg", "--l2", "1e-4", "--json",
        "--quiet").out());
    assertTrue(cg.contains("\"solver\":\"cg\"") && cg.contains("\"stop_reason\":\"converged\""),
        cg);
    assertEquals(mse, jsonNumber(cg, "heldout_mse"), 1e-3 * mse, cg + "\n" + exact);

    Path[] c = features("lbfgs3", true, 8);
    Cli.Result cgClasses = Cli.run("train", "--train", c[0].toString(), "--heldout",
        c[1].toString(), "--task", "classification", "--solver", "cg");
    assertEquals(2, cgClasses.exitCode(), cgClasses.toString());
    assertTrue(cgClasses.err().contains("--solver cg solves ridge regression; for"
        + " classification use lbfgs"), cgClasses.err());
    String cls = lastLine(Cli.ok("train", "--train", c[0].toString(), "--heldout",
        c[1].toString(), "--task", "classification", "--solver", "lbfgs", "--json",
        "--quiet").out());
    assertTrue(jsonNumber(cls, "heldout_error_rate") < 0.15, cls);
    assertTrue(cls.contains("heldout_log_loss"), cls);
  }

  /**
   * Without --l2 and --validation, the iterative solvers choose l2 on a seeded 10% of the
   * training rows (never the heldout file) along 1e-2 .. 1e-7, refit on every training row, and
   * record the path in the JSON and the model file. The choice is near the best the heldout file
   * itself would pick among the closed form's solutions of the same path (bound 1.2x its MSE).
   */
  @Test
  void iterativeSolversChooseL2OnASeededSplitOfTheTrainingRows() throws IOException {
    Path[] f = features("auto", false, 4);
    Path model = dir.resolve("auto.lprff");
    Cli.Result r = Cli.ok("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "cg", "--model", model.toString(), "--json");
    String json = lastLine(r.out());
    assertTrue(json.contains("\"selected_on\":\"validation_split\"")
        && json.contains("\"l2_selection\":[{\"l2\":0.01,\"validation_split_loss\":"), json);
    assertTrue(r.err().contains("cg: choosing l2 on a seeded split of")
        && r.err().contains("cg: refit on all"), r.err());
    String oracle = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--solver", "closed-form", "--l2",
        "1e-2,1e-3,1e-4,1e-5,1e-6,1e-7", "--json", "--quiet").out());
    double best = jsonNumber(oracle, "heldout_mse");
    assertTrue(jsonNumber(json, "heldout_mse") <= 1.2 * best, json + "\n" + oracle);
    // the default (auto) at m = 512 is the closed form on the whole automatic path, the split
    // choosing and the refit on all rows: as good as cg's choice (both at the optimum)
    String auto = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--json", "--quiet").out());
    assertTrue(auto.contains("\"solver\":\"closed-form\"")
        && auto.contains("\"selected_on\":\"validation_split\""), auto);
    assertEquals(jsonNumber(json, "l2"), jsonNumber(auto, "l2"), 0, auto);
    assertEquals(1500, jsonNumber(auto, "train_rows"), auto);
    assertTrue(jsonNumber(auto, "heldout_mse") <= 1.2 * best, auto + "\n" + oracle);
    Path[] c = features("auto3", true, 8);
    String cls = lastLine(Cli.ok("train", "--train", c[0].toString(), "--heldout",
        c[1].toString(), "--task", "classification", "--solver", "auto", "--json", "--quiet")
        .out());
    assertTrue(cls.contains("\"solver\":\"lbfgs\"") && cls.contains(
        "\"selected_on\":\"validation_split\""), cls);
    assertTrue(jsonNumber(cls, "heldout_error_rate") < 0.15, cls);
    Map<String, String> training = FittedModel.load(model).training();
    assertEquals("validation_split", training.get("l2_selected_on"), training.toString());
    assertTrue(training.get("l2_path").startsWith("0.01="), training.toString());
    // coarse to fine, stopping one l2 past the minimum of the validation loss (or at 1e-7)
    String[] path = training.get("l2_path").split(";");
    assertTrue(path.length >= 2 && path.length <= 6, training.toString());
    double last = Double.parseDouble(path[path.length - 1].split("=")[1]);
    double min = java.util.Arrays.stream(path)
        .mapToDouble(e -> Double.parseDouble(e.split("=")[1])).min().orElseThrow();
    assertTrue(path.length == 6 || last > min, training.toString());
  }

  static double[] labels(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    return lines.stream().skip(1).mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(',') + 1)))
        .toArray();
  }

  static double[] predictions(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    return lines.stream().skip(1).mapToDouble(l -> Double.parseDouble(l.split(",")[0])).toArray();
  }

  static double mse(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += (a[i] - b[i]) * (a[i] - b[i]);
    }
    return s / a.length;
  }

  @Test
  void corruptOrTruncatedModelsAreRefusedClearly() throws IOException {
    Path[] f = features("bad", false, 8);
    Path model = dir.resolve("m.lprff");
    Cli.ok("train", "--train", f[0].toString(), "--heldout", f[1].toString(), "--task",
        "regression", "--model", model.toString(), "--quiet", "--epochs", "2");
    byte[] bytes = Files.readAllBytes(model);
    Path truncated = dir.resolve("truncated.lprff");
    Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    Cli.Result r = Cli.run("evaluate", "--model", truncated.toString(), "--data", f[1].toString());
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains(truncated.toString()) && r.err().contains("lprff model file"),
        r.err());
    // a feature file is not a model
    r = Cli.run("evaluate", "--model", f[0].toString(), "--data", f[1].toString());
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("not an lprff model"), r.err());
    // garbage
    Path garbage = dir.resolve("garbage.lprff");
    Files.writeString(garbage, "hello");
    r = Cli.run("predict", "--model", garbage.toString(), "--input", f[3].toString(),
        "--output", dir.resolve("p.csv").toString());
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains(garbage.toString()), r.err());
    assertFalse(Files.exists(dir.resolve("p.csv")));
  }

  @Test
  void threeClassesTrain() throws IOException {
    Path[] f = features("cls", true, 8);
    Path model = dir.resolve("cls.lprff");
    Cli.Result r = Cli.ok("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "classification", "--model", model.toString(), "--json", "--quiet");
    String json = lastLine(r.out());
    assertEquals(3, jsonNumber(json, "classes"), json);
    double error = jsonNumber(json, "heldout_error_rate");
    assertTrue(error < 0.15, "error rate " + error + "\n" + r);
    assertTrue(jsonNumber(json, "heldout_log_loss") > 0);

    Path out = dir.resolve("classes.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", f[3].toString(), "--label-column",
        "y", "--output", out.toString(), "--probabilities");
    List<String> lines = Files.readAllLines(out);
    assertEquals("class,p0,p1,p2", lines.get(0));
    double[] y = labels(f[3]);
    int wrong = 0;
    for (int i = 0; i < y.length; i++) {
      String[] cells = lines.get(i + 1).split(",");
      double sum = Double.parseDouble(cells[1]) + Double.parseDouble(cells[2])
          + Double.parseDouble(cells[3]);
      assertEquals(1, sum, 1e-5, lines.get(i + 1)); // 3 float32 probabilities
      wrong += Integer.parseInt(cells[0]) == (int) y[i] ? 0 : 1;
    }
    assertTrue(wrong < 0.15 * y.length, wrong + " wrong of " + y.length);
  }

  /**
   * Two classes from integer-valued Float32 labels train a logistic model (one logit): y = 1 iff
   * x0 + x1 > 0, noiseless; error bound 0.1 (chance 0.5).
   */
  @Test
  void twoClassesFromFloatLabelsTrainALogisticModel() throws IOException {
    Path[] f = new Path[4];
    for (int k = 0; k < 2; k++) {
      SplittableRandom r = new SplittableRandom(10 + k);
      StringBuilder s = new StringBuilder("x0,x1,x2,x3,y\n");
      for (int i = 0; i < (k == 0 ? 1500 : 500); i++) {
        double a = r.nextGaussian();
        double b = r.nextGaussian();
        s.append(String.format(Locale.ROOT, "%.5f,%.5f,%.5f,%.5f,%d%n", a, b, r.nextGaussian(),
            r.nextGaussian(), a + b > 0 ? 1 : 0));
      }
      f[2 + k] = Files.writeString(dir.resolve("bin" + k + ".csv"), s);
    }
    f[0] = dir.resolve("bin-train.arrow");
    f[1] = dir.resolve("bin-heldout.arrow");
    Cli.ok("featurize", "--input", f[2].toString(), "--label-column", "y", "--standardize",
        "--sigma", "2", "--features", "256", "--bits", "8", "--output", f[0].toString(), "--quiet");
    Cli.ok("featurize", "--input", f[3].toString(), "--label-column", "y", "--like",
        f[0].toString(), "--output", f[1].toString(), "--quiet");
    Path model = dir.resolve("bin.lprff");
    String json = lastLine(Cli.ok("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "classification", "--model", model.toString(), "--json",
        "--quiet").out());
    assertTrue(json.contains("\"task\":\"binary\""), json);
    assertEquals(2, jsonNumber(json, "classes"));
    assertTrue(jsonNumber(json, "heldout_error_rate") < 0.1, json);
    // one logit output: model bits 32 m c with c = 1
    assertEquals(32 * 256, jsonNumber(json, "model_bits"));
    Path out = dir.resolve("bin.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", f[3].toString(), "--label-column",
        "y", "--output", out.toString(), "--probabilities");
    List<String> lines = Files.readAllLines(out);
    assertEquals("class,p0,p1", lines.get(0));
    assertEquals(501, lines.size());
  }

  @Test
  void heldoutWithAnotherSpecIsRefusedNamingBothValues() throws IOException {
    Path[] a = features("a", false, 4);
    Path[] b = features("b", false, 8);
    Cli.Result r = Cli.run("train", "--train", a[0].toString(), "--heldout", b[1].toString(),
        "--task", "regression", "--quiet");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("lprff.bits=8, expected 4"), r.err());
  }

  /**
   * featurize --like --bits 32 makes the full-precision twin of the training map; train accepts
   * it as heldout and validation. With --validation and an --l2 list the closed form chooses on
   * the validation file (the JSON lists each candidate's validation loss) and refits on train +
   * validation; an --l2 list with SGD is a usage error.
   */
  @Test
  void validationChoosesL2AndFullPrecisionHeldoutIsAccepted() throws IOException {
    Path[] f = features("val", false, 4);
    Path validationCsv = dir.resolve("val-validation.csv");
    writeCsv(validationCsv, 400, 3, false);
    Path validation = dir.resolve("val-validation.arrow");
    Path heldout32 = dir.resolve("val-heldout32.arrow");
    Cli.ok("featurize", "--input", validationCsv.toString(), "--label-column", "y", "--like",
        f[0].toString(), "--output", validation.toString(), "--quiet");
    Cli.ok("featurize", "--input", f[3].toString(), "--label-column", "y", "--like",
        f[0].toString(), "--bits", "32", "--output", heldout32.toString(), "--quiet");
    String info = Cli.ok("info", heldout32.toString(), "--json").out();
    assertTrue(info.contains("\"bits\":32") || info.contains("lprff.bits\":\"32"), info);

    Cli.Result r = Cli.ok("train", "--train", f[0].toString(), "--validation",
        validation.toString(), "--heldout", heldout32.toString(), "--task", "regression",
        "--solver", "closed-form", "--l2", "1e-8,1e-5,1e-2", "--json");
    String json = lastLine(r.out());
    assertTrue(json.contains("\"selected_on\":\"validation\"")
        && json.contains("\"l2_selection\":[{\"l2\":1.0E-8,\"validation_loss\":"), json);
    // 1500 train + 400 validation rows in the refit
    assertEquals(1900, jsonNumber(json, "train_rows"));
    double chosen = jsonNumber(json, "l2");
    assertTrue(chosen == 1e-8 || chosen == 1e-5 || chosen == 1e-2, json);
    assertTrue(r.err().contains("closed form: refit on train + validation"), r.err());
    assertTrue(jsonNumber(json, "heldout_mse") < 0.4, json);

    Cli.Result sgd = Cli.run("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "sgd", "--l2", "1e-6,1e-5");
    assertEquals(2, sgd.exitCode(), sgd.toString());
    assertTrue(sgd.err().contains("--l2 has 2 values [1.0E-6, 1.0E-5], but SGD takes one"),
        sgd.err());
    // the SGD path early-stops on the validation file and reports the heldout one
    String early = lastLine(Cli.ok("train", "--train", f[0].toString(), "--validation",
        validation.toString(), "--heldout", heldout32.toString(), "--task", "regression",
        "--solver", "sgd", "--json", "--quiet").out());
    assertTrue(early.contains("\"early_stopping\":\"validation\""), early);
    assertEquals(1500, jsonNumber(early, "train_rows"));
  }

  @Test
  void labelTypesMustFitTheTask() throws IOException {
    Path[] cls = features("c", true, 4);
    Cli.Result r = Cli.run("train", "--train", cls[0].toString(), "--heldout", cls[1].toString(),
        "--task", "regression", "--quiet");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("Int32 class labels") && r.err().contains("regression"), r.err());
    Path[] reg = features("r", false, 4);
    r = Cli.run("train", "--train", reg[0].toString(), "--heldout", reg[1].toString(),
        "--task", "classification", "--quiet");
    assertEquals(1, r.exitCode(), r.toString());
    // the first non-integer label, with its row and value
    assertTrue(Pattern.compile("label of row [0-9]+ is -?[0-9.]+, expected an integer")
        .matcher(r.err()).find(), r.err());
  }

  @Test
  void divergenceFailsWithAdviceAndWritesNoModel() throws IOException {
    Path[] f = features("div", false, 32);
    Path model = dir.resolve("div.lprff");
    Cli.Result r = Cli.run("train", "--train", f[0].toString(), "--heldout", f[1].toString(),
        "--task", "regression", "--solver", "sgd", "--lr", "1e30", "--model", model.toString(),
        "--schedule",
        "fixed", "--epochs", "3");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("diverged") && r.err().contains("smaller --lr"), r.err());
    // a rate without SGD would be ignored: a usage error says so
    Cli.Result ignored = Cli.run("train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--lr", "0.5");
    assertEquals(2, ignored.exitCode(), ignored.toString());
    assertTrue(ignored.err().contains("--lr 0.5 is SGD's learning rate, but --solver is auto"),
        ignored.err());
    assertFalse(Files.exists(model));
    List<String> left = new ArrayList<>();
    try (var s = Files.list(dir)) {
      s.filter(p -> p.getFileName().toString().contains(".tmp")).forEach(p -> left.add(p.toString()));
    }
    assertTrue(left.isEmpty(), left.toString());
  }

  /**
   * A training file truncated to a third while train reads it (right after SGD's first epoch:
   * the progress line's writer truncates it, so the second epoch reads pages the mapping lost)
   * ends the run with one line naming the file and both sizes and exit code 1: no stack trace,
   * no model file.
   */
  @Test
  void aTrainingFileTruncatedDuringTheRunIsNamedInOneLine() throws IOException {
    Path[] f = features("truncated", false, 8);
    long size = Files.size(f[0]);
    Path model = dir.resolve("truncated.lprff");
    StringWriter err = new StringWriter();
    Writer truncating = new Writer() {
      boolean done;

      @Override
      public void write(char[] chars, int off, int len) {
        err.write(chars, off, len);
        if (!done && new String(chars, off, len).contains("epoch   0")) {
          done = true;
          try (FileChannel channel = FileChannel.open(f[0], StandardOpenOption.WRITE)) {
            channel.truncate(size / 3);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    int code = Main.run(new PrintWriter(new StringWriter(), true),
        new PrintWriter(truncating, true), "train", "--train", f[0].toString(), "--heldout",
        f[1].toString(), "--task", "regression", "--solver", "sgd", "--schedule", "fixed",
        "--epochs", "5", "--lr", "0.1", "--model", model.toString());
    String text = err.toString();
    assertEquals(1, code, text);
    assertTrue(text.contains("lprff: " + f[0] + " changed while it was being read: it was " + size
        + " bytes when opened and is " + size / 3 + " bytes now"), text);
    assertFalse(text.contains("\tat ") || text.contains("InternalError"), text);
    assertFalse(Files.exists(model), "no model file after a failed run");
  }
}
