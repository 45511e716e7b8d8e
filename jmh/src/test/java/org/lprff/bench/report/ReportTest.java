package org.lprff.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.report.Json;

/** The report of a canned set of results: derived figures, files, header, the missing-sklearn note. */
class ReportTest {

  static final MachineInfo MACHINE = new MachineInfo(
      "Test CPU 9000", 2, List.of("fpu", "avx2", "fma", "avx512f"), "Species[float, 16, S_512_BIT]",
      16, "Species[int, 16, S_512_BIT]", 16, "vector: test bodies", "Test JDK 25.0.1",
      "Linux test amd64", 2);

  static Measurement avgt(String benchmark, Map<String, String> params, double median, String unit) {
    return new Measurement(benchmark, "avgt", params, 1,
        new Measurement.Metric(median, median / 100, unit, median, 3), Map.of());
  }

  static Measurement thrpt(String benchmark, Map<String, String> params, String secondary,
      double perSecond) {
    return new Measurement(benchmark, "thrpt", params, 1,
        new Measurement.Metric(1, 0, "ops/s", 1, 3),
        Map.of(secondary, new Measurement.Metric(perSecond, 0, "ops/s", perSecond, 3)));
  }

  static List<Measurement> canned() {
    List<Measurement> m = new ArrayList<>();
    m.add(thrpt("MachineLimitsBenchmark.fmaPeak", Map.of(), "laneFmas", 1e10));
    m.add(thrpt("MachineLimitsBenchmark.readBandwidth", Map.of("bytes", "88375296"), "bytes", 5e10));
    m.add(thrpt("MachineLimitsBenchmark.readBandwidth", Map.of("bytes", "2147483648"), "bytes", 1e10));
    m.add(avgt("DenseProjectionBenchmark.vector",
        Map.of("d", "90", "m", "1024", "rows", "64", "block", "256"), 1_000_000, "ns/op"));
    for (int bits : new int[] {4, 32}) {
      m.add(avgt("PackedProductsBenchmark.forwardVector", Map.of("bits", "" + bits, "classes", "1",
          "m", "4096", "rows", "250"), bits == 4 ? 50 : 100, "us/op"));
      m.add(avgt("TrainingBenchmark.sgdEpoch", Map.of("bits", "" + bits, "classes", "1", "m", "4096"),
          bits == 4 ? 10 : 20, "ms/op"));
    }
    m.add(avgt("FeaturizerBenchmark.fused", Map.of("d", "90", "m", "2048", "rows", "250",
        "bits", "4", "projection", "dense"), 1000, "us/op"));
    m.add(avgt("FeaturizerBenchmark.fusedCommonPool", Map.of("d", "90", "m", "2048", "rows", "250",
        "bits", "4", "projection", "dense"), 500, "us/op"));
    return m;
  }

  static SklearnReference.Result sklearn() {
    return new SklearnReference.Result(true, "", List.of(
        new SklearnReference.Timing(90, 2048, 250, 1, 0.002, "before"),
        new SklearnReference.Timing(90, 2048, 250, 1, 0.004, "after"),
        new SklearnReference.Timing(90, 2048, 250, 2, 0.001, "before")),
        Map.of("sklearn", "1.9.1", "numpy", "2.3.0"));
  }

  static Report.RunInfo run() {
    return new Report.RunInfo("lprff bench --quick", true, Suite.QUICK,
        ZonedDateTime.parse("2025-01-02T03:04:05Z"), Duration.ofSeconds(200),
        Duration.ofSeconds(180), Duration.ofSeconds(20), List.of());
  }

  @Test
  void codebookProductsAreTheirOwnCurve() {
    List<Measurement> m = new ArrayList<>(canned());
    m.add(avgt("PackedProductsBenchmark.forwardVector", Map.of("bits", "4", "classes", "1",
        "m", "4096", "rows", "250", "decoding", "codebook"), 75, "us/op"));
    Figures f = new Figures(m, sklearn(), 2);
    Figures.Curve affine = f.bitsCurves().stream()
        .filter(c -> c.kernel().equals("products forward")).findFirst().orElseThrow();
    Figures.Curve codebook = f.bitsCurves().stream()
        .filter(c -> c.kernel().equals("products forward, codebook")).findFirst().orElseThrow();
    // The affine point (50 us) is not overwritten by the codebook one (75 us) at the same bits.
    assertEquals(250 * 4096 / 50e-6 / 1e6, affine.millionsPerSecond().get(4), 1e-6);
    assertEquals(250 * 4096 / 75e-6 / 1e6, codebook.millionsPerSecond().get(4), 1e-6);
    assertTrue(f.roofline().points().stream()
        .anyMatch(p -> p.label().equals("forward b=4 c=1 codebook")));
  }

  @Test
  void derivedFiguresFromKnownInputs() {
    Figures f = new Figures(canned(), sklearn(), 2);

    Figures.Curve forward = f.bitsCurves().stream()
        .filter(c -> c.kernel().equals("products forward")).findFirst().orElseThrow();
    // 250 x 4096 values in 50 us and 100 us.
    assertEquals(250 * 4096 / 50e-6 / 1e6, forward.millionsPerSecond().get(4), 1e-6);
    assertEquals(2.0, forward.ratioToFloat(4), 1e-12);

    List<Figures.VsSklearn> vs = f.featurizerVsSklearn();
    assertEquals(2, vs.size());
    Figures.VsSklearn one = vs.get(0);
    assertEquals(1, one.threads());
    // ours: 250 x 2048 in 1 ms; scikit-learn: the median of 2 ms and 4 ms.
    assertEquals(250 * 2048 / 1e-3, one.ours(), 1e-3);
    assertEquals(250 * 2048 / 3e-3, one.sklearn(), 1e-3);
    assertEquals(3.0, one.ratio(), 1e-12);
    assertEquals(2, vs.get(1).threads());
    assertEquals(2.0, vs.get(1).ratio(), 1e-12); // 0.5 ms against 1 ms

    List<Figures.EpochPoint> epochs = f.epochs();
    assertEquals(2, epochs.size());
    assertEquals(2500.0 * 2048, epochs.get(0).featureBytes()); // 4-bit rows of 4096: 2048 bytes
    assertEquals(2500.0 * 4096 * 4, epochs.get(1).featureBytes());
    assertEquals(0.010, epochs.get(0).seconds(), 1e-15);

    Figures.Roofline roof = f.roofline();
    assertEquals(2e10, roof.peakFlopsPerSecond()); // 2 flops per lane FMA
    assertEquals(1e10, roof.bandwidthBytesPerSecond()); // the largest buffer's
    assertEquals(2147483648L, roof.bandwidthBuffer());
    assertEquals(2.0, roof.ridge(), 1e-12);
    Figures.RoofPoint dense = roof.points().stream()
        .filter(p -> p.label().equals("dense projection d=90")).findFirst().orElseThrow();
    double flops = 2.0 * 64 * 1024 * 90;
    double bytes = 4.0 * (1024 * 90 + 64 * 90 + 64 * 1024);
    assertEquals(flops / bytes, dense.intensity(), 1e-12);
    assertEquals(flops / 1e-3, dense.flopsPerSecond(), 1e-3);
    assertEquals(1e10 * 0.5, roof.bound(0.5), 1e-3); // under the ridge: bandwidth-bound
    assertEquals(2e10, roof.bound(10), 1e-3);
  }

  @Test
  void writesReportResultsAndPlots(@TempDir Path dir) throws IOException {
    // numpy's sgemm above fmaPeak's 20 GFLOP/s: the roofline's peak is the larger of the two.
    SklearnReference.Sgemm sgemm =
        new SklearnReference.Sgemm(true, "", 2048, 2, 40e9, "openblas 0.3.31 Haswell");
    Report.write(dir, MACHINE, run(), new Figures(canned(), sklearn(), sgemm, 2));
    for (String png : List.of(Charts.BITS_PNG, Charts.SKLEARN_PNG, Charts.FRONTIER_PNG,
        Charts.ROOFLINE_PNG)) {
      byte[] bytes = Files.readAllBytes(dir.resolve(png));
      assertEquals((byte) 0x89, bytes[0], png);
      assertEquals("PNG", new String(bytes, 1, 3, java.nio.charset.StandardCharsets.US_ASCII), png);
      BufferedImage image = ImageIO.read(dir.resolve(png).toFile());
      assertEquals(Charts.WIDTH, image.getWidth(), png);
      assertEquals(Charts.HEIGHT, image.getHeight(), png);
      assertTrue(distinctColours(image) > 8, png + " looks blank");
    }
    String md = Files.readString(dir.resolve(Report.REPORT_MD));
    assertTrue(md.contains("Test CPU 9000"), md);
    assertTrue(md.contains("avx2 fma avx512f"), md);
    assertTrue(md.contains("Species[float, 16, S_512_BIT]` (16 lanes)"), md);
    assertTrue(md.contains("Species[int, 16, S_512_BIT]` (16 lanes)"), md);
    assertTrue(md.contains("Test JDK 25.0.1"), md);
    assertTrue(md.contains("| threads | 1 for the kernels"), md);
    assertTrue(md.contains("| duration | 3 min 20 s"), md);
    assertTrue(md.contains("`lprff bench --quick`"), md);
    for (String png : List.of(Charts.BITS_PNG, Charts.SKLEARN_PNG, Charts.FRONTIER_PNG,
        Charts.ROOFLINE_PNG)) {
      assertTrue(md.contains("](" + png + ")"), png + " not embedded");
    }
    assertTrue(md.contains("| 90 | 2048 | 1 | dense | 4 | 512 | 171 | 3.00x |"), md);
    assertTrue(md.contains("(2.00x)"), md); // forward 4-bit against float32
    assertFalse(md.contains("not measured"), md);
    assertTrue(md.contains("FMA peak 40.0 GFLOP/s, the larger of MachineLimitsBenchmark.fmaPeak"),
        md);
    assertTrue(md.contains("at 20.0 GFLOP/s and numpy's sgemm (float32, n = 2048, 2 threads,"
        + " openblas 0.3.31 Haswell) at 40.0 GFLOP/s"), md);
    Object json = Json.parse(Files.readString(dir.resolve(Report.RESULTS_JSON)));
    Map<?, ?> root = (Map<?, ?>) json;
    assertEquals("Test CPU 9000", ((Map<?, ?>) root.get("machine")).get("cpu"));
    assertEquals(canned().size(), ((List<?>) root.get("results")).size());
    Map<?, ?> roof = (Map<?, ?>) ((Map<?, ?>) root.get("derived")).get("roofline");
    assertEquals(4e10, ((Number) roof.get("peakFlopsPerSecond")).doubleValue());
    assertEquals(2e10, ((Number) roof.get("fmaPeakFlopsPerSecond")).doubleValue());
    assertEquals(4e10, ((Number) roof.get("sgemmFlopsPerSecond")).doubleValue());
    assertEquals(3, ((List<?>) ((Map<?, ?>) root.get("sklearn")).get("timings")).size());
  }

  /**
   * Each fork's median goes to the table and the JSON; forks further apart than 10% of the
   * median are named in the header (one fork at 16.5 against two at 13: 27%), forks within it
   * are not (13.0, 13.2, 13.1: 1.5%).
   */
  @Test
  void forksThatDisagreeAreNamed(@TempDir Path dir) throws IOException {
    List<Measurement> m = new ArrayList<>(canned());
    Map<String, String> ff = Map.of("d", "90", "m", "8192", "rows", "1000", "bits", "4",
        "projection", "fastfood");
    m.add(new Measurement("FeaturizerBenchmark.fused", "avgt", ff, 1,
        new Measurement.Metric(14.2, 1.8, "ms/op", 13.1, 15), Map.of(), List.of(16.5, 13.08, 12.92)));
    Map<String, String> dense = new java.util.HashMap<>(ff);
    dense.put("projection", "dense");
    m.add(new Measurement("FeaturizerBenchmark.fused", "avgt", dense, 1,
        new Measurement.Metric(13.1, 0.1, "ms/op", 13.1, 15), Map.of(), List.of(13.0, 13.2, 13.1)));
    Report.write(dir, MACHINE, run(), new Figures(m, sklearn(), 2));
    String md = Files.readString(dir.resolve(Report.REPORT_MD));
    assertEquals(0.2733, m.get(m.size() - 2).forkSpread(), 1e-3);
    assertTrue(md.contains("**Forks disagree**"), md);
    assertTrue(md.contains("FeaturizerBenchmark.fused bits=4 d=90 m=8192 projection=fastfood"
        + " rows=1000 (16.5, 13.1, 12.9 (27%))"), md);
    assertFalse(md.contains("projection=dense rows=1000 (13"), md);
    assertTrue(md.contains("| 16.5, 13.1, 12.9 (**27%**) |"), md);
    assertTrue(md.contains("| 13.0, 13.2, 13.1 (2%) |"), md);
    Map<?, ?> root = (Map<?, ?>) Json.parse(Files.readString(dir.resolve(Report.RESULTS_JSON)));
    List<?> results = (List<?>) root.get("results");
    Map<?, ?> last = (Map<?, ?>) results.get(results.size() - 2);
    assertEquals(List.of(16.5, 13.08, 12.92), last.get("forkMedians"));
  }

  /** The settings of the featurizer and the products (their own 3 forks) go beside the run's. */
  @Test
  void theForkedEntriesSettingsAreStated() {
    Report.RunInfo r = run();
    Report.RunInfo forked = new Report.RunInfo(r.command(), true, Suite.QUICK,
        Suite.QUICK_FORKED, r.started(), r.duration(), r.jmh(), r.sklearn(), List.of());
    Figures f = new Figures(canned(), sklearn(), 2);
    String md = Report.markdown(MACHINE, forked, f);
    assertTrue(md.contains("| run | quick: JMH 1 fork(s), 4 x 500 ms warm-up, 3 x 300 ms"
        + " measurement per benchmark; the featurizer and the packed products 3 fork(s), 5 x"
        + " 1000 ms warm-up, 5 x 500 ms measurement;"), md);
    Map<?, ?> json = Report.json(MACHINE, forked, f);
    Map<?, ?> settings = (Map<?, ?>) ((Map<?, ?>) json.get("run")).get("jmhFeaturizerAndProducts");
    assertEquals(3, settings.get("forks"));
    assertFalse(Report.markdown(MACHINE, r, f).contains("the featurizer and the packed products"));
  }

  /** A run without featurizer benchmarks never tried scikit-learn: no advice to install it. */
  @Test
  void aReferenceNotRunIsNotCalledMissing(@TempDir Path dir) throws IOException {
    Report.write(dir, MACHINE, run(), new Figures(canned(), SklearnReference.Result.notRun(), 2));
    String md = Files.readString(dir.resolve(Report.REPORT_MD));
    assertTrue(md.contains("featurizer reference not run: no featurizer benchmark in this run"),
        md);
    assertFalse(md.contains("**not measured**"), md);
    assertFalse(md.contains("scikit-learn was not measured"), md);
    assertFalse(md.contains("pip install"), md);
  }

  @Test
  void missingPythonIsSaidInTheReport(@TempDir Path dir) throws IOException {
    SklearnReference.Result none = new SklearnReference(dir.resolve("no-such-python").toString())
        .time(List.of(new int[] {90, 2048, 250}), List.of(1, 2), "before", 3);
    assertFalse(none.available());
    assertTrue(none.message().contains("no-such-python"), none.message());
    Report.write(dir, MACHINE, run(), new Figures(canned(), none, 2));
    String md = Files.readString(dir.resolve(Report.REPORT_MD));
    assertTrue(md.contains("**scikit-learn was not measured**"), md);
    assertTrue(md.contains("pip install numpy scikit-learn"), md);
    assertTrue(md.contains("| 90 | 2048 | 1 | dense | 4 | 512 | n/a | n/a |"), md);
  }

  @Test
  void pythonWithoutSklearnIsUnavailable(@TempDir Path dir) throws IOException {
    // A "python" that runs the script's import check and fails it, as an interpreter without
    // scikit-learn does: it prints the script's unavailable answer and exits 3.
    Path fake = dir.resolve("python");
    Files.writeString(fake, "#!/bin/sh\necho '{\"available\": false, \"error\": "
        + "\"ModuleNotFoundError: No module named sklearn\"}'\nexit 3\n");
    assertTrue(fake.toFile().setExecutable(true));
    SklearnReference.Result r = new SklearnReference(fake.toString())
        .time(List.of(new int[] {9, 64, 10}), List.of(1), "before", 1);
    assertFalse(r.available());
    assertTrue(r.message().contains("No module named sklearn"), r.message());
  }

  private static int distinctColours(BufferedImage image) {
    java.util.Set<Integer> colours = new java.util.HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 7) {
      for (int x = 0; x < image.getWidth(); x += 7) {
        colours.add(image.getRGB(x, y));
      }
    }
    return colours.size();
  }
}
