package org.lprff.cli.experiment;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;
import org.lprff.arrow.io.AtomicWrite;
import org.lprff.cli.experiment.ExperimentPlan.Planned;
import org.lprff.cli.output.Human;
import org.lprff.cli.workflow.CompareData;
import org.lprff.arrow.input.RowTable;
import org.lprff.cli.workflow.HelperPool;
import org.lprff.cli.workflow.MethodRuns;
import org.lprff.cli.workflow.MethodRuns.Method;
import org.lprff.cli.workflow.MethodRuns.Result;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.stream.RowSplit;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.kernel.MedianHeuristic;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.vector.train.TrainingRequest.ScheduleKind;
import org.lprff.vector.train.loss.Task;

/**
 * {@code lprff experiment}'s workflow: the LP-RFF paper's comparison on one data set. σ and λ are
 * chosen once, on a validation split of the training rows (full-precision circulant features);
 * then every {@link ExperimentPlan} run is featurized, measured against the exact kernel of a
 * heldout subsample, trained on all training rows and scored on the heldout rows, each appended
 * to {@code runs.csv} as it finishes; the plots and {@code summary.md} are drawn from the file.
 * {@code experiment.properties} keeps the data's shape and the selection, so that {@code
 * --resume} continues with the same σ and λ and skips the runs already in {@code runs.csv}.
 */
public final class Experiment {

  /** The mini-batch rows of the training memory: the LP-RFF paper's s = 250. */
  public static final int BATCH_ROWS = 250;

  public static final String RUNS = "runs.csv";
  public static final String SETTINGS = "experiment.properties";
  public static final String SUMMARY = "summary.md";

  /**
   * What to run.
   *
   * @param source the data
   * @param plan the methods and grids
   * @param seeds seeds 1..seeds of every method
   * @param out the output folder
   * @param resume continue {@code out}'s runs.csv (else it must not exist)
   * @param threads threads of featurizing, kernel metrics and training
   */
  public record Settings(
      ExperimentData.Source source, ExperimentPlan plan, int seeds, Path out, boolean resume,
      int threads) {}

  /** σ's candidates, each with the l2 its validation chose and the validation metric it gave. */
  public record Selection(
      double medianDistance, double sigma, double l2, List<Candidate> candidates, int fitRows,
      int validationRows) {

    public record Candidate(double sigma, double l2, double validationMetric) {}
  }

  /** What a run of the experiment left in its folder. */
  public record Outcome(
      Path runs, Path summary, List<Path> plots, int ran, int skipped, int total,
      double seconds) {}

  private Experiment() {}

  /** Runs (or resumes) the experiment of {@code settings}; {@code progress} gets a line a step. */
  public static Outcome run(Settings settings, Consumer<String> progress) throws IOException {
    long started = System.nanoTime();
    Path out = settings.out();
    Path runsFile = out.resolve(RUNS);
    Path settingsFile = out.resolve(SETTINGS);
    if (Files.exists(runsFile) && !settings.resume()) {
      throw new IllegalArgumentException(runsFile + " exists: give --resume to continue that"
          + " experiment, or another --out");
    }
    ExperimentData data = ExperimentData.load(settings.source(), settings.plan().maxTrainRows());
    progress.accept(data.description());
    progress.accept(String.format(Locale.ROOT, "%s: %s training rows, %s heldout rows, d = %d,"
        + " %s; plan %s, %d seeds", data.name(), Human.count(data.train().n()),
        Human.count(data.heldout().n()), data.train().d(), taskName(data.task()),
        settings.plan().name(), settings.seeds()));
    Files.createDirectories(out);
    ExperimentPlan planned = settings.plan().landmarksUpTo(data.train().n());
    if (planned.landmarks().size() < settings.plan().landmarks().size()) {
      progress.accept("Nyström at m = " + settings.plan().landmarks().stream()
          .filter(m -> m > data.train().n()).toList() + " left out: landmarks are distinct"
          + " training rows, and there are " + data.train().n());
    }
    if (!planned.skipped().isEmpty()) {
      progress.accept("LP-RFF skips " + planned.skipped() + ": " + ExperimentPlan.SKIP_REASON);
    }

    Properties fingerprint = fingerprint(data, planned);
    Selection selection = null;
    List<RunRecord> done = new ArrayList<>();
    if (settings.resume() && Files.exists(settingsFile)) {
      selection = resumeSelection(settingsFile, fingerprint);
      progress.accept(String.format(Locale.ROOT, "resuming: sigma %s and l2 %s from %s",
          Human.number(selection.sigma()), Human.number(selection.l2()), settingsFile));
    }
    if (settings.resume() && Files.exists(runsFile)) {
      if (selection == null) {
        throw new IllegalArgumentException(runsFile + " exists without " + settingsFile
            + ": the runs' sigma and l2 are unknown; give another --out");
      }
      RunsCsv.Contents contents = RunsCsv.read(runsFile);
      done.addAll(contents.records());
      if (contents.partialLastLine()) {
        progress.accept(runsFile + ": its last line was cut short (an interrupted run);"
            + " dropped, that run is done again");
        RunsCsv.rewrite(runsFile, done);
      }
    }

    int threads = settings.threads();
    List<Planned> plan = planned.runs(settings.seeds());
    Set<RunRecord.Key> finished = new HashSet<>();
    for (RunRecord r : done) {
      finished.add(r.key());
    }
    int ran = 0;
    int skipped = 0;
    try (HelperPool helpers = HelperPool.start(threads, "lprff-experiment")) {
      ExecutorService pool = helpers.executor();
      if (selection == null) {
        selection = select(data, planned, pool, progress);
        writeSettings(settingsFile, fingerprint, selection);
        RunsCsv.create(runsFile);
      } else if (!Files.exists(runsFile)) {
        RunsCsv.create(runsFile);
      }
      KernelFunction kernel = new KernelFunction.Gaussian(selection.sigma());
      MethodRuns runs = MethodRuns.prepare(kernel, data.train(), data.heldout(),
          planned.kernelRows(), ExperimentData.SPLIT_SEED, selection.l2(), data.task(),
          data.classes(), pool, progress);
      int total = plan.size();
      int index = 0;
      RemainingTime remaining = new RemainingTime();
      for (Planned p : plan) {
        index++;
        if (finished.contains(p.key())) {
          skipped++;
          continue;
        }
        Method method = p.method();
        MethodRuns.Protocol protocol = new MethodRuns.Protocol(
            solver(data.task(), method.m()), selection.l2(), TrainingRequest.DEFAULT_EPOCHS,
            null, BATCH_ROWS, p.seed());
        long t0 = System.nanoTime();
        Result result = runs.run(method, protocol);
        RunRecord record = record(p, result, data.task(), selection);
        RunsCsv.append(runsFile, record);
        remaining.finished(method, (System.nanoTime() - t0) / 1e9);
        ran++;
        progress.accept(String.format(Locale.ROOT, "[%d/%d] %s m = %s seed %d: %s %s, delta1"
            + " %.4g, delta2 %.4g, %s bits (%s; about %s left)", index, total, record.series(),
            Human.count(method.m()), p.seed(), record.metricName(),
            Double.isNaN(record.heldoutMetric()) ? "diverged"
                : String.format(Locale.ROOT, "%.5g", record.heldoutMetric()),
            record.delta1(), record.delta2(), Human.count(record.memoryBits()),
            Human.seconds(record.seconds()),
            Human.seconds(remaining.of(plan.subList(index, total), finished))));
      }
    }
    if (skipped > 0) {
      progress.accept(skipped + " runs were already in " + runsFile + " (--resume)");
    }
    List<RunRecord> all = RunsCsv.read(runsFile).records();
    progress.accept("plots and summary of " + all.size() + " runs");
    List<Path> plots = ExperimentPlots.write(all, data.name(), out);
    Path summary = out.resolve(SUMMARY);
    double seconds = (System.nanoTime() - started) / 1e9;
    AtomicWrite.write(summary, ExperimentSummary.markdown(all, data.name(),
        preamble(data, planned, settings.seeds(), selection, all, seconds))
        .getBytes(StandardCharsets.UTF_8));
    return new Outcome(runsFile, summary, plots, ran, skipped, plan.size(), seconds);
  }

  /**
   * The time left, for progress: each method's last duration (the same method at the next seed
   * costs about as much), else the mean of the runs so far scaled by m (featurizing and the
   * products grow with m; Nyström's landmarks faster, so this is a floor for it).
   */
  private static final class RemainingTime {
    private final Map<Method, Double> last = new HashMap<>();
    private long features;
    private double seconds;

    void finished(Method method, double runSeconds) {
      last.put(method, runSeconds);
      seconds += runSeconds;
      features += method.m();
    }

    double of(List<Planned> left, Set<RunRecord.Key> done) {
      double secondsPerFeature = seconds / features;
      double sum = 0;
      for (Planned p : left) {
        if (!done.contains(p.key())) {
          Double known = last.get(p.method());
          sum += known != null ? known : secondsPerFeature * p.method().m();
        }
      }
      return sum;
    }
  }

  /**
   * The largest m trained in closed form. Its cost, n m^2 / 2 multiply-adds and an m x m double
   * matrix (8192: 512 MiB), does not depend on the features; conjugate gradients' does: on
   * diamonds at m = 4096 and l2 = 1e-7 they took 12-20 s at 1-4 bits and 100-120 s at 8 and 16
   * bits (nearly exact features, badly conditioned), the closed form about 15 s for all.
   */
  static final int CLOSED_FORM_MAX_FEATURES = 8192;

  /**
   * The solver of every run, all to the optimum of the l2-penalized loss: ridge in closed form up
   * to {@value #CLOSED_FORM_MAX_FEATURES} features (least squares on one-hot targets for
   * classification: exact, and far faster than L-BFGS over 10 classes at this many m, b and
   * seeds); above, conjugate gradients for regression and L-BFGS for classification.
   */
  static Solver solver(Task task, int m) {
    return m <= CLOSED_FORM_MAX_FEATURES ? Solver.CLOSED_FORM
        : task == Task.REGRESSION ? Solver.CG : Solver.LBFGS;
  }

  private static RunRecord record(Planned p, Result r, Task task, Selection s) {
    RunRecord.Key k = p.key();
    return new RunRecord(k.method(), k.projection(), k.quantizer(), k.m(), k.bits(), k.seed(),
        task == Task.REGRESSION ? RunRecord.MSE : RunRecord.ERROR_RATE, r.metric(),
        r.delta().delta1(), r.delta().delta2(), r.delta().frobeniusError(),
        r.delta().spectralError(), r.memory().totalBits(), r.memory().featureGenerationBits(),
        r.memory().miniBatchBits(), r.memory().modelBits(), s.sigma(), s.l2(),
        r.featurizeSeconds(), r.deltaSeconds(), r.trainSeconds());
  }

  // ---- the choice of sigma and l2

  /**
   * Chooses σ among multiples of the median distance between training rows and l2 along the
   * library's automatic path: full-precision circulant features, trained on the training rows
   * outside the validation split (row i of the training rows is validation iff mix64(seed + i)
   * mod 10 == 1) and scored on the validation rows; the lowest validation metric wins. The
   * heldout rows are never read.
   */
  static Selection select(ExperimentData data, ExperimentPlan plan, ExecutorService pool,
      Consumer<String> progress) {
    RowTable train = data.train();
    // Row i of the training rows is validation iff mix64(seed + i) mod 10 == 1.
    int[][] parts = RowTable.partition(train.n(),
        i -> RowSplit.validation(ExperimentData.SPLIT_SEED, i));
    RowTable fit = train.select(parts[0]);
    RowTable validation = train.select(parts[1]);
    if (fit.n() == 0 || validation.n() == 0) {
      throw new IllegalArgumentException("the validation split of " + train.n()
          + " training rows left " + (fit.n() == 0 ? "no training" : "no validation")
          + " rows: give more rows");
    }
    double median = medianDistance(train);
    if (!(median > 0)) {
      throw new IllegalArgumentException("the training rows are all equal (median distance "
          + median + "): no bandwidth can tell them apart");
    }
    progress.accept(String.format(Locale.ROOT, "choosing sigma and l2: full-precision circulant"
        + " features, m = %s, on %s training rows, scored on %s validation rows; median"
        + " distance %s", Human.count(plan.selectionFeatures()), Human.count(fit.n()),
        Human.count(validation.n()), Human.number(median)));
    List<Selection.Candidate> candidates = new ArrayList<>();
    Selection.Candidate best = null;
    int m = plan.selectionFeatures();
    for (double factor : plan.sigmaFactors()) {
      double sigma = roundTo3(factor * median);
      FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(sigma), train.d(), m, 32,
          ExperimentPlan.LOW_PRECISION_PROJECTION, ExperimentData.SPLIT_SEED,
          Quantizer.STOCHASTIC);
      Featurizer featurizer = Featurizer.of(spec);
      Selection.Candidate c;
      try (Arena arena = Arena.ofShared()) {
        var fitZ = MethodRuns.featurize(featurizer, spec, fit, arena, pool);
        var validationZ = MethodRuns.featurize(featurizer, spec, validation, arena, pool);
        boolean classification = data.task() != Task.REGRESSION;
        TrainingRequest request = new TrainingRequest(classification,
            classification ? data.classes() : null, m, solver(data.task(), m),
            TrainingRequest.AUTOMATIC_L2, TrainingRequest.DEFAULT_EPOCHS, null,
            ScheduleKind.EARLY_STOP, BATCH_ROWS, ExperimentData.SPLIT_SEED,
            ForkJoinPool.commonPool());
        TrainingReport report = Trainer.run(request,
            new Trainer.Data("train", "", MethodRuns.batches(fitZ, fit, data.task()).ordered()),
            new Trainer.Data("validation", "",
                MethodRuns.batches(validationZ, validation, data.task()).ordered()),
            null, null);
        double metric = report.diverged() ? Double.NaN : report.validation().metric();
        c = new Selection.Candidate(sigma, report.l2(), metric);
      }
      candidates.add(c);
      progress.accept(String.format(Locale.ROOT, "  sigma %s (%s x median): l2 %s, validation"
          + " %s %.5g", Human.number(sigma), Human.number(factor), Human.number(c.l2()),
          data.task() == Task.REGRESSION ? "MSE" : "error", c.validationMetric()));
      if (!Double.isNaN(c.validationMetric())
          && (best == null || c.validationMetric() < best.validationMetric())) {
        best = c;
      }
    }
    if (best == null) {
      throw new IllegalStateException("every sigma candidate diverged on the validation split");
    }
    progress.accept("chosen: sigma " + Human.number(best.sigma()) + ", l2 " + Human.number(best.l2()));
    return new Selection(median, best.sigma(), best.l2(), candidates, fit.n(), validation.n());
  }

  /** The median heuristic ({@link MedianHeuristic}) over the training rows, split seed 1. */
  static double medianDistance(RowTable rows) {
    if (rows.n() < 2) {
      throw new IllegalArgumentException("the training rows are " + rows.n() + ": need at least 2");
    }
    return MedianHeuristic.distance(rows.x(), rows.n(), rows.d(), ExperimentData.SPLIT_SEED);
  }

  static double roundTo3(double x) {
    return Double.parseDouble(String.format(Locale.ROOT, "%.3g", x));
  }

  // ---- experiment.properties

  /** What must not change between a run and its --resume: the data's shape and the plan. */
  private static Properties fingerprint(ExperimentData data, ExperimentPlan plan) {
    Properties p = new Properties();
    p.setProperty("data", data.name());
    p.setProperty("task", taskName(data.task()));
    p.setProperty("train_rows", Integer.toString(data.train().n()));
    p.setProperty("heldout_rows", Integer.toString(data.heldout().n()));
    p.setProperty("input_dim", Integer.toString(data.train().d()));
    // What the choice of sigma and l2 depends on; the lists of methods and seeds may grow.
    p.setProperty("plan", plan.name());
    p.setProperty("selection_features", Integer.toString(plan.selectionFeatures()));
    p.setProperty("sigma_factors", plan.sigmaFactors().toString());
    return p;
  }

  private static void writeSettings(Path file, Properties fingerprint, Selection s)
      throws IOException {
    Properties p = new Properties();
    p.putAll(fingerprint);
    p.setProperty("sigma", Double.toString(s.sigma()));
    p.setProperty("l2", Double.toString(s.l2()));
    p.setProperty("median_distance", Double.toString(s.medianDistance()));
    p.setProperty("fit_rows", Integer.toString(s.fitRows()));
    p.setProperty("validation_rows", Integer.toString(s.validationRows()));
    for (int i = 0; i < s.candidates().size(); i++) {
      Selection.Candidate c = s.candidates().get(i);
      p.setProperty("candidate." + i, c.sigma() + "," + c.l2() + "," + c.validationMetric());
    }
    StringWriter text = new StringWriter();
    p.store(text, "lprff experiment: the data's shape, the plan and the sigma and l2 chosen");
    AtomicWrite.write(file, text.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static Selection resumeSelection(Path file, Properties fingerprint) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    for (String key : fingerprint.stringPropertyNames()) {
      String was = p.getProperty(key);
      if (!fingerprint.getProperty(key).equals(was)) {
        throw new IllegalArgumentException(file + " has " + key + " = " + was + ", but this run"
            + " has " + fingerprint.getProperty(key) + ": --resume continues the same data and"
            + " plan; give another --out for a new experiment");
      }
    }
    try {
      List<Selection.Candidate> candidates = new ArrayList<>();
      for (int i = 0; p.getProperty("candidate." + i) != null; i++) {
        String[] c = p.getProperty("candidate." + i).split(",");
        candidates.add(new Selection.Candidate(Double.parseDouble(c[0]),
            Double.parseDouble(c[1]), Double.parseDouble(c[2])));
      }
      return new Selection(Double.parseDouble(p.getProperty("median_distance")),
          Double.parseDouble(p.getProperty("sigma")), Double.parseDouble(p.getProperty("l2")),
          candidates, Integer.parseInt(p.getProperty("fit_rows")),
          Integer.parseInt(p.getProperty("validation_rows")));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(file + " is damaged (" + e + "); give another --out",
          e);
    }
  }

  // ---- summary.md

  private static String preamble(ExperimentData data, ExperimentPlan plan, int seeds,
      Selection s, List<RunRecord> runs, double seconds) {
    StringBuilder b = new StringBuilder();
    b.append("# lprff experiment: ").append(data.name()).append("\n\n");
    b.append("- Data: ").append(data.description()).append(".\n");
    b.append(String.format(Locale.ROOT, "- %s training rows, %s heldout rows, d = %d; task %s;"
        + " heldout metric %s.%n", Human.count(data.train().n()), Human.count(data.heldout().n()),
        data.train().d(), taskName(data.task()),
        data.task() == Task.REGRESSION ? "MSE" : "classification error rate"));
    b.append(String.format(Locale.ROOT, "- Plan `%s`, seeds 1..%d: full-precision RFF (dense and"
        + " circulant) and LP-RFF (circulant; b in %s; quantizers %s%s) at m in %s; Nyström at"
        + " m in %s. Gaussian kernel. Training memory: the LP-RFF paper's Table 1 with"
        + " mini-batch s = %d.%n", plan.name(), seeds, plan.lowBits(), plan.quantizers().stream()
        .map(Quantizer::spelling).toList(), plan.skipped().isEmpty() ? ""
            : "; skipped: " + plan.skipped() + ", since " + ExperimentPlan.SKIP_REASON,
        plan.features(), plan.landmarks(), BATCH_ROWS));
    b.append(String.format(Locale.ROOT, "- Solver: %s; every method trains on all training rows"
        + " with the chosen l2 and is scored on every heldout row featurized at full precision"
        + " with its map (as `lprff predict` does by default).%n",
        data.task() == Task.REGRESSION
            ? "ridge in closed form (conjugate gradients above m = " + CLOSED_FORM_MAX_FEATURES
                + ")"
            : "least-squares classification (ridge on one-hot targets) in closed form (L-BFGS"
                + " above m = " + CLOSED_FORM_MAX_FEATURES + ")"));
    b.append(String.format(Locale.ROOT, "- Machine: %d cores (%s), JDK %s; %s. Seconds in runs.csv"
        + " are wall time on it.%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.arch"), Runtime.version(),
        VectorizationProvider.get().describe()));
    b.append(String.format(Locale.ROOT, "- Kernel metrics on a seeded subsample of %s heldout"
        + " rows, lambda = n x l2.%n%n", Human.count(Math.min(plan.kernelRows(),
            data.heldout().n()))));
    b.append(String.format(Locale.ROOT, "## sigma and l2 (chosen on the validation split)%n%n"
        + "Full-precision circulant features at m = %d trained on %s training rows, scored on the"
        + " %s validation rows of the training set (row i iff mix64(%d + i) mod 10 == 1); the"
        + " heldout rows are never read. sigma's candidates are multiples of the median distance"
        + " between training rows (%s); l2 along the library's automatic path %s.%n%n",
        plan.selectionFeatures(), Human.count(s.fitRows()), Human.count(s.validationRows()),
        ExperimentData.SPLIT_SEED, Human.number(s.medianDistance()), TrainingRequest.AUTOMATIC_L2));
    b.append("| sigma | l2 chosen | validation metric |\n|---:|---:|---:|\n");
    for (Selection.Candidate c : s.candidates()) {
      b.append(String.format(Locale.ROOT, "| %s%s | %s | %.5g |%n", Human.number(c.sigma()),
          c.sigma() == s.sigma() ? " (chosen)" : "", Human.number(c.l2()), c.validationMetric()));
    }
    double lowest = s.candidates().stream().mapToDouble(Selection.Candidate::sigma).min()
        .orElse(s.sigma());
    double highest = s.candidates().stream().mapToDouble(Selection.Candidate::sigma).max()
        .orElse(s.sigma());
    if (s.candidates().size() > 1 && (s.sigma() == lowest || s.sigma() == highest)) {
      b.append("\nThe chosen sigma is at the edge of the candidates: a wider range might do"
          + " better.\n");
    }
    List<Double> path = TrainingRequest.AUTOMATIC_L2;
    if (s.l2() == path.getLast() || s.l2() == path.getFirst()) {
      b.append("\nThe chosen l2 is at the " + (s.l2() == path.getLast() ? "small" : "large")
          + " end of the path: the features' own regularization (their number m, and the"
          + " rounding noise of low precision) is what limits the fit there.\n");
    }
    double runSeconds = runs.stream().mapToDouble(RunRecord::seconds).sum();
    b.append(String.format(Locale.ROOT, "%n%d runs in runs.csv, %s of featurizing, kernel"
        + " metrics and training in all; the last invocation took %s.%n%n", runs.size(),
        Human.seconds(runSeconds), Human.seconds(seconds)));
    return b.toString();
  }

  static String taskName(Task task) {
    return task == Task.REGRESSION ? "regression"
        : task == Task.BINARY ? "binary classification"
            : task.outputs() + "-class classification";
  }

}
