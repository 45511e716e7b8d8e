package org.lprff.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.bench.report.ReportTest.avgt;
import static org.lprff.bench.report.ReportTest.thrpt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.report.Json;

/**
 * Each roofline point against the ceiling that binds it (its cache level's bandwidth, its
 * threads' peak), the points above their roof in bold, and the featurizer's stages by their
 * operations.
 */
class RooflineTest {

  /** All threads (2): 100 GFLOP/s; one thread: 60 (above the share, 50); DRAM 10 GB/s. */
  static List<Measurement> ceilings(boolean oneThreadPeak) {
    List<Measurement> m = new ArrayList<>();
    m.add(thrpt("MachineLimitsBenchmark.fmaPeak", Map.of(), "laneFmas", 5e10));
    if (oneThreadPeak) {
      m.add(thrpt("MachineLimitsBenchmark.fmaPeakOneThread", Map.of(), "laneFmas", 3e10));
    }
    m.add(thrpt("MachineLimitsBenchmark.readBandwidth", Map.of("bytes", "2147483648"), "bytes",
        1e10));
    // L1 200 / 400 GB/s, L2 20 / 40, L3 15 / 25 (one thread / two).
    double[][] levels = {{16384, 2e11, 4e11}, {262144, 2e10, 4e10}, {4194304, 1.5e10, 2.5e10}};
    for (double[] l : levels) {
      Map<String, String> p = Map.of("bytes", String.valueOf((long) l[0]));
      m.add(thrpt("CacheBandwidthBenchmark.readOneThread", p, "bytes", l[1]));
      m.add(thrpt("CacheBandwidthBenchmark.readAllThreads", p, "bytes", l[2]));
    }
    return m;
  }

  private static Figures.RoofPoint point(Figures.Roofline roof, String label) {
    return roof.points().stream().filter(p -> p.label().equals(label)).findFirst().orElseThrow();
  }

  @Test
  void aCacheResidentKernelIsBoundByItsLevelNotByMemory() {
    List<Measurement> m = ceilings(true);
    // 8192 cosines: 27 x 8192 flops, 12 x 8192 bytes = 96 KiB touched: in L2, not in L1.
    m.add(avgt("CosineBenchmark.vectorPolynomial", Map.of("n", "8192"), 10, "us/op"));
    // 65536: 768 KiB, in L3's 4 MiB.
    m.add(avgt("CosineBenchmark.vectorPolynomial", Map.of("n", "65536"), 100, "us/op"));
    Figures.Roofline roof = new Figures(m, ReportTest.sklearn(), 2).roofline();

    Figures.RoofPoint l2 = point(roof, "cosine n=8192");
    assertEquals(12.0 * 8192, l2.footprint());
    assertEquals("L2", roof.level(l2.footprint()).name());
    // 2.25 flop/byte x 20 GB/s (one thread's L2) = 45 GFLOP/s, under the one-thread peak (60);
    // memory's 10 GB/s would have made it 22.5.
    assertEquals(45e9, roof.bound(l2), 1e-3);
    assertEquals("L2 20.0 GB/s", roof.ceiling(l2));
    assertEquals(22.5e9, roof.bound(l2.intensity()), 1e-3);
    assertEquals(27.0 * 8192 / 10e-6 / 45e9, roof.ofRoof(l2), 1e-12);

    Figures.RoofPoint l3 = point(roof, "cosine n=65536");
    assertEquals("L3", roof.level(l3.footprint()).name());
    assertEquals(2.25 * 1.5e10, roof.bound(l3), 1e-3);
    // Past the largest cache level: memory.
    assertEquals(Figures.Roofline.MEMORY, roof.level(4194304 + 1).name());
  }

  @Test
  void aOneThreadPointGetsOneThreadsPeakAndAPoolPointAllThreads() {
    Map<String, String> n1024 = Map.of("n", "1024");
    List<Measurement> with = ceilings(true);
    with.add(avgt("FwhtBenchmark.vector", n1024, 100, "ns/op"));
    Figures.Roofline roof = new Figures(with, ReportTest.sklearn(), 2).roofline();
    Figures.RoofPoint fwht = point(roof, "fwht n=1024");
    // 1024 x 11 flops over 8 KiB: 1.375 flop/byte; L1 (4 KiB touched) at 200 GB/s bounds it at
    // 275 GFLOP/s, so one thread's peak binds: fmaPeakOneThread's 60, not the share's 50.
    assertEquals("L1", roof.level(fwht.footprint()).name());
    assertEquals(60e9, roof.peak(1), 1e-3);
    assertEquals(60e9, roof.bound(fwht), 1e-3);
    assertEquals("FMA peak 60.0 GFLOP/s", roof.ceiling(fwht));
    assertEquals(100e9, roof.peak(2), 1e-3);

    List<Measurement> without = ceilings(false);
    without.add(avgt("FwhtBenchmark.vector", n1024, 100, "ns/op"));
    Figures.Roofline derived = new Figures(without, ReportTest.sklearn(), 2).roofline();
    assertEquals(50e9, derived.bound(point(derived, "fwht n=1024")), 1e-3);

    // The gram of codes on the pool: all threads' peak (compute bound at its intensity).
    List<Measurement> pool = ceilings(true);
    pool.add(avgt("GramBenchmark.codesParallel", Map.of("m", "4096"), 100, "ms/op"));
    Figures.Roofline r = new Figures(pool, ReportTest.sklearn(), 2).roofline();
    Figures.RoofPoint gram = point(r, "gram of codes, all threads, m=4096");
    assertEquals(2, gram.threads());
    assertEquals(100e9, r.bound(gram), 1e-3);
    // Double precision halves the peak: Cholesky m = 2048, one thread.
    pool.add(avgt("CholeskyBenchmark.lprffSingle", Map.of("m", "2048"), 100, "ms/op"));
    r = new Figures(pool, ReportTest.sklearn(), 2).roofline();
    Figures.RoofPoint chol = point(r, "CholeskyBenchmark.lprffSingle m=2048");
    assertEquals(30e9, r.bound(chol), 1e-3);
    assertEquals("FMA peak (double) 30.0 GFLOP/s", r.ceiling(chol));
  }

  /** A point above its roof is bold in the table and named after it; one below is not. */
  @Test
  void aPointAboveItsRoofIsFlagged(@TempDir Path dir) throws IOException {
    List<Measurement> m = ceilings(true);
    // 11,264 flops in 100 ns: 113 GFLOP/s against one thread's 60: 188%.
    m.add(avgt("FwhtBenchmark.vector", Map.of("n", "1024"), 100, "ns/op"));
    // 27 x 8192 flops in 10 us: 22.1 GFLOP/s against L2's 45: 49%.
    m.add(avgt("CosineBenchmark.vectorPolynomial", Map.of("n", "8192"), 10, "us/op"));
    Figures figures = new Figures(m, ReportTest.sklearn(), 2);
    Figures.Roofline roof = figures.roofline();
    assertEquals(List.of("fwht n=1024"),
        roof.above().stream().map(Figures.RoofPoint::label).toList());
    Report.write(dir, ReportTest.MACHINE, ReportTest.run(), figures);
    String md = Files.readString(dir.resolve(Report.REPORT_MD));
    assertTrue(md.contains("| FMA peak 60.0 GFLOP/s | 60.0 | **188%** |"), md);
    assertTrue(md.contains("| L2 20.0 GB/s | 45.0 | 49% |"), md);
    assertTrue(md.contains("**Above the roof**: fwht n=1024 (**188%** of FMA peak 60.0 GFLOP/s)"),
        md);
    assertTrue(md.contains("| L1 | 16.0 KiB | 200 | 400 |"), md);
    Map<?, ?> root = (Map<?, ?>) Json.parse(Files.readString(dir.resolve(Report.RESULTS_JSON)));
    Map<?, ?> rl = (Map<?, ?>) ((Map<?, ?>) root.get("derived")).get("roofline");
    Map<?, ?> fwht = (Map<?, ?>) ((List<?>) rl.get("kernels")).getFirst();
    assertEquals("fwht n=1024", fwht.get("kernel"));
    assertEquals(11264 / 100e-9 / 60e9, ((Number) fwht.get("ofRoof")).doubleValue(), 1e-9);
    assertEquals(4, ((List<?>) rl.get("levels")).size()); // L1, L2, L3, DRAM

    // Without one: no flag.
    m.removeIf(x -> x.benchmark().equals("FwhtBenchmark.vector"));
    Report.write(dir, ReportTest.MACHINE, ReportTest.run(),
        new Figures(m, ReportTest.sklearn(), 2));
    assertFalse(Files.readString(dir.resolve(Report.REPORT_MD)).contains("Above the roof"));
  }

  /**
   * Fastfood, d = 9 (p = 16), m = 64 (4 blocks), 4 bits, 10 rows, counted by hand: per block
   * two FWHTs of 16 x 4 adds (128) and three diagonals of 16 multiplies (48): 704 a row; per
   * feature the cosine (17), the code (8) and an 8-bit draw (91 / 16 + 4 = 9.6875): 64 x 34.6875
   * = 2220 a row.
   */
  @Test
  void theStructuredFeaturizerIsCountedByItsOperations() {
    Map<String, String> p = Map.of("projection", "fastfood", "d", "9", "m", "64", "bits", "4",
        "rows", "10");
    Suite.Work w = Suite.work("FeaturizerBenchmark.fused", p).orElseThrow();
    assertEquals(10 * (704 + 2220), w.flops(), 1e-9);
    // Rows read (10 x 9 floats), 4 vectors of 16 per block, the phases, 10 packed rows of 32 B.
    assertEquals(4 * 90 + 16 * 64 + 4 * 64 + 10 * 32, w.bytes(), 1e-9);
    // Circulant, float32: per block the signs (16), two FFTs of 8 complex points, 4 x 3
    // butterflies of 10 flops each (240), the spectral step, 14 flops for each of 8 positions
    // (112): 368, x 4 blocks; the full cosine, 27 a feature.
    Map<String, String> c = Map.of("projection", "circulant", "d", "9", "m", "64", "bits", "32",
        "rows", "10");
    assertEquals(10 * (4 * 368 + 27 * 64),
        Suite.work("FeaturizerBenchmark.fusedCommonPool", c).orElseThrow().flops(), 1e-9);
    // Orthogonal, 8-bit: three normalized FWHTs (3 x (64 + 16)) and four diagonals (64) per
    // block; the 8-bit cosine's longer polynomial (19).
    Map<String, String> o = Map.of("projection", "orthogonal", "d", "9", "m", "64", "bits", "8",
        "rows", "10");
    assertEquals(10 * (4 * (240 + 64) + 64 * (19 + 8 + 9.6875)),
        Suite.work("FeaturizerBenchmark.fused", o).orElseThrow().flops(), 1e-9);
  }

  /**
   * The stages of one measured featurizer shape against their limits, timed by the kernels
   * where the run measured them: fastfood, d = 90 (p = 128), m = 2048, 4-bit, 250 rows.
   */
  @Test
  void eachFeaturizerStageAgainstItsOwnLimit() {
    List<Measurement> m = ceilings(true);
    m.add(avgt("FeaturizerBenchmark.fused", Map.of("projection", "fastfood", "d", "90", "m",
        "2048", "bits", "4", "rows", "250"), 5, "ms/op"));
    // FWHT of 128: 128 x 8 flops in 50 ns.
    m.add(avgt("FwhtBenchmark.vector", Map.of("n", "128"), 50, "ns/op"));
    m.add(avgt("CosineCodesBenchmark.fusedNearest", Map.of("bits", "4"), 250, "ns/op"));
    m.add(avgt("CosineCodesBenchmark.fusedStochastic", Map.of("bits", "4"), 600, "ns/op"));
    Figures figures = new Figures(m, ReportTest.sklearn(), 2);
    List<Figures.StageTable> tables = figures.featurizerStages();
    assertEquals(1, tables.size());
    List<Figures.StageRow> stages = tables.getFirst().stages();
    assertEquals(4, stages.size());

    Figures.StageRow transforms = stages.get(0);
    // 16 blocks x 2 x 128 x 7 adds at 60 GFLOP/s: 0.478 us; its 32 KiB of traffic within the
    // group's 12 KiB (L1, 200 GB/s) take 0.164.
    assertEquals(16 * 2 * 128 * 7, transforms.ops());
    assertEquals(transforms.ops() / 60e9, transforms.limitSeconds(), 1e-18);
    assertEquals("FMA peak 60.0 GFLOP/s", transforms.ceiling());
    // The kernel's rate: 50 ns per 1024 operations.
    assertEquals(50e-9 * transforms.ops() / 1024, transforms.measuredSeconds(), 1e-18);
    assertTrue(transforms.measuredBy().startsWith("FwhtBenchmark.vector n=128"),
        transforms.measuredBy());

    Figures.StageRow diagonals = stages.get(1);
    // 16 blocks x 3 x 128 multiplies (0.102 us at the peak), but each diagonal reads and
    // writes the row's 128 floats: 48 KiB at L1's 200 GB/s, 0.246 us. No kernel times it.
    assertEquals(16 * 3 * 8 * 128 / 2e11, diagonals.limitSeconds(), 1e-18);
    assertEquals("L1 200 GB/s", diagonals.ceiling());
    assertTrue(Double.isNaN(diagonals.measuredSeconds()));
    Figures.StageRow cosine = stages.get(2);
    assertEquals(2048 * 25, cosine.ops());
    // 12.5 bytes a feature through the 64 KiB scratch (32 rows x 512 floats): L2, 1.28 us,
    // longer than 0.853 at the peak.
    assertEquals(2048 * 12.5 / 2e10, cosine.limitSeconds(), 1e-18);
    assertEquals("L2 20.0 GB/s", cosine.ceiling());
    assertEquals(250e-9 * 4, cosine.measuredSeconds(), 1e-18); // 2048 features = 4 kernel ops
    Figures.StageRow draws = stages.get(3);
    assertEquals(2048 * 9.6875, draws.ops());
    assertEquals(350e-9 * 4, draws.measuredSeconds(), 1e-18); // stochastic minus nearest

    Figures.StageRow total = tables.getFirst().total();
    assertEquals(5e-3 / 250, total.measuredSeconds(), 1e-15);
    double limits = stages.stream().mapToDouble(Figures.StageRow::limitSeconds).sum();
    assertEquals(limits, total.limitSeconds(), 1e-18);
    assertEquals(transforms.ops() + diagonals.ops() + cosine.ops() + draws.ops(), total.ops());
    assertEquals(total.ops() * 250, Suite.work("FeaturizerBenchmark.fused",
        m.get(m.size() - 4).params()).orElseThrow().flops(), 1e-6);

    String md = Report.markdown(ReportTest.MACHINE, ReportTest.run(), figures);
    assertTrue(md.contains("### The featurizer's stages"), md);
    assertTrue(md.contains("fastfood, d = 90, m = 2048, 4-bit, 250 rows:"), md);
    // The cosine kernel beats its limit: bold, a count or a ceiling to fix.
    assertTrue(md.contains(
        "| 1.28 | 1.00 | **0.78x** | `CosineCodesBenchmark.fusedNearest bits=4` |"), md);
    assertTrue(md.contains("| diagonals B, G Pi, S | 6.14e+03 | L1 200 GB/s | 0.246 | n/a | n/a |"
        + " not timed alone |"), md);
  }
}
