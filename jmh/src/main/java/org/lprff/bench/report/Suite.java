package org.lprff.bench.report;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.lprff.vector.layout.PackedLayout;

/**
 * What {@code lprff bench} measures: one line per benchmark (its JMH name, the parameters of the
 * quick and of the full run), the iteration settings of each run, and the flop and byte counts
 * of one operation of each benchmark that the roofline places. A new benchmark is one line of
 * {@link #ENTRIES} (and, to appear on the roofline, one case of {@link #work}).
 */
public final class Suite {

  private Suite() {}

  /** Where an entry's results go; the scikit-learn reference brackets the featurizer part. */
  public enum Part {
    /** MachineLimitsBenchmark: the roofline's ceilings and the full training pass. */
    LIMITS,
    /** One kernel at a time, single-threaded. */
    KERNELS,
    /** The fused featurizer, timed between two runs of scikit-learn's RBFSampler. */
    FEATURIZER,
    /** Training epochs per bit width. */
    TRAINING
  }

  /**
   * One line of the suite: {@code benchmark} is a regex over {@code Class.method} (anchored, in
   * package org.lprff.bench), {@code quick} and {@code full} the parameters of each run as {@code
   * "name=v1,v2 name=v3"} ({@code ""}: the benchmark's own {@code @Param} values; {@code null}:
   * not in that run).
   */
  public record Entry(Part part, String benchmark, String quick, String full, Timing quickTiming,
      Timing fullTiming) {
    public Entry {
      Objects.requireNonNull(part);
      Objects.requireNonNull(benchmark);
    }

    /** An entry on the run's iteration settings. */
    public Entry(Part part, String benchmark, String quick, String full) {
      this(part, benchmark, quick, full, null, null);
    }

    /**
     * This entry's iteration settings in the quick or the full run: its own when it has them
     * ({@code quickTiming}, {@code fullTiming}), else {@code run}'s.
     */
    public Timing timing(boolean quickRun, Timing run) {
      Timing own = quickRun ? quickTiming : fullTiming;
      return own != null ? own : run;
    }

    /** The JMH include regex of this entry. */
    public String include() {
      return "^org\\.lprff\\.bench\\." + benchmark + "$";
    }

    /** This entry's parameters in the quick or the full run, or empty when it is not in it. */
    public Optional<Map<String, String[]>> params(boolean quickRun) {
      String spec = quickRun ? quick : full;
      return spec == null ? Optional.empty() : Optional.of(parseParams(spec));
    }
  }

  /** JMH's iteration settings of a run or of an entry. */
  public record Timing(int forks, int warmups, long warmupMillis, int iterations, long iterationMillis) {

    /** A forked JVM's start and the benchmark's set-up, roughly: for estimates only. */
    static final long FORK_START_MILLIS = 1000;

    /** These settings with {@code n} forks. */
    public Timing withForks(int n) {
      return new Timing(n, warmups, warmupMillis, iterations, iterationMillis);
    }

    /**
     * The seconds {@code configurations} benchmark configurations take, estimated from the
     * counts: per fork the warm-up, the measurement and {@link #FORK_START_MILLIS} (none for
     * forks = 0, one run in this JVM).
     */
    public double seconds(int configurations) {
      long perFork = warmups * warmupMillis + iterations * iterationMillis
          + (forks > 0 ? FORK_START_MILLIS : 0);
      return (double) configurations * Math.max(1, forks) * perFork / 1e3;
    }
  }

  /**
   * Short iterations for the kernels and ceilings of the quick run. The warm-up is what C2
   * needs to compile the Vector API bodies (interpreted, they run ~1000x slower).
   */
  public static final Timing QUICK = new Timing(1, 4, 500, 3, 300);

  /** The full run's kernels and ceilings. */
  public static final Timing FULL = new Timing(1, 2, 1000, 5, 1000);

  /**
   * The featurizer and the packed products in the quick run: 3 forks (a JVM whose JIT took
   * another path shows as a spread between forks), and 5 x 1 s of warm-up, so that a kernel C2
   * compiles late is compiled before the measurement and the quick ratios match the full run's.
   * With them the quick run takes about 17 minutes on 2 cores (34 of these configurations x 3
   * forks x 8.5 s, 37 others x 3.9 s; {@code --list} prints the estimate).
   */
  public static final Timing QUICK_FORKED = new Timing(3, 5, 1000, 5, 500);

  /**
   * The featurizer and the packed products in the full run: its iterations over 3 forks. The
   * full run takes about 40 minutes on 2 cores (72 of these configurations x 3 forks x 8 s, 81
   * others x 8 s).
   */
  public static final Timing FULL_FORKED = FULL.withForks(3);

  /**
   * The featurizer shapes compared with scikit-learn in the quick and the full run: the same
   * calls. At m = 2048 and 250 rows a call (1-10 ms) the common pool's runs swung between forks
   * by 31-81% on 2 cores, and the quick run's 4-bit / float32 read 1.19-1.58 where the full run's
   * read 1.01-1.07 (AMD EPYC, AVX2, one afternoon); with the full run's calls, and the quick
   * run's 5 x 1 s of warm-up, C2 still sees 50-500 calls before measuring.
   */
  static final int QUICK_FEATURES = 8192;

  static final int FULL_FEATURES = 8192;
  /** Rows per featurizer call. */
  static final int QUICK_ROWS = 1000;

  static final int FULL_ROWS = 1000;

  /**
   * The suite, in running order. Bit sweeps include b = 32 (float32) wherever the benchmark has
   * it: that point is the reference the packed widths are compared with.
   */
  public static final List<Entry> ENTRIES = List.of(
      // The ceilings of the roofline: FMA peak (all threads, one thread), streaming read
      // bandwidth (2 GiB: above any last-level cache), the read bandwidth of a buffer in each
      // cache level (one thread and all, each its own buffer), and the diamonds-shaped full
      // training pass.
      new Entry(Part.LIMITS, "MachineLimitsBenchmark\\.(fmaPeak|fmaPeakOneThread)", "", ""),
      new Entry(Part.LIMITS, "MachineLimitsBenchmark\\.readBandwidth",
          "bytes=2147483648", "bytes=88375296,2147483648"),
      new Entry(Part.LIMITS, "CacheBandwidthBenchmark\\.(readOneThread|readAllThreads)", "", ""),
      new Entry(Part.LIMITS, "MachineLimitsBenchmark\\.onePass", "", ""),
      // Kernels, one thread, vector bodies (the scalar reference in the full run).
      new Entry(Part.KERNELS, "CosineBenchmark\\.vectorPolynomial", "n=8192", "n=1024,8192,65536"),
      new Entry(Part.KERNELS, "CosineBenchmark\\.scalar", null, "n=8192"),
      // The featurizer's last step per output kind (float32, separate rounding, fused), one
      // row's block of 512 features: the price of b bits against float32, and of the draws.
      new Entry(Part.KERNELS,
          "CosineCodesBenchmark\\.(float32|separate|fusedStochastic|fusedHalfWordDraws"
              + "|fusedNearest)", "bits=4",
          "bits=1,4,8"),
      new Entry(Part.KERNELS, "CosineCodesBenchmark\\.fusedScalar", null, "bits=4"),
      // The same step per quantizer, stochastic rounding the reference (full run only).
      new Entry(Part.KERNELS, "CosineQuantizersBenchmark\\.vector", null,
          "bits=4 quantizer=stochastic,shared-threshold,lloyd-max,sigma-delta:1:8"),
      // n = 128 and 1024: the structured featurizer's transforms at d = 90 and 784 (p = n).
      new Entry(Part.KERNELS, "FwhtBenchmark\\.vector", "n=128,1024,8192",
          "n=128,1024,8192,65536"),
      new Entry(Part.KERNELS, "FwhtBenchmark\\.scalar", null, "n=8192"),
      new Entry(Part.KERNELS, "DenseProjectionBenchmark\\.vector", "d=784", "d=9,90,784"),
      new Entry(Part.KERNELS, "GramBenchmark\\.vector", "m=1024", "m=512,1024"),
      // The Gram of b <= 8-bit codes (float sums, exact) at the diamonds demo's m, one thread
      // and all threads: the closed form's bulk, against the roofline's peak.
      new Entry(Part.KERNELS, "GramBenchmark\\.(codes|codesParallel)", "m=4096", "m=1024,4096"),
      // The closed form's factorization, one thread and all threads (EJML's beside it in the
      // full run).
      new Entry(Part.KERNELS, "CholeskyBenchmark\\.(lprff|lprffSingle)", "m=2048", "m=2048,4096"),
      new Entry(Part.KERNELS, "CholeskyBenchmark\\.(ejml|ejmlParallel)", null, "m=2048"),
      new Entry(Part.KERNELS, "QuantizeBenchmark\\.(stochastic|nearest)Vector",
          "bits=1,4,8,16", "bits=1,2,4,8,16"),
      new Entry(Part.KERNELS, "QuantizeBenchmark\\.stochasticScalar", null, "bits=4"),
      // The packed products over 3 forks, as the featurizer (QUICK_FORKED, FULL_FORKED).
      new Entry(Part.KERNELS, "PackedProductsBenchmark\\.(forward|accumulate)Vector",
          "bits=1,4,8,32 classes=1,10", "bits=1,2,4,8,16,32 classes=1,10", QUICK_FORKED,
          FULL_FORKED),
      // Codebook rows (values levels[code], Lloyd-Max) beside the affine rows of the same shapes.
      new Entry(Part.KERNELS, "PackedProductsBenchmark\\.(forward|accumulate)Vector", null,
          "decoding=codebook bits=1,4,8 classes=1,10", null, FULL_FORKED),
      new Entry(Part.KERNELS, "PackedUnpackBenchmark\\.unpackVector", null, "bits=1,2,4,8,16"),
      // The featurizer beside scikit-learn: d = 90 and 784, 4 bits and float32, one thread and
      // the common pool, per projection (dense and fastfood in the quick run); then a bit sweep.
      // 3 forks each, with the quick run's longer warm-up (QUICK_FORKED, FULL_FORKED).
      new Entry(Part.FEATURIZER, "FeaturizerBenchmark\\.(fused|fusedCommonPool)",
          "d=90,784 m=" + QUICK_FEATURES + " bits=4,32 projection=dense,fastfood rows=" + QUICK_ROWS,
          "d=90,784 m=" + FULL_FEATURES + " bits=4,32 projection=dense,circulant,fastfood,orthogonal"
              + " rows=" + FULL_ROWS, QUICK_FORKED, FULL_FORKED),
      new Entry(Part.FEATURIZER, "FeaturizerBenchmark\\.fused",
          "d=90 m=" + QUICK_FEATURES + " bits=1,8 projection=fastfood rows=" + QUICK_ROWS,
          "d=90 m=" + FULL_FEATURES + " bits=1,2,8,16 projection=fastfood rows=" + FULL_ROWS,
          QUICK_FORKED, FULL_FORKED),
      // Training: one SGD epoch per bit width, float32 (b = 32) the reference.
      new Entry(Part.TRAINING, "TrainingBenchmark\\.sgdEpoch",
          "bits=1,4,8,32 classes=1", "bits=1,2,4,8,16,32 classes=1,10"));

  /** Rows of one TrainingBenchmark epoch (its private ROWS). */
  static final int TRAINING_ROWS = 2500;

  /** Rows and features of MachineLimitsBenchmark.onePass (the diamonds demo, 4-bit). */
  static final long PASS_ROWS = 43_152;

  static final int PASS_FEATURES = 4096;

  /**
   * Floating-point operations of one cosine feature as the polynomial body ({@code
   * simd.panama.VectorCosine}) computes it: the phase add (1), the Cody-Waite reduction (one FMA and a subtract for k,
   * three FMAs: 8), r^2 (1), both polynomials evaluated and blended (cos: 4 FMAs, 8; sin: 3 FMAs,
   * a multiply and an FMA, 9) and the scale (1).
   */
  static final int COSINE_FLOPS = 27;

  /**
   * The buffers of CacheBandwidthBenchmark and the cache level each stays in: a buffer of
   * another size is named by its size.
   */
  static final Map<Long, String> CACHE_LEVELS = Map.of(16384L, "L1", 262144L, "L2", 4194304L, "L3");

  /** Features of one CosineCodesBenchmark op (its private M: one row's block). */
  static final int COSINE_CODES_FEATURES = 512;

  /** Features of one QuantizeBenchmark op (its FEATURES: one row). */
  static final int QUANTIZE_FEATURES = 4096;

  /**
   * Floating-point operations, compulsory memory traffic and working set of one benchmark
   * operation.
   *
   * @param flops operations: a float (or double) add, multiply or compare one, an FMA two; the
   *     featurizer's integer lane operations (draws, codes) count one each
   * @param bytes compulsory traffic: each input read once, each output written once
   * @param footprint the bytes the operation touches: JMH repeats it, so they stay in the
   *     smallest cache level that holds them, and that level's bandwidth is the kernel's ceiling
   * @param doubles whether the flops are double precision: half the lanes of a float FMA, so
   *     half the (float) FMA peak
   */
  public record Work(double flops, double bytes, double footprint, boolean doubles) {
    /** Float work whose working set is its compulsory traffic. */
    public Work(double flops, double bytes) {
      this(flops, bytes, bytes, false);
    }

    /** Float work. */
    public Work(double flops, double bytes, double footprint) {
      this(flops, bytes, footprint, false);
    }

    public double intensity() {
      return flops / bytes;
    }
  }

  /**
   * The work of one operation of {@code benchmark} ({@code Class.method}) with these parameters,
   * or empty for benchmarks the roofline does not place (integer kernels, scalar references,
   * whole training epochs). Bytes are the compulsory traffic: each input read once, each output
   * written once; the footprint places the kernel at the cache level (or memory) whose
   * bandwidth is its ceiling.
   */
  public static Optional<Work> work(String benchmark, Map<String, String> p) {
    return Optional.ofNullable(switch (benchmark) {
      // n elements: t + a, cosine, scale (COSINE_FLOPS); read t and a, write out.
      case "CosineBenchmark.vectorPolynomial" ->
          new Work((double) COSINE_FLOPS * i(p, "n"), 12.0 * i(p, "n"));
      // log2(n) butterfly stages of n adds or subtracts, then n scaling multiplies; in place:
      // n floats read and written, n floats touched.
      case "FwhtBenchmark.vector" -> {
        double n = i(p, "n");
        yield new Work(n * (Math.log(n) / Math.log(2) + 1), 8 * n, 4 * n);
      }
      // 256 rows (Gram.FLOAT_ROWS) x m(m+1)/2 float FMAs; read both packings of the chunk, read
      // and write the upper triangle (double); touched: the chunk and the triangle once.
      case "GramBenchmark.codes", "GramBenchmark.codesParallel" -> {
        double m = i(p, "m");
        double k = 256;
        yield new Work(k * m * (m + 1), 8 * k * m + 8 * m * (m + 1), 8 * k * m + 4 * m * (m + 1));
      }
      // Cholesky: m^3 / 3 double flops; read and write the lower triangle (the op's copy of the
      // matrix left out); touched: the m x m doubles.
      case "CholeskyBenchmark.lprff", "CholeskyBenchmark.lprffSingle",
          "CholeskyBenchmark.ejml", "CholeskyBenchmark.ejmlParallel" -> {
        double m = i(p, "m");
        yield new Work(m * m * m / 3, 8 * m * m, 8 * m * m, true);
      }
      // rows x m outputs of d multiply-adds; read W (m x d), x (rows x d), write rows x m;
      // touched: W, x and one block of outputs (rows x block, overwritten block after block).
      case "DenseProjectionBenchmark.vector" -> {
        double d = i(p, "d");
        double m = i(p, "m");
        double rows = i(p, "rows");
        yield new Work(2 * rows * m * d, 4 * (m * d + rows * d + rows * m),
            4 * (m * d + rows * d + rows * i(p, "block")));
      }
      // 512 rows (ClosedFormRidge.CHUNK_ROWS) x m(m+1)/2 double FMAs; read the chunk, read and
      // write the upper triangle; touched: the chunk and the triangle once.
      case "GramBenchmark.vector" -> {
        double m = i(p, "m");
        double k = 512;
        yield new Work(k * m * (m + 1), 8 * (k * m + m * (m + 1)), 8 * k * m + 4 * m * (m + 1),
            true);
      }
      // rows x m x classes multiply-adds (dequantizing is folded into them; codebook rows look
      // their levels up instead, the same FMAs); read the packed rows once, W (classes x m
      // floats) and write rows x classes outputs (a codebook's 2^b floats are left out).
      case "PackedProductsBenchmark.forwardVector" -> {
        double rows = i(p, "rows");
        double m = i(p, "m");
        double c = i(p, "classes");
        yield new Work(2 * rows * m * c,
            rows * PackedLayout.rowBytes((int) m, i(p, "bits")) + 4 * (c * m + rows * c));
      }
      // G += Z^T D: rows x m x classes multiply-adds; read Z and D, read and write G; touched:
      // Z, D and G once.
      case "PackedProductsBenchmark.accumulateVector" -> {
        double rows = i(p, "rows");
        double m = i(p, "m");
        double c = i(p, "classes");
        double z = rows * PackedLayout.rowBytes((int) m, i(p, "bits"));
        yield new Work(2 * rows * m * c, z + 4 * (rows * c + 2 * c * m),
            z + 4 * (rows * c + c * m));
      }
      // Every projection, by the operations its stages perform (FeaturizerStages).
      case "FeaturizerBenchmark.fused", "FeaturizerBenchmark.fusedCommonPool" ->
          FeaturizerStages.work(p.get("projection"), i(p, "d"), i(p, "m"), i(p, "bits"),
              i(p, "rows"));
      // One objective pass per op (the secondary result is time per pass): a forward and a
      // transposed multiply-add per (row, feature); the packed file is read once per pass (the
      // pass fuses both products per chunk of 256 rows), b-bit codes or float32 (bits = 32).
      case "MachineLimitsBenchmark.onePass" -> new Work(
          4.0 * PASS_ROWS * PASS_FEATURES,
          (double) PASS_ROWS * PackedLayout.rowBytes(PASS_FEATURES,
              p.containsKey("bits") ? i(p, "bits") : 4));
      default -> null;
    });
  }

  /** Parses {@code "a=1,2 b=x"} into {a: [1, 2], b: [x]}, naming a malformed part. */
  public static Map<String, String[]> parseParams(String spec) {
    Map<String, String[]> params = new LinkedHashMap<>();
    for (String part : spec.trim().split("\\s+")) {
      if (part.isEmpty()) {
        continue;
      }
      int eq = part.indexOf('=');
      if (eq <= 0 || eq == part.length() - 1) {
        throw new IllegalArgumentException(
            "parameter '" + part + "' in '" + spec + "' is not name=value[,value...]");
      }
      String[] values = part.substring(eq + 1).split(",");
      if (Arrays.stream(values).anyMatch(String::isEmpty)) {
        throw new IllegalArgumentException("parameter '" + part + "' has an empty value");
      }
      params.put(part.substring(0, eq), values);
    }
    return params;
  }

  private static int i(Map<String, String> p, String name) {
    String v = p.get(name);
    if (v == null) {
      throw new IllegalArgumentException("parameter " + name + " missing from " + p);
    }
    return Integer.parseInt(v);
  }
}
