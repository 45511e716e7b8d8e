package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * come from the validation split, --resume skips what is done and redoes a cut-short line (and
 * takes another --quantizer list as it takes other m or bits), a --quantizer list runs each
 * (quantizer, b) pair it can code once and says which it skips, and bad options are refused by
 * name. Everything is seeded, so nothing here is statistical.
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
    List<String> args = new ArrayList<>(List.of("experiment", "--data",
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

  /** Every quantizer family but nearest, two Sigma-Delta configurations among them. */
  static final String QUANTIZERS =
      "stochastic,lloyd-max,sigma-delta:1:4,shared-threshold,sigma-delta:2:4";

  @Test
  void quantizerListRunsEachCodablePairOnceAndSkipsTheOthers() throws IOException {
    Path out = dir.resolve("quantizers");
    // Not --quiet: the progress names the skipped pairs.
    Cli.Result r = Cli.run("experiment", "--data", regressionCsv.toString(), "--out",
        out.toString(), "--features", "16,64", "--nystrom", "", "--bits", "1,4,16",
        "--kernel-rows", "60", "--seeds", "1", "--quantizer", QUANTIZERS);
    requireOk(r);
    // 16 bits only for stochastic, 1 bit not for Sigma-Delta of order 2 (it needs b >= 2).
    Set<RunRecord.Key> expected = new HashSet<>();
    for (int m : List.of(16, 64)) {
      expected.add(new RunRecord.Key(RunRecord.RFF, "dense", RunRecord.NONE, m, 32, 1));
      expected.add(new RunRecord.Key(RunRecord.RFF, "circulant", RunRecord.NONE, m, 32, 1));
      for (String q : QUANTIZERS.split(",")) {
        for (int b : List.of(1, 4, 16)) {
          if ((b < 16 || q.equals("stochastic")) && !(q.equals("sigma-delta:2:4") && b == 1)) {
            expected.add(new RunRecord.Key(RunRecord.LP_RFF, "circulant", q, m, b, 1));
          }
        }
      }
    }
    assertEquals(24, expected.size());
    assertTrue(r.out().contains("experiment: 24 runs in"), r.toString());
    List<RunRecord> runs = RunsCsv.read(out.resolve("runs.csv")).records();
    Set<RunRecord.Key> keys = new HashSet<>();
    for (RunRecord run : runs) {
      assertTrue(keys.add(run.key()), "twice: " + run.key());
      assertTrue(run.heldoutMetric() > 0 && run.heldoutMetric() < 10, run.toString());
      // Sigma-Delta's model reads m / block condensed features (Table 1 over those).
      int modelFeatures = run.quantizer().startsWith("sigma-delta") ? run.m() / 4 : run.m();
      TrainingMemory memory =
          TrainingMemory.forProjection(run.projection(), 4, run.m(), run.bits(), 250, 1);
      assertEquals(memory.featureGenerationBits() + memory.miniBatchBits()
          + TrainingMemory.forProjection(run.projection(), 4, modelFeatures, run.bits(), 250, 1)
              .modelBits(), run.memoryBits(), run.toString());
    }
    assertEquals(expected, keys);
    // The two Sigma-Delta configurations are different maps, not one run twice.
    assertFalse(metric(runs, "sigma-delta:1:4", 64, 4) == metric(runs, "sigma-delta:2:4", 64, 4));

    String skips = "lloyd-max at b in [16], sigma-delta:1:4 at b in [16], shared-threshold at b"
        + " in [16], sigma-delta:2:4 at b in [1, 16]";
    assertEquals(1, count(r.err(), "LP-RFF skips " + skips + ": stochastic and nearest code every"
        + " width; shared-threshold, lloyd-max and sigma-delta 1, 2, 4 or 8 bits, sigma-delta of"
        + " order r at least r"), r.err());
    String summary = Files.readString(out.resolve("summary.md"));
    assertTrue(summary.contains("quantizers [stochastic, lloyd-max, sigma-delta:1:4,"
        + " shared-threshold, sigma-delta:2:4]; skipped: " + skips + ", since"), summary);
    // Table 2: one row per family present (every Sigma-Delta configuration in one), nearest
    // "not run" as ever; the means table has a series per configuration.
    for (String family : List.of("LP-RFF stochastic", "LP-RFF shared-threshold",
        "LP-RFF lloyd-max", "LP-RFF sigma-delta", "full-precision RFF")) {
      assertEquals(1, count(summary, "\n| " + family + " | "), family + "\n" + summary);
    }
    assertTrue(summary.contains("\n| LP-RFF nearest | not run | | | | |\n"), summary);
    assertTrue(summary.contains("\n| Nyström | not run | | | | |\n"), summary);
    for (String series : List.of("LP-RFF circulant b=4 sigma-delta:1:4",
        "LP-RFF circulant b=4 sigma-delta:2:4", "LP-RFF circulant b=1 lloyd-max",
        "LP-RFF circulant b=16 stochastic")) {
      assertEquals(1, count(summary, "\n| " + series + " | "), series + "\n" + summary);
    }
  }

  @Test
  void resumeTakesAnotherQuantizerListLikeTheOtherLists() throws IOException {
    Path out = dir.resolve("resume-quantizers");
    String[] plan = {"--seeds", "1"};
    requireOk(experiment(regressionCsv, out, concat(plan, "--quantizer", "stochastic")));
    Path runsFile = out.resolve("runs.csv");
    List<String> first = Files.readAllLines(runsFile);
    // per m: dense, circulant, stochastic b = 1, 4; Nyström at 2 landmark counts
    assertEquals(1 + 2 * (2 + 2) + 2, first.size());

    // A longer list: its new quantizer's runs, the rest already done.
    Cli.Result grown = experiment(regressionCsv, out,
        concat(plan, "--quantizer", "stochastic,sigma-delta:1:4", "--resume"));
    requireOk(grown);
    assertTrue(grown.out().contains("experiment: 4 runs (10 already done)"), grown.toString());
    List<String> lines = Files.readAllLines(runsFile);
    assertEquals(first, lines.subList(0, first.size()));
    assertEquals(4, lines.stream().filter(l -> l.contains(",sigma-delta:1:4,")).count());

    // Another list altogether: only its own runs are new; the file keeps every run.
    Cli.Result other = experiment(regressionCsv, out,
        concat(plan, "--quantizer", "nearest", "--resume"));
    requireOk(other);
    assertTrue(other.out().contains("experiment: 4 runs (6 already done)"), other.toString());
    List<RunRecord> runs = RunsCsv.read(runsFile).records();
    assertEquals(18, runs.size());
    assertEquals(18, runs.stream().map(RunRecord::key).distinct().count());
    String summary = Files.readString(out.resolve("summary.md"));
    assertTrue(summary.contains("18 runs in runs.csv"), summary);
    assertEquals(1, count(summary, "\n| LP-RFF sigma-delta | "), summary);

    // A block that does not divide the m of the plan is refused before anything runs.
    Cli.Result odd = experiment(regressionCsv, out,
        concat(plan, "--quantizer", "sigma-delta:1:3", "--resume"));
    assertEquals(2, odd.exitCode(), odd.toString());
    assertTrue(odd.err().contains("--quantizer has sigma-delta:1:3, whose block 3 does not"
        + " divide m = [16, 64] of --features [16, 64]"), odd.err());
    assertEquals(18, RunsCsv.read(runsFile).records().size());
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
      {"--kernel-rows", "1"}, {"--task", "ranking"}, {"--nystrom", "x"},
      {"--quantizer", "fuzzy"}, {"--quantizer", "stochastic,lloyd-max,stochastic"},
      {"--quantizer", "sigma-delta:4:8"}, {"--quantizer", "sigma-delta:1:24"},
      {"--quantizer", "lloyd-max,nearest", "--bits", "16"},
      {"--quantizer", "sigma-delta:3:8", "--bits", "1,2"}};
    String[] expected = {"--bits is 32; expected 1, 2, 4, 8 or 16 (full precision always runs)",
      "--bits is 3; expected 1, 2, 4, 8 or 16", "--seeds is 0", "--features has 0",
      "--kernel-rows is 1", "--task is 'ranking'", "--nystrom has 'x'",
      "--quantizer is 'fuzzy', expected one of stochastic, nearest",
      "--quantizer lists stochastic twice",
      "--quantizer is 'sigma-delta:4:8': sigma-delta order is 4, expected 1, 2 or 3",
      "--quantizer has sigma-delta:1:24, whose block 24 does not divide m = [256, 512, 1024,"
          + " 2048, 4096] of --features [256, 512, 1024, 2048, 4096]",
      "--quantizer has lloyd-max, which codes none of --bits [16]: bits is 16; expected 1, 2, 4"
          + " or 8 for quantizer lloyd-max (16 bits: stochastic or nearest)",
      "--quantizer has sigma-delta:3:8, which codes none of --bits [1, 2]: bits is 1; expected 4"
          + " or 8 for quantizer sigma-delta:3:8 (order 3 needs at least 3 bits)"};
    for (int i = 0; i < cases.length; i++) {
      List<String> command = new ArrayList<>(List.of("experiment", "--data",
          regressionCsv.toString(), "--out", dir.resolve("bad" + i).toString()));
      command.addAll(List.of(cases[i]));
      Cli.Result r = Cli.run(command.toArray(String[]::new));
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

  /** The runs.csv metric of LP-RFF with {@code quantizer} at m and b, seed 1. */
  private static double metric(List<RunRecord> runs, String quantizer, int m, int bits) {
    return runs.stream().filter(x -> x.quantizer().equals(quantizer) && x.m() == m
        && x.bits() == bits).findFirst().orElseThrow().heldoutMetric();
  }

  /** Occurrences of {@code part} in {@code text}. */
  private static int count(String text, String part) {
    int n = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      n++;
    }
    return n;
  }

  private static String[] concat(String[] a, String... b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(String[]::new);
  }

  private static Path writeLines(Path file, List<String> lines) throws IOException {
    Files.writeString(file, String.join("\n", lines) + "\n");
    return file;
  }

  static String format(double x) {
    return String.format(Locale.ROOT, "%.3f", x);
  }
}
