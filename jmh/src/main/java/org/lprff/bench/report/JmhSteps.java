package org.lprff.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The suite resolved against this jar's benchmark list, and run through JMH's Java API one entry
 * at a time, with one progress line per benchmark on stderr and JMH's own output in a log.
 */
final class JmhSteps {

  /**
   * One suite entry as it will run: its benchmarks (full JMH names, after {@code --only}), the
   * parameters, and how many (benchmark, parameters) combinations that makes.
   */
  record Step(Suite.Entry entry, List<String> benchmarks, Map<String, String[]> params,
      int count, List<Map<String, String>> combinations) {}

  private JmhSteps() {}

  /** The steps of a quick or full run, only the benchmarks whose {@code Class.method} matches. */
  static List<Step> plan(List<Suite.Entry> entries, boolean quick, Pattern only) {
    BenchmarkList list = BenchmarkList.defaultList();
    OutputFormat silent = OutputFormatFactory.createFormatInstance(
        new PrintStream(PrintStream.nullOutputStream()), VerboseMode.SILENT);
    List<Step> steps = new ArrayList<>();
    for (Suite.Entry entry : entries) {
      var params = entry.params(quick);
      if (params.isEmpty()) {
        continue;
      }
      Map<String, String[]> overrides = params.get();
      SortedSet<BenchmarkListEntry> found = list.find(silent, List.of(entry.include()), List.of());
      if (found.isEmpty()) {
        throw new IllegalStateException("the suite names " + entry.benchmark()
            + ", which matches no benchmark of this jar");
      }
      List<String> names = new ArrayList<>();
      List<Map<String, String>> combinations = new ArrayList<>();
      Set<String> seen = new LinkedHashSet<>();
      for (BenchmarkListEntry b : found) {
        String name = b.getUsername();
        if (only != null && !only.matcher(Measurement.shortName(name)).find()) {
          continue;
        }
        if (seen.add(name)) {
          names.add(name);
          Map<String, String[]> declared = b.getParams().orElse(Map.of());
          Map<String, String[]> effective = new LinkedHashMap<>();
          declared.forEach((k, v) -> effective.put(k, overrides.getOrDefault(k, v)));
          expand(Measurement.shortName(name), effective, combinations);
        }
      }
      if (!names.isEmpty()) {
        steps.add(new Step(entry, names, overrides, combinations.size(), combinations));
      }
    }
    return steps;
  }

  /** Appends every combination of {@code params} for one benchmark (key "#" holds its name). */
  private static void expand(String benchmark, Map<String, String[]> params,
      List<Map<String, String>> out) {
    List<Map<String, String>> partial = new ArrayList<>();
    Map<String, String> start = new LinkedHashMap<>();
    start.put("#", benchmark);
    partial.add(start);
    params.forEach((k, values) -> {
      List<Map<String, String>> next = new ArrayList<>();
      for (Map<String, String> p : partial) {
        for (String v : values) {
          Map<String, String> q = new LinkedHashMap<>(p);
          q.put(k, v);
          next.add(q);
        }
      }
      partial.clear();
      partial.addAll(next);
    });
    out.addAll(partial);
  }

  /**
   * The iteration settings of a step: {@code override} (tests) when not null, else the entry's
   * own for this run (the featurizer's and the packed products' 3 forks), else the run's; a
   * {@code forks} given (--forks) replaces the fork count of every step.
   */
  static Suite.Timing timing(Step step, boolean quick, Suite.Timing override, Integer forks) {
    Suite.Timing t = override != null ? override
        : step.entry().timing(quick, quick ? Suite.QUICK : Suite.FULL);
    return forks == null ? t : t.withForks(forks);
  }

  /** JMH's options of one step with these iteration settings. */
  static Options options(Step step, Suite.Timing timing, List<String> jvmArgsAppend) {
    ChainedOptionsBuilder options = new OptionsBuilder()
        .forks(timing.forks())
        .warmupIterations(timing.warmups())
        .warmupTime(TimeValue.milliseconds(timing.warmupMillis()))
        .measurementIterations(timing.iterations())
        .measurementTime(TimeValue.milliseconds(timing.iterationMillis()))
        .shouldFailOnError(false)
        .verbosity(VerboseMode.NORMAL);
    for (String name : step.benchmarks()) {
      options.include("^" + Pattern.quote(name) + "$");
    }
    step.params().forEach(options::param);
    if (!jvmArgsAppend.isEmpty()) {
      options.jvmArgsAppend(jvmArgsAppend.toArray(String[]::new));
    }
    return options.build();
  }

  /** Runs one step; results of failed benchmarks are missing and their labels go to failures. */
  static Collection<RunResult> run(Step step, Suite.Timing timing, List<String> jvmArgsAppend,
      Progress progress) throws RunnerException {
    return new Runner(options(step, timing, jvmArgsAppend), progress).run();
  }

  /**
   * JMH's output format: everything JMH prints goes to the log (JMH's usual text), and each
   * benchmark's start and result make one line on {@code err}: {@code [n/N mm:ss] name params ->
   * score}.
   */
  static final class Progress implements OutputFormat {
    private final OutputFormat log;
    private final PrintWriter err;
    private final long startNanos;
    private final int total;
    private final List<String> failures = new ArrayList<>();
    private int done;
    private String current;

    Progress(PrintStream log, PrintWriter err, long startNanos, int total) {
      this.log = OutputFormatFactory.createFormatInstance(log, VerboseMode.NORMAL);
      this.err = err;
      this.startNanos = startNanos;
      this.total = total;
    }

    List<String> failures() {
      return failures;
    }

    int done() {
      return done;
    }

    @Override
    public void startBenchmark(BenchmarkParams params) {
      log.startBenchmark(params);
      done++;
      StringBuilder label = new StringBuilder(Measurement.shortName(params.getBenchmark()));
      for (String key : params.getParamsKeys()) {
        label.append(' ').append(key).append('=').append(params.getParam(key));
      }
      current = label.toString();
      err.printf("[%d/%d %s] %s", done, total, clock(), current);
      err.flush();
    }

    @Override
    public void endBenchmark(BenchmarkResult result) {
      log.endBenchmark(result);
      if (result == null || result.getPrimaryResult() == null) {
        failures.add(current);
        err.println(" -> FAILED (see jmh.log)");
      } else {
        err.printf(" -> %s %s%n", Report.num(result.getPrimaryResult().getScore()),
            result.getPrimaryResult().getScoreUnit());
      }
      current = null;
    }

    /** Called after a step: a benchmark that started but never ended failed. */
    void closeStep() {
      if (current != null) {
        failures.add(current);
        err.println(" -> FAILED (see jmh.log)");
        current = null;
      }
    }

    String clock() {
      long s = Duration.ofNanos(System.nanoTime() - startNanos).toSeconds();
      return String.format("%d:%02d", s / 60, s % 60);
    }

    @Override
    public void iteration(BenchmarkParams b, IterationParams i, int n) {
      log.iteration(b, i, n);
    }

    @Override
    public void iterationResult(BenchmarkParams b, IterationParams i, int n, IterationResult r) {
      log.iterationResult(b, i, n, r);
    }

    @Override
    public void startRun() {
      log.startRun();
    }

    @Override
    public void endRun(Collection<RunResult> results) {
      log.endRun(results);
    }

    @Override
    public void print(String s) {
      log.print(s);
    }

    @Override
    public void println(String s) {
      log.println(s);
    }

    @Override
    public void flush() {
      log.flush();
    }

    @Override
    public void close() {
      log.flush();
    }

    @Override
    public void verbosePrintln(String s) {
      log.verbosePrintln(s);
    }

    @Override
    public void write(int b) {
      log.write(b);
    }

    @Override
    public void write(byte[] b) throws IOException {
      log.write(b);
    }
  }
}
