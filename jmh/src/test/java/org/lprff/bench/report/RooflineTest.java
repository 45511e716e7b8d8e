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
 * threads' peak), and the points above their roof in bold.
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
}
