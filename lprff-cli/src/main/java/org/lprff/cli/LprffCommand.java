package org.lprff.cli;

import org.lprff.cli.output.Version;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** The top command: its subcommands do the work; alone it prints the usage. */
@Command(
    name = "lprff",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = "Low-precision random Fourier features: featurize rows of numbers into packed"
        + " b-bit features stored as Arrow IPC files, inspect them, train linear models on"
        + " them, evaluate and predict; 'lprff demo' compares precisions on shipped data, 'lprff"
        + " compare' compares precisions and Nyström on any data.",
    subcommands = {FitCommand.class, FeaturizeCommand.class, InfoCommand.class, TrainCommand.class,
        EvaluateCommand.class, PredictCommand.class, DemoCommand.class, CompareCommand.class,
        MemoryCommand.class, ExperimentCommand.class},
    footer = {
      "",
      "Examples:",
      "  lprff fit --input train.csv --task regression --model model.lprff",
      "  lprff predict --model model.lprff --input new.csv --output preds.csv",
      "  lprff featurize --input train.csv --standardize --sigma 2 --features 4096 \\",
      "      --bits 4 --projection circulant --output train.arrow",
      "  lprff featurize --input heldout.csv --like train.arrow --output heldout.arrow",
      "  lprff info train.arrow",
      "  lprff train --train train.arrow --heldout heldout.arrow --task regression \\",
      "      --model model.lprff",
      "  lprff featurize --input rows.csv --sigma median --output - | python -c \\",
      "      'import lprff, sys; print(lprff.read_features(sys.stdin.buffer)[0].shape)'",
      "  lprff demo",
      "  lprff compare --train diamonds.csv --log-label --sigma 2 --nystrom 1024",
      "  lprff experiment --quick",
      "",
      "Exit codes: 0 success, 1 failure (one line on stderr), 2 usage error."
    })
final class LprffCommand implements Runnable {

  /** Read by {@link Failures} from the parse result: prints stack traces of failures. */
  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "On failure, print the stack trace too.")
  boolean debug;

  @Spec CommandSpec spec;

  /** Without a subcommand: a usage error. */
  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing a command: featurize, info, train,"
        + " evaluate, predict, demo, compare, memory or experiment");
  }
}
