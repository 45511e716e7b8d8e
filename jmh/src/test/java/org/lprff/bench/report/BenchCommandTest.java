package org.lprff.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.report.Json;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.TimeValue;

/** The options of {@code lprff bench}, the suite against this jar, and one tiny run in-process. */
class BenchCommandTest {

  private record Outcome(int code, String out, String err) {}

  private static Outcome run(BenchCommand command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BenchCommand.run(command, new PrintWriter(out), new PrintWriter(err), args);
    return new Outcome(code, out.toString(), err.toString());
  }

  private static Outcome run(String... args) {
    return run(new BenchCommand(), args);
  }

  @Test
  void badOptionValuesAreUsageErrorsNamingTheValue() {
    Outcome regex = run("--only", "Featurizer(", "--list");
    assertEquals(2, regex.code());
    assertTrue(regex.err().contains("--only 'Featurizer(' is not a regular expression"), regex.err());
    Outcome none = run("--only", "NoSuchBenchmark", "--list");
    assertEquals(2, none.code());
    assertTrue(none.err().contains("'NoSuchBenchmark' matches no benchmark"), none.err());
    Outcome threads = run("--threads", "0", "--list");
    assertEquals(2, threads.code());
    assertTrue(threads.err().contains("--threads must be at least 2, not 0"), threads.err());
    Outcome notInt = run("--threads", "two");
    assertEquals(2, notInt.code());
    assertTrue(notInt.err().contains("'two'"), notInt.err());
    Outcome forks = run("--forks", "-1", "--list");
    assertEquals(2, forks.code());
    assertTrue(forks.err().contains("--forks must be 0 or more, not -1"), forks.err());
    Outcome unknown = run("--fast");
    assertEquals(2, unknown.code());
    assertTrue(unknown.err().contains("--fast"), unknown.err());
    assertTrue(unknown.err().contains("Try 'lprff bench --help'"), unknown.err());
  }

  @Test
  void helpNamesTheOptionsAndTheDefaultFolder() {
    Outcome help = run("--help");
    assertEquals(0, help.code());
    for (String s : List.of("--quick", "--out", "--only", "--threads", "bench-results/")) {
      assertTrue(help.out().contains(s), s + " missing from\n" + help.out());
    }
  }

  @Test
  void everySuiteEntryNamesBenchmarksOfThisJar() {
    // plan() throws when an entry's regex matches nothing.
    List<JmhSteps.Step> quick = JmhSteps.plan(Suite.ENTRIES, true, null);
    List<JmhSteps.Step> full = JmhSteps.plan(Suite.ENTRIES, false, null);
    int quickCount = quick.stream().mapToInt(JmhSteps.Step::count).sum();
    int fullCount = full.stream().mapToInt(JmhSteps.Step::count).sum();
    assertTrue(quickCount > 20 && quickCount < fullCount, quickCount + " / " + fullCount);
    Outcome list = run("--quick", "--list", "--only", "PackedProductsBenchmark");
    assertEquals(0, list.code(), list.err());
    // forward and accumulate x bits 1, 4, 8, 32 x classes 1, 10.
    assertTrue(list.out().contains("16 benchmarks"), list.out());
    assertTrue(list.out().contains("PackedProductsBenchmark.forwardVector classes=10 bits=4"),
        list.out());
    assertTrue(list.out().contains("PackedProductsBenchmark.forwardVector classes=1 bits=32"),
        list.out());
    // The scikit-learn shapes are the featurizer's (d, m, rows).
    List<int[]> shapes = BenchCommand.featurizerShapes(quick);
    assertEquals(2, shapes.size());
    assertEquals(List.of(90, Suite.QUICK_FEATURES, Suite.QUICK_ROWS),
        List.of(shapes.get(0)[0], shapes.get(0)[1], shapes.get(0)[2]));
  }

  /**
   * The featurizer and the packed products run 3 forks in both runs, the quick one with 5 x 1 s
   * of warm-up and 5 x 500 ms iterations; the other kernels the run's single fork; --forks
   * replaces every count; a test's settings replace them all.
   */
  @Test
  void theFeaturizerAndProductsForkCountReachesJmhOptions() {
    for (boolean quick : new boolean[] {true, false}) {
      int forked = 0;
      for (JmhSteps.Step step : JmhSteps.plan(Suite.ENTRIES, quick, null)) {
        Options o = JmhSteps.options(step, JmhSteps.timing(step, quick, null, null), List.of());
        String name = step.entry().benchmark();
        boolean many = step.entry().part() == Suite.Part.FEATURIZER
            || name.startsWith("PackedProductsBenchmark");
        assertEquals(many ? 3 : 1, o.getForkCount().get(), name + " quick=" + quick);
        if (many) {
          forked += step.count();
          assertEquals(quick ? 5 : 2, o.getWarmupIterations().get(), name);
          assertEquals(TimeValue.milliseconds(quick ? 500 : 1000),
              o.getMeasurementTime().get(), name);
        } else {
          assertEquals(quick ? 3 : 5, o.getMeasurementIterations().get(), name);
        }
        Options two = JmhSteps.options(step, JmhSteps.timing(step, quick, null, 2), List.of());
        assertEquals(2, two.getForkCount().get(), name);
        Options test = JmhSteps.options(step,
            JmhSteps.timing(step, quick, new Suite.Timing(0, 0, 0, 1, 100), null), List.of());
        assertEquals(0, test.getForkCount().get(), name);
      }
      // quick: d = 90, 784 x 4, 32 x dense, fastfood x 2 methods, 2 widths more, 16 products.
      assertEquals(quick ? 18 + 16 : 36 + 36, forked);
    }
  }

  /** --list estimates JMH's time from the counts: 16 products x 3 forks x (5 + 2.5 + 1) s. */
  @Test
  void listEstimatesTheDurationFromTheCounts() {
    Outcome list = run("--quick", "--list", "--only", "PackedProductsBenchmark");
    assertEquals(0, list.code(), list.err());
    assertEquals(16 * 3 * 8.5, Suite.QUICK_FORKED.seconds(16), 1e-9);
    assertTrue(list.out().contains("16 benchmarks; JMH about 7 min"), list.out());
    Outcome one = run("--quick", "--list", "--only", "FwhtBenchmark", "--forks", "2");
    // 3 sizes x 2 forks x (2 + 0.9 + 1) s.
    assertTrue(one.out().contains("3 benchmarks; JMH about 23 s"), one.out());
  }

  @Test
  void malformedSuiteParametersAreNamed() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Suite.parseParams("bits=1,2 m"));
    assertTrue(e.getMessage().contains("'m'"), e.getMessage());
    assertEquals(Map.of(), Suite.parseParams(" "));
  }

  /** A tiny suite run in this JVM (forks 0): every file appears, with the ceilings measured. */
  @Test
  void tinyRunInProcessWritesEveryFile(@TempDir Path dir) throws IOException {
    // JMH's machine-wide lock would fail this test while a benchmark runs elsewhere on the host.
    System.setProperty("jmh.ignoreLock", "true");
    List<Suite.Entry> tiny = List.of(
        new Suite.Entry(Suite.Part.LIMITS, "MachineLimitsBenchmark\\.fmaPeak", "", ""),
        new Suite.Entry(Suite.Part.LIMITS, "MachineLimitsBenchmark\\.readBandwidth",
            "bytes=1048576", null),
        new Suite.Entry(Suite.Part.LIMITS, "CacheBandwidthBenchmark\\.readOneThread",
            "bytes=16384", null),
        new Suite.Entry(Suite.Part.KERNELS, "CosineBenchmark\\.vectorPolynomial", "n=1024", null),
        new Suite.Entry(Suite.Part.FEATURIZER, "FeaturizerBenchmark\\.fused",
            "d=9 m=64 bits=4 projection=dense rows=10", null),
        new Suite.Entry(Suite.Part.TRAINING, "TrainingBenchmark\\.sgdEpoch",
            "bits=4 classes=1 m=64", null));
    Path out = dir.resolve("out");
    Outcome result = run(new BenchCommand(tiny, new Suite.Timing(0, 0, 0, 1, 100)),
        "--quick", "--out", out.toString(), "--python", dir.resolve("absent-python").toString());
    assertEquals(0, result.code(), result.err());
    assertTrue(result.err().contains("[6/6 "), result.err());
    for (String file : List.of(Report.REPORT_MD, Report.RESULTS_JSON, "jmh.log", Charts.BITS_PNG,
        Charts.SKLEARN_PNG, Charts.FRONTIER_PNG, Charts.ROOFLINE_PNG)) {
      assertTrue(Files.size(out.resolve(file)) > 0, file);
    }
    assertEquals(Charts.WIDTH, ImageIO.read(out.resolve(Charts.ROOFLINE_PNG).toFile()).getWidth());
    Map<?, ?> json = (Map<?, ?>) Json.parse(Files.readString(out.resolve(Report.RESULTS_JSON)));
    assertEquals(6, ((List<?>) json.get("results")).size());
    Map<?, ?> roof = (Map<?, ?>) ((Map<?, ?>) json.get("derived")).get("roofline");
    assertTrue(((Number) roof.get("peakFlopsPerSecond")).doubleValue() > 0, roof.toString());
    assertTrue(((Number) roof.get("bandwidthBytesPerSecond")).doubleValue() > 0, roof.toString());
    Map<?, ?> l1 = (Map<?, ?>) ((List<?>) roof.get("levels")).getFirst();
    assertEquals("L1", l1.get("level"), roof.toString());
    assertTrue(((Number) l1.get("oneThreadBytesPerSecond")).doubleValue() > 0, roof.toString());
    String md = Files.readString(out.resolve(Report.REPORT_MD));
    assertTrue(md.contains("**scikit-learn was not measured**"), md);
    assertTrue(md.contains("absent-python"), md);
    assertTrue(md.contains("TrainingBenchmark.sgdEpoch"), md);
  }
}
