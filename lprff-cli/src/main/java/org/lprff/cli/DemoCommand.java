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
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.arrow.FeatureSchema;
import org.lprff.arrow.FeatureWriter;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.RawBatch;
import org.lprff.arrow.input.Standardization;
import org.lprff.vector.Featurizer;
import org.lprff.vector.FeaturizerSpec;
import org.lprff.vector.KernelFunction;
import org.lprff.vector.Quantizer;
import picocli.CommandLine.Command;
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
    sortOptions = false,
    description = {
      "Low precision vs full precision on diamonds (53,940 rows, 9 features, target"
          + " log(price); shipped inside lprff, MIT, from ggplot2): a seeded 80/20 split (row i"
          + " is heldout iff mix64(seed + i) mod 5 == 0, mix64 = SplitMix64's finalizer),"
          + " features standardized with the train split's mean and standard deviation, random"
          + " Fourier features of a Gaussian kernel at 32 (float32), 1, 4 and 8 bits with the"
          + " same m, each trained by SGD with early stopping (batch 250, lr 1, lambda 1e-6).",
      "Prints a table: bits, m, heldout MSE, training memory (feature generation + mini-batch +"
          + " model, the LP-RFF paper's Table 1), featurize and train seconds."
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

  @Option(names = "--features", defaultValue = "4096", paramLabel = "M",
      description = "Features m (default ${DEFAULT-VALUE}).")
  int features;

  @Option(names = "--projection", defaultValue = "circulant", paramLabel = "P",
      description = "dense, circulant, fastfood or orthogonal (default ${DEFAULT-VALUE}).")
  String projection;

  @Option(names = "--sigma", defaultValue = "2.0", paramLabel = "S",
      description = "Gaussian kernel bandwidth (default ${DEFAULT-VALUE}).")
  double sigma;

  @Option(names = "--seed", defaultValue = "1", paramLabel = "S",
      description = "Seed of the split, the featurizer and the shuffling (default"
          + " ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--epochs", defaultValue = "100", paramLabel = "N",
      description = "Epochs at most per configuration (default ${DEFAULT-VALUE}).")
  int epochs;

  @Option(names = "--json", description = "Print one JSON object per configuration (one line"
      + " each) instead of the table.")
  boolean json;

  @Option(names = {"--quiet", "-q"}, description = "No progress lines.")
  boolean quiet;

  /** SplitMix64's finalizer (Steele, Lea, Flood 2014). */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** Whether data row i (0-based, header excluded) is in the heldout 20%. */
  static boolean heldout(long seed, long i) {
    return Long.remainderUnsigned(mix64(seed + i), 5) == 0;
  }

  /** The rows of one split: x row-major n x D (standardized later), y = log(price). */
  record Split(int rows, float[] x, float[] y) {}

  @Override
  public Integer call() throws IOException {
    if (features < 1) {
      throw new ParameterException(command.commandLine(), "--features is " + features
          + ", expected >= 1");
    }
    PrintWriter err = command.commandLine().getErr();
    PrintWriter out = command.commandLine().getOut();
    long started = System.nanoTime();
    Split[] splits = load();
    Standardization standardization = standardize(splits[0], splits[1]);
    if (!quiet) {
      err.println(String.format(Locale.ROOT, "diamonds: %s train rows, %s heldout rows (seed %d),"
          + " m = %s, %s projection, sigma %s", Format.count(splits[0].rows()),
          Format.count(splits[1].rows()), seed, Format.count(features), projection, sigma));
      err.flush();
    }
    List<Map<String, Object>> results = new ArrayList<>();
    Path dir = Files.createTempDirectory("lprff-demo");
    int threads = Runtime.getRuntime().availableProcessors();
    ExecutorService pool = threads > 1 ? Executors.newFixedThreadPool(threads - 1, r -> {
      Thread t = new Thread(r, "lprff-demo-featurize");
      t.setDaemon(true);
      return t;
    }) : null;
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int bits : BITS) {
        FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(sigma), D, features,
            bits, SpecOptions.projectionName(projection), seed, Quantizer.STOCHASTIC);
        if (!quiet) {
          err.println("b = " + bits + ": featurizing");
          err.flush();
        }
        long t0 = System.nanoTime();
        Path train = dir.resolve("train-" + bits + ".arrow");
        Path heldout = dir.resolve("heldout-" + bits + ".arrow");
        FeatureSchema schema =
            FeatureSchema.of(spec, LabelType.REGRESSION, false, standardization.toMap());
        write(train, spec, schema, splits[0], pool, allocator);
        write(heldout, spec, schema, splits[1], pool, allocator);
        double featurizeSeconds = (System.nanoTime() - t0) / 1e9;
        Training.Options options = new Training.Options(false, epochs, null,
            250, Training.DEFAULT_L2, "early-stop", seed);
        Training.Outcome outcome = Training.run(train, heldout, options, quiet ? null : err);
        Files.deleteIfExists(train);
        Files.deleteIfExists(heldout);
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
        if (!quiet) {
          err.println("b = " + bits + ": " + TrainCommand.summary(outcome));
          err.flush();
        }
      }
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
      try (Stream<Path> left = Files.walk(dir)) {
        for (Path p : left.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
    if (!json) {
      out.println(table(results));
      out.println(String.format(Locale.ROOT, "total %s", Format.seconds(
          (System.nanoTime() - started) / 1e9)));
      out.flush();
    }
    return 0;
  }

  private Split[] load() throws IOException {
    List<float[]> train = new ArrayList<>();
    List<float[]> held = new ArrayList<>();
    String name = input == null ? "diamonds.csv (shipped)" : input.toString();
    try (InputStream stream = input == null
            ? DemoCommand.class.getResourceAsStream("diamonds.csv")
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
        (heldout(seed, i) ? held : train).add(row);
      }
    }
    return new Split[] {split(train), split(held)};
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

  /** Standardizes both splits in place with the train split's mean and (population) std. */
  private static Standardization standardize(Split train, Split heldout) {
    double[] mean = new double[D];
    double[] std = new double[D];
    for (int r = 0; r < train.rows(); r++) {
      for (int j = 0; j < D; j++) {
        mean[j] += train.x()[r * D + j];
      }
    }
    for (int j = 0; j < D; j++) {
      mean[j] /= train.rows();
    }
    for (int r = 0; r < train.rows(); r++) {
      for (int j = 0; j < D; j++) {
        double v = train.x()[r * D + j] - mean[j];
        std[j] += v * v;
      }
    }
    for (int j = 0; j < D; j++) {
      std[j] = Math.sqrt(std[j] / train.rows());
    }
    for (Split s : new Split[] {train, heldout}) {
      for (int r = 0; r < s.rows(); r++) {
        for (int j = 0; j < D; j++) {
          s.x()[r * D + j] = (float) ((s.x()[r * D + j] - mean[j]) / std[j]);
        }
      }
    }
    return Standardization.of(List.of("carat", "cut", "color", "clarity", "depth", "table", "x",
        "y", "z"), mean, std);
  }

  private static void write(Path file, FeaturizerSpec spec, FeatureSchema schema, Split split,
      ExecutorService pool, BufferAllocator allocator) throws IOException {
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
          return new RawBatch(Arrays.copyOfRange(split.x(), from * D, (from + count) * D), count,
              Arrays.copyOfRange(split.y(), from, from + count), from);
        });
  }

  private static String table(List<Map<String, Object>> results) {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
        "%5s  %6s  %12s  %16s  %11s  %9s  %6s%n", "bits", "m", "heldout MSE", "training memory",
        "featurize s", "train s", "epochs"));
    for (Map<String, Object> o : results) {
      @SuppressWarnings("unchecked")
      Map<String, Object> mem = (Map<String, Object>) o.get("training_memory");
      long bitsTotal = (Long) mem.get("total_bits");
      s.append(String.format(Locale.ROOT, "%5d  %6d  %12.5f  %16s  %11.2f  %9.2f  %6d%n",
          (Integer) o.get("bits"), (Integer) o.get("features"), (Double) o.get("heldout_mse"),
          Format.bytes(bitsTotal / 8), (Double) o.get("featurize_seconds"),
          (Double) o.get("train_seconds"), (Integer) o.get("epochs")));
    }
    return s.toString().stripTrailing();
  }

}
