package org.lprff.bench.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lprff bench}: runs the suite ({@link Suite}) through JMH, times scikit-learn right
 * before and after the featurizer benchmarks, and writes report.md, results.json and the plots.
 */
@Command(
    name = "lprff bench",
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
        "Measures the precision trade-off: runs the JMH suite (or the benchmarks --only selects)"
            + " and writes into DIR: report.md (machine, tables, plots), results.json (every"
            + " result, the scikit-learn timings, the derived figures) and four PNG plots:"
            + " throughput vs bits per kernel, the featurizer beside scikit-learn, the"
            + " memory-vs-speed frontier of training epochs per bit width, and a roofline on"
            + " this machine's measured FMA peak and the read bandwidth of memory and of each"
            + " cache level, each kernel under the ceiling that binds it.",
        "",
        "The quick run takes about 17 minutes on 2 cores, the full run about 40 (the"
            + " featurizer and the packed products run 3 forks each; --list prints the estimate,"
            + " the report states the duration). Progress goes to standard error, JMH's own"
            + " output to DIR/jmh.log.",
        "",
        "scikit-learn's RBFSampler is timed with python3 or $LPRFF_PYTHON (--python) when it"
            + " can import numpy and scikit-learn; the report says so when it cannot. Its"
            + " process runs without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (numpy's OpenBLAS"
            + " picks this CPU's kernel; the report names it).",
        "",
        "--time-to-model adds a table and a plot of the seconds to a model, lprff's defaults"
            + " beside scikit-learn, after the suite.",
        ""},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:every benchmark ran and the report is written",
        "1:the report is written but some benchmarks failed (see DIR/jmh.log), or a failure",
        "2:a usage error (an unknown option or a bad value)"})
public final class BenchCommand implements Callable<Integer> {

  /** numpy's sgemm shape: n x n float32, large enough for OpenBLAS's peak on all threads. */
  static final int SGEMM_N = 2048;

  @Spec CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  boolean help;

  @Option(names = "--quick", description = "The quick suite: fewer shapes, short iterations.")
  boolean quick;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Output folder (created; files in it are replaced). Default:"
          + " bench-results/<yyyyMMdd-HHmmss> under the current directory.")
  Path out;

  @Option(names = "--only", paramLabel = "REGEX",
      description = "Only the suite's benchmarks whose Class.method contains a match of REGEX,"
          + " e.g. 'Featurizer|MachineLimits'.")
  String only;

  @Option(names = "--threads", paramLabel = "N",
      description = "Threads of the parallel benchmarks (fusedCommonPool, readAllThreads,"
          + " MachineLimitsBenchmark: the caller and N - 1 common-pool workers) and of"
          + " scikit-learn's all-threads reference. Default: the available processors"
          + " (${DEFAULT-VALUE}).")
  int threads = Runtime.getRuntime().availableProcessors();

  @Option(names = "--forks", paramLabel = "N",
      description = "JMH forks per benchmark; 0 runs in this JVM (only to debug: the JIT"
          + " profiles of the benchmarks then mix). Default: 3 for the featurizer and the packed"
          + " products, 1 for the others.")
  Integer forks;

  @Option(names = "--python", paramLabel = "PATH",
      description = "The Python that times scikit-learn. Default: $LPRFF_PYTHON, else python3.")
  String python = SklearnReference.defaultPython();

  @Option(names = "--time-to-model",
      description = "Also measure the time to a model after the suite: `lprff featurize` +"
          + " `lprff train` with the defaults beside scikit-learn's single fit and its own l2"
          + " search, on diamonds and digits (a few minutes; needs --python with scikit-learn)."
          + " --only and --list see the data sets as TimeToModel.<name>: '--time-to-model"
          + " --only TimeToModel' runs the table alone.")
  boolean timeToModel;

  @Option(names = "--fashion-mnist", paramLabel = "DIR",
      description = "Add Fashion-MNIST (60,000 rows, m = 8192) to --time-to-model, which it"
          + " implies: DIR holds its four IDX .gz files. Takes an hour or more on 2 cores.")
  Path fashionMnist;

  @Option(names = "--list", description = "Print the benchmarks the run would make and exit.")
  boolean list;

  private final List<Suite.Entry> entries;
  private final Suite.Timing timingOverride;
  private String[] args = new String[0];

  /** The command on the suite of {@link Suite#ENTRIES}. */
  public BenchCommand() {
    this(Suite.ENTRIES, null);
  }

  /** The command on another suite and, if not null, other iteration settings (for tests). */
  BenchCommand(List<Suite.Entry> entries, Suite.Timing timing) {
    this.entries = List.copyOf(entries);
    this.timingOverride = timing;
  }

  /** Runs {@code lprff bench} with these arguments and exits with its code. */
  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    int code = run(new BenchCommand(), out, err, args);
    System.exit(code);
  }

  /** Runs the command with these streams and returns its exit code; never exits the JVM. */
  static int run(BenchCommand command, PrintWriter out, PrintWriter err, String... args) {
    command.args = args.clone();
    CommandLine cl = new CommandLine(command);
    cl.setOut(out);
    cl.setErr(err);
    cl.setParameterExceptionHandler((e, arguments) -> {
      e.getCommandLine().getErr().println("lprff bench: " + e.getMessage());
      e.getCommandLine().getErr().println("Try 'lprff bench --help'.");
      return 2;
    });
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("lprff bench: " + e.getMessage());
      return 1;
    });
    int code = cl.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  @Override
  public Integer call() throws IOException, RunnerException {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    Pattern onlyPattern = null;
    if (only != null) {
      try {
        onlyPattern = Pattern.compile(only);
      } catch (PatternSyntaxException e) {
        throw new ParameterException(spec.commandLine(), "--only '" + only
            + "' is not a regular expression: " + e.getDescription());
      }
    }
    int cores = Runtime.getRuntime().availableProcessors();
    // The common pool keeps one worker even at parallelism 0, so the pool's benchmarks cannot
    // run on one thread; the one-thread figures are the kernels' and `fused`.
    if (threads < 2 && threads != cores) {
      throw new ParameterException(spec.commandLine(), "--threads must be at least 2, not "
          + threads + " (the one-thread figures are measured in every run)");
    }
    Suite.Timing base = timingOverride != null ? timingOverride : quick ? Suite.QUICK : Suite.FULL;
    if (forks != null && forks < 0) {
      throw new ParameterException(spec.commandLine(), "--forks must be 0 or more, not " + forks);
    }
    Suite.Timing timing = forks == null ? base : base.withForks(forks);
    if (timing.forks() == 0 && threads != cores) {
      throw new ParameterException(spec.commandLine(), "--threads " + threads
          + " needs forked JVMs (the common pool of this JVM is already sized for " + cores
          + " threads): drop --forks 0");
    }
    List<JmhSteps.Step> steps = JmhSteps.plan(entries, quick, onlyPattern);
    double estimate = 0;
    for (JmhSteps.Step step : steps) {
      estimate += JmhSteps.timing(step, quick, timingOverride, forks).seconds(step.count());
    }
    List<TimeToModel.DataSet> models = timeToModelSets(onlyPattern);
    if (steps.isEmpty() && models.isEmpty()) {
      boolean wantsTable = onlyPattern != null && !timeToModel
          && !TimeToModelRun.selected(TimeToModelRun.dataSets(true), onlyPattern).isEmpty();
      throw new ParameterException(spec.commandLine(), "--only '" + only
          + "' matches no benchmark of the " + (quick ? "quick" : "full") + " suite"
          + (wantsTable ? " (the TimeToModel data sets run with --time-to-model)" : ""));
    }
    int total = steps.stream().mapToInt(JmhSteps.Step::count).sum();
    if (list) {
      for (JmhSteps.Step step : steps) {
        for (Map<String, String> c : step.combinations()) {
          StringBuilder line = new StringBuilder(c.get("#"));
          c.forEach((k, v) -> {
            if (!k.equals("#")) {
              line.append(' ').append(k).append('=').append(v);
            }
          });
          stdout.println(line);
        }
      }
      for (TimeToModel.DataSet d : models) {
        stdout.printf("%s task=%s sigma=%s m=%d bits=%d%n", d.id(),
            d.classification() ? "classification" : "regression",
            TimeToModelRun.fmt(d.sigma()), d.m(), d.bits());
      }
      stdout.println(total + " benchmarks" + (models.isEmpty() ? ""
          : ", then the time to a model on " + models.size() + " data sets")
          + (total == 0 ? "" : "; JMH about " + minutes(estimate)
              + " (forks x (warm-up + measurement + 1 s) per benchmark)"));
      return 0;
    }

    Path root = models.isEmpty() ? null : repositoryRoot();
    ZonedDateTime started = Report.now();
    long startNanos = System.nanoTime();
    Path dir = out != null ? out
        : Path.of("bench-results", started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    MachineInfo machine = MachineInfo.detect(threads);
    err.printf("lprff bench: %s run of %d benchmarks (JMH about %s)%s on %s (%s, %d lanes),"
            + " %d threads -> %s%n",
        quick ? "quick" : "full", total, minutes(estimate), models.isEmpty() ? ""
            : " and the time to a model on " + models.size() + " data sets",
        machine.cpuModel(), machine.floatSpecies(), machine.floatLanes(), threads, dir);
    List<String> jvmArgs = new ArrayList<>();
    if (threads != cores) {
      jvmArgs.add("-Djava.util.concurrent.ForkJoinPool.common.parallelism=" + (threads - 1));
    }
    List<Measurement> measurements = new ArrayList<>();
    SklearnReference reference = new SklearnReference(python);
    SklearnReference.Result before = null;
    SklearnReference.Result after = null;
    List<int[]> shapes = featurizerShapes(steps);
    List<Integer> sklearnThreads = threads == 1 ? List.of(1) : List.of(1, threads);
    long sklearnNanos = 0;
    List<String> failures = new ArrayList<>();
    // The settings of the steps that run on other settings than the run's (their own).
    Suite.Timing forked = null;
    // numpy's sgemm: the other measurement of the roofline's peak, with the FMA peak's runs.
    SklearnReference.Sgemm sgemm = SklearnReference.Sgemm.unavailable("fmaPeak not in this run");
    if (steps.stream().anyMatch(s -> s.entry().benchmark().contains("fmaPeak"))) {
      long t0 = System.nanoTime();
      err.printf("numpy sgemm (n = %d, all threads), %s%n", SGEMM_N, python);
      sgemm = reference.sgemm(SGEMM_N);
      sklearnNanos += System.nanoTime() - t0;
      err.println(sgemm.available()
          ? String.format(Locale.ROOT, "  %.1f GFLOP/s on %d threads (%s)",
              sgemm.flopsPerSecond() / 1e9, sgemm.threads(), sgemm.kernel())
          : "  not measured: " + sgemm.message());
    }
    TimeToModel.Table table = null;
    try (OutputStream logFile = Files.newOutputStream(dir.resolve("jmh.log"));
        PrintStream log = new PrintStream(logFile, true, StandardCharsets.UTF_8)) {
      JmhSteps.Progress progress = new JmhSteps.Progress(log, err, startNanos, total);
      for (int k = 0; k < steps.size(); k++) {
        JmhSteps.Step step = steps.get(k);
        boolean featurizer = step.entry().part() == Suite.Part.FEATURIZER;
        if (featurizer && before == null) {
          long t0 = System.nanoTime();
          err.printf("[%s] scikit-learn RBFSampler (before the featurizer), %s%n",
              progress.clock(), python);
          before = reference.time(shapes, sklearnThreads, "before", 7);
          sklearnNanos += System.nanoTime() - t0;
          if (!before.available()) {
            err.println("  not measured: " + before.message());
          }
        }
        Suite.Timing stepTiming = JmhSteps.timing(step, quick, timingOverride, forks);
        if (!stepTiming.equals(timing)) {
          forked = stepTiming;
        }
        for (RunResult r : JmhSteps.run(step, stepTiming, jvmArgs, progress)) {
          measurements.add(Measurement.of(r));
        }
        progress.closeStep();
        boolean lastFeaturizer = featurizer && (k + 1 == steps.size()
            || steps.get(k + 1).entry().part() != Suite.Part.FEATURIZER);
        if (lastFeaturizer && before.available()) {
          long t0 = System.nanoTime();
          err.printf("[%s] scikit-learn RBFSampler (after the featurizer)%n", progress.clock());
          after = reference.time(shapes, sklearnThreads, "after", 7);
          sklearnNanos += System.nanoTime() - t0;
        }
      }
      failures.addAll(progress.failures());
      if (!models.isEmpty()) {
        // After the suite, so that its processes never share the cores with a benchmark.
        table = new TimeToModelRun(root, python, fashionMnist, err, progress::clock).run(models);
      }
    }
    SklearnReference.Result sklearn = before == null
        ? SklearnReference.Result.notRun()
        : after == null ? before : SklearnReference.combine(before, after);
    Duration duration = Duration.ofNanos(System.nanoTime() - startNanos);
    long tableNanos = table == null ? 0 : Math.round(table.seconds() * 1e9);
    Report.RunInfo run = new Report.RunInfo(
        "lprff bench " + String.join(" ", args), quick, timing, forked, started, duration,
        duration.minusNanos(sklearnNanos + tableNanos), Duration.ofNanos(sklearnNanos), failures);
    Report.write(dir, machine, run, new Figures(measurements, sklearn, sgemm, threads), table);
    err.printf("lprff bench: %d results in %s; report: %s%n", measurements.size(),
        Report.human(duration), dir.resolve(Report.REPORT_MD));
    if (!failures.isEmpty()) {
      err.printf("lprff bench: %d benchmarks failed (see %s)%n", failures.size(),
          dir.resolve("jmh.log"));
      return 1;
    }
    return 0;
  }

  /** "about 17 min" style: seconds below a minute, else whole minutes. */
  static String minutes(double seconds) {
    return seconds < 60 ? Math.round(seconds) + " s" : Math.round(seconds / 60) + " min";
  }

  /** The time-to-model data sets this run measures: none without the options, then --only's. */
  private List<TimeToModel.DataSet> timeToModelSets(Pattern onlyPattern) {
    if (!timeToModel && fashionMnist == null) {
      return List.of();
    }
    if (fashionMnist != null) {
      String missing = TimeToModelRun.missingFashionMnist(fashionMnist);
      if (missing != null) {
        throw new ParameterException(spec.commandLine(), missing);
      }
    }
    return TimeToModelRun.selected(TimeToModelRun.dataSets(fashionMnist != null), onlyPattern);
  }

  /**
   * The repository whose {@code ./lprff} the time-to-model table starts: {@code -Dlprff.root}
   * (set by {@code ./lprff bench}), else the current directory when it is one.
   */
  private Path repositoryRoot() {
    String property = System.getProperty("lprff.root");
    Path root = Path.of(property != null ? property : "").toAbsolutePath();
    if (!Files.isExecutable(root.resolve("lprff"))
        || !Files.isRegularFile(root.resolve(TimeToModelRun.DIAMONDS_CSV))) {
      throw new ParameterException(spec.commandLine(), "--time-to-model starts the repository's"
          + " ./lprff, but " + root + " is not the repository (no executable lprff or no "
          + TimeToModelRun.DIAMONDS_CSV + "): run it as ./lprff bench, or pass"
          + " -Dlprff.root=REPOSITORY to this JVM");
    }
    return root;
  }

  /** The (d, m, rows) of every featurizer benchmark the steps will run, in order. */
  static List<int[]> featurizerShapes(List<JmhSteps.Step> steps) {
    Set<List<Integer>> shapes = new LinkedHashSet<>();
    for (JmhSteps.Step step : steps) {
      if (step.entry().part() != Suite.Part.FEATURIZER) {
        continue;
      }
      for (Map<String, String> c : step.combinations()) {
        if (c.containsKey("d") && c.containsKey("m") && c.containsKey("rows")) {
          shapes.add(List.of(Integer.parseInt(c.get("d")), Integer.parseInt(c.get("m")),
              Integer.parseInt(c.get("rows"))));
        }
      }
    }
    return shapes.stream().map(s -> new int[] {s.get(0), s.get(1), s.get(2)}).toList();
  }
}
