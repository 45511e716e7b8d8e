package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.arrow.FeatureSchema;
import org.lprff.arrow.FeatureWriter;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.IdxRowSource;
import org.lprff.arrow.input.LabelColumn;
import org.lprff.arrow.input.LabelKind;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.arrow.input.Standardization;
import org.lprff.arrow.model.Bandwidth;
import org.lprff.cli.options.InputOptions;
import org.lprff.cli.options.QuietOption;
import org.lprff.cli.options.RowRange;
import org.lprff.cli.options.SpecOptions;
import org.lprff.cli.options.ThreadsOption;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.FeatureFileInfo;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.Progress;
import org.lprff.cli.output.StandardStreams;
import org.lprff.cli.output.Version;
import org.lprff.cli.workflow.HelperPool;
import org.lprff.cli.workflow.RowSourceBatches;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.MedianHeuristic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code lprff featurize}: reads rows, optionally standardizes them (statistics from a first pass
 * or from the {@code --like} file), featurizes them in parallel and writes an Arrow feature file,
 * atomically (nothing is left at the output path on failure).
 */
@Command(
    name = "featurize",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Turn rows of numbers into low-precision random Fourier features",
    sortOptions = false,
    description = {
      "Turn rows of numbers into low-precision random Fourier features, written as an Arrow IPC"
          + " file (or stream) with the featurizer spec in its metadata.",
      "",
      "With --like FILE the spec and standardization of an existing feature file are used, so"
          + " heldout data is featurized exactly like the training data."
    })
final class FeaturizeCommand implements Callable<Integer> {

  @Spec CommandSpec command;

  @Mixin InputOptions in;

  @Option(
      names = "--standardize",
      description = "Standardize each column with its mean and standard deviation (a first pass"
          + " over the input); the statistics are stored in the file's metadata.")
  boolean standardize;

  @Mixin SpecOptions spec;

  @Option(
      names = "--like",
      paramLabel = "FILE",
      description = "Take the spec and standardization from this feature file; spec options given"
          + " as well must agree with it.")
  Path like;

  @Option(
      names = {"--output", "-o"},
      required = true,
      paramLabel = "FILE",
      description = "The feature file to write (replaced if it exists), or - for standard output"
          + " (the Arrow IPC stream framing, batch by batch: pipe it into pyarrow's"
          + " ipc.open_stream).")
  Path output;

  @Option(
      names = "--ipc",
      paramLabel = "FRAMING",
      description = "file (random access; default) or stream (the only framing of --output -).")
  String ipc;

  @Option(
      names = "--batch-size",
      paramLabel = "ROWS",
      defaultValue = "1024",
      description = "Rows per record batch (default ${DEFAULT-VALUE}).")
  int batchSize;

  @Mixin ThreadsOption threads;

  @Option(
      names = "--rows",
      paramLabel = "FROM:TO",
      description = "Featurize only the input rows FROM (0-based) to TO (exclusive), e.g. 50000:60000"
          + " for a validation split; FROM: runs to the end. Row ids stay the input's row"
          + " indices; --standardize fits the statistics on these rows only.")
  String rows;

  @Option(names = "--row-ids", description = "Write a row_id column (0-based input row numbers).")
  boolean rowIds;

  @Mixin QuietOption quiet;

  @Override
  public Integer call() throws IOException {
    return Failures.usageErrors(command, this::featurize);
  }

  private int featurize() throws IOException {
    return StandardStreams.reading(in.input, file -> {
      in.input = file;
      return featurizeInput();
    });
  }

  private int featurizeInput() throws IOException {
    FeatureWriter.Format framing = framing();
    if (batchSize < 1) {
      throw new UsageException("--batch-size is " + batchSize + ", expected >= 1");
    }
    int threadCount = threads.count();
    RowRange range = rows == null ? null : RowRange.parse(rows);
    checkOutput();
    PrintWriter err = command.commandLine().getErr();
    long started = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator()) {
      Plan plan = plan(allocator, range, err);
      FeatureWriter.Summary summary = write(plan, framing, threadCount, allocator, err);
      if (!quiet.enabled) {
        printSummary(err, summary, plan.spec(), (System.nanoTime() - started) / 1e9);
      }
    }
    return 0;
  }

  /**
   * What the second pass needs, settled by the first.
   *
   * @param totalRows the input's rows if known (IDX, or after standardization), else -1
   */
  private record Plan(
      RowSources.Format format,
      LabelColumn labelColumn,
      FeaturizerSpec spec,
      LabelType labelType,
      Standardization standardization,
      long totalRows,
      RowRange range) {}

  /**
   * Reads the --like file, opens the input once for its columns and labels, settles the spec,
   * and, for --standardize, fits the statistics in a first pass over the input.
   */
  private Plan plan(BufferAllocator allocator, RowRange range, PrintWriter err)
      throws IOException {
    FeatureFileInfo likeFile = like == null ? null : FeatureFileInfo.read(like, allocator);
    LabelType likeLabels = likeFile == null ? null : likeFile.schema().labelType();
    RowSources.Format format = in.format();
    LabelColumn labelColumn = in.labelColumn(format, likeLabels);
    RowSource input = in.open(format, labelColumn, batchSize, allocator);
    try (RowSource source = range == null ? input : range.select(input, in.input.toString())) {
      boolean hasLabels = source.label() == LabelKind.PRESENT && in.keepLabels();
      LabelType labelType = in.labelType(format, hasLabels, likeLabels);
      long totalRows = -1;
      if (input instanceof IdxRowSource idx) {
        totalRows = range == null
            ? idx.imageCount()
            : range.rowsOf(idx.imageCount(), in.input.toString());
      }
      if (likeFile != null) {
        return new Plan(format, labelColumn, likeSpec(likeFile, source), labelType,
            likeStandardization(likeFile, source), totalRows, range);
      }
      Bandwidth bandwidth = spec.kernel.bandwidth(Bandwidth.GIVEN);
      if (bandwidth == Bandwidth.SEARCH) {
        throw new UsageException("--sigma auto chooses sigma on labelled validation rows, which"
            + " featurize does not train on: use lprff fit, or --sigma median");
      }
      if (!standardize && bandwidth == Bandwidth.GIVEN) {
        return new Plan(format, labelColumn, spec.build(source.columns()), labelType, null,
            totalRows, range);
      }
      // A first pass: the statistics for --standardize, the sample for --sigma median.
      Standardization.Accumulator statistics = new Standardization.Accumulator(source.columns());
      long seed = spec.seed == null ? 0 : spec.seed;
      MedianHeuristic.Sampler sampler = bandwidth == Bandwidth.MEDIAN
          ? new MedianHeuristic.Sampler(source.columns(), seed) : null;
      Progress progress = progress(err, (standardize ? "standardizing" : "sampling rows for the"
          + " median heuristic") + " (pass 1 of 2)");
      for (RowBatch batch = source.next(); batch != null; batch = source.next()) {
        statistics.add(batch);
        if (sampler != null) {
          sampler.add(batch.values(), batch.rows(), batch.firstRowId());
        }
        progress.rowsWritten(statistics.count(), totalRows);
      }
      progress.finish();
      if (statistics.count() == 0) {
        throw new IllegalArgumentException(in.input + " has no data rows");
      }
      Standardization standardization =
          standardize ? statistics.finish(source.columnNames()) : null;
      FeaturizerSpec featurizerSpec = sampler == null ? spec.build(source.columns())
          : spec.build(source.columns(), median(sampler, standardization, seed));
      return new Plan(format, labelColumn, featurizerSpec, labelType, standardization,
          statistics.count(), range);
    }
  }

  /**
   * The median heuristic over the sampled rows, standardized first when the features will be
   * (sigma is a distance between the rows the featurizer sees).
   */
  private double median(MedianHeuristic.Sampler sampler, Standardization standardization,
      long seed) {
    int n = sampler.rows();
    if (n < 2) {
      throw new IllegalArgumentException("--sigma median needs at least 2 rows; " + in.input
          + " has " + n);
    }
    float[] rows = sampler.sample();
    int d = rows.length / n;
    if (standardization != null) {
      standardization.apply(new RowBatch(rows, n, d, null, 0));
    }
    double median = MedianHeuristic.distance(rows, n, d, seed);
    if (!(median > 0)) {
      throw new IllegalArgumentException("--sigma median: the sampled rows of " + in.input
          + " are all equal (median distance " + median + "); give --sigma a number");
    }
    if (!quiet.enabled) {
      PrintWriter err = command.commandLine().getErr();
      err.println(String.format(Locale.ROOT, "sigma %.6g: the median distance between %d seeded"
          + " pairs of %d sampled rows%s", median, MedianHeuristic.PAIRS, n,
          standardization == null ? "" : " (standardized)"));
      err.flush();
    }
    return median;
  }

  /** The second pass: reads, standardizes, featurizes on a pool and writes, atomically. */
  private FeatureWriter.Summary write(
      Plan plan, FeatureWriter.Format framing, int threadCount, BufferAllocator allocator,
      PrintWriter err) throws IOException {
    Map<String, String> metadata =
        plan.standardization() == null ? Map.of() : plan.standardization().toMap();
    FeatureSchema schema = FeatureSchema.of(plan.spec(), plan.labelType(), rowIds, metadata);
    Featurizer featurizer = Featurizer.of(plan.spec());
    Progress progress = progress(err, "featurizing");
    FeatureWriter.Builder builder = StandardStreams.isDash(output)
        ? FeatureWriter.builder(StandardStreams.current().outChannel(), featurizer, schema,
            allocator)
        : FeatureWriter.builder(output, featurizer, schema, allocator).format(framing);
    try (HelperPool helpers = HelperPool.start(threadCount, "lprff-featurize");
        RowSource source = open(plan.format(), plan.labelColumn(), plan.range(), allocator);
        FeatureWriter writer = builder
            .batchSize(batchSize)
            .executor(helpers.executor())
            .progress(progress)
            .totalRows(plan.totalRows())
            .open()) {
      RowSourceBatches batches = new RowSourceBatches(
          source, plan.standardization(), plan.labelType(), in.input.toString());
      writer.writeAll(batches);
      if (batches.rows() == 0) {
        throw new IllegalArgumentException(in.input + " has no data rows");
      }
      return writer.finish();
    } finally {
      progress.finish();
    }
  }

  /** The input, or only the rows of {@code range} when it is not null. */
  private RowSource open(
      RowSources.Format format, LabelColumn labelColumn, RowRange range,
      BufferAllocator allocator) throws IOException {
    RowSource source = in.open(format, labelColumn, batchSize, allocator);
    return range == null ? source : range.select(source, in.input.toString());
  }

  private FeatureWriter.Format framing() {
    if (StandardStreams.isDash(output)) {
      if (ipc != null && !ipc.equalsIgnoreCase("stream")) {
        throw new UsageException("--ipc " + ipc + " with --output -: standard output takes the"
            + " stream framing (the file framing's footer points back into the bytes); drop"
            + " --ipc");
      }
      return FeatureWriter.Format.STREAM;
    }
    if (ipc == null) {
      return FeatureWriter.Format.FILE;
    }
    return switch (ipc.toLowerCase(Locale.ROOT)) {
      case "file" -> FeatureWriter.Format.FILE;
      case "stream" -> FeatureWriter.Format.STREAM;
      default -> throw new UsageException("--ipc is '" + ipc + "', expected file or stream");
    };
  }

  /** Refuses an output the writer could not create, or one that is an input of this run. */
  private void checkOutput() throws IOException {
    if (StandardStreams.isDash(output)) {
      return;
    }
    Path directory = output.toAbsolutePath().getParent();
    if (directory == null || !Files.isDirectory(directory)) {
      throw new IllegalArgumentException(
          "the output's directory " + directory + " does not exist");
    }
    if (Files.isDirectory(output)) {
      throw new IllegalArgumentException("the output " + output + " is a directory");
    }
    for (Path read : new Path[] {in.input, in.idxLabels, like}) {
      if (read != null && Files.exists(read) && Files.exists(output)
          && Files.isSameFile(read, output)) {
        throw new IllegalArgumentException(
            "the output " + output + " is also an input of this run (" + read + ")");
      }
    }
  }

  private FeaturizerSpec likeSpec(FeatureFileInfo likeFile, RowSource source) {
    FeaturizerSpec likeSpec = spec.like(likeFile.schema().spec(), like.toString());
    if (source.columns() != likeSpec.inputDim()) {
      throw new IllegalArgumentException(
          "input " + in.input + " has " + source.columns() + " feature columns, but " + like
              + " has " + FeaturizerSpec.KEY_INPUT_DIM + "=" + likeSpec.inputDim());
    }
    return likeSpec;
  }

  private Standardization likeStandardization(FeatureFileInfo likeFile, RowSource source) {
    Standardization statistics = likeFile.standardization();
    if (statistics == null) {
      if (standardize) {
        throw new UsageException(
            "--standardize conflicts with --like " + like + ", which has no standardization"
                + " (with --like the statistics come from the file)");
      }
      return null;
    }
    try {
      statistics.requireColumns(source.columnNames());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "input " + in.input + " does not match the standardization of " + like + ": "
              + e.getMessage(), e);
    }
    return statistics;
  }

  private Progress progress(PrintWriter err, String task) {
    return quiet.enabled
        ? Progress.silent()
        : new Progress(err, task, Progress.stderrIsTerminal(), System::nanoTime);
  }

  private static void printSummary(
      PrintWriter err, FeatureWriter.Summary summary, FeaturizerSpec spec, double seconds) {
    err.println(String.format(Locale.ROOT,
        "wrote %s: %s rows, %d -> %s features at %d bits, %s in %s (%s rows/s, %.1f MB/s)",
        summary.file() == null ? "the stream to standard output" : summary.file(),
        Human.count(summary.rows()),
        spec.inputDim(),
        Human.count(spec.features()),
        spec.bits(),
        Human.bytes(summary.bytes()),
        Human.seconds(seconds),
        Human.count(Math.round(summary.rows() / seconds)),
        summary.bytes() / 1e6 / seconds));
    err.flush();
  }
}
