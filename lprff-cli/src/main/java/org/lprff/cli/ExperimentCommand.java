package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.lprff.cli.experiment.Experiment;
import org.lprff.cli.experiment.ExperimentData;
import org.lprff.cli.experiment.ExperimentPlan;
import org.lprff.cli.options.LandmarksOption;
import org.lprff.cli.options.QuantizerOption;
import org.lprff.cli.options.QuietOption;
import org.lprff.cli.options.RawRowsOptions;
import org.lprff.cli.options.ThreadsOption;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.Version;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code lprff experiment}: the LP-RFF paper's results on one data set, with plots. */
@Command(
    name = "experiment",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Run the LP-RFF paper's experiment on a data set",
    sortOptions = false,
    description = {
      "The LP-RFF paper's experiment on a data set: full-precision random Fourier features"
          + " (dense and circulant), LP-RFF (circulant, b = 1, 2, 4, 8, 16, each --quantizer)"
          + " and Nyström over a range of m, each at every seed; sigma and l2 chosen on a"
          + " validation split of the training rows (never on heldout). Writes to --out:"
          + " runs.csv (one row per method, quantizer, m, b and seed: heldout metric, delta1,"
          + " delta2, Frobenius and spectral kernel error, training memory bits, seconds), the"
          + " plots of the paper's Figures 3, 4 and 5 (PNG) and summary.md (its Table 2: the"
          + " memory LP-RFF saves at the accuracy of full precision). Each run is appended as it"
          + " finishes: --resume continues an interrupted experiment.",
      "",
      "Data: diamonds (shipped in lprff; regression of ln(price)), fashion-mnist (from"
          + " $LPRFF_DATA/fashion-mnist or ../shared/data/fashion-mnist; 10-class"
          + " classification, the official test images heldout) or a PATH to a CSV file with a"
          + " header and the label last (or --label-column), a LIBSVM file, IDX images (their"
          + " labels file beside them or --idx-labels) or an Arrow file; split 80/20 unless"
          + " --heldout."
    })
final class ExperimentCommand implements Callable<Integer> {

  @Spec CommandSpec command;

  @Option(names = "--data", defaultValue = ExperimentData.DIAMONDS, paramLabel = "DATA",
      description = "diamonds, fashion-mnist or a PATH (default ${DEFAULT-VALUE}).")
  String data;

  @Mixin RawRowsOptions raw;

  @Option(names = "--task", paramLabel = "TASK",
      description = "regression or classification (default: diamonds regression, fashion-mnist"
          + " classification, a PATH regression).")
  String task;

  @Option(names = "--standardize", negatable = true, fallbackValue = "true",
      description = "Standardize inputs with the training statistics (default: on, except"
          + " fashion-mnist's pixels / 255).")
  Boolean standardize;

  @Option(names = "--quick",
      description = "A few minutes on 2 cores: m in 128, 512, 2048, Nyström at 128, 512, 1024,"
          + " at most 20,000 training rows (default: m from 256 to 4096, Nyström to 2048, every"
          + " row).")
  boolean quick;

  @Option(names = {"--features", "-m"}, split = ",", paramLabel = "M",
      description = "The m of the random-features methods, a comma list (default: the plan's).")
  List<Integer> features;

  @Mixin LandmarksOption nystrom;

  @Option(names = {"--bits", "-b"}, split = ",", paramLabel = "B",
      description = "LP-RFF's bits, a comma list of 1, 2, 4, 8, 16 (default: all five).")
  List<Integer> bits;

  /** Null unless given: the plan's quantizers, stochastic and nearest. */
  @Mixin QuantizerOption quantizer;

  @Option(names = "--kernel-rows", paramLabel = "N",
      description = "Heldout subsample of the kernel metrics (default 1000; all heldout rows if"
          + " fewer).")
  int kernelRows;

  @Option(names = "--seeds", defaultValue = "3", paramLabel = "N",
      description = "Seeds 1..N of every method's feature map, rounding and landmarks (default"
          + " ${DEFAULT-VALUE}).")
  int seeds;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Output folder (default: experiment-DATA, -quick added with --quick).")
  Path out;

  @Option(names = "--resume",
      description = "Continue --out's experiment: the same sigma and l2, the runs already in"
          + " runs.csv skipped.")
  boolean resume;

  @Mixin ThreadsOption threads;

  @Mixin QuietOption quiet;

  @Override
  public Integer call() throws IOException {
    return Failures.usageErrors(command, this::experiment);
  }

  private int experiment() throws IOException {
    if (seeds < 1 || seeds > 1000) {
      throw new UsageException("--seeds is " + seeds + ", expected 1 to 1000");
    }
    PrintWriter err = command.commandLine().getErr();
    PrintWriter stdout = command.commandLine().getOut();
    ExperimentData.Source source = new ExperimentData.Source(data, raw.heldout, raw.format,
        raw.labelColumn, raw.idxLabels, raw.heldoutIdxLabels, task, raw.logLabel.enabled,
        standardize);
    Path folder = out != null ? out : Path.of("experiment-" + folderName(data)
        + (quick ? "-quick" : ""));
    ExperimentPlan plan = (quick ? ExperimentPlan.quick() : ExperimentPlan.full())
        .with(features, nystrom.counts(), bits,
            quantizer.name == null ? null : quantizer.quantizers(), kernelRows);
    Experiment.Settings settings =
        new Experiment.Settings(source, plan, seeds, folder, resume, threads.count());
    Experiment.Outcome outcome = Experiment.run(settings, line -> {
      if (!quiet.enabled) {
        err.println(line);
        err.flush();
      }
    });
    stdout.println("experiment: " + outcome.ran() + " runs" + (outcome.skipped() > 0
        ? " (" + outcome.skipped() + " already done)" : "") + " in "
        + Human.seconds(outcome.seconds()) + "; " + outcome.runs() + ", " + outcome.summary()
        + (outcome.plots().isEmpty() ? "" : ", " + outcome.plots().size() + " plots in "
            + folder));
    stdout.flush();
    return 0;
  }

  /** The data's part of the default folder: its name, or a file's name without extensions. */
  static String folderName(String data) {
    String name = Path.of(data).getFileName().toString();
    int dot = name.indexOf('.');
    return (dot > 0 ? name.substring(0, dot) : name).replaceAll("[^A-Za-z0-9_-]", "_");
  }
}
