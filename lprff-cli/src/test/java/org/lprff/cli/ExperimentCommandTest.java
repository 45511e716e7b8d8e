package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.cli.experiment.RunRecord;
import org.lprff.cli.experiment.RunsCsv;
import org.lprff.fixtures.Idx;
import org.lprff.vector.metrics.TrainingMemory;

/**
 * {@code lprff experiment} end to end on small data (the synthetic problems of {@link
 * TrainCommandTest} and a synthetic Fashion-MNIST), with small m so that each experiment takes
 * seconds: every planned run lands in runs.csv once, the training memory is Table 1's, σ and λ
 * come from the validation split, --resume skips what is done and redoes a cut-short line, and
 * bad --data is refused by name. Everything is seeded, so nothing here is statistical.
 */
class ExperimentCommandTest {

  @TempDir static Path dir;
  static Path regressionCsv;
  static Path classesCsv;

  /** The small plan of these tests: 2 m, 2 landmark counts, 2 bits, 2 quantizers. */
  static final String[] SMALL = {"--features", "16,64", "--nystrom", "16,32", "--bits", "1,4",
      "--kernel-rows", "60", "--quiet"};

  /** Runs per seed of {@link #SMALL}: per m, dense and circulant fp32 and 2 x 2 LP-RFF; Nyström. */
  static final int RUNS_PER_SEED = 2 * (2 + 2 * 2) + 2;

  @BeforeAll
  static void data() throws IOException {
    regressionCsv = dir.resolve("regression.csv");
    classesCsv = dir.resolve("classes.csv");
    TrainCommandTest.writeCsv(regressionCsv, 400, 1, false);
    TrainCommandTest.writeCsv(classesCsv, 400, 3, true);
  }

  /** The command line of an experiment on {@code data} with the {@link #SMALL} plan. */
  static String[] args(Path data, Path out, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("experiment", "--data",
        data.toString(), "--out", out.toString()));
    args.addAll(List.of(SMALL));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  static Cli.Result experiment(Path data, Path out, String... more) {
    return Cli.run(args(data, out, more));
  }

  static void requireOk(Cli.Result r) {
    assertEquals(0, r.exitCode(), r.toString());
  }

  @Test
  void regressionRunsEveryMethodAndSeedOnce() throws IOException {
    Path out = dir.resolve("regression");
    Cli.Result r = experiment(regressionCsv, out, "--seeds", "2");
    requireOk(r);
    assertTrue(r.out().contains((2 * RUNS_PER_SEED) + " runs in"), r.toString());
    List<RunRecord> runs = RunsCsv.read(out.resolve("runs.csv")).records();
    assertEquals(2 * RUNS_PER_SEED, runs.size());
    Set<RunRecord.Key> keys = new HashSet<>();
    Properties chosen = properties(out);
    double sigma = Double.parseDouble(chosen.getProperty("sigma"));
    double l2 = Double.parseDouble(chosen.getProperty("l2"));
    for (RunRecord run : runs) {
      assertTrue(keys.add(run.key()), "twice: " + run.key());
      assertEquals(RunRecord.MSE, run.metricName());
      assertTrue(run.heldoutMetric() > 0 && run.heldoutMetric() < 10, run.toString());
      assertTrue(run.delta1() >= 0 && run.delta1() <= 1, run.toString());
      assertTrue(run.delta2() >= 0 && run.frobeniusError() >= 0 && run.spectralError() >= 0);
      assertEquals(sigma, run.sigma());
      assertEquals(l2, run.l2());
      // Table 1 of the LP-RFF paper, with mini-batches of 250 rows and one output.
      TrainingMemory memory = run.method().equals(RunRecord.NYSTROM)
          ? TrainingMemory.forNystrom(4, run.m(), 250, 1)
          : TrainingMemory.forProjection(run.projection(), 4, run.m(), run.bits(), 250, 1);
      assertEquals(memory.totalBits(), run.memoryBits(), run.toString());
      assertEquals(memory.totalBits(), run.featureGenerationBits() + run.miniBatchBits()
          + run.modelBits());
    }
    // The seeds change the maps: the same method at seeds 1 and 2 differs.
    assertFalse(runs.get(0).heldoutMetric() == runs.get(RUNS_PER_SEED).heldoutMetric());
    // sigma is one of the candidates of the validation split, reported in the summary.
    String summary = Files.readString(out.resolve("summary.md"));
    assertTrue(summary.contains("(chosen)"), summary);
    assertTrue(summary.contains("validation"), summary);
    assertTrue(chosen.getProperty("candidate.0") != null);
    for (String plot : List.of("fig3-delta-vs-m.png", "fig4-metric-vs-memory.png",
        "fig5-metric-vs-approximation.png")) {
      assertTrue(Files.size(out.resolve(plot)) > 1000, plot);
    }
  }

  @Test
  void resumeSkipsFinishedRunsAndRedoesACutShortLine() throws IOException {
    Path out = dir.resolve("resume");
    requireOk(experiment(regressionCsv, out, "--seeds", "1"));
    Path runsFile = out.resolve("runs.csv");
    List<String> first = Files.readAllLines(runsFile);
    assertEquals(1 + RUNS_PER_SEED, first.size());
    // An append cut short by a kill: the last line loses its second half and its newline.
    String last = first.getLast();
    String text = Files.readString(runsFile);
    Files.writeString(runsFile, text.substring(0, text.length() - last.length() / 2 - 1));

    Cli.Result again = experiment(regressionCsv, out, "--seeds", "2", "--resume");
    requireOk(again);
    assertTrue(again.out().contains((RUNS_PER_SEED + 1) + " runs ("
        + (RUNS_PER_SEED - 1) + " already done)"), again.toString());
    List<String> lines = Files.readAllLines(runsFile);
    assertEquals(1 + 2 * RUNS_PER_SEED, lines.size());
    // Finished runs are kept as they were; the redone one is the same run, the same numbers.
    assertEquals(first.subList(0, first.size() - 1), lines.subList(0, first.size() - 1));
    RunRecord before = RunsCsv.read(writeLines(dir.resolve("before.csv"), first)).records()
        .getLast();
    RunRecord redone = RunsCsv.read(runsFile).records().stream()
        .filter(x -> x.key().equals(before.key())).findFirst().orElseThrow();
    assertEquals(before.heldoutMetric(), redone.heldoutMetric());
    assertEquals(before.delta1(), redone.delta1());
    Set<RunRecord.Key> keys = new HashSet<>();
    for (RunRecord run : RunsCsv.read(runsFile).records()) {
      assertTrue(keys.add(run.key()), "twice: " + run.key());
    }
  }

  @Test
  void anExistingExperimentNeedsResumeAndTheSameData() throws IOException {
    Path out = dir.resolve("existing");
    requireOk(experiment(regressionCsv, out, "--seeds", "1", "--nystrom", ""));
    Cli.Result again = experiment(regressionCsv, out, "--seeds", "1");
    assertEquals(1, again.exitCode(), again.toString());
    assertTrue(again.err().contains(out.resolve("runs.csv") + " exists: give --resume"),
        again.err());
    Path other = dir.resolve("other.csv");
    TrainCommandTest.writeCsv(other, 300, 7, false);
    Cli.Result wrong = experiment(other, out, "--seeds", "1", "--resume");
    assertEquals(1, wrong.exitCode(), wrong.toString());
    assertTrue(wrong.err().contains("has data = regression.csv, but this run has other.csv"),
        wrong.err());
  }

  @Test
  void classificationFromCsvLibsvmAndIdx() throws IOException {
    Path libsvm = dir.resolve("classes.libsvm");
    StringBuilder s = new StringBuilder();
    for (String line : Files.readAllLines(classesCsv).subList(1, 401)) {
      String[] c = line.split(",");
      s.append(c[4]);
      for (int j = 0; j < 4; j++) {
        s.append(' ').append(j + 1).append(':').append(c[j]);
      }
      s.append('\n');
    }
    Files.writeString(libsvm, s);
    Path images = dir.resolve("idx");
    Files.createDirectories(images);
    Idx.Files idx = Idx.Images.fashionLike(300, 1).write(images, "train", true);
    for (Path data : List.of(classesCsv, libsvm, idx.images())) {
      Path out = dir.resolve("classes-" + data.getFileName());
      // IDX: the labels file beside the images is found by its name.
      Cli.Result r = experiment(data, out, "--task", "classification", "--seeds", "1");
      requireOk(r);
      List<RunRecord> runs = RunsCsv.read(out.resolve("runs.csv")).records();
      assertEquals(RUNS_PER_SEED, runs.size(), data.toString());
      double best = 1;
      for (RunRecord run : runs) {
        assertEquals(RunRecord.ERROR_RATE, run.metricName());
        assertTrue(run.heldoutMetric() >= 0 && run.heldoutMetric() <= 1, run.toString());
        best = Math.min(best, run.heldoutMetric());
      }
      // Far better than guessing among 3 (CSV, LIBSVM: 0.67) or 10 (IDX: 0.9) classes.
      double bound = data == idx.images() ? 0.7 : 0.4;
      assertTrue(best < bound, data + ": best heldout error " + best + ", expected < " + bound);
    }
  }

  @Test
  void fashionMnistByNameReadsTheOfficialFilesFromTheDataFolder() throws IOException {
    Path root = dir.resolve("data-root");
    Path fashion = root.resolve("fashion-mnist");
    Files.createDirectories(fashion);
    Idx.Images.fashionLike(300, 1).write(fashion, "train", true);
    Idx.Images.fashionLike(100, 2).write(fashion, "t10k", true);
    String was = System.getProperty("lprff.data");
    System.setProperty("lprff.data", root.toString());
    try {
      Path out = dir.resolve("fashion");
      Cli.Result r = Cli.run("experiment", "--data", "fashion-mnist", "--out", out.toString(),
          "--features", "16", "--nystrom", "", "--bits", "2", "--seeds", "1",
          "--kernel-rows", "50");
      requireOk(r);
      assertTrue(r.err().contains("300 training rows, 100 heldout rows, d = 784, 10-class"
          + " classification"), r.err());
      Properties p = properties(out);
      assertEquals("300", p.getProperty("train_rows"));
      assertEquals("100", p.getProperty("heldout_rows"));

      System.setProperty("lprff.data", dir.resolve("nowhere").toString());
      Cli.Result missing = Cli.run("experiment", "--data", "fashion-mnist", "--out",
          dir.resolve("fashion-missing").toString());
      assertEquals(1, missing.exitCode(), missing.toString());
      assertTrue(missing.err().contains("--data fashion-mnist: no " + dir.resolve("nowhere")
          .resolve("fashion-mnist").resolve("train-images-idx3-ubyte.gz")), missing.err());
    } finally {
      if (was == null) {
        System.clearProperty("lprff.data");
      } else {
        System.setProperty("lprff.data", was);
      }
    }
  }

  @Test
  void badOptionsAreRefusedByName() throws IOException {
    Cli.Result none = Cli.run("experiment", "--data", dir.resolve("nosuch.csv").toString(),
        "--out", dir.resolve("x").toString());
    assertEquals(2, none.exitCode(), none.toString());
    assertTrue(none.err().contains("--data is '" + dir.resolve("nosuch.csv")
        + "': no such file"), none.err());
    Cli.Result folder = Cli.run("experiment", "--data", dir.toString(), "--out",
        dir.resolve("x").toString());
    assertEquals(2, folder.exitCode(), folder.toString());
    assertTrue(folder.err().contains("--data is '" + dir + "': a folder"), folder.err());
    Path unknown = dir.resolve("rows.bin");
    Files.write(unknown, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
    Cli.Result binary = Cli.run("experiment", "--data", unknown.toString(), "--out",
        dir.resolve("x").toString());
    assertEquals(1, binary.exitCode(), binary.toString());
    assertTrue(binary.err().contains("cannot tell the format of " + unknown), binary.err());
    assertTrue(binary.err().contains("give --format csv, libsvm, idx or arrow"), binary.err());
    String[][] cases = {
      {"--bits", "32"}, {"--bits", "3"}, {"--seeds", "0"}, {"--features", "0"},
      {"--kernel-rows", "1"}, {"--task", "ranking"}, {"--nystrom", "x"}};
    String[] expected = {"--bits has 32", "--bits has 3", "--seeds is 0", "--features has 0",
      "--kernel-rows is 1", "--task is 'ranking'", "--nystrom has 'x'"};
    for (int i = 0; i < cases.length; i++) {
      Cli.Result r = Cli.run("experiment", "--data", regressionCsv.toString(), "--out",
          dir.resolve("bad" + i).toString(), cases[i][0], cases[i][1]);
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(r.err().contains(expected[i]), r.err());
      assertFalse(Files.exists(dir.resolve("bad" + i).resolve("runs.csv")));
    }
    Cli.Result named = Cli.run("experiment", "--data", "diamonds", "--heldout",
        regressionCsv.toString());
    assertEquals(2, named.exitCode(), named.toString());
    assertTrue(named.err().contains("--data diamonds brings its own files"), named.err());
  }

  private static Properties properties(Path out) throws IOException {
    Properties p = new Properties();
    try (var r = Files.newBufferedReader(out.resolve("experiment.properties"),
        StandardCharsets.UTF_8)) {
      p.load(r);
    }
    return p;
  }

  private static Path writeLines(Path file, List<String> lines) throws IOException {
    Files.writeString(file, String.join("\n", lines) + "\n");
    return file;
  }

  static String format(double x) {
    return String.format(Locale.ROOT, "%.3f", x);
  }
}
