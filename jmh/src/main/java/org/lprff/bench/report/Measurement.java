package org.lprff.bench.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * One JMH result: the benchmark ({@code Class.method}), its parameters, the primary metric and
 * the secondary ones (the {@code @AuxCounters} of MachineLimitsBenchmark).
 *
 * @param benchmark the short name, {@code Class.method}
 * @param mode JMH's mode label ({@code avgt}, {@code thrpt})
 * @param params parameter name to value, sorted by name
 * @param threads JMH threads of the benchmark (1 here: parallel benchmarks use the common pool)
 * @param forkMedians the median of each fork's measurement iterations, in fork order
 */
public record Measurement(
    String benchmark, String mode, Map<String, String> params, int threads, Metric primary,
    Map<String, Metric> secondary, List<Double> forkMedians) {

  /**
   * Forks whose medians lie further apart than this, relative to the median of all iterations,
   * are called out: one JVM's JIT took another path than another's (a kernel that C2 compiled
   * differently), a bug to find, not noise to average.
   */
  public static final double FORK_SPREAD_LIMIT = 0.10;

  public Measurement {
    params = Collections.unmodifiableMap(new TreeMap<>(params));
    secondary = Collections.unmodifiableMap(new LinkedHashMap<>(secondary));
    forkMedians = List.copyOf(forkMedians);
  }

  /** One fork, or forks not known: {@link #forkMedians} holds the primary median alone. */
  public Measurement(String benchmark, String mode, Map<String, String> params, int threads,
      Metric primary, Map<String, Metric> secondary) {
    this(benchmark, mode, params, threads, primary, secondary, List.of(primary.median()));
  }

  /**
   * (largest - smallest fork median) / the median of all iterations: 0 with one fork. Above
   * {@link #FORK_SPREAD_LIMIT} the forks disagree.
   */
  public double forkSpread() {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (double v : forkMedians) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    return forkMedians.size() < 2 ? 0 : (hi - lo) / primary.median();
  }

  /**
   * A score as JMH reports it, with the median of its measurement iterations (what the derived
   * figures use: on a shared machine one slow iteration moves the mean, not the median).
   */
  public record Metric(double score, double error, String unit, double median, long samples) {

    /** Seconds per operation from the median, for a time-per-op or an ops-per-time unit. */
    public double secondsPerOp() {
      String[] parts = unit.split("/");
      if (parts.length != 2) {
        throw new IllegalArgumentException("unit " + unit + " is not x/y");
      }
      if (parts[1].equals("op")) {
        return median * seconds(parts[0]);
      }
      if (parts[0].equals("ops")) {
        return seconds(parts[1]) / median;
      }
      throw new IllegalArgumentException("unit " + unit + " is neither time/op nor ops/time");
    }

    /** Operations per second from the median, for an ops-per-time or a time-per-op unit. */
    public double perSecond() {
      return 1 / secondsPerOp();
    }

    private static double seconds(String unit) {
      return switch (unit) {
        case "ns" -> 1e-9;
        case "us", "µs" -> 1e-6;
        case "ms" -> 1e-3;
        case "s" -> 1;
        case "min" -> 60;
        default -> throw new IllegalArgumentException("time unit " + unit + " unknown");
      };
    }

    static Metric of(Result<?> result) {
      return new Metric(
          result.getScore(), result.getScoreError(), result.getScoreUnit(),
          result.getStatistics().getPercentile(50), result.getSampleCount());
    }
  }

  /** The parameter {@code name} as an int. */
  public int intParam(String name) {
    String v = params.get(name);
    if (v == null) {
      throw new IllegalArgumentException(benchmark + " has no parameter " + name + ": " + params);
    }
    return Integer.parseInt(v);
  }

  /** The flops and bytes of one operation, when the suite defines them for this benchmark. */
  public java.util.Optional<Suite.Work> work() {
    return Suite.work(benchmark, params);
  }

  /** A label: the short name and the parameters, e.g. {@code FwhtBenchmark.vector n=8192}. */
  public String label() {
    StringBuilder s = new StringBuilder(benchmark);
    params.forEach((k, v) -> s.append(' ').append(k).append('=').append(v));
    return s.toString();
  }

  static Measurement of(RunResult run) {
    BenchmarkParams p = run.getParams();
    Map<String, String> params = new TreeMap<>();
    for (String key : p.getParamsKeys()) {
      params.put(key, p.getParam(key));
    }
    Map<String, Metric> secondary = new LinkedHashMap<>();
    run.getSecondaryResults().forEach((name, r) -> secondary.put(name, Metric.of(r)));
    List<Double> forks = new ArrayList<>();
    for (BenchmarkResult fork : run.getBenchmarkResults()) {
      forks.add(fork.getPrimaryResult().getStatistics().getPercentile(50));
    }
    Metric primary = Metric.of(run.getPrimaryResult());
    return new Measurement(
        shortName(p.getBenchmark()), p.getMode().shortLabel(), params, p.getThreads(), primary,
        secondary, forks.isEmpty() ? List.of(primary.median()) : forks);
  }

  /** {@code org.lprff.bench.X.y} to {@code X.y}. */
  static String shortName(String benchmark) {
    String prefix = "org.lprff.bench.";
    return benchmark.startsWith(prefix) ? benchmark.substring(prefix.length()) : benchmark;
  }
}
