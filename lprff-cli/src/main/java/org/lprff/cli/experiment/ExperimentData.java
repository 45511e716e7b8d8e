package org.lprff.cli.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.cli.workflow.ShippedData;
import org.lprff.cli.options.TrainingOptions;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.Human;
import org.lprff.cli.workflow.CompareData;
import org.lprff.arrow.input.RowTable;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.train.loss.Task;

/**
 * The rows of an experiment: a data set by name ({@value #DIAMONDS}, shipped inside lprff, or
 * {@value #FASHION_MNIST}, found under {@code $LPRFF_DATA} or {@code ../shared/data}) or any file
 * the featurizer reads (CSV with the label last, LIBSVM, IDX images with their labels file,
 * Arrow), read whole, split into training and heldout rows, labels checked against the task and
 * inputs standardized with the training statistics.
 *
 * @param name the data's name in titles and files ("diamonds", or the file's name)
 * @param description a line saying where the rows came from and how they were prepared
 * @param train the training rows (σ and λ are chosen on a split of these, never on heldout)
 * @param heldout the heldout rows
 * @param task regression, binary or multiclass
 * @param classes 1 for regression
 */
public record ExperimentData(
    String name, String description, RowTable train, RowTable heldout, Task task, int classes) {

  public static final String DIAMONDS = "diamonds";
  public static final String FASHION_MNIST = "fashion-mnist";

  /** The seed of the 80/20 split of a single file, fixed so that every seed sees the same rows. */
  public static final long SPLIT_SEED = 1;

  /** The stream of {@link RandomParameters#permutation} that picks a subset of training rows. */
  static final int STREAM_TRAIN_SUBSET = Integer.MAX_VALUE - 2;

  /**
   * Where to find the data and how to read it.
   *
   * @param data {@value #DIAMONDS}, {@value #FASHION_MNIST} or a path
   * @param heldout a heldout file (PATH only), or null to split the data 80/20
   * @param format auto, csv, libsvm, idx or arrow
   * @param labelColumn the label column of CSV and Arrow input, or null for the last
   * @param idxLabels the labels of IDX images, or null to look beside them
   * @param heldoutIdxLabels the labels of heldout IDX images, or null to look beside them
   * @param task "regression", "classification" or null for the data's own (diamonds:
   *     regression, Fashion-MNIST: classification, a path: regression)
   * @param logLabel regress ln(label) (diamonds: always)
   * @param standardize null for the data's default (Fashion-MNIST's pixels / 255: no; else yes)
   */
  public record Source(
      String data, Path heldout, String format, String labelColumn, Path idxLabels,
      Path heldoutIdxLabels, String task, boolean logLabel, Boolean standardize) {}

  /** Reads, splits and prepares the rows {@code source} names; at most {@code maxTrainRows}. */
  public static ExperimentData load(Source source, int maxTrainRows) throws IOException {
    if (source.data() == null || source.data().isBlank()) {
      throw new UsageException("--data is empty; expected diamonds, fashion-mnist or a path to a"
          + " CSV, LIBSVM, IDX or Arrow file");
    }
    return switch (source.data()) {
      case DIAMONDS -> diamonds(source, maxTrainRows);
      case FASHION_MNIST -> fashionMnist(source, maxTrainRows);
      default -> file(source, maxTrainRows);
    };
  }

  private static ExperimentData diamonds(Source source, int maxTrainRows) throws IOException {
    requireNamedOnly(source, DIAMONDS);
    Path copy = Files.createTempFile("lprff-diamonds", ".csv");
    try {
      try (InputStream in = ShippedData.diamonds()) {
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      }
      RowTable all;
      try (BufferAllocator allocator = new RootAllocator()) {
        all = CompareData.read(copy, "csv", null, null, "--idx-labels", allocator);
      }
      RowTable[] parts = all.split(SPLIT_SEED);
      return prepare(DIAMONDS, "diamonds (shipped in lprff): 53,940 rows, 9 features, target"
          + " ln(price)", parts[0], parts[1], source.task() == null ? "regression" : source.task(),
          true, source.standardize() == null || source.standardize(), maxTrainRows);
    } finally {
      Files.deleteIfExists(copy);
    }
  }

  private static ExperimentData fashionMnist(Source source, int maxTrainRows) throws IOException {
    requireNamedOnly(source, FASHION_MNIST);
    // The property first, so that tests can point at a folder without the environment.
    String env = System.getProperty("lprff.data", System.getenv("LPRFF_DATA"));
    Path dir = (env != null && !env.isBlank() ? Path.of(env) : Path.of("..", "shared", "data"))
        .resolve(FASHION_MNIST);
    String[] files = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
    for (String f : files) {
      if (!Files.isRegularFile(dir.resolve(f))) {
        throw new IllegalArgumentException("--data fashion-mnist: no " + dir.resolve(f)
            + " (set LPRFF_DATA to the folder holding fashion-mnist/, or give the IDX files"
            + " with --data PATH --heldout PATH)");
      }
    }
    RowTable train;
    RowTable heldout;
    try (BufferAllocator allocator = new RootAllocator()) {
      train = CompareData.read(dir.resolve(files[0]), "idx", null, dir.resolve(files[1]),
          "--idx-labels", allocator);
      heldout = CompareData.read(dir.resolve(files[2]), "idx", null, dir.resolve(files[3]),
          "--heldout-idx-labels", allocator);
    }
    return prepare(FASHION_MNIST, "Fashion-MNIST (" + dir + "): the official 60,000 training and"
        + " 10,000 test images, pixels / 255", train, heldout,
        source.task() == null ? "classification" : source.task(), source.logLabel(),
        source.standardize() != null && source.standardize(), maxTrainRows);
  }

  private static ExperimentData file(Source source, int maxTrainRows) throws IOException {
    Path path = Path.of(source.data());
    if (!Files.isRegularFile(path)) {
      throw new UsageException("--data is '" + source.data() + "': "
          + (Files.isDirectory(path) ? "a folder" : "no such file") + " (expected " + DIAMONDS
          + ", " + FASHION_MNIST + " or a path to a CSV, LIBSVM, IDX or Arrow file)");
    }
    RowTable train;
    RowTable heldout;
    String how;
    try (BufferAllocator allocator = new RootAllocator()) {
      RowTable first = CompareData.read(path, source.format(), source.labelColumn(),
          idxLabels(path, source.idxLabels()), "--idx-labels", allocator);
      if (source.heldout() == null) {
        RowTable[] parts = first.split(SPLIT_SEED);
        train = parts[0];
        heldout = parts[1];
        how = "row i heldout iff mix64(" + SPLIT_SEED + " + i) mod 5 == 0";
      } else {
        train = first;
        heldout = CompareData.read(source.heldout(), source.format(), source.labelColumn(),
            idxLabels(source.heldout(), source.heldoutIdxLabels()), "--heldout-idx-labels",
            allocator);
        CompareData.requireSameColumns(train, path, heldout, source.heldout());
        how = "heldout " + source.heldout();
      }
    }
    return prepare(path.getFileName().toString(), path + ": " + (train.n() + heldout.n())
        + " rows, " + train.d() + " features; " + how, train, heldout,
        source.task() == null ? "regression" : source.task(), source.logLabel(),
        source.standardize() == null || source.standardize(), maxTrainRows);
  }

  /**
   * The labels file of IDX images: the one given, or {@code X-labels-idx1-ubyte[.gz]} beside
   * {@code X-images-idx3-ubyte[.gz]} when it exists; null for other files.
   */
  static Path idxLabels(Path images, Path given) {
    if (given != null) {
      return given;
    }
    String name = images.getFileName().toString();
    if (!name.contains("-images-idx3-ubyte")) {
      return null;
    }
    Path sibling = images.resolveSibling(
        name.replace("-images-idx3-ubyte", "-labels-idx1-ubyte"));
    return Files.isRegularFile(sibling) ? sibling : null;
  }

  private static void requireNamedOnly(Source source, String name) {
    if (source.heldout() != null || source.idxLabels() != null
        || source.heldoutIdxLabels() != null || source.labelColumn() != null
        || !"auto".equals(source.format())) {
      throw new UsageException("--data " + name + " brings its own files and split: --heldout,"
          + " --format, --label-column and the IDX labels options apply to --data PATH only");
    }
  }

  private static ExperimentData prepare(String name, String description, RowTable train,
      RowTable heldout, String taskName, boolean logLabel, boolean standardize, int maxTrainRows) {
    boolean classification = TrainingOptions.classification(taskName);
    if (classification && logLabel) {
      throw new UsageException("--log-label applies to regression, not --task classification");
    }
    if (maxTrainRows > 0 && train.n() > maxTrainRows) {
      int[] subset = Arrays.copyOf(
          RandomParameters.permutation(SPLIT_SEED, STREAM_TRAIN_SUBSET, train.n()), maxTrainRows);
      Arrays.sort(subset);
      description += "; a seeded " + Human.count(maxTrainRows) + " of the "
          + Human.count(train.n()) + " training rows";
      train = train.select(subset);
    }
    if (logLabel) {
      CompareData.logLabels(train, "train");
      CompareData.logLabels(heldout, "heldout");
    }
    Task task = CompareData.task(train, heldout, classification);
    if (standardize) {
      CompareData.standardize(train, heldout);
      description += "; standardized with the training rows' statistics";
    }
    return new ExperimentData(name, description, train, heldout, task,
        CompareData.classes(task));
  }
}
