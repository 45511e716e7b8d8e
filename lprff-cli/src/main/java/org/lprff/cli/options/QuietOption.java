package org.lprff.cli.options;

import picocli.CommandLine.Option;

/** {@code --quiet}: no progress lines on stderr. A mixin of train, demo, compare and featurize. */
public final class QuietOption {

  @Option(
      names = {"--quiet", "-q"},
      description = "No progress lines (train and featurize: no summary line either).")
  public boolean enabled;
}
