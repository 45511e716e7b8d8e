package org.lprff.cli;

import org.lprff.arrow.input.RowTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.cli.options.JsonOption;
import org.lprff.cli.options.KernelOptions;
import org.lprff.cli.options.LandmarksOption;
import org.lprff.cli.options.RawRowsOptions;
import org.lprff.cli.options.QuantizerOption;
import org.lprff.cli.options.QuietOption;
import org.lprff.vector.train.Solver;
import org.lprff.cli.options.SpecOptions;
import org.lprff.cli.options.ThreadsOption;
import org.lprff.cli.options.TrainingOptions;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.Version;
import org.lprff.cli.workflow.HelperPool;
import org.lprff.cli.workflow.CompareData;
import org.lprff.cli.workflow.MethodRuns;
import org.lprff.cli.workflow.MethodRuns.Method;
import org.lprff.cli.workflow.MethodRuns.Result;
import org.lprff.report.Json;
import org.lprff.vector.codec.BitWidths;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.metrics.KernelMatrix;
import org.lprff.vector.metrics.TrainingMemory;
import org.lprff.vector.train.loss.Task;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code lprff compare}: LP-RFFs at several precisions and projections beside Nyström on the
 * same raw data, each method's features trained through the same solver, with the kernel
 * approximation metrics (Δ1, Δ2, ||K - K~||_F, ||K - K~||_2) on a heldout subsample and the
 * training memory of the LP-RFF paper's Table 1.
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Compare random Fourier features and Nyström on raw data",
    sortOptions = false,
    description = {
      "Compare feature methods on raw data: random Fourier features for every --projection x"
          + " --features x --bits, and Nyström with each --nystrom landmark count. Every"
          + " method's features train a linear model through the same --solver; one table row per"
          + " method: m, training memory in bits (feature generation + one mini-batch of --batch"
          + " rows + model, the LP-RFF paper's Table 1), the kernel approximation on a seeded"
          + " heldout subsample of --rows rows (K~ of the method's features at its bits), and the"
          + " heldout metric (MSE or error rate) on every heldout row featurized at full"
          + " precision with the method's map, as predict does by default.",
      "",
      "Data: --train and --heldout files (CSV, LIBSVM, IDX or Arrow, as featurize reads), or"
          + " --train alone, split like the demo: data row i (0-based) is heldout iff"
          + " mix64(seed + i) mod 5 == 0. Inputs are standardized with the training rows' mean"
          + " and standard deviation (as featurize --standardize) unless --no-standardize.",
      "",
      "Kernel approximation: K is the exact kernel matrix of the subsample S (n = --rows rows),"
          + " K~ = Z Z^T of a method's features of the same rows; Δ1 and Δ2 are the smallest"
          + " values with (1 - Δ1)(K + λI) <= K~ + λI <= (1 + Δ2)(K + λI) (Loewner order), from"
          + " the extreme"
          + " eigenvalues of (K + λI)^(-1/2) (K~ - K) (K + λI)^(-1/2). λ = n x --l2 (n the"
          + " subsample's rows): the"
          + " solvers minimize (1/2N) sum of squared errors + (l2/2)||w||^2 over N rows, i.e."
          + " kernel ridge with K + N l2 I (as ExactKernelRidge), so n l2 is the same"
          + " regularization relative to a kernel matrix of n rows."
    })
final class CompareCommand implements Callable<Integer> {

  /** Largest --rows: the subsample's n x n double matrices (n = 4096: 128 MiB each). */
  static final int MAX_ROWS = 4096;

  @Spec CommandSpec command;

  @Option(names = "--train", required = true, paramLabel = "FILE",
      description = "Training rows (or all rows, split 80/20 without --heldout).")
  Path train;

  @Mixin RawRowsOptions raw;

  @Option(names = "--standardize", negatable = true, defaultValue = "true",
      fallbackValue = "true",
      description = "Standardize inputs with the training statistics (default on).")
  boolean standardize;

  @Option(names = "--task", defaultValue = "regression", paramLabel = "TASK",
      description = "regression or classification (default ${DEFAULT-VALUE}).")
  String task;

  @Mixin KernelOptions kernel;

  @Option(names = {"--features", "-m"}, split = ",", defaultValue = "1024", paramLabel = "M",
      description = "Random features m, a comma list (default ${DEFAULT-VALUE}).")
  List<Integer> features;

  @Option(names = {"--bits", "-b"}, split = ",", defaultValue = "1,2,4,8,32", paramLabel = "B",
      description = "Bits per feature, a comma list of 1, 2, 4, 8, 16, 32 (default"
          + " ${DEFAULT-VALUE}); empty (--bits '') for Nyström alone.")
  List<String> bits;

  @Option(names = "--projection", split = ",", defaultValue = "circulant", paramLabel = "P",
      description = "Projections, a comma list of dense, circulant, fastfood, orthogonal"
          + " (default ${DEFAULT-VALUE}).")
  List<String> projections;

  @Mixin QuantizerOption quantizer;

  @Mixin LandmarksOption nystrom;

  @Option(names = "--nystrom-match",
      description = "Add, for every random-features method, Nyström with the most landmarks"
          + " whose training memory does not exceed that method's.")
  boolean nystromMatch;

  @Option(names = "--l2", defaultValue = "1e-6", paramLabel = "LAMBDA",
      description = "L2 penalty of the solvers (default ${DEFAULT-VALUE}); the Δ's use"
          + " λ = n x LAMBDA, n the kernel subsample's rows (see above).")
  double l2;

  @Option(names = "--rows", defaultValue = "2000", paramLabel = "N",
      description = "Heldout subsample for the kernel approximation, at most " + MAX_ROWS
          + " (default ${DEFAULT-VALUE}; all heldout rows if fewer).")
  int rows;

  /**
   * The closed form by default (every method's metric is then its features' exact ridge fit);
   * SGD at rate 1 whatever the task.
   */
  @Mixin TrainingOptions training = new TrainingOptions(Solver.CLOSED_FORM, 1.0);

  @Mixin ThreadsOption threads;

  @Mixin JsonOption json;

  @Mixin QuietOption quiet;

  @Override
  public Integer call() throws IOException {
    return Failures.usageErrors(command, this::compare);
  }

  private int compare() throws IOException {
    boolean classification = TrainingOptions.classification(task);
    checkOptions(classification);
    List<Method> methods = methods();
    int threadCount = threads.count();
    PrintWriter err = command.commandLine().getErr();
    PrintWriter out = command.commandLine().getOut();
    long started = System.nanoTime();

    RowTable trainRows;
    RowTable heldoutRows;
    try (BufferAllocator allocator = new RootAllocator()) {
      RowTable first =
          CompareData.read(train, raw.format, raw.labelColumn, raw.idxLabels, "--idx-labels", allocator);
      if (raw.heldout == null) {
        RowTable[] parts = first.split(training.seed);
        trainRows = parts[0];
        heldoutRows = parts[1];
      } else {
        trainRows = first;
        heldoutRows =
            CompareData.read(raw.heldout, raw.format, raw.labelColumn, raw.heldoutIdxLabels,
                "--heldout-idx-labels", allocator);
        CompareData.requireSameColumns(trainRows, train, heldoutRows, raw.heldout);
      }
    }
    if (raw.logLabel.enabled) {
      CompareData.logLabels(trainRows, "train");
      CompareData.logLabels(heldoutRows, "heldout");
    }
    Task taskKind = CompareData.task(trainRows, heldoutRows, classification);
    int classes = CompareData.classes(taskKind);
    if (standardize) {
      CompareData.standardize(trainRows, heldoutRows);
    }
    if (nystromMatch) {
      methods = withMatchedNystrom(methods, trainRows.d(), taskKind.outputs());
    }
    for (Method method : methods) {
      if (method.nystrom() && method.m() > trainRows.n()) {
        throw new IllegalArgumentException("--nystrom " + method.m() + " exceeds the "
            + trainRows.n() + " training rows (landmarks are distinct training rows)");
      }
    }
    int d = trainRows.d();
    // Every spec is built before the long work, so a bad combination fails at once.
    KernelFunction kernelFunction =
        specFor(new Method("dense", Quantizer.STOCHASTIC, 32, 1), d).kernel();
    for (Method method : methods) {
      if (!method.nystrom()) {
        specFor(method, d);
      }
    }
    int n = Math.min(rows, heldoutRows.n());
    double lambda = n * l2;
    if (!skipped.isEmpty()) {
      progress(err, "skipped (the quantizer cannot code those bits): "
          + String.join(", ", new LinkedHashSet<>(skipped)));
    }
    progress(err, String.format(Locale.ROOT, "data: %s train rows, %s heldout rows, d = %d;"
        + " kernel subsample n = %s (lambda = n x l2 = %.4g); %d methods; solver %s",
        Human.count(trainRows.n()), Human.count(heldoutRows.n()), d, Human.count(n), lambda,
        methods.size(), training.solver));

    List<Result> results = new ArrayList<>();
    try (HelperPool helpers = HelperPool.start(threadCount, "lprff-compare")) {
      MethodRuns runs = MethodRuns.prepare(kernelFunction, trainRows, heldoutRows, rows,
          training.seed, l2, taskKind, classes, helpers.executor(), line -> progress(err, line));
      MethodRuns.Protocol protocol = new MethodRuns.Protocol(training.solver(), l2,
          training.epochs, training.lr, training.batch.rows, training.seed, training.alphaBound,
          training.loss(), training.modelBits(), training.halpMu());
      for (Method method : methods) {
        Result row = runs.run(method, protocol);
        results.add(row);
        progress(err, summary(row, taskKind));
      }
    }
    double total = seconds(started);
    if (json.enabled) {
      out.println(Json.write(json(results, trainRows, heldoutRows, n, lambda, taskKind, classes,
          total)));
    } else {
      out.println(table(results, taskKind));
      out.println(String.format(Locale.ROOT, "train %s rows, heldout %s rows, kernel subsample"
          + " n = %s, lambda = n x l2 = %.4g, solver %s, total %s", Human.count(trainRows.n()),
          Human.count(heldoutRows.n()), Human.count(n), lambda, training.solver,
          Human.seconds(total)));
    }
    out.flush();
    return 0;
  }

  // ---- options

  private void checkOptions(boolean classification) {
    if (rows < 1 || rows > MAX_ROWS) {
      throw new UsageException("--rows is " + rows + ", expected 1 to " + MAX_ROWS
          + " (the kernel subsample's n x n matrices)");
    }
    if (!(l2 > 0) || Double.isInfinite(l2)) {
      throw new UsageException("--l2 is " + l2 + ", expected finite and > 0 (K + n l2 I must be"
          + " positive definite)");
    }
    training.requireEach();
    training.requireSolverOptions(classification);
    training.requireHalpOptionsFit(training.solver());
    if (classification && raw.logLabel.enabled) {
      throw new UsageException("--log-label applies to regression, not --task classification");
    }
  }

  /** The (quantizer, bits) pairs {@link #methods()} left out: the quantizer cannot code b. */
  private final List<String> skipped = new ArrayList<>();

  /**
   * The methods in order: projections x features x bits x quantizers, then Nyström; duplicates
   * refused, pairs a quantizer cannot code (lloyd-max at 16 bits) left out and listed in
   * {@link #skipped}.
   */
  List<Method> methods() {
    List<Integer> bitList = new ArrayList<>();
    for (String b : bits) {
      if (b.isBlank()) {
        continue;
      }
      int value;
      try {
        value = Integer.parseInt(b.strip());
      } catch (NumberFormatException e) {
        throw new UsageException("--bits has '" + b + "', not a number; expected "
            + BitWidths.describe(BitWidths.ALL));
      }
      try {
        bitList.add(BitWidths.check("--bits", value));
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
    }
    for (int m : features) {
      if (m < 1) {
        throw new UsageException("--features has " + m + ", expected >= 1");
      }
    }
    List<Quantizer> quantizers = quantizer.quantizers();
    skipped.clear();
    LinkedHashSet<Method> methods = new LinkedHashSet<>();
    for (String p : projections) {
      String name = SpecOptions.projectionName(p.strip());
      for (int m : features) {
        for (int b : bitList) {
          // Full precision once: the quantizer of float32 features is unused (but Sigma-Delta's
          // condensed map is its own method).
          for (Quantizer q : quantizers) {
            if (!q.codes(b)) {
              skipped.add(q.spelling() + " at b = " + b);
              continue;
            }
            Quantizer kept = b == 32 && !(q instanceof Quantizer.SigmaDelta) ? Quantizer.STOCHASTIC
                : q;
            if (!methods.add(new Method(name, kept, b, m)) && kept == q) {
              throw new UsageException("method " + name + "/" + b + " at m = " + m
                  + " is listed twice");
            }
          }
        }
      }
    }
    for (int m : nystrom.counts() == null ? List.<Integer>of() : nystrom.counts()) {
      if (m < 1 || m > KernelMatrix.MAX_N) {
        throw new UsageException("--nystrom has " + m + ", expected 1 to " + KernelMatrix.MAX_N);
      }
      if (!methods.add(Method.nystrom(m))) {
        throw new UsageException("--nystrom " + m + " is listed twice");
      }
    }
    if (methods.isEmpty()) {
      throw new UsageException("no methods: give --bits with --projection, or --nystrom"
          + (skipped.isEmpty() ? "" : " (the quantizers cannot code " + String.join(", ",
              new LinkedHashSet<>(skipped)) + ": " + BitWidths.QUANTIZER_RULE + ")"));
    }
    return List.copyOf(methods);
  }

  /**
   * The methods followed by Nyström at, for each random-features method, the largest m whose
   * {@link TrainingMemory#forNystrom} total is at most that method's (none if even m = 1 is
   * larger); landmark counts already listed are not repeated.
   */
  List<Method> withMatchedNystrom(List<Method> methods, int d, int outputs) {
    LinkedHashSet<Method> all = new LinkedHashSet<>(methods);
    int batch = training.batch.rows;
    for (Method method : methods) {
      if (method.nystrom()) {
        continue;
      }
      long budget = TrainingMemory.forProjection(method.projection(), d, method.m(),
          method.bits(), batch, outputs).totalBits();
      int m = 0;
      while (m < KernelMatrix.MAX_N
          && TrainingMemory.forNystrom(d, m + 1, batch, outputs).totalBits() <= budget) {
        m++;
      }
      if (m > 0) {
        all.add(Method.nystrom(m));
      }
    }
    return List.copyOf(all);
  }

  /** The featurizer spec of a random-features method, validated as featurize does. */
  FeaturizerSpec specFor(Method method, int d) {
    SpecOptions s = new SpecOptions();
    s.kernel = kernel;
    s.features = method.m();
    s.bits = method.bits();
    s.projection = method.projection();
    s.seed = training.seed;
    s.quantizer = new QuantizerOption();
    s.quantizer.name = method.quantizer().spelling();
    return s.build(d);
  }

  // ---- output

  private void progress(PrintWriter err, String line) {
    if (!quiet.enabled) {
      err.println(line);
      err.flush();
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static String metricName(Task task) {
    return task == Task.REGRESSION ? "heldout MSE" : "heldout error";
  }

  private static String summary(Result r, Task task) {
    return String.format(Locale.ROOT, "%s, m = %s: delta1 %.4g, delta2 %.4g, %s %s (featurize"
        + " %s, kernel metrics %s, train %s)", r.method().label(),
        Human.count(r.method().m()), r.delta().delta1(), r.delta().delta2(), metricName(task),
        Double.isNaN(r.metric()) ? "diverged" : String.format(Locale.ROOT, "%.5g", r.metric()),
        Human.seconds(r.featurizeSeconds()), Human.seconds(r.deltaSeconds()),
        Human.seconds(r.trainSeconds()));
  }

  static String table(List<Result> results, Task task) {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
        "%-30s  %6s  %8s  %14s  %9s  %9s  %10s  %10s  %13s%n", "method", "m", "features",
        "memory bits", "delta1", "delta2", "|K-K~|_F", "|K-K~|_2", metricName(task)));
    for (Result r : results) {
      s.append(String.format(Locale.ROOT,
          "%-30s  %6d  %8d  %14s  %9.4g  %9.4g  %10.4g  %10.4g  %13s%n", r.method().label(),
          r.method().m(), r.featureCount(), Human.count(r.memory().totalBits()),
          r.delta().delta1(), r.delta().delta2(), r.delta().frobeniusError(),
          r.delta().spectralError(),
          Double.isNaN(r.metric()) ? "diverged" : String.format(Locale.ROOT, "%.5f", r.metric())));
    }
    return s.toString().stripTrailing();
  }

  private Map<String, Object> json(List<Result> results, RowTable trainRows,
      RowTable heldoutRows, int n, double lambda, Task taskKind, int classes,
      double total) {
    Map<String, Object> o = Json.object();
    o.put("task", taskKind.kind().id);
    o.put("classes", classes);
    o.put("train_rows", trainRows.n());
    o.put("heldout_rows", heldoutRows.n());
    o.put("input_dim", trainRows.d());
    o.put("kernel_rows", n);
    o.put("lambda", lambda);
    o.put("l2", l2);
    o.put("solver", training.solver.toLowerCase(Locale.ROOT));
    if (training.alphaBound != null) { // rks: the bound, not the l2, regularizes the training
      o.put("alpha_bound", training.alphaBound);
    }
    o.put("batch", training.batch.rows);
    o.put("seed", training.seed);
    o.put("metric", taskKind == Task.REGRESSION ? "mse" : "error_rate");
    List<Object> list = new ArrayList<>();
    for (Result r : results) {
      Map<String, Object> m = Json.object();
      m.put("method", r.method().label());
      m.put("projection", r.method().nystrom() ? null : r.method().projection());
      m.put("bits", r.method().bits());
      m.put("m", r.method().m());
      m.put("features", r.featureCount());
      Map<String, Object> mem = Json.object();
      mem.put("feature_generation_bits", r.memory().featureGenerationBits());
      mem.put("mini_batch_bits", r.memory().miniBatchBits());
      mem.put("model_bits", r.memory().modelBits());
      mem.put("total_bits", r.memory().totalBits());
      m.put("training_memory", mem);
      m.put("delta1", r.delta().delta1());
      m.put("delta2", r.delta().delta2());
      m.put("frobenius_error", r.delta().frobeniusError());
      m.put("spectral_error", r.delta().spectralError());
      m.put("heldout_metric", Double.isNaN(r.metric()) ? null : r.metric());
      m.put("stop_reason", r.stop());
      m.put("epochs", r.epochs());
      m.put("featurize_seconds", r.featurizeSeconds());
      m.put("kernel_metric_seconds", r.deltaSeconds());
      m.put("train_seconds", r.trainSeconds());
      list.add(m);
    }
    o.put("methods", list);
    o.put("seconds", total);
    return o;
  }
}
