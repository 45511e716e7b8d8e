package org.lprff.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.lprff.report.Json;

/**
 * Writes {@code report.md}, {@code results.json} and the four plots of one run (five with the
 * time-to-model table).
 */
public final class Report {

  public static final String REPORT_MD = "report.md";
  public static final String RESULTS_JSON = "results.json";

  /**
   * How the run went: its command line, quick or full, JMH settings, when it started and how
   * long it and its parts took, and the benchmarks that failed (see jmh.log).
   *
   * @param timing the run's JMH settings
   * @param forked the settings of the entries that run on their own (the featurizer and the
   *     packed products: 3 forks), or null when none ran
   */
  public record RunInfo(String command, boolean quick, Suite.Timing timing, Suite.Timing forked,
      ZonedDateTime started, Duration duration, Duration jmh, Duration sklearn,
      List<String> failures) {

    /** A run whose entries all ran on the run's settings. */
    public RunInfo(String command, boolean quick, Suite.Timing timing, ZonedDateTime started,
        Duration duration, Duration jmh, Duration sklearn, List<String> failures) {
      this(command, quick, timing, null, started, duration, jmh, sklearn, failures);
    }
  }

  private Report() {}

  /** Writes every file into {@code dir} (created if missing). */
  public static void write(Path dir, MachineInfo machine, RunInfo run, Figures figures)
      throws IOException {
    write(dir, machine, run, figures, null);
  }

  /** As {@link #write(Path, MachineInfo, RunInfo, Figures)}, with the time-to-model table. */
  public static void write(Path dir, MachineInfo machine, RunInfo run, Figures figures,
      TimeToModel.Table timeToModel) throws IOException {
    Files.createDirectories(dir);
    String subtitle = machine.cpuModel() + ", " + machine.floatSpecies() + ", JDK "
        + Runtime.version().feature() + ", " + run.started().format(DateTimeFormatter.ISO_LOCAL_DATE);
    Charts.writeAll(figures, subtitle, dir);
    if (timeToModel != null) {
      Charts.writeTimeToModel(timeToModel, subtitle, dir);
    }
    Files.writeString(dir.resolve(REPORT_MD), markdown(machine, run, figures, timeToModel),
        StandardCharsets.UTF_8);
    Files.writeString(dir.resolve(RESULTS_JSON),
        Json.writeIndented(json(machine, run, figures, timeToModel)), StandardCharsets.UTF_8);
  }

  static String markdown(MachineInfo machine, RunInfo run, Figures figures) {
    return markdown(machine, run, figures, null);
  }

  /** The report; the time-to-model section only when the table was run (not null). */
  static String markdown(MachineInfo machine, RunInfo run, Figures figures,
      TimeToModel.Table timeToModel) {
    StringBuilder md = new StringBuilder();
    md.append("# lprff bench: ").append(run.quick() ? "quick" : "full").append(" run of ")
        .append(run.started().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z"))).append("\n\n");
    SklearnReference.Result sk = figures.sklearn();
    Suite.Timing t = run.timing();
    md.append("| | |\n|---|---|\n");
    row(md, "CPU", machine.cpuModel() + ", " + machine.cores() + " cores; SIMD flags: "
        + (machine.simdFlags().isEmpty() ? "unknown" : String.join(" ", machine.simdFlags())));
    row(md, "vector species", "float: `" + machine.floatSpecies() + "` (" + machine.floatLanes()
        + " lanes); int: `" + machine.intSpecies() + "` (" + machine.intLanes() + " lanes)");
    row(md, "library bodies", machine.vectorization());
    row(md, "JDK", machine.jdk());
    row(md, "OS", machine.os());
    row(md, "threads", "1 for the kernels, `fused`, `fmaPeakOneThread` and `readOneThread`; "
        + machine.threads() + " (the caller and the common pool) for `fusedCommonPool`, the"
        + " other MachineLimitsBenchmark and `readAllThreads`; scikit-learn with 1 and "
        + machine.threads() + " BLAS threads");
    row(md, "run", (run.quick() ? "quick" : "full") + ": JMH " + settings(t) + " per benchmark"
        + (run.forked() == null ? ""
            : "; the featurizer and the packed products " + settings(run.forked()))
        + "; " + figures.measurements().size() + " results"
        + (run.failures().isEmpty() ? "" : ", " + run.failures().size() + " failed"));
    row(md, "started", run.started().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    row(md, "duration", human(run.duration()) + " (JMH " + human(run.jmh()) + ", scikit-learn "
        + human(run.sklearn()) + (timeToModel == null ? "" : ", time to model "
            + human(Duration.ofMillis(Math.round(timeToModel.seconds() * 1e3)))) + ")");
    row(md, "command", "`" + run.command() + "`");
    row(md, "scikit-learn", sk.available()
        ? "scikit-learn " + sk.versions().get("sklearn") + ", numpy " + sk.versions().get("numpy")
            + " (" + blas(sk) + "), timed right before and after the featurizer benchmarks"
            + (sk.message().isEmpty() ? "" : "; " + sk.message())
        : sk.wasNotRun() ? "featurizer reference not run: " + sk.message()
            + (timeToModel == null ? "" : " (section 5 names the scikit-learn it timed)")
        : "**not measured**: " + sk.message() + ". To compare: " + SklearnReference.HOW_TO_GET);
    md.append("\nEvery figure below is the median of the measurement iterations; the machine may be"
        + " shared, so compare ratios within this run rather than absolute numbers across runs.\n");
    List<String> split = figures.measurements().stream()
        .filter(m -> m.forkSpread() > Measurement.FORK_SPREAD_LIMIT)
        .map(m -> m.label() + " (" + forks(m, false) + ")").toList();
    if (!split.isEmpty()) {
      md.append("\n**Forks disagree** by more than ")
          .append(Math.round(100 * Measurement.FORK_SPREAD_LIMIT))
          .append("% (the JIT of one JVM made the kernel slower than another's; a bug to find, not"
              + " noise): ").append(String.join("; ", split)).append('\n');
    }
    if (!run.failures().isEmpty()) {
      md.append("\n**Failed benchmarks** (see jmh.log): ").append(String.join(", ", run.failures()))
          .append('\n');
    }
    bitsSection(md, figures);
    sklearnSection(md, figures);
    frontierSection(md, figures);
    rooflineSection(md, figures);
    if (timeToModel != null) {
      md.append(TimeToModel.markdown(timeToModel, Charts.TIME_TO_MODEL_PNG));
    }
    allResults(md, figures);
    return md.toString();
  }

  /** "3 fork(s), 5 x 1000 ms warm-up, 5 x 500 ms measurement". */
  static String settings(Suite.Timing t) {
    return t.forks() + " fork(s), " + t.warmups() + " x " + t.warmupMillis() + " ms warm-up, "
        + t.iterations() + " x " + t.iterationMillis() + " ms measurement";
  }

  private static void bitsSection(StringBuilder md, Figures figures) {
    md.append("\n## 1. Throughput vs bits\n\n![throughput vs bits](").append(Charts.BITS_PNG)
        .append(")\n\nMillion feature values per second, one thread; in brackets the ratio to"
            + " float32 (b = 32) of the same kernel in this run.\n\n");
    List<Figures.Curve> curves = figures.bitsCurves();
    if (curves.isEmpty()) {
      md.append("_No bit sweep in this run._\n");
      return;
    }
    TreeSet<Integer> widths = new TreeSet<>();
    curves.forEach(c -> widths.addAll(c.millionsPerSecond().keySet()));
    md.append("| kernel | one op |");
    widths.forEach(b -> md.append(b == 32 ? " float32 |" : " b = " + b + " |"));
    md.append("\n|---|---|");
    widths.forEach(b -> md.append("---:|"));
    md.append('\n');
    for (Figures.Curve c : curves) {
      md.append("| ").append(c.kernel()).append(" | ").append(c.per()).append(" |");
      for (int b : widths) {
        Double v = c.millionsPerSecond().get(b);
        double ratio = c.ratioToFloat(b);
        md.append(' ').append(v == null ? "" : num(v)
            + (b != 32 && !Double.isNaN(ratio) ? String.format(Locale.ROOT, " (%.2fx)", ratio) : ""))
            .append(" |");
      }
      md.append('\n');
    }
  }

  private static void sklearnSection(StringBuilder md, Figures figures) {
    md.append("\n## 2. Featurizer beside scikit-learn\n\n![featurizer vs scikit-learn](")
        .append(Charts.SKLEARN_PNG).append(")\n\n");
    SklearnReference.Result sk = figures.sklearn();
    if (sk.wasNotRun()) {
      md.append("scikit-learn's featurizer reference was not run: ").append(sk.message())
          .append(".\n\n");
    } else if (!sk.available()) {
      md.append("**scikit-learn was not measured**: ").append(sk.message())
          .append(". To compare, ").append(SklearnReference.HOW_TO_GET).append(".\n\n");
    } else {
      md.append("`RBFSampler(n_components=m).fit(X)` once, then `transform(X)` of float32 rows"
          + " timed (median of 7 calls) with 1 and ").append(figures.threads())
          .append(" BLAS threads, right before and after the featurizer benchmarks; the"
              + " reference is the median of both. x sklearn = ours / scikit-learn at the same"
              + " thread count.\n\n");
    }
    List<Figures.VsSklearn> rows = figures.featurizerVsSklearn();
    if (rows.isEmpty()) {
      md.append("_FeaturizerBenchmark was not run._\n");
      return;
    }
    md.append("| d | m | threads | projection | bits | M features/s | scikit-learn M/s | x sklearn |\n"
        + "|---:|---:|---:|---|---:|---:|---:|---:|\n");
    for (Figures.VsSklearn v : rows) {
      md.append("| ").append(v.d()).append(" | ").append(v.m()).append(" | ").append(v.threads())
          .append(" | ").append(v.projection()).append(" | ")
          .append(v.bits() == 32 ? "float32" : v.bits()).append(" | ").append(num(v.ours() / 1e6))
          .append(" | ").append(Double.isNaN(v.sklearn()) ? "n/a" : num(v.sklearn() / 1e6))
          .append(" | ").append(Double.isNaN(v.sklearn()) ? "n/a" : ratio(v.ratio())).append(" |\n");
    }
  }

  private static void frontierSection(StringBuilder md, Figures figures) {
    md.append("\n## 3. Memory vs speed: training epochs per bit width\n\n![training frontier](")
        .append(Charts.FRONTIER_PNG).append(")\n\nOne SGD epoch (TrainingBenchmark: ")
        .append(Suite.TRAINING_ROWS).append(" rows, 10 mini-batches of 250, one thread); feature"
            + " bytes = rows x packed row bytes. Ratios are to float32 with the same outputs.\n\n");
    List<Figures.EpochPoint> points = figures.epochs();
    if (points.isEmpty()) {
      md.append("_TrainingBenchmark was not run._\n");
      return;
    }
    md.append("| outputs | bits | feature bytes | epoch ms | time x float32 | bytes x float32 |\n"
        + "|---:|---:|---:|---:|---:|---:|\n");
    for (Figures.EpochPoint p : points) {
      Figures.EpochPoint f = points.stream()
          .filter(q -> q.classes() == p.classes() && q.bits() == 32).findFirst().orElse(null);
      md.append("| ").append(p.classes()).append(" | ").append(p.bits() == 32 ? "float32" : p.bits())
          .append(" | ").append(bytes(p.featureBytes())).append(" | ")
          .append(num(p.seconds() * 1e3)).append(" | ")
          .append(f == null ? "n/a" : ratio(p.seconds() / f.seconds())).append(" | ")
          .append(f == null ? "n/a" : ratio(p.featureBytes() / f.featureBytes())).append(" |\n");
    }
  }

  private static void rooflineSection(StringBuilder md, Figures figures) {
    Figures.Roofline roof = figures.roofline();
    md.append("\n## 4. Roofline\n\n![roofline](").append(Charts.ROOFLINE_PNG).append(")\n\n");
    if (Double.isFinite(roof.peakFlopsPerSecond()) && Double.isFinite(roof.bandwidthBytesPerSecond())) {
      SklearnReference.Sgemm sgemm = figures.sgemm();
      md.append(String.format(Locale.ROOT,
          "Ceilings measured in this run on %d threads: FMA peak %.1f GFLOP/s, the larger of"
              + " MachineLimitsBenchmark.fmaPeak (12 independent FMA accumulators, operands"
              + " loaded from L1, 2 flops per lane FMA) at %.1f GFLOP/s and numpy's sgemm %s;"
              + " read bandwidth %.2f GB/s (readBandwidth over %s); ridge at %.2f flop/byte.",
          roof.threads(), roof.peakFlopsPerSecond() / 1e9, roof.fmaPeakFlopsPerSecond() / 1e9,
          sgemm.available()
              ? String.format(Locale.ROOT, "(float32, n = %d, %d threads, %s) at %.1f GFLOP/s",
                  sgemm.n(), sgemm.threads(), sgemm.kernel(), sgemm.flopsPerSecond() / 1e9)
              : "(not measured: " + sgemm.message() + ")",
          roof.bandwidthBytesPerSecond() / 1e9,
          bytes(roof.bandwidthBuffer()), roof.ridge()));
      md.append(Double.isNaN(roof.oneThreadFmaPeakFlopsPerSecond())
          ? String.format(Locale.ROOT, " One thread's peak: the peak's share, %.1f GFLOP/s"
              + " (fmaPeakOneThread not run).\n\n", roof.peak(1) / 1e9)
          : String.format(Locale.ROOT, " One thread's peak: %.1f GFLOP/s, the larger of"
              + " fmaPeakOneThread (%.1f) and the peak's share.\n\n", roof.peak(1) / 1e9,
              roof.oneThreadFmaPeakFlopsPerSecond() / 1e9));
    } else {
      md.append("_The ceilings were not measured (MachineLimitsBenchmark not run)._\n\n");
    }
    List<Figures.Level> caches = roof.levels().stream()
        .filter(l -> !l.name().equals(Figures.Roofline.MEMORY)).toList();
    if (caches.isEmpty()) {
      md.append("CacheBandwidthBenchmark was not in this run: every kernel is drawn against"
          + " memory's bandwidth, and an in-cache kernel may sit above it.\n\n");
    } else {
      md.append("Read bandwidth of a buffer that stays in a cache level (CacheBandwidthBenchmark,"
          + " each thread its own buffer):\n\n| level | buffer | 1 thread GB/s | ")
          .append(roof.threads()).append(" threads GB/s |\n|---|---:|---:|---:|\n");
      for (Figures.Level l : caches) {
        md.append("| ").append(l.name()).append(" | ").append(bytes(l.bytes())).append(" | ")
            .append(num(l.oneThread() / 1e9)).append(" | ").append(num(l.allThreads() / 1e9))
            .append(" |\n");
      }
      md.append('\n');
    }
    md.append("Each kernel is placed against the ceiling that binds it: its threads' FMA peak"
        + " (half of it in double precision), or the bandwidth of the level that holds its"
        + " footprint (the bytes one op touches: JMH repeats the op, so they stay in the"
        + " smallest measured level that holds them; memory past the largest) times its"
        + " intensity, whichever is lower. Flops, bytes and footprint per operation are defined"
        + " per benchmark in `Suite.work` (bytes: compulsory traffic, each input read and each"
        + " output written once); the featurizer counts the operations its stages perform"
        + " (`FeaturizerStages`), integer lane operations too.\n\n");
    if (roof.points().isEmpty()) {
      md.append("_No kernel with a flop count was run._\n");
      return;
    }
    md.append("| kernel | threads | flop/op | bytes/op | footprint | flop/byte | GFLOP/s | ceiling"
        + " | roof GFLOP/s | of roof |\n|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
    for (Figures.RoofPoint p : roof.points()) {
      double bound = roof.bound(p);
      md.append("| ").append(p.label()).append(" | ").append(p.threads()).append(" | ")
          .append(sci(p.flops())).append(" | ").append(sci(p.bytes())).append(" | ")
          .append(bytes(p.footprint())).append(" | ")
          .append(String.format(Locale.ROOT, "%.3g", p.intensity())).append(" | ")
          .append(num(p.flopsPerSecond() / 1e9)).append(" | ").append(roof.ceiling(p))
          .append(" | ").append(Double.isFinite(bound) ? num(bound / 1e9) : "n/a").append(" | ")
          .append(ofRoof(roof.ofRoof(p))).append(" |\n");
    }
    List<Figures.RoofPoint> above = roof.above();
    if (!above.isEmpty()) {
      md.append("\n**Above the roof**: ").append(String.join("; ", above.stream()
              .map(p -> p.label() + " (" + ofRoof(roof.ofRoof(p)) + " of " + roof.ceiling(p) + ")")
              .toList()))
          .append(". A point above its roof has a wrong count or a wrong ceiling: a bug to find,"
              + " not a result.\n");
    }
    stagesSection(md, figures);
  }

  /** "87%", or "**154%**" above the roof. */
  static String ofRoof(double fraction) {
    if (!Double.isFinite(fraction)) {
      return "n/a";
    }
    String s = String.format(Locale.ROOT, "%.0f%%", 100 * fraction);
    return fraction > 1 ? "**" + s + "**" : s;
  }

  /** Per featurizer shape (one thread), each stage against its own limit. */
  private static void stagesSection(StringBuilder md, Figures figures) {
    List<Figures.StageTable> tables = figures.featurizerStages();
    if (tables.isEmpty()) {
      return;
    }
    md.append("\n### The featurizer's stages\n\nPer row of FeaturizerBenchmark.fused (one thread),"
        + " each stage's operations (`FeaturizerStages`: counted from the code, integer lane"
        + " operations one each, an FMA two), its limit (its operations at one thread's FMA"
        + " peak, or its bytes at the bandwidth of the level it works in, the longer) and, where"
        + " a kernel benchmark of this run times the stage alone, that time scaled to the shape."
        + " x limit = measured / limit: 1 is at the limit; **bold** below 1, a stage faster than"
        + " its limit (a wrong count or ceiling). The whole pass's limit is the stages' sum.\n");
    for (Figures.StageTable t : tables) {
      md.append("\n").append(t.projection()).append(", d = ").append(t.d()).append(", m = ")
          .append(t.m()).append(", ").append(t.bits() == 32 ? "float32" : t.bits() + "-bit")
          .append(", ").append(t.rows()).append(" rows:\n\n| stage | ops/row | ceiling |"
              + " limit us/row | measured us/row | x limit | measured by |\n"
              + "|---|---:|---|---:|---:|---:|---|\n");
      for (Figures.StageRow r : t.stages()) {
        stageRow(md, r);
      }
      stageRow(md, t.total());
    }
  }

  private static void stageRow(StringBuilder md, Figures.StageRow r) {
    double x = r.timesLimit();
    String times = Double.isFinite(x) ? String.format(Locale.ROOT, "%.2fx", x) : "n/a";
    md.append("| ").append(r.stage()).append(" | ").append(sci(r.ops())).append(" | ")
        .append(r.ceiling()).append(" | ").append(num(r.limitSeconds() * 1e6)).append(" | ")
        .append(num(r.measuredSeconds() * 1e6)).append(" | ")
        .append(x < 1 ? "**" + times + "**" : times).append(" | ")
        .append(r.measuredBy().isEmpty() ? "not timed alone" : "`" + r.measuredBy() + "`")
        .append(" |\n");
  }

  private static void allResults(StringBuilder md, Figures figures) {
    md.append("\n## All results\n\nForks: the median of each JMH fork (a JVM of its own), and their"
        + " spread relative to the median; **bold** above ")
        .append(Math.round(100 * Measurement.FORK_SPREAD_LIMIT))
        .append("%, where one JVM's JIT made the kernel slower than another's.\n\n"
            + "| benchmark | parameters | mode | score ± error | median | unit | forks (spread) |"
            + " secondary (median) |\n|---|---|---|---:|---:|---|---|---|\n");
    for (Measurement m : figures.measurements()) {
      StringBuilder params = new StringBuilder();
      m.params().forEach((k, v) -> params.append(params.isEmpty() ? "" : " ").append(k).append('=').append(v));
      StringBuilder secondary = new StringBuilder();
      m.secondary().forEach((k, v) -> secondary.append(secondary.isEmpty() ? "" : "; ")
          .append(k).append(' ').append(sci(v.median())).append(' ').append(v.unit()));
      md.append("| ").append(m.benchmark()).append(" | ").append(params).append(" | ")
          .append(m.mode()).append(" | ").append(num(m.primary().score())).append(" ± ")
          .append(num(m.primary().error())).append(" | ").append(num(m.primary().median()))
          .append(" | ").append(m.primary().unit()).append(" | ").append(forks(m, true))
          .append(" | ").append(secondary).append(" |\n");
    }
  }

  /**
   * Each fork's median and the spread: "12.9, 13.1, 16.5 (27%)", a spread above the limit in bold
   * when {@code markDisagreement}; one fork: its median.
   */
  static String forks(Measurement m, boolean markDisagreement) {
    StringBuilder s = new StringBuilder();
    for (double v : m.forkMedians()) {
      s.append(s.isEmpty() ? "" : ", ").append(num(v));
    }
    if (m.forkMedians().size() > 1) {
      String spread = String.format(Locale.ROOT, "%.0f%%", 100 * m.forkSpread());
      boolean bold = markDisagreement && m.forkSpread() > Measurement.FORK_SPREAD_LIMIT;
      s.append(" (").append(bold ? "**" + spread + "**" : spread).append(')');
    }
    return s.toString();
  }

  static Map<String, Object> json(MachineInfo machine, RunInfo run, Figures figures) {
    return json(machine, run, figures, null);
  }

  /** results.json; {@code timeToModel} only when the table was run (not null). */
  static Map<String, Object> json(MachineInfo machine, RunInfo run, Figures figures,
      TimeToModel.Table timeToModel) {
    Map<String, Object> root = new LinkedHashMap<>();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpu", machine.cpuModel());
    m.put("cores", machine.cores());
    m.put("simdFlags", machine.simdFlags());
    m.put("cpuFlags", machine.cpuFlags());
    m.put("floatSpecies", machine.floatSpecies());
    m.put("floatLanes", machine.floatLanes());
    m.put("intSpecies", machine.intSpecies());
    m.put("intLanes", machine.intLanes());
    m.put("vectorization", machine.vectorization());
    m.put("jdk", machine.jdk());
    m.put("os", machine.os());
    m.put("threads", machine.threads());
    root.put("machine", m);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("command", run.command());
    r.put("quick", run.quick());
    Suite.Timing t = run.timing();
    r.put("jmh", timing(t));
    if (run.forked() != null) {
      r.put("jmhFeaturizerAndProducts", timing(run.forked()));
    }
    r.put("started", run.started().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    r.put("durationSeconds", run.duration().toMillis() / 1e3);
    r.put("jmhSeconds", run.jmh().toMillis() / 1e3);
    r.put("sklearnSeconds", run.sklearn().toMillis() / 1e3);
    r.put("failures", run.failures());
    root.put("run", r);
    List<Object> results = new ArrayList<>();
    for (Measurement x : figures.measurements()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("benchmark", x.benchmark());
      e.put("mode", x.mode());
      e.put("threads", Figures.parallel(x) ? figures.threads() : 1);
      e.put("params", x.params());
      e.put("primary", metric(x.primary()));
      e.put("forkMedians", x.forkMedians());
      e.put("forkSpread", x.forkSpread());
      Map<String, Object> secondary = new LinkedHashMap<>();
      x.secondary().forEach((k, v) -> secondary.put(k, metric(v)));
      e.put("secondary", secondary);
      x.work().ifPresent(w -> e.put("work", Map.of("flops", w.flops(), "bytes", w.bytes(),
          "footprintBytes", w.footprint())));
      results.add(e);
    }
    root.put("results", results);
    SklearnReference.Result sk = figures.sklearn();
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("available", sk.available());
    s.put("message", sk.message());
    s.put("versions", sk.versions());
    List<Object> timings = new ArrayList<>();
    for (SklearnReference.Timing x : sk.timings()) {
      timings.add(new LinkedHashMap<>(Map.of("d", x.d(), "m", x.m(), "rows", x.rows(),
          "threads", x.threads(), "medianSeconds", x.medianSeconds(), "phase", x.phase(),
          "featuresPerSecond", x.featuresPerSecond())));
    }
    s.put("timings", timings);
    root.put("sklearn", s);
    Map<String, Object> derived = new LinkedHashMap<>();
    List<Object> curves = new ArrayList<>();
    for (Figures.Curve c : figures.bitsCurves()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("kernel", c.kernel());
      e.put("op", c.per());
      Map<String, Object> byBits = new LinkedHashMap<>();
      c.millionsPerSecond().forEach((b, v) -> byBits.put(String.valueOf(b),
          Map.of("millionValuesPerSecond", v, "ratioToFloat32", c.ratioToFloat(b))));
      e.put("bits", byBits);
      curves.add(e);
    }
    derived.put("throughputVsBits", curves);
    List<Object> vs = new ArrayList<>();
    for (Figures.VsSklearn v : figures.featurizerVsSklearn()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("projection", v.projection());
      e.put("d", v.d());
      e.put("m", v.m());
      e.put("rows", v.rows());
      e.put("bits", v.bits());
      e.put("threads", v.threads());
      e.put("featuresPerSecond", v.ours());
      e.put("sklearnFeaturesPerSecond", v.sklearn());
      e.put("ratioToSklearn", v.ratio());
      vs.add(e);
    }
    derived.put("featurizerVsSklearn", vs);
    List<Object> epochs = new ArrayList<>();
    for (Figures.EpochPoint p : figures.epochs()) {
      epochs.add(Map.of("bits", p.bits(), "classes", p.classes(), "featureBytes", p.featureBytes(),
          "seconds", p.seconds()));
    }
    derived.put("trainingFrontier", epochs);
    Figures.Roofline roof = figures.roofline();
    Map<String, Object> rl = new LinkedHashMap<>();
    rl.put("peakFlopsPerSecond", roof.peakFlopsPerSecond());
    rl.put("fmaPeakFlopsPerSecond", roof.fmaPeakFlopsPerSecond());
    rl.put("sgemmFlopsPerSecond", roof.sgemmFlopsPerSecond());
    SklearnReference.Sgemm sgemm = figures.sgemm();
    if (sgemm.available()) {
      rl.put("sgemm", Map.of("n", sgemm.n(), "threads", sgemm.threads(), "kernel", sgemm.kernel(),
          "flopsPerSecond", sgemm.flopsPerSecond()));
    } else {
      rl.put("sgemm", Map.of("unavailable", sgemm.message()));
    }
    rl.put("oneThreadFmaPeakFlopsPerSecond", roof.oneThreadFmaPeakFlopsPerSecond());
    rl.put("oneThreadPeakFlopsPerSecond", roof.peak(1));
    rl.put("bandwidthBytesPerSecond", roof.bandwidthBytesPerSecond());
    rl.put("bandwidthBufferBytes", roof.bandwidthBuffer());
    rl.put("threads", roof.threads());
    rl.put("ridgeFlopPerByte", roof.ridge());
    List<Object> levels = new ArrayList<>();
    for (Figures.Level l : roof.levels()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("level", l.name());
      e.put("bufferBytes", l.bytes());
      e.put("oneThreadBytesPerSecond", l.oneThread());
      e.put("allThreadsBytesPerSecond", l.allThreads());
      levels.add(e);
    }
    rl.put("levels", levels);
    List<Object> points = new ArrayList<>();
    for (Figures.RoofPoint p : roof.points()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("kernel", p.label());
      e.put("threads", p.threads());
      e.put("flops", p.flops());
      e.put("bytes", p.bytes());
      e.put("footprintBytes", p.footprint());
      e.put("double", p.doubles());
      e.put("seconds", p.seconds());
      e.put("flopPerByte", p.intensity());
      e.put("flopsPerSecond", p.flopsPerSecond());
      e.put("level", roof.level(p.footprint()).name());
      e.put("ceiling", roof.ceiling(p));
      e.put("roofFlopsPerSecond", roof.bound(p));
      e.put("ofRoof", roof.ofRoof(p));
      points.add(e);
    }
    rl.put("kernels", points);
    derived.put("roofline", rl);
    List<Object> stages = new ArrayList<>();
    for (Figures.StageTable table : figures.featurizerStages()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("projection", table.projection());
      e.put("d", table.d());
      e.put("m", table.m());
      e.put("bits", table.bits());
      e.put("rows", table.rows());
      List<Object> rows = new ArrayList<>();
      for (Figures.StageRow row : table.stages()) {
        rows.add(stage(row));
      }
      e.put("stages", rows);
      e.put("total", stage(table.total()));
      stages.add(e);
    }
    derived.put("featurizerStages", stages);
    root.put("derived", derived);
    if (timeToModel != null) {
      root.put("timeToModel", TimeToModel.json(timeToModel));
    }
    return root;
  }

  private static Map<String, Object> timing(Suite.Timing t) {
    return Map.of("forks", t.forks(), "warmupIterations", t.warmups(),
        "warmupMillis", t.warmupMillis(), "iterations", t.iterations(),
        "iterationMillis", t.iterationMillis());
  }

  private static Map<String, Object> stage(Figures.StageRow r) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("stage", r.stage());
    e.put("opsPerRow", r.ops());
    e.put("ceiling", r.ceiling());
    e.put("limitSecondsPerRow", r.limitSeconds());
    e.put("measuredSecondsPerRow", r.measuredSeconds());
    e.put("measuredBy", r.measuredBy());
    return e;
  }

  private static Map<String, Object> metric(Measurement.Metric m) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("score", m.score());
    e.put("error", m.error());
    e.put("unit", m.unit());
    e.put("median", m.median());
    e.put("samples", m.samples());
    return e;
  }

  private static String blas(SklearnReference.Result sk) {
    Object blas = sk.versions().get("blas");
    if (!(blas instanceof List<?> libs) || libs.isEmpty()) {
      return "BLAS unknown";
    }
    List<String> names = new ArrayList<>();
    for (Object o : libs) {
      if (o instanceof Map<?, ?> lib) {
        names.add(lib.get("internal_api") + " " + lib.get("version")
            + (lib.get("architecture") == null ? "" : " " + lib.get("architecture")));
      }
    }
    return String.join(", ", names);
  }

  private static void row(StringBuilder md, String key, String value) {
    md.append("| ").append(key).append(" | ").append(value.replace("|", "\\|")).append(" |\n");
  }

  static String human(Duration d) {
    long s = d.toSeconds();
    return s >= 60 ? String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60)
        : String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1e3);
  }

  /** Three significant digits, grouped: 1,234 / 12.3 / 0.0123. */
  static String num(double v) {
    if (!Double.isFinite(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return a >= 100 ? String.format(Locale.ROOT, "%.0f", v)
        : a >= 10 ? String.format(Locale.ROOT, "%.1f", v)
        : a >= 1 ? String.format(Locale.ROOT, "%.2f", v)
        : String.format(Locale.ROOT, "%.3g", v);
  }

  private static String ratio(double r) {
    return Double.isFinite(r) ? String.format(Locale.ROOT, "%.2fx", r) : "n/a";
  }

  private static String sci(double v) {
    return String.format(Locale.ROOT, "%.3g", v);
  }

  static String bytes(double b) {
    String[] units = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (b >= 1024 && u < units.length - 1) {
      b /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  }

  /** The time zone of the machine, for the report's date. */
  static ZonedDateTime now() {
    return ZonedDateTime.now(ZoneId.systemDefault());
  }
}
