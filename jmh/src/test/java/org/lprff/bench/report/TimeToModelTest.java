package org.lprff.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.bench.report.TimeToModel.Method;
import org.lprff.bench.report.TimeToModel.Row;
import org.lprff.report.Json;

/**
 * The time-to-model table of {@code lprff bench --time-to-model}: its markdown, JSON and plot from
 * canned rows, its options, the reference's environment and a missing Python. Nothing here trains
 * a real model.
 */
class TimeToModelTest {

  static TimeToModel.Table canned() {
    Map<String, Object> reference = Map.of("sklearn", "1.9.1", "numpy", "2.4.6",
        "python_version", "3.11.7", "python", "/venv/bin/python", "scrubbed", "none set",
        "blas", List.of(Map.of("user_api", "blas", "internal_api", "openblas",
            "version", "0.3.30", "architecture", "SkylakeX", "num_threads", 2),
            Map.of("user_api", "openmp", "internal_api", "openmp", "num_threads", 2)));
    return new TimeToModel.Table(List.of(TimeToModel.DIAMONDS, TimeToModel.DIGITS), List.of(
        new Row("diamonds", Method.LPRFF, 1e-6, 0.01234, 2.5, 7.5, "cg; solve 4.0 s"),
        new Row("diamonds", Method.SINGLE, 1e-6, 0.01111, 3, 12, "Ridge at lprff's l2"),
        new Row("diamonds", Method.SEARCH, 1e-5, 0.01222, 3, 30,
            "RidgeCV, l2 by leave-one-out"),
        new Row("digits", Method.LPRFF, 1e-4, 0.025, 1.5, 3.0, "lbfgs; solve 1.2 s"),
        new Row("digits", Method.SINGLE, 1e-4, 0.0222, 0.2, 9, "LogisticRegression at lprff's l2"),
        new Row("digits", Method.SEARCH, 1e-5, 0.0194, 0.2, 120,
            "LogisticRegressionCV, l2 by 5-fold cross-validation; did not converge")),
        List.of(), "the repository's ./lprff", reference, 190);
  }

  @Test
  void markdownListsEveryRowWithItsMetricAndSeconds() {
    String md = TimeToModel.markdown(canned(), Charts.TIME_TO_MODEL_PNG);
    assertTrue(md.contains("## 5. Time to a model"), md);
    assertTrue(md.contains("](" + Charts.TIME_TO_MODEL_PNG + ")"), md);
    assertTrue(md.contains("| diamonds | lprff defaults | 1e-06 | MSE 0.0123 | 2.50 | 7.50 | 10.0"
        + " | cg; solve 4.0 s |"), md);
    assertTrue(md.contains("| diamonds | scikit-learn search | 1e-05 | MSE 0.0122 | 3.00 | 30.0"
        + " | 33.0 |"), md);
    assertTrue(md.contains("| digits | scikit-learn single fit | 1e-04 | error rate 0.0222 |"
        + " 0.200 | 9.00 | 9.20 |"), md);
    assertTrue(md.contains("did not converge"), md);
    assertTrue(md.contains("1e-02, 1e-03, 1e-04, 1e-05, 1e-06, 1e-07"), md);
    // The kernel the reference's BLAS ran, and the variables it ran without.
    assertTrue(md.contains("openblas 0.3.30 kernel SkylakeX, 2 threads"), md);
    assertTrue(md.contains("run without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (none set"), md);
    assertTrue(md.contains("diamonds: lprff-cli's diamonds.csv, target log(price), seed-7 80/20"
        + " split, sigma 2, m = 4096, 4-bit circulant, standardized"), md);
    assertTrue(md.contains("The table took 3 min 10 s."), md);
  }

  @Test
  void jsonHoldsEveryRowAndTheReference() {
    Map<String, Object> json = TimeToModel.json(canned());
    List<?> rows = (List<?>) json.get("rows");
    assertEquals(6, rows.size());
    Map<?, ?> first = (Map<?, ?>) rows.getFirst();
    assertEquals("diamonds", first.get("dataSet"));
    assertEquals("lprff defaults", first.get("model"));
    assertEquals(10.0, (Double) first.get("seconds"), 1e-12);
    assertEquals(2.5, (Double) first.get("featuresSeconds"), 1e-12);
    Map<?, ?> digits = (Map<?, ?>) ((List<?>) json.get("dataSets")).get(1);
    assertEquals("heldoutErrorRate", digits.get("metric"));
    assertEquals(TimeToModel.L2_GRID, json.get("l2Grid"));
    assertEquals("none set", ((Map<?, ?>) json.get("reference")).get("scrubbed"));
    // Through Json and back, as results.json holds it.
    Map<?, ?> parsed = (Map<?, ?>) Json.parse(Json.write(json));
    assertEquals(6, ((List<?>) parsed.get("rows")).size());
  }

  @Test
  void reportEmbedsTheTableAndThePlot(@TempDir Path dir) throws IOException {
    Report.write(dir, ReportTest.MACHINE, ReportTest.run(),
        new Figures(ReportTest.canned(), ReportTest.sklearn(), 2), canned());
    assertEquals(Charts.WIDTH,
        ImageIO.read(dir.resolve(Charts.TIME_TO_MODEL_PNG).toFile()).getWidth());
    String md = Files.readString(dir.resolve(Report.REPORT_MD));
    assertTrue(md.contains("## 5. Time to a model"), md);
    assertTrue(md.contains("time to model 3 min 10 s)"), md);
    Map<?, ?> json = (Map<?, ?>) Json.parse(Files.readString(dir.resolve(Report.RESULTS_JSON)));
    assertEquals(6, ((List<?>) ((Map<?, ?>) json.get("timeToModel")).get("rows")).size());
    assertTrue(Charts.seriesNames(Charts.timeToModel(canned())).containsAll(
        List.of("lprff defaults", "scikit-learn single fit", "scikit-learn search")));
  }

  @Test
  void withoutTheOptionThereIsNoTable(@TempDir Path dir) throws IOException {
    Report.write(dir, ReportTest.MACHINE, ReportTest.run(),
        new Figures(ReportTest.canned(), ReportTest.sklearn(), 2));
    assertFalse(Files.exists(dir.resolve(Charts.TIME_TO_MODEL_PNG)));
    assertFalse(Files.readString(dir.resolve(Report.REPORT_MD)).contains("Time to a model"));
    assertFalse(Files.readString(dir.resolve(Report.RESULTS_JSON)).contains("timeToModel"));
  }

  private record Outcome(int code, String out, String err) {}

  private static Outcome bench(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BenchCommand.run(new BenchCommand(), new PrintWriter(out), new PrintWriter(err),
        args);
    return new Outcome(code, out.toString(), err.toString());
  }

  @Test
  void optionsSelectTheDataSetsAndListThem(@TempDir Path dir) throws IOException {
    Outcome quick = bench("--quick", "--list");
    assertEquals(0, quick.code(), quick.err());
    assertFalse(quick.out().contains("TimeToModel"), quick.out());
    Outcome alone = bench("--quick", "--list", "--time-to-model", "--only", "TimeToModel");
    assertEquals(0, alone.code(), alone.err());
    assertEquals(List.of("TimeToModel.diamonds task=regression sigma=2 m=4096 bits=4",
        "TimeToModel.digits task=classification sigma=4 m=4096 bits=4",
        "0 benchmarks, then the time to a model on 2 data sets"), alone.out().lines().toList());
    Outcome digits = bench("--list", "--time-to-model", "--only", "Packed|TimeToModel.digits");
    assertTrue(digits.out().contains("TimeToModel.digits"), digits.out());
    assertFalse(digits.out().contains("TimeToModel.diamonds"), digits.out());
    assertTrue(digits.out().contains("then the time to a model on 1 data sets"), digits.out());
    // --only naming the table without the option: a usage error that names the option.
    Outcome without = bench("--list", "--only", "TimeToModel");
    assertEquals(2, without.code());
    assertTrue(without.err().contains("run with --time-to-model"), without.err());
    // Fashion-MNIST: its folder is checked before anything runs; it implies --time-to-model.
    Outcome missing = bench("--list", "--fashion-mnist", dir.toString());
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains("--fashion-mnist " + dir + " has no"
        + " train-images-idx3-ubyte.gz"), missing.err());
    for (String f : TimeToModelRun.FASHION_FILES) {
      Files.writeString(dir.resolve(f), "");
    }
    Outcome fashion = bench("--list", "--fashion-mnist", dir.toString(), "--only", "TimeToModel");
    assertEquals(0, fashion.code(), fashion.err());
    assertTrue(fashion.out().contains("TimeToModel.fashion-mnist task=classification sigma=5"
        + " m=8192 bits=4"), fashion.out());
    assertTrue(bench("--help").out().contains("--time-to-model"));
  }

  @Test
  void featurizeArgumentsFollowTheProjectsScripts(@TempDir Path work) {
    Path idx = Path.of("/data/fashion-mnist");
    assertEquals(List.of("featurize", "--input", work.resolve("train.csv").toString(),
        "--label-column", "logprice", "--standardize", "--sigma", "2", "--features", "4096",
        "--projection", "circulant", "--bits", "4", "--output", "T", "--quiet"),
        TimeToModelRun.featurize(TimeToModel.DIAMONDS, work, null, true, Path.of("T")));
    assertEquals(List.of("featurize", "--input", work.resolve("heldout.csv").toString(),
        "--label-column", "digit", "--label-type", "classes", "--like",
        work.resolve("train.arrow").toString(), "--bits", "32", "--output", "H", "--quiet"),
        TimeToModelRun.featurize(TimeToModel.DIGITS, work, null, false, Path.of("H")));
    List<String> fashion =
        TimeToModelRun.featurize(TimeToModel.FASHION_MNIST, work, idx, true, Path.of("T"));
    assertTrue(fashion.containsAll(List.of("--idx-labels", "--seed", "8192")), fashion.toString());
    assertFalse(fashion.contains("--standardize"), fashion.toString());
  }

  @Test
  void theReferenceRunsWithoutThePinnedBlasVariables(@TempDir Path dir)
      throws IOException, InterruptedException {
    Map<String, String> parent = Map.copyOf(System.getenv());
    Map<String, String> child = new HashMap<>(Map.of("OPENBLAS_CORETYPE", "Haswell",
        "OPENBLAS_L2_SIZE", "1048576", "PATH", "/usr/bin"));
    SklearnReference.scrub(child);
    assertEquals(Map.of("PATH", "/usr/bin"), child);
    ProcessBuilder builder = SklearnReference.pythonProcess(List.of("sh", "-c",
        "echo \"${OPENBLAS_CORETYPE-unset} ${OPENBLAS_L2_SIZE-unset}\""));
    for (String name : SklearnReference.PINNED_BLAS) {
      assertFalse(builder.environment().containsKey(name), name);
    }
    Process p = builder.start();
    assertEquals("unset unset", new String(p.getInputStream().readAllBytes()).strip());
    assertEquals(0, p.waitFor());
    // A "python" that answers with what it sees: the shipped script's path is its argument.
    Path fake = dir.resolve("python");
    Files.writeString(fake, "#!/bin/sh\necho \"{\\\"available\\\": true, \\\"coretype\\\":"
        + " \\\"${OPENBLAS_CORETYPE-unset}\\\"}\"\n");
    assertTrue(fake.toFile().setExecutable(true));
    SklearnReference.Script script = SklearnReference.Script.run(fake.toString(),
        "sklearn_time_to_model.py", List.of("export", "{}"), Duration.ofMinutes(1));
    assertEquals("unset", script.doc().get("coretype"), script.error());
    // The parent (this JVM, the tests, the lprff processes) keeps its environment.
    assertEquals(parent, System.getenv());
  }

  @Test
  void aMissingPythonIsAMessageNamingHowToGetScikitLearn(@TempDir Path root) throws IOException {
    // A repository with a ./lprff that only answers --version: nothing trains.
    Path lprff = root.resolve("lprff");
    Files.writeString(lprff, "#!/bin/sh\necho 'lprff test'\n");
    assertTrue(lprff.toFile().setExecutable(true));
    Path csv = root.resolve(TimeToModelRun.DIAMONDS_CSV);
    Files.createDirectories(csv.getParent());
    Files.writeString(csv, "carat,price\n");
    StringWriter progress = new StringWriter();
    String python = root.resolve("absent-python").toString();
    TimeToModel.Table table = new TimeToModelRun(root, python, null,
        new PrintWriter(progress, true), () -> "0:00").run(List.of(TimeToModel.DIAMONDS));
    assertTrue(table.rows().isEmpty());
    assertEquals(1, table.messages().size(), table.messages().toString());
    String message = table.messages().getFirst();
    assertTrue(message.startsWith("diamonds: "), message);
    assertTrue(message.contains("no Python interpreter '" + python + "'"), message);
    assertTrue(message.contains("pip install numpy scikit-learn"), message);
    assertTrue(progress.toString().contains("not measured"), progress.toString());
    String md = TimeToModel.markdown(table, Charts.TIME_TO_MODEL_PNG);
    assertTrue(md.contains("**Not measured**: diamonds: "), md);
    assertTrue(md.contains("_No data set was measured._"), md);
    assertTrue(md.contains("To get it: python3 -m venv"), md);
  }

  @Test
  void trainJsonIsTheLastObjectLine() {
    assertEquals(0.5, ((Number) TimeToModelRun.lastJson("progress\n{\"a\": 1}\n{\"l2\": 0.5}\n")
        .get("l2")).doubleValue());
    assertNull(TimeToModelRun.lastJson("no json\n"));
  }
}
