package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.arrow.input.RowTable;
import org.lprff.arrow.model.Bandwidth;
import org.lprff.arrow.model.BandwidthSearch;
import org.lprff.arrow.model.FittedModel;
import org.lprff.cli.options.JsonOption;
import org.lprff.cli.options.LogLabelOption;
import org.lprff.cli.options.QuietOption;
import org.lprff.cli.options.SpecOptions;
import org.lprff.cli.options.ThreadsOption;
import org.lprff.cli.options.TrainingOptions;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.StandardStreams;
import org.lprff.cli.output.Version;
import org.lprff.cli.workflow.CompareData;
import org.lprff.cli.workflow.HelperPool;
import org.lprff.report.Json;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.train.TrainingRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code lprff fit}: raw rows in, a model out, the kernel's bandwidth chosen on validation rows;
 * the options mapped onto {@link FittedModel#fit(FeaturizerSpec, RowTable, RowTable,
 * TrainingRequest, Bandwidth, Consumer)}, which owns the workflow.
 */
@Command(
    name = "fit",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Fit a model on raw rows, the kernel's bandwidth chosen for you",
    sortOptions = false,
    description = {
      "Fit an LP-RFF model on raw rows (CSV, LIBSVM, IDX or Arrow): standardize the columns,"
          + " choose the kernel's bandwidth sigma on validation rows (--validation, else a seeded"
          + " tenth of the training rows), coarse to fine on few features and a subsample, then"
          + " featurize every training row at --features and --bits, train with l2 chosen on the"
          + " same validation rows, and write a model file (.lprff) that predict applies to raw"
          + " rows. No heldout rows are read.",
      "",
      "Progress lines go to stderr; --json prints the result, every sigma tried with its"
          + " validation metric, on stdout."
    })
final class FitCommand implements Callable<Integer> {

  /** fit's defaults: the and the demo's operating point. */
  static final int DEFAULT_FEATURES = 4096;

  static final int DEFAULT_BITS = 4;

  @Spec CommandSpec command;

  @Option(names = {"--input", "-i"}, required = true, paramLabel = "FILE",
      description = "The training rows with their labels: CSV with a header, LIBSVM, IDX images"
          + " (with --idx-labels), or Arrow; - reads them from standard input.")
  Path input;

  @Option(names = "--validation", paramLabel = "FILE",
      description = "Validation rows (same columns) that choose sigma and l2, instead of a seeded"
          + " 10%% of the training rows; the model is then refit on both.")
  Path validation;

  @Option(names = "--task", required = true, paramLabel = "TASK",
      description = "regression, or classification (labels are class indices 0, 1, ...; 2"
          + " classes train a logistic model, more a softmax one).")
  String task;

  @Option(names = "--classes", paramLabel = "K",
      description = "Classification: the number of classes K >= 2; default 1 + the largest"
          + " label.")
  Integer classes;

  @Option(names = {"--model", "-o"}, required = true, paramLabel = "FILE",
      description = "The model file to write (.lprff; replaced atomically if it exists).")
  Path model;

  @Option(names = "--format", defaultValue = "auto", paramLabel = "NAME",
      description = "auto, csv, libsvm, idx or arrow, for both files (default ${DEFAULT-VALUE}).")
  String format;

  @Option(names = "--label-column", paramLabel = "COLUMN",
      description = "The label column of CSV and Arrow input: a name, a 0-based index, first or"
          + " last (default last).")
  String labelColumn;

  @Option(names = "--idx-labels", paramLabel = "FILE",
      description = "The IDX labels file of the --input images.")
  Path idxLabels;

  @Option(names = "--validation-idx-labels", paramLabel = "FILE",
      description = "The IDX labels file of the --validation images.")
  Path validationIdxLabels;

  @Mixin LogLabelOption logLabel = new LogLabelOption();

  /** The feature map: --sigma (default auto), --features (4096), --bits (4), ... */
  @Mixin SpecOptions spec = new SpecOptions();

  @Mixin ThreadsOption threads = new ThreadsOption();

  @Mixin JsonOption json;

  @Mixin QuietOption quiet;

  @Override
  public Integer call() throws IOException {
    return Failures.usageErrors(command, this::fit);
  }

  private int fit() throws IOException {
    boolean classification = TrainingOptions.classification(task);
    TrainingOptions.requireClasses(classes, classification);
    if (logLabel.enabled && classification) {
      throw new UsageException("--log-label applies to regression, not classification");
    }
    TrainingOptions.requireDirectoryOf(model);
    Bandwidth bandwidth = spec.kernel.bandwidth(Bandwidth.SEARCH);
    PrintWriter err = command.commandLine().getErr();
    Consumer<String> progress = quiet.enabled ? null : line -> {
      err.println(line);
      err.flush();
    };
    RowTable train;
    RowTable valid = null;
    try (BufferAllocator allocator = new RootAllocator()) {
      train = read(allocator);
      if (validation != null) {
        valid = CompareData.read(validation, format, labelColumn, validationIdxLabels,
            "--validation-idx-labels", allocator);
        CompareData.requireSameColumns(train, input, valid, validation);
      }
    }
    if (logLabel.enabled) {
      CompareData.logLabels(train, "train");
      if (valid != null) {
        CompareData.logLabels(valid, "validation");
      }
    }
    // With median or auto the length scale is the library's to set: 1 holds its place.
    FeaturizerSpec given = spec.build(train.d(),
        bandwidth == Bandwidth.GIVEN ? spec.kernel.scaleNumber() : 1.0, DEFAULT_FEATURES,
        DEFAULT_BITS);
    if (progress != null) {
      progress.accept(String.format(Locale.ROOT, "%s: %s training rows%s, d = %d; %s, m = %s at"
          + " %d bits, %s", input, Human.count(train.n()), valid == null ? ""
          : " and " + Human.count(valid.n()) + " validation rows", train.d(),
          given.kernel().name(), Human.count(given.features()), given.bits(),
          given.projection()));
    }
    long started = System.nanoTime();
    FittedModel fitted;
    try (HelperPool helpers = HelperPool.start(threads.count(), "lprff-fit")) {
      TrainingRequest request = (classification
          ? TrainingRequest.classification(given.modelFeatures()).withClasses(classes)
          : TrainingRequest.regression(given.modelFeatures())).withExecutor(helpers.executor());
      fitted = FittedModel.fit(given, train, valid, request, bandwidth, progress);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    fitted.save(model);
    PrintWriter out = command.commandLine().getOut();
    if (json.enabled) {
      out.println(Json.write(json(fitted, seconds)));
    } else if (!quiet.enabled) {
      out.println(summary(fitted, seconds));
    }
    out.flush();
    return 0;
  }

  /** The training rows, from standard input when --input is -. */
  private RowTable read(BufferAllocator allocator) throws IOException {
    return StandardStreams.reading(input, file ->
        CompareData.read(file, format, labelColumn, idxLabels, "--idx-labels", allocator));
  }

  private String summary(FittedModel fitted, double seconds) {
    Map<String, String> t = fitted.training();
    FeaturizerSpec s = fitted.spec();
    String rule = t.getOrDefault("sigma_rule", "given");
    BandwidthSearch.Result search = BandwidthSearch.Result.fromMap(t);
    String how = switch (rule) {
      case "search" -> String.format(Locale.ROOT, "%.3g x the median distance, the best of %d"
          + " tried on validation rows in %s%s", search.factor(), search.trials().size(),
          Human.seconds(search.seconds()), search.edge() == BandwidthSearch.Edge.NONE ? ""
          : ", at the " + search.edge().name().toLowerCase(Locale.ROOT) + " end of the range");
      case "median" -> "the median heuristic";
      default -> "given";
    };
    return String.format(Locale.ROOT, "fit: sigma %s (%s), l2 %s, m = %d at %d bits, %s; %s;"
        + " model written to %s", Human.number(s.kernel().lengthScale()), how,
        Human.number(fitted.l2()), s.features(), s.bits(), s.projection(),
        Human.seconds(seconds), model);
  }

  private Map<String, Object> json(FittedModel fitted, double seconds) {
    Map<String, String> t = fitted.training();
    FeaturizerSpec s = fitted.spec();
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("model", model.toString());
    o.put("task", fitted.task().toString());
    o.put("sigma", s.kernel().lengthScale());
    o.put("sigma_rule", t.getOrDefault("sigma_rule", "given"));
    if (t.containsKey("sigma_median_distance")) {
      o.put("median_distance", Double.parseDouble(t.get("sigma_median_distance")));
    }
    BandwidthSearch.Result search = BandwidthSearch.Result.fromMap(t);
    if (search != null) {
      o.put("sigma_edge", search.edge().name().toLowerCase(Locale.ROOT));
      List<Map<String, Object>> trials = new ArrayList<>();
      for (BandwidthSearch.Trial trial : search.trials()) {
        Map<String, Object> tr = new LinkedHashMap<>();
        tr.put("stage", trial.stage());
        tr.put("features", trial.features());
        tr.put("sigma", trial.lengthScale());
        tr.put("factor", trial.factor());
        tr.put("l2", trial.l2());
        tr.put("validation_metric", trial.metric());
        trials.add(tr);
      }
      o.put("sigma_trials", trials);
      o.put("search_rows", search.fitRows());
      o.put("search_validation_rows", search.validationRows());
      o.put("search_seconds", search.seconds());
    }
    o.put("l2", fitted.l2());
    o.put("features", s.features());
    o.put("bits", s.bits());
    o.put("projection", s.projection());
    o.put("kernel", s.kernel().name());
    o.put("rows", Long.parseLong(t.get("rows")));
    o.put("solver", t.get("solver"));
    o.put("seconds", seconds);
    return o;
  }
}
