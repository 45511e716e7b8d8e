package org.lprff.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.arrow.FeatureSchema;
import org.lprff.arrow.FeatureWriter;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.Standardization;
import org.lprff.cli.options.BatchOption;
import org.lprff.cli.options.QuietOption;
import org.lprff.vector.train.Solver;
import org.lprff.cli.options.SolverOptions;
import org.lprff.cli.options.SpecOptions;
import org.lprff.cli.options.TrainingConfig;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.Version;
import org.lprff.cli.workflow.HelperPool;
import org.lprff.cli.workflow.ShippedData;
import org.lprff.cli.workflow.Training;
import org.lprff.report.Json;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.stream.RowSplit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lprff demo}: diamonds (shipped in the application) featurized at full precision and at
 * 1, 4 and 8 bits with the same m, each trained by SGD with early stopping, one table.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Low precision vs full precision on the shipped diamonds data",
    sortOptions = false,
    description = {
      "Low precision vs full precision on diamonds (53,940 rows, 9 features, target"
          + " log(price); shipped inside lprff, MIT, from ggplot2): a seeded split (row i is"
          + " heldout iff mix64(seed + i) mod 5 == 0, validation iff mix64(seed + i) mod 10 =="
          + " 1, else train; mix64 = SplitMix64's finalizer), features standardized with the"
          + " mean and standard deviation of the train and validation rows, random Fourier"
          + " features of a Gaussian kernel at 32 (float32), 1, 4 and 8 bits with the same m."
          + " Validation and heldout rows are featurized at full precision with the same map,"
          + " as predict does.",
      "Each b is trained to the optimum of ridge regression (--solver auto, the default: in"
          + " closed form up to m = 2048, with lambda chosen on the validation rows among 1e-7,"
          + " 3e-7, 1e-6, 3e-6 and 1e-5, then refit on train + validation rows at b bits; above,"
          + " by conjugate gradients along the l2 path 1e-2, 1e-3, ..., stopping past the"
          + " minimum); --solver both trains each b twice, by SGD with the paper's early"
          + " stopping on the validation rows (batch 250, lr probed, lambda 1e-6) and in closed"
          + " form.",
      "Prints a table: bits, m, heldout MSE of each solver, training memory of SGD (feature"
          + " generation + mini-batch + model, the LP-RFF paper's Table 1), featurize and train"
          + " seconds."
    })
final class DemoCommand implements Callable<Integer> {

  /** Default sigma: 2 (closed-form ridge at m = 1024 on the project's diamonds split: 1, 2, 3). */
  static final double DEFAULT_SIGMA = 2.0;
  static final int[] BITS = {32, 1, 4, 8};
  static final int D = 9;

  @Spec CommandSpec command;

  @Option(names = "--input", paramLabel = "FILE",
      description = "Another copy of diamonds.csv (default: the one shipped in lprff).")
  Path input;

  /** 2048 by default: every b to the optimum in closed form, the whole demo in ~25 s on 2 cores. */
  @Option(names = "--features", defaultValue = "2048", paramLabel = "M",
      description = "Features m (default ${DEFAULT-VALUE}).")
  int features;

  @Option(names = "--projection", defaultValue = "circulant", paramLabel = "P",
      description = "dense, circulant, fastfood or orthogonal (default ${DEFAULT-VALUE}).")
  String projection;

  @Option(names = "--sigma", defaultValue = "2.0", paramLabel = "S",
      description = "Gaussian kernel bandwidth (default ${DEFAULT-VALUE}).")
  double sigma;

  /**
   * The solver for the task by default (the closed form up to m = 2048, conjugate gradients
   * above); "both" puts SGD and the closed form side by side.
   */
  @Mixin SolverOptions training = new SolverOptions("auto");

  @Option(names = "--json", description = "Print one JSON object per configuration and solver"
      + " (one line each) instead of the table.")
  boolean json;

  @Mixin QuietOption quiet;

  /** The closed form's lambdas, chosen among on the validation rows. */
  static final List<Double> L2_GRID = List.of(1e-7, 3e-7, 1e-6, 3e-6, 1e-5);

  /** The rows of one split: x row-major n x D (standardized later), y = log(price). */
  record Split(int rows, float[] x, float[] y) {}

  @Override
  public Integer call() throws IOException {
    if (features < 1) {
      throw new ParameterException(command.commandLine(), "--features is " + features
          + ", expected >= 1");
    }
    if (training.epochs < 1) {
      throw new ParameterException(command.commandLine(), "--epochs is " + training.epochs
          + ", expected >= 1");
    }
    List<Solver> solvers;
    try {
      SpecOptions.projectionName(projection); // refused now, not after the data is read
      solvers = training.solvers().stream().map(s -> s.resolve(false, features)).toList();
      if (!solvers.contains(Solver.HALP)) {
        training.requireHalpOptionsFit(solvers.get(0));
      }
    } catch (UsageException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
    PrintWriter err = command.commandLine().getErr();
    PrintWriter out = command.commandLine().getOut();
    long started = System.nanoTime();
    Split[] splits = load(); // fit, validation, heldout
    Standardization standardization = standardize(splits);
    if (!quiet.enabled) {
      err.println(String.format(Locale.ROOT, "diamonds: %s train + %s validation rows, %s"
          + " heldout rows (seed %d), m = %s, %s projection, sigma %s",
          Human.count(splits[0].rows()), Human.count(splits[1].rows()),
          Human.count(splits[2].rows()), training.seed, Human.count(features), projection,
          sigma));
      err.flush();
    }
    List<Map<String, Object>> results = new ArrayList<>();
    Path dir = Files.createTempDirectory("lprff-demo");
    int threads = Runtime.getRuntime().availableProcessors();
    HelperPool helpers = HelperPool.start(threads, "lprff-demo-featurize");
    ExecutorService pool = helpers.executor();
    Path heldout = dir.resolve("heldout.arrow");
    Path validation = dir.resolve("validation.arrow");
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int bits : BITS) {
        FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(sigma), D, features,
            bits, SpecOptions.projectionName(projection), training.seed, Quantizer.STOCHASTIC);
        if (!quiet.enabled) {
          err.println("b = " + bits + ": featurizing");
          err.flush();
        }
        long t0 = System.nanoTime();
        Path train = dir.resolve("train-" + bits + ".arrow");
        Path refit = dir.resolve("validation-" + bits + ".arrow");
        write(train, spec, standardization, splits[0], pool, allocator);
        write(refit, spec, standardization, splits[1], pool, allocator);
        if (!Files.exists(heldout)) {
          // Every b shares the map, so one full-precision file of the validation rows and one of
          // the heldout rows serve them all: rows as prediction sees them.
          write(validation, spec.withBits(32), standardization, splits[1], pool, allocator);
          write(heldout, spec.withBits(32), standardization, splits[2], pool, allocator);
        }
        double featurizeSeconds = (System.nanoTime() - t0) / 1e9;
        for (Solver s : solvers) {
          // demo's fixed protocol: SGD at l2 1e-6, the closed form's grid, the iterative
          // solvers' automatic path, each choosing on the validation rows.
          List<Double> l2 = s.miniBatch() ? List.of(TrainingRequest.DEFAULT_L2)
              : s == Solver.CLOSED_FORM ? L2_GRID : null;
          TrainingConfig options = new TrainingConfig(false, training.epochs, null,
              BatchOption.DEFAULT, l2, "early-stop", training.seed, s, null, null, null,
              training.modelBits(), training.halpMu());
          Training.Outcome outcome = Training.run(train, validation, refit, heldout, options,
              quiet.enabled ? null : err);
          Map<String, Object> o = outcome.json();
          o.put("projection", spec.projection());
          o.put("sigma", sigma);
          o.put("featurize_seconds", featurizeSeconds);
          o.put("train_seconds", outcome.seconds());
          o.remove("seconds");
          results.add(o);
          if (json) {
            out.println(Json.write(o));
            out.flush();
          }
          if (!quiet.enabled) {
            err.println("b = " + bits + ", " + s.id + ": " + outcome.summary());
            err.flush();
          }
        }
        Files.deleteIfExists(train);
        Files.deleteIfExists(refit);
      }
    } finally {
      helpers.close();
      try (Stream<Path> left = Files.walk(dir)) {
        for (Path p : left.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
    if (!json) {
      out.println(table(results, solvers));
      out.println(String.format(Locale.ROOT, "total %s", Human.seconds(
          (System.nanoTime() - started) / 1e9)));
      out.flush();
    }
    return 0;
  }

  private Split[] load() throws IOException {
    long seed = training.seed;
    List<float[]> train = new ArrayList<>();
    List<float[]> valid = new ArrayList<>();
    List<float[]> held = new ArrayList<>();
    String name = input == null ? "diamonds.csv (shipped)" : input.toString();
    try (InputStream stream = input == null
            ? ShippedData.diamonds()
            : Files.newInputStream(input);
        BufferedReader reader = new BufferedReader(
            new InputStreamReader(stream, StandardCharsets.UTF_8))) {
      String header = reader.readLine();
      if (header == null || header.split(",").length != D + 1) {
        throw new IllegalArgumentException(name + ": expected a header of " + (D + 1)
            + " columns (9 features, price last), got " + header);
      }
      long i = 0;
      for (String line; (line = reader.readLine()) != null; i++) {
        String[] cells = line.split(",");
        if (cells.length != D + 1) {
          throw new IllegalArgumentException(name + ": data row " + i + " has " + cells.length
              + " columns, expected " + (D + 1));
        }
        float[] row = new float[D + 1];
        for (int j = 0; j < D; j++) {
          row[j] = Float.parseFloat(cells[j]);
        }
        row[D] = (float) Math.log(Double.parseDouble(cells[D]));
        (RowSplit.heldout(seed, i) ? held : RowSplit.validation(seed, i) ? valid : train).add(row);
      }
    }
    return new Split[] {split(train), split(valid), split(held)};
  }

  private static Split split(List<float[]> rows) {
    int n = rows.size();
    float[] x = new float[n * D];
    float[] y = new float[n];
    for (int r = 0; r < n; r++) {
      System.arraycopy(rows.get(r), 0, x, r * D, D);
      y[r] = rows.get(r)[D];
    }
    return new Split(n, x, y);
  }

  /**
   * Standardizes the splits in place with the mean and (population) std of the training rows
   * (train and validation, splits[0] and splits[1]).
   */
  private static Standardization standardize(Split[] splits) {
    List<Split> training = List.of(splits[0], splits[1]);
    long n = splits[0].rows() + splits[1].rows();
    double[] mean = new double[D];
    double[] std = new double[D];
    for (Split t : training) {
      for (int r = 0; r < t.rows(); r++) {
        for (int j = 0; j < D; j++) {
          mean[j] += t.x()[r * D + j];
        }
      }
    }
    for (int j = 0; j < D; j++) {
      mean[j] /= n;
    }
    for (Split t : training) {
      for (int r = 0; r < t.rows(); r++) {
        for (int j = 0; j < D; j++) {
          double v = t.x()[r * D + j] - mean[j];
          std[j] += v * v;
        }
      }
    }
    for (int j = 0; j < D; j++) {
      std[j] = Math.sqrt(std[j] / n);
    }
    for (Split s : splits) {
      for (int r = 0; r < s.rows(); r++) {
        for (int j = 0; j < D; j++) {
          s.x()[r * D + j] = (float) ((s.x()[r * D + j] - mean[j]) / std[j]);
        }
      }
    }
    return Standardization.of(List.of("carat", "cut", "color", "clarity", "depth", "table", "x",
        "y", "z"), mean, std);
  }


  private static void write(Path file, FeaturizerSpec spec, Standardization standardization,
      Split split, ExecutorService pool, BufferAllocator allocator) throws IOException {
    FeatureSchema schema =
        FeatureSchema.of(spec, LabelType.REGRESSION, false, standardization.toMap());
    int chunk = 4000; // a multiple of the SGD batch 250: mini-batches never cut short
    int[] next = {0};
    FeatureWriter.builder(file, Featurizer.of(spec), schema, allocator)
        .batchSize(chunk)
        .executor(pool)
        .write(() -> {
          int from = next[0];
          if (from >= split.rows()) {
            return null;
          }
          int count = Math.min(chunk, split.rows() - from);
          next[0] = from + count;
          return new RowBatch(Arrays.copyOfRange(split.x(), from * D, (from + count) * D), count,
              D, Arrays.copyOfRange(split.y(), from, from + count), from);
        });
  }

  /** One line per bit width: each solver's MSE and seconds side by side. */
  private static String table(List<Map<String, Object>> results, List<Solver> solvers) {
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%5s  %6s", "bits", "m"));
    for (Solver s : solvers) {
      header.append(String.format(Locale.ROOT, "  %18s", "MSE " + s.id));
    }
    header.append(String.format(Locale.ROOT, "  %16s  %11s", "training memory", "featurize s"));
    for (Solver s : solvers) {
      header.append(String.format(Locale.ROOT, "  %16s", s.id + " s"));
    }
    if (solvers.contains(Solver.SGD)) {
      header.append(String.format(Locale.ROOT, "  %6s", "epochs"));
    }
    StringBuilder table = new StringBuilder(header).append('\n');
    for (int from = 0; from < results.size(); from += solvers.size()) {
      List<Map<String, Object>> row = results.subList(from, from + solvers.size());
      Map<String, Object> first = row.get(0);
      @SuppressWarnings("unchecked")
      Map<String, Object> mem = (Map<String, Object>) first.get("training_memory");
      table.append(String.format(Locale.ROOT, "%5d  %6d", (Integer) first.get("bits"),
          (Integer) first.get("features")));
      for (Map<String, Object> o : row) {
        table.append(String.format(Locale.ROOT, "  %18.5f", (Double) o.get("heldout_mse")));
      }
      table.append(String.format(Locale.ROOT, "  %16s  %11.2f",
          Human.bytes((Long) mem.get("total_bits") / 8), (Double) first.get("featurize_seconds")));
      for (Map<String, Object> o : row) {
        table.append(String.format(Locale.ROOT, "  %16.2f", (Double) o.get("train_seconds")));
      }
      if (solvers.contains(Solver.SGD)) {
        table.append(String.format(Locale.ROOT, "  %6d", (Integer) first.get("epochs")));
      }
      table.append('\n');
    }
    return table.toString().stripTrailing();
  }


}
