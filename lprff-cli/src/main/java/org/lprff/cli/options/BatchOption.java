package org.lprff.cli.options;

import picocli.CommandLine.Option;

/**
 * {@code --batch}: the mini-batch rows s, of an SGD step and of the training memory. A mixin of
 * {@code memory} and, through {@link TrainingOptions}, of {@code train} and {@code compare}: one
 * default, so that memory's numbers are those of a training run left at its defaults.
 */
public final class BatchOption {

  /** The default mini-batch rows, also demo's fixed batch. */
  public static final int DEFAULT = 250;

  @Option(
      names = "--batch",
      defaultValue = "" + DEFAULT,
      paramLabel = "ROWS",
      description = "Mini-batch rows s: of an SGD step and of the training memory (the LP-RFF"
          + " paper's Table 1) (default ${DEFAULT-VALUE}).")
  public int rows;
}
