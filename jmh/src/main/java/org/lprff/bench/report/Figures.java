package org.lprff.bench.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import org.lprff.vector.layout.PackedLayout;

/**
 * The derived figures of one run, from its JMH measurements and the scikit-learn timings: what
 * the plots draw and the report's tables list. Every rate uses the median of the measurement
 * iterations ({@link Measurement.Metric#secondsPerOp}).
 */
public final class Figures {

  /** Float32, the reference width of every bit sweep. */
  public static final int FLOAT_BITS = 32;

  /** One kernel's throughput (million feature values per second) per bit width. */
  public record Curve(String kernel, String per, TreeMap<Integer, Double> millionsPerSecond) {
    /** The ratio of width {@code bits} to float32, or NaN when either was not measured. */
    public double ratioToFloat(int bits) {
      Double b = millionsPerSecond.get(bits);
      Double f = millionsPerSecond.get(FLOAT_BITS);
      return b == null || f == null ? Double.NaN : b / f;
    }
  }

  /** One featurizer shape beside scikit-learn with the same (d, m, rows) and thread count. */
  public record VsSklearn(
      String projection, int d, int m, int rows, int bits, int threads, double ours,
      double sklearn) {
    public double ratio() {
      return ours / sklearn;
    }
  }

  /** One training epoch per bit width: feature bytes the epoch reads, and its time. */
  public record EpochPoint(int bits, int classes, double featureBytes, double seconds) {}

  /**
   * A kernel on the roofline: flop per byte and achieved flop/s; its footprint places it at a
   * cache level (or memory), whose bandwidth is its ceiling; double-precision flops have half
   * the float peak.
   */
  public record RoofPoint(String label, int threads, double intensity, double flopsPerSecond,
      double flops, double bytes, double footprint, boolean doubles, double seconds) {}

  /**
   * The read bandwidth of one cache level, or of memory: bytes per second on one thread and on
   * all threads (NaN when not measured).
   *
   * @param bytes the buffer the level was measured on (each thread's); a working set up to it
   *     stays in the level
   */
  public record Level(String name, long bytes, double oneThread, double allThreads) {
    /**
     * The ceiling of a kernel on {@code threads} of {@code all}: the measurement on that many
     * threads; else, for one thread, the all-threads one (no lower than one thread's), for all
     * threads, one thread's times the threads (private caches add up). NaN when not measured.
     */
    public double bandwidth(int threads, int all) {
      if (threads == 1) {
        return Double.isNaN(oneThread) ? allThreads : oneThread;
      }
      if (!Double.isNaN(allThreads)) {
        return threads >= all ? allThreads : allThreads * threads / all;
      }
      return oneThread * threads;
    }
  }

  /**
   * The ceilings (NaN when not measured) and the kernels. The all-threads peak is the larger of
   * the two measurements of it: MachineLimitsBenchmark.fmaPeak and numpy's sgemm on all
   * threads; one thread's is the larger of fmaPeakOneThread and that peak's share.
   *
   * @param bandwidthBytesPerSecond memory's read bandwidth (readBandwidth, the largest buffer)
   * @param bandwidthBuffer the buffer size the bandwidth was measured on (the largest run)
   * @param levels the measured cache levels by size, then memory (always last, NaN when not
   *     measured)
   */
  public record Roofline(double peakFlopsPerSecond, double fmaPeakFlopsPerSecond,
      double sgemmFlopsPerSecond, double oneThreadFmaPeakFlopsPerSecond,
      double bandwidthBytesPerSecond, long bandwidthBuffer, int threads, List<Level> levels,
      List<RoofPoint> points) {

    /** The name of memory's level. */
    public static final String MEMORY = "DRAM";

    /** The intensity where memory's all-threads bandwidth line meets the FMA peak. */
    public double ridge() {
      return peakFlopsPerSecond / bandwidthBytesPerSecond;
    }

    /** Memory's all-threads bound at {@code intensity}: min(peak, bandwidth x intensity). */
    public double bound(double intensity) {
      return Math.min(peakFlopsPerSecond, bandwidthBytesPerSecond * intensity);
    }

    /**
     * The FMA peak of {@code t} threads: all threads' measured peak; for one thread the larger
     * of its own measurement and the all-threads peak's share (a core alone may clock higher);
     * in between, the share.
     */
    public double peak(int t) {
      if (t >= threads) {
        return peakFlopsPerSecond;
      }
      double share = peakFlopsPerSecond * t / threads;
      return t == 1 && !Double.isNaN(oneThreadFmaPeakFlopsPerSecond)
          ? Double.isNaN(share) ? oneThreadFmaPeakFlopsPerSecond
              : Math.max(share, oneThreadFmaPeakFlopsPerSecond)
          : share;
    }

    /** The smallest measured cache level that holds {@code footprint} bytes, else memory. */
    public Level level(double footprint) {
      for (Level l : levels) {
        if (!l.name().equals(MEMORY) && footprint <= l.bytes()) {
          return l;
        }
      }
      return levels.getLast();
    }

    /** The peak of a point: its threads', halved for double precision. */
    public double peak(RoofPoint p) {
      return peak(p.threads()) * (p.doubles() ? 0.5 : 1);
    }

    /** The bandwidth of a point's level on its threads (NaN when not measured). */
    public double bandwidth(RoofPoint p) {
      return level(p.footprint()).bandwidth(p.threads(), threads);
    }

    /**
     * The roof over a point: min(its peak, its level's bandwidth x its intensity), either alone
     * when the other was not measured.
     */
    public double bound(RoofPoint p) {
      double compute = peak(p);
      double memory = bandwidth(p) * p.intensity();
      return Double.isNaN(memory) ? compute : Double.isNaN(compute) ? memory
          : Math.min(compute, memory);
    }

    /** Whether the point's level bandwidth, not the peak, makes its roof. */
    public boolean memoryBound(RoofPoint p) {
      double memory = bandwidth(p) * p.intensity();
      return !Double.isNaN(memory) && !(peak(p) <= memory);
    }

    /** The ceiling that binds a point, e.g. "L2 152 GB/s" or "FMA peak 48.0 GFLOP/s". */
    public String ceiling(RoofPoint p) {
      if (Double.isNaN(bound(p))) {
        return "ceilings not run";
      }
      if (memoryBound(p)) {
        return level(p.footprint()).name() + " " + Report.num(bandwidth(p) / 1e9) + " GB/s";
      }
      return "FMA peak" + (p.doubles() ? " (double)" : "") + " " + Report.num(peak(p) / 1e9)
          + " GFLOP/s";
    }

    /** Achieved over the roof: above 1 the point sits above it (a wrong count or ceiling). */
    public double ofRoof(RoofPoint p) {
      return p.flopsPerSecond() / bound(p);
    }

    /** The points above their roof. */
    public List<RoofPoint> above() {
      return points.stream().filter(p -> ofRoof(p) > 1).toList();
    }
  }

  /**
   * One stage of one measured featurizer shape (one thread), per row: its operations, its
   * limit (the time at its ceiling: operations at the one-thread peak, or its bytes at its
   * level's bandwidth, the longer) and, where a kernel benchmark of the run times it alone, that
   * time scaled to the shape.
   *
   * @param measuredBy the kernel benchmark that timed it, or "" when none did
   */
  public record StageRow(String stage, double ops, String ceiling, double limitSeconds,
      double measuredSeconds, String measuredBy) {
    /** Measured over limit: how far the stage is from its limit (1 = at it); NaN unmeasured. */
    public double timesLimit() {
      return measuredSeconds / limitSeconds;
    }
  }

  /** A featurizer shape's stages and the whole pass, as FeaturizerBenchmark.fused timed it. */
  public record StageTable(String projection, int d, int m, int bits, int rows,
      List<StageRow> stages, StageRow total) {}

  private record CurveSpec(String kernel, String per, String benchmark,
      Predicate<Measurement> filter, ToDoubleFunction<Measurement> valuesPerOp) {}

  /** The kernels of the bits plot: which measurements, and how many feature values an op is. */
  private static final List<CurveSpec> CURVES = List.of(
      new CurveSpec("quantize stochastic", "m = 4096 values of one row",
          "QuantizeBenchmark.stochasticVector", m -> true, m -> 4096),
      new CurveSpec("quantize nearest", "m = 4096 values of one row",
          "QuantizeBenchmark.nearestVector", m -> true, m -> 4096),
      new CurveSpec("unpack", "m = 4096 values of one row",
          "PackedUnpackBenchmark.unpackVector", m -> true, m -> m.intParam("m")),
      new CurveSpec("products forward", "rows x m values read, 1 output",
          "PackedProductsBenchmark.forwardVector", m -> m.intParam("classes") == 1 && !codebook(m),
          m -> (double) m.intParam("rows") * m.intParam("m")),
      new CurveSpec("products accumulate", "rows x m values read, 1 output",
          "PackedProductsBenchmark.accumulateVector",
          m -> m.intParam("classes") == 1 && !codebook(m),
          m -> (double) m.intParam("rows") * m.intParam("m")),
      new CurveSpec("products forward, codebook", "rows x m values read, 1 output",
          "PackedProductsBenchmark.forwardVector", m -> m.intParam("classes") == 1 && codebook(m),
          m -> (double) m.intParam("rows") * m.intParam("m")),
      new CurveSpec("products accumulate, codebook", "rows x m values read, 1 output",
          "PackedProductsBenchmark.accumulateVector",
          m -> m.intParam("classes") == 1 && codebook(m),
          m -> (double) m.intParam("rows") * m.intParam("m")),
      new CurveSpec("featurizer (fastfood, d = 90, 1 thread)", "rows x m values written",
          "FeaturizerBenchmark.fused",
          m -> m.params().get("projection").equals("fastfood") && m.intParam("d") == 90,
          m -> (double) m.intParam("rows") * m.intParam("m")),
      new CurveSpec("SGD epoch (1 output)", "rows x m values per epoch",
          "TrainingBenchmark.sgdEpoch", m -> m.intParam("classes") == 1,
          m -> (double) Suite.TRAINING_ROWS * m.intParam("m")));

  private final List<Measurement> measurements;
  private final SklearnReference.Result sklearn;
  private final SklearnReference.Sgemm sgemm;
  private final int threads;

  public Figures(List<Measurement> measurements, SklearnReference.Result sklearn, int threads) {
    this(measurements, sklearn, SklearnReference.Sgemm.unavailable("not measured"), threads);
  }

  public Figures(List<Measurement> measurements, SklearnReference.Result sklearn,
      SklearnReference.Sgemm sgemm, int threads) {
    this.measurements = List.copyOf(measurements);
    this.sklearn = sklearn;
    this.sgemm = sgemm;
    this.threads = threads;
  }

  public SklearnReference.Sgemm sgemm() {
    return sgemm;
  }

  public List<Measurement> measurements() {
    return measurements;
  }

  public SklearnReference.Result sklearn() {
    return sklearn;
  }

  public int threads() {
    return threads;
  }

  /** Plot 1: the kernels measured at two or more bit widths (or at one and float32). */
  public List<Curve> bitsCurves() {
    List<Curve> curves = new ArrayList<>();
    for (CurveSpec spec : CURVES) {
      TreeMap<Integer, Double> points = new TreeMap<>();
      for (Measurement m : named(spec.benchmark())) {
        if (m.params().containsKey("bits") && spec.filter().test(m)) {
          points.put(m.intParam("bits"),
              spec.valuesPerOp().applyAsDouble(m) / m.primary().secondsPerOp() / 1e6);
        }
      }
      if (!points.isEmpty()) {
        curves.add(new Curve(spec.kernel(), spec.per(), points));
      }
    }
    return curves;
  }

  /**
   * Plot 2: FeaturizerBenchmark's fused (1 thread) and fusedCommonPool ({@link #threads}) at 4
   * bits and float32, each beside RBFSampler's median (before and after together) for the same
   * shape and thread count; NaN where scikit-learn was not measured.
   */
  public List<VsSklearn> featurizerVsSklearn() {
    List<VsSklearn> rows = new ArrayList<>();
    for (Measurement m : measurements) {
      boolean pool = m.benchmark().equals("FeaturizerBenchmark.fusedCommonPool");
      if (!pool && !m.benchmark().equals("FeaturizerBenchmark.fused")) {
        continue;
      }
      int bits = m.intParam("bits");
      if (bits != 4 && bits != FLOAT_BITS) {
        continue;
      }
      int d = m.intParam("d");
      int f = m.intParam("m");
      int n = m.intParam("rows");
      int t = pool ? threads : 1;
      double ours = (double) n * f / m.primary().secondsPerOp();
      rows.add(new VsSklearn(m.params().get("projection"), d, f, n, bits, t, ours,
          sklearnRate(d, f, n, t)));
    }
    rows.sort(Comparator.comparingInt(VsSklearn::d).thenComparingInt(VsSklearn::threads)
        .thenComparing(v -> projectionOrder(v.projection())).thenComparingInt(VsSklearn::bits));
    return rows;
  }

  /** scikit-learn's features per second for a shape: the median over before and after. */
  public double sklearnRate(int d, int m, int rows, int threadCount) {
    List<Double> times = new ArrayList<>();
    for (SklearnReference.Timing t : sklearn.timings()) {
      if (t.d() == d && t.m() == m && t.rows() == rows && t.threads() == threadCount) {
        times.add(t.medianSeconds());
      }
    }
    if (times.isEmpty()) {
      return Double.NaN;
    }
    return (double) rows * m / median(times);
  }

  /** Plot 3: one point per (bits, classes) of TrainingBenchmark.sgdEpoch. */
  public List<EpochPoint> epochs() {
    List<EpochPoint> points = new ArrayList<>();
    for (Measurement m : named("TrainingBenchmark.sgdEpoch")) {
      int bits = m.intParam("bits");
      double bytes = (double) Suite.TRAINING_ROWS * PackedLayout.rowBytes(m.intParam("m"), bits);
      points.add(new EpochPoint(bits, m.intParam("classes"), bytes, m.primary().secondsPerOp()));
    }
    points.sort(Comparator.comparingInt(EpochPoint::classes).thenComparingInt(EpochPoint::bits));
    return points;
  }

  /** Plot 4: the measured ceilings and every measurement the suite gives a {@link Suite.Work}. */
  public Roofline roofline() {
    double peak = Double.NaN;
    double onePeak = Double.NaN;
    double bandwidth = Double.NaN;
    long buffer = 0;
    // Cache level by buffer size: {one thread, all threads} bytes per second.
    TreeMap<Long, double[]> caches = new TreeMap<>();
    List<RoofPoint> points = new ArrayList<>();
    for (Measurement m : measurements) {
      switch (m.benchmark()) {
        // laneFmas: lane multiply-adds per second, 2 flops each.
        case "MachineLimitsBenchmark.fmaPeak" ->
            peak = 2 * secondary(m, "laneFmas").perSecond();
        case "MachineLimitsBenchmark.fmaPeakOneThread" ->
            onePeak = 2 * secondary(m, "laneFmas").perSecond();
        // bytes: bytes read per second; the largest buffer is the one past the caches.
        case "MachineLimitsBenchmark.readBandwidth" -> {
          long size = Long.parseLong(m.params().get("bytes"));
          if (size > buffer) {
            buffer = size;
            bandwidth = secondary(m, "bytes").perSecond();
          }
        }
        case "CacheBandwidthBenchmark.readOneThread", "CacheBandwidthBenchmark.readAllThreads" ->
            caches.computeIfAbsent(Long.parseLong(m.params().get("bytes")),
                    b -> new double[] {Double.NaN, Double.NaN})
                [parallel(m) ? 1 : 0] = secondary(m, "bytes").perSecond();
        default -> { }
      }
      Optional<Suite.Work> work = m.work();
      if (work.isEmpty()) {
        continue;
      }
      // onePass's primary score is one training (several passes); its secondary is per pass.
      double seconds = m.benchmark().equals("MachineLimitsBenchmark.onePass")
          ? secondary(m, "pass").secondsPerOp() : m.primary().secondsPerOp();
      Suite.Work w = work.get();
      points.add(new RoofPoint(shortLabel(m), parallel(m) ? threads : 1, w.intensity(),
          w.flops() / seconds, w.flops(), w.bytes(), w.footprint(), w.doubles(), seconds));
    }
    List<Level> levels = new ArrayList<>();
    caches.forEach((size, bw) -> levels.add(new Level(Suite.CACHE_LEVELS.getOrDefault(size,
        Report.bytes(size) + " buffer"), size, bw[0], bw[1])));
    levels.add(new Level(Roofline.MEMORY, buffer, Double.NaN, bandwidth));
    double sgemmPeak = sgemm.available() ? sgemm.flopsPerSecond() : Double.NaN;
    double best = Double.isNaN(peak) ? sgemmPeak
        : Double.isNaN(sgemmPeak) ? peak : Math.max(peak, sgemmPeak);
    return new Roofline(best, peak, sgemmPeak, onePeak, bandwidth, buffer, threads,
        List.copyOf(levels), points);
  }

  /**
   * The stages of each one-thread FeaturizerBenchmark.fused shape ({@link FeaturizerStages}),
   * each against its own limit on this run's ceilings, and timed alone where a kernel
   * benchmark of the run measures it.
   */
  public List<StageTable> featurizerStages() {
    Roofline roof = roofline();
    List<StageTable> tables = new ArrayList<>();
    for (Measurement f : named("FeaturizerBenchmark.fused")) {
      String projection = f.params().get("projection");
      int d = f.intParam("d");
      int m = f.intParam("m");
      int bits = f.intParam("bits");
      int rows = f.intParam("rows");
      List<StageRow> stages = new ArrayList<>();
      double ops = 0;
      double limit = 0;
      for (FeaturizerStages.Stage s : FeaturizerStages.of(projection, d, m, bits)) {
        StageRow row = stageRow(roof, s, d, m, bits);
        stages.add(row);
        ops += s.ops();
        limit += row.limitSeconds();
      }
      // The stages run one after another: the pass's limit is the sum of theirs.
      StageRow total = new StageRow("the whole pass (FeaturizerBenchmark.fused)", ops,
          "the stages' sum", limit, f.primary().secondsPerOp() / rows, "FeaturizerBenchmark.fused");
      tables.add(new StageTable(projection, d, m, bits, rows, stages, total));
    }
    tables.sort(Comparator.comparingInt(StageTable::d)
        .thenComparing(t -> projectionOrder(t.projection())).thenComparingInt(StageTable::bits));
    return tables;
  }

  /** One stage against its ceiling, the longer of its compute and its memory time. */
  private StageRow stageRow(Roofline roof, FeaturizerStages.Stage s, int d, int m, int bits) {
    double compute = s.ops() / roof.peak(1);
    Level level = roof.level(s.footprint());
    double bandwidth = level.bandwidth(1, threads);
    double memory = s.bytes() / bandwidth;
    boolean memoryBound = memory > compute;
    double limit = Double.isNaN(memory) ? compute : Double.isNaN(compute) ? memory
        : Math.max(compute, memory);
    String ceiling = Double.isNaN(limit) ? "ceilings not run" : memoryBound
        ? level.name() + " " + Report.num(bandwidth / 1e9) + " GB/s"
        : "FMA peak " + Report.num(roof.peak(1) / 1e9) + " GFLOP/s";
    Timed timed = stageSeconds(s, d, m, bits);
    return new StageRow(s.name(), s.ops(), ceiling, limit, timed.seconds(), timed.by());
  }

  /** A stage's time per row as a kernel benchmark measured it, and that kernel's label. */
  private record Timed(double seconds, String by) {
    static final Timed NONE = new Timed(Double.NaN, "");
  }

  /**
   * A stage's time per row as a kernel benchmark of this run measured it, scaled to the shape
   * (by the stage's share of the kernel's operations, or per feature); NONE when none did or a
   * difference of two came out not positive.
   */
  private Timed stageSeconds(FeaturizerStages.Stage s, int d, int m, int bits) {
    String b = String.valueOf(bits);
    Predicate<Measurement> sameBits = x -> b.equals(x.params().get("bits"));
    Predicate<Measurement> bits16 = x -> "16".equals(x.params().get("bits"));
    double codes = (double) m / Suite.COSINE_CODES_FEATURES;
    double row = (double) m / Suite.QUANTIZE_FEATURES;
    return switch (s.kernel()) {
      case NONE -> Timed.NONE;
      case MATRIX_PRODUCT -> scaled(find("DenseProjectionBenchmark.vector",
          x -> x.intParam("d") == d), s.ops());
      case FWHT -> scaled(nearest("FwhtBenchmark.vector", "n", FeaturizerStages.padded(d)),
          s.ops());
      case COSINE -> scaled(nearest("CosineBenchmark.vectorPolynomial", "n", m), s.ops());
      case COSINE_CODES -> perOp(find("CosineCodesBenchmark.fusedNearest", sameBits), codes);
      case DRAWS -> difference(find("CosineCodesBenchmark.fusedStochastic", sameBits),
          find("CosineCodesBenchmark.fusedNearest", sameBits), codes);
      case COSINE_STORE -> perOp(find("CosineCodesBenchmark.float32", x -> true), codes);
      case ROUNDING16 -> perOp(find("QuantizeBenchmark.nearestVector", bits16), row);
      case DRAWS32 -> difference(find("QuantizeBenchmark.stochasticVector", bits16),
          find("QuantizeBenchmark.nearestVector", bits16), row);
    };
  }

  /** A kernel's time scaled by operations: its time x stage ops / its op's flops. */
  private static Timed scaled(Measurement kernel, double ops) {
    if (kernel == null || kernel.work().isEmpty()) {
      return Timed.NONE;
    }
    return new Timed(kernel.primary().secondsPerOp() * ops / kernel.work().get().flops(),
        kernel.label() + ", scaled by operations");
  }

  /** A kernel's time times {@code ops} of its ops. */
  private static Timed perOp(Measurement kernel, double ops) {
    return kernel == null ? Timed.NONE
        : new Timed(kernel.primary().secondsPerOp() * ops, kernel.label());
  }

  /**
   * A kernel's time minus another's (the same op without the stage), times {@code ops} of its
   * ops; NONE when either was not measured or the difference is not positive.
   */
  private static Timed difference(Measurement kernel, Measurement without, double ops) {
    if (kernel == null || without == null) {
      return Timed.NONE;
    }
    double t = kernel.primary().secondsPerOp() - without.primary().secondsPerOp();
    return t > 0 ? new Timed(t * ops, kernel.label() + " minus " + without.benchmark())
        : Timed.NONE;
  }

  private Measurement find(String benchmark, Predicate<Measurement> filter) {
    return named(benchmark).stream().filter(filter).findFirst().orElse(null);
  }

  /** The measurement of {@code benchmark} whose {@code param} is nearest {@code target} (log). */
  private Measurement nearest(String benchmark, String param, int target) {
    return named(benchmark).stream().min(Comparator.comparingDouble(
        x -> Math.abs(Math.log((double) x.intParam(param) / target)))).orElse(null);
  }

  /** Whether a benchmark runs on the common pool (all threads) rather than one thread. */
  static boolean parallel(Measurement m) {
    return switch (m.benchmark()) {
      case "MachineLimitsBenchmark.fmaPeakOneThread" -> false;
      case "CacheBandwidthBenchmark.readAllThreads", "GramBenchmark.parallel",
          "GramBenchmark.codesParallel", "CholeskyBenchmark.lprff",
          "CholeskyBenchmark.ejmlParallel" -> true;
      default -> m.benchmark().startsWith("MachineLimitsBenchmark.")
          || m.benchmark().endsWith("CommonPool");
    };
  }

  /** A PackedProductsBenchmark point over codebook rows (results without the parameter: affine). */
  private static boolean codebook(Measurement m) {
    return "codebook".equals(m.params().get("decoding"));
  }

  /** A roofline label: the kernel and the parameters that tell its points apart. */
  static String shortLabel(Measurement m) {
    Map<String, String> p = m.params();
    return switch (m.benchmark()) {
      case "CosineBenchmark.vectorPolynomial" -> "cosine n=" + p.get("n");
      case "FwhtBenchmark.vector" -> "fwht n=" + p.get("n");
      case "DenseProjectionBenchmark.vector" -> "dense projection d=" + p.get("d");
      case "GramBenchmark.vector" -> "gram m=" + p.get("m");
      case "GramBenchmark.codes" -> "gram of codes m=" + p.get("m");
      case "GramBenchmark.codesParallel" -> "gram of codes, all threads, m=" + p.get("m");
      case "PackedProductsBenchmark.forwardVector" ->
          "forward b=" + p.get("bits") + " c=" + p.get("classes")
              + (codebook(m) ? " codebook" : "");
      case "PackedProductsBenchmark.accumulateVector" ->
          "accumulate b=" + p.get("bits") + " c=" + p.get("classes")
              + (codebook(m) ? " codebook" : "");
      case "FeaturizerBenchmark.fused", "FeaturizerBenchmark.fusedCommonPool" ->
          "featurize " + p.get("projection") + " d=" + p.get("d") + " b=" + p.get("bits")
              + (parallel(m) ? " pool" : "");
      case "MachineLimitsBenchmark.onePass" -> "training pass b=" + p.getOrDefault("bits", "4");
      default -> m.label();
    };
  }

  private List<Measurement> named(String benchmark) {
    return measurements.stream().filter(m -> m.benchmark().equals(benchmark)).toList();
  }

  private static Measurement.Metric secondary(Measurement m, String name) {
    Measurement.Metric metric = m.secondary().get(name);
    if (metric == null) {
      throw new IllegalStateException(
          m.benchmark() + " has no secondary result " + name + ": " + m.secondary().keySet());
    }
    return metric;
  }

  static int projectionOrder(String projection) {
    int i = List.of("dense", "circulant", "fastfood", "orthogonal").indexOf(projection);
    return i < 0 ? 99 : i;
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
