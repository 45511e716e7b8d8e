package org.lprff.bench.report;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.lprff.bench.report.TimeToModel.DataSet;
import org.lprff.bench.report.TimeToModel.Method;
import org.lprff.bench.report.TimeToModel.Row;
import org.lprff.report.Json;

/**
 * Measures {@link TimeToModel}'s table as a user would: the repository's {@code ./lprff featurize}
 * and {@code ./lprff train} as processes (wall seconds, JVM start included), then scikit-learn
 * through {@code sklearn_time_to_model.py} on the rows the script exported, so that both sides see
 * identical splits.
 */
final class TimeToModelRun {

  /** The four IDX files of Fashion-MNIST, as scripts/fashion-mnist-defaults.sh reads them. */
  static final List<String> FASHION_FILES = List.of("train-images-idx3-ubyte.gz",
      "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz");

  /** The shipped diamonds, under the repository's root. */
  static final String DIAMONDS_CSV = "lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv";

  private static final String SCRIPT = "sklearn_time_to_model.py";

  /** Long enough for LogisticRegressionCV on Fashion-MNIST on two cores. */
  private static final Duration TIMEOUT = Duration.ofHours(4);

  private final Path root;
  private final String python;
  private final Path fashionMnist;
  private final PrintWriter progress;
  private final Supplier<String> clock;

  /**
   * @param root the repository whose {@code ./lprff} runs the lprff side
   * @param fashionMnist the folder of {@link #FASHION_FILES}, or null without Fashion-MNIST
   * @param clock the run's elapsed time, to prefix progress lines
   */
  TimeToModelRun(Path root, String python, Path fashionMnist, PrintWriter progress,
      Supplier<String> clock) {
    this.root = root;
    this.python = python;
    this.fashionMnist = fashionMnist;
    this.progress = progress;
    this.clock = clock;
  }

  /** The data sets of a run: diamonds and digits, and Fashion-MNIST when asked for. */
  static List<DataSet> dataSets(boolean fashionMnist) {
    return fashionMnist
        ? List.of(TimeToModel.DIAMONDS, TimeToModel.DIGITS, TimeToModel.FASHION_MNIST)
        : List.of(TimeToModel.DIAMONDS, TimeToModel.DIGITS);
  }

  /** The sets whose {@link DataSet#id} {@code only} finds (all when null), as --only selects. */
  static List<DataSet> selected(List<DataSet> sets, Pattern only) {
    return sets.stream().filter(d -> only == null || only.matcher(d.id()).find()).toList();
  }

  /** Why Fashion-MNIST cannot be read from {@code dir}, or null when its four files are there. */
  static String missingFashionMnist(Path dir) {
    for (String f : FASHION_FILES) {
      if (!Files.isRegularFile(dir.resolve(f))) {
        return "--fashion-mnist " + dir + " has no " + f + " (the folder of the four IDX files"
            + " of https://github.com/zalandoresearch/fashion-mnist, e.g."
            + " /work/shared/data/fashion-mnist)";
      }
    }
    return null;
  }

  /** Measures every set; a set that fails is a message of the table, never an exception. */
  TimeToModel.Table run(List<DataSet> sets) throws IOException {
    long start = System.nanoTime();
    List<Row> rows = new ArrayList<>();
    Set<String> messages = new LinkedHashSet<>();
    Map<String, Object> reference = new LinkedHashMap<>();
    // An untimed first command builds lprff.jar and its start-up cache when they are stale, so
    // that no data set pays for them.
    Command warm = lprff(List.of("--version"));
    if (warm.exit() != 0) {
      messages.add("./lprff --version exited " + warm.exit() + ": " + warm.lastLine());
      return table(sets, rows, messages, reference, start);
    }
    for (DataSet set : sets) {
      Path work = Files.createTempDirectory("lprff-time-to-model");
      try {
        progress.printf("[%s] time to model: %s%n", clock.get(), set.name());
        progress.flush();
        String failed = measure(set, work, rows, reference);
        if (failed != null) {
          messages.add(set.name() + ": " + failed);
          progress.println("  not measured: " + failed);
        }
      } finally {
        deleteTree(work);
      }
    }
    return table(sets, rows, messages, reference, start);
  }

  private TimeToModel.Table table(List<DataSet> sets, List<Row> rows, Set<String> messages,
      Map<String, Object> reference, long start) {
    String how = "the repository's `./lprff featurize` (training rows at the set's bits,"
        + " heldout rows `--like` at `--bits 32`) and `./lprff train --train T --heldout H"
        + " --task TASK --json`, each started as a process and timed in wall seconds (JVM start"
        + " and the start-up cache included), after an untimed `./lprff --version`";
    return new TimeToModel.Table(sets, rows, List.copyOf(messages), how, reference,
        (System.nanoTime() - start) / 1e9);
  }

  /** One set's three rows, or why not (null when measured). */
  private String measure(DataSet set, Path work, List<Row> rows, Map<String, Object> reference)
      throws IOException {
    boolean fashion = set == TimeToModel.FASHION_MNIST;
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("set", set.name());
    config.put("out", work.toString());
    if (fashion) {
      String missing = missingFashionMnist(fashionMnist);
      if (missing != null) {
        return missing;
      }
      config.put("idx", fashionMnist.toString());
    } else {
      Path csv = root.resolve(DIAMONDS_CSV);
      if (!Files.isRegularFile(csv)) {
        return "no " + csv + ": the repository's root is " + root + "?";
      }
      config.put("csv", csv.toString());
      SklearnReference.Script export =
          SklearnReference.Script.run(python, SCRIPT, List.of("export", Json.write(config)),
              TIMEOUT);
      if (export.doc() == null) {
        return "scikit-learn's side exports the split both sides read, but " + export.error()
            + ". To get it: " + SklearnReference.HOW_TO_GET;
      }
    }
    Path train = work.resolve("train.arrow");
    Path heldout = work.resolve("heldout.arrow");
    Command featurizeTrain = lprff(featurize(set, work, fashionMnist, true, train));
    if (featurizeTrain.exit() != 0) {
      return "lprff featurize exited " + featurizeTrain.exit() + ": " + featurizeTrain.lastLine();
    }
    Command featurizeHeldout = lprff(featurize(set, work, fashionMnist, false, heldout));
    if (featurizeHeldout.exit() != 0) {
      return "lprff featurize (heldout) exited " + featurizeHeldout.exit() + ": "
          + featurizeHeldout.lastLine();
    }
    Command training = lprff(List.of("train", "--train", train.toString(), "--heldout",
        heldout.toString(), "--task", set.classification() ? "classification" : "regression",
        "--json"));
    Map<?, ?> trained = training.exit() == 0 ? lastJson(training.out()) : null;
    if (trained == null) {
      return "lprff train exited " + training.exit() + ": " + training.lastLine();
    }
    double l2 = ((Number) trained.get("l2")).doubleValue();
    double metric = ((Number) trained.get(
        set.classification() ? "heldout_error_rate" : "heldout_mse")).doubleValue();
    rows.add(new Row(set.name(), Method.LPRFF, l2, metric,
        featurizeTrain.seconds() + featurizeHeldout.seconds(), training.seconds(),
        String.format(Locale.ROOT, "%s; solve %.1f s", trained.get("solver"),
            ((Number) trained.get("seconds")).doubleValue())));
    progress.printf("  lprff: %s %s in %.1f s%n", set.metricName(), TimeToModel.metric(metric),
        rows.getLast().seconds());

    config.put("classification", set.classification());
    config.put("sigma", set.sigma());
    config.put("m", set.m());
    config.put("l2", l2);
    config.put("grid", TimeToModel.L2_GRID);
    config.put("folds", TimeToModel.FOLDS);
    SklearnReference.Script ref =
        SklearnReference.Script.run(python, SCRIPT, List.of("reference", Json.write(config)),
            TIMEOUT);
    if (ref.doc() == null) {
      return "scikit-learn: " + ref.error() + ". To get it: " + SklearnReference.HOW_TO_GET;
    }
    Map<?, ?> doc = ref.doc();
    double transform = ((Number) doc.get("transform_s")).doubleValue();
    for (Method method : List.of(Method.SINGLE, Method.SEARCH)) {
      Map<?, ?> fit = (Map<?, ?>) doc.get(method == Method.SINGLE ? "single" : "search");
      String note = fit.get("model") + (method == Method.SINGLE ? " at lprff's l2"
          : ", l2 by " + fit.get("how"))
          + (Boolean.TRUE.equals(fit.get("converged")) ? "" : "; did not converge");
      rows.add(new Row(set.name(), method, ((Number) fit.get("l2")).doubleValue(),
          ((Number) fit.get("metric")).doubleValue(), transform,
          ((Number) fit.get("fit_s")).doubleValue(), note));
      progress.printf("  %s: %s %s in %.1f s%n", method.label, set.metricName(),
          TimeToModel.metric(rows.getLast().metric()), rows.getLast().seconds());
    }
    for (String key : List.of("python", "python_version", "sklearn", "numpy", "blas")) {
      reference.put(key, doc.get(key));
    }
    reference.put("scrubbed", scrubbed());
    return null;
  }

  /**
   * {@code lprff featurize}'s arguments for the training or the heldout file of a set: the CSVs
   * the script exported into {@code work}, or Fashion-MNIST's IDX files in {@code idx}.
   */
  static List<String> featurize(DataSet set, Path work, Path idx, boolean training,
      Path output) {
    List<String> args = new ArrayList<>(List.of("featurize"));
    if (set == TimeToModel.FASHION_MNIST) {
      String prefix = training ? "train" : "t10k";
      args.addAll(List.of("--input", idx.resolve(prefix + "-images-idx3-ubyte.gz").toString(),
          "--idx-labels", idx.resolve(prefix + "-labels-idx1-ubyte.gz").toString()));
    } else {
      args.addAll(List.of("--input",
          work.resolve(training ? "train.csv" : "heldout.csv").toString(),
          "--label-column", set.classification() ? "digit" : "logprice"));
      if (set.classification()) {
        args.addAll(List.of("--label-type", "classes"));
      }
    }
    if (training) {
      if (set.standardize()) {
        args.add("--standardize");
      }
      args.addAll(List.of("--sigma", fmt(set.sigma()), "--features", String.valueOf(set.m()),
          "--projection", "circulant", "--bits", String.valueOf(set.bits())));
      if (set == TimeToModel.FASHION_MNIST) {
        args.addAll(List.of("--seed", "1")); // scripts/fashion-mnist-defaults.sh's
      }
    } else {
      // Heldout rows at full precision, as `lprff predict` sees rows.
      args.addAll(List.of("--like", work.resolve("train.arrow").toString(), "--bits", "32"));
    }
    args.addAll(List.of("--output", output.toString(), "--quiet"));
    return args;
  }

  static String fmt(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }

  /** Which pinned-BLAS variables this JVM has (and so the reference ran without). */
  static String scrubbed() {
    List<String> set = new ArrayList<>();
    for (String name : SklearnReference.PINNED_BLAS) {
      String value = System.getenv(name);
      if (value != null) {
        set.add(name + "=" + value + " removed");
      }
    }
    return set.isEmpty() ? "none set" : String.join(", ", set);
  }

  /** A finished command: exit code, stdout, stderr and wall seconds. */
  record Command(int exit, String out, String err, double seconds) {
    String lastLine() {
      String s = (err.isBlank() ? out : err).strip();
      int nl = s.lastIndexOf('\n');
      return nl < 0 ? s : s.substring(nl + 1);
    }
  }

  /** Runs {@code ./lprff ARGS} with this JVM's environment, timed from start to exit. */
  private Command lprff(List<String> args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(root.resolve("lprff").toString());
    command.addAll(args);
    Path err = Files.createTempFile("lprff-time-to-model", ".err");
    try {
      long t0 = System.nanoTime();
      Process process = new ProcessBuilder(command).directory(root.toFile())
          .redirectError(err.toFile()).start();
      process.getOutputStream().close();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        return new Command(-1, out, "did not finish within " + Report.human(TIMEOUT), 0);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      return new Command(process.exitValue(), out, Files.readString(err), seconds);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + String.join(" ", command), e);
    } finally {
      Files.deleteIfExists(err);
    }
  }

  /** The last line of {@code out} that parses as a JSON object (train --json prints one). */
  static Map<?, ?> lastJson(String out) {
    List<String> lines = out.lines().map(String::strip).filter(l -> l.startsWith("{")).toList();
    if (lines.isEmpty()) {
      return null;
    }
    try {
      return Json.parse(lines.getLast()) instanceof Map<?, ?> m ? m : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
