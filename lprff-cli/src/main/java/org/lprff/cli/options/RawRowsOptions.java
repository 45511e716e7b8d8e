package org.lprff.cli.options;

import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How {@code compare} and {@code experiment} read raw rows held in memory: the heldout file (else
 * an 80/20 split), the format and label column of both files, the IDX labels of each, and the
 * label's transform.
 */
public final class RawRowsOptions {

  @Option(names = "--heldout", paramLabel = "FILE",
      description = "Heldout rows; without it the training rows are split 80/20 (data row i is"
          + " heldout iff mix64(seed + i) mod 5 == 0: compare's --seed, experiment's 1).")
  public Path heldout;

  @Option(names = "--format", defaultValue = "auto", paramLabel = "NAME",
      description = "auto, csv, libsvm, idx or arrow, for both files (default ${DEFAULT-VALUE}).")
  public String format;

  @Option(names = "--label-column", paramLabel = "COLUMN",
      description = "The label column of CSV and Arrow input: a name, a 0-based index, first or"
          + " last (default last).")
  public String labelColumn;

  @Option(names = "--idx-labels", paramLabel = "FILE",
      description = "The IDX labels file of the training images (experiment: by default"
          + " X-labels-idx1-ubyte beside X-images-idx3-ubyte).")
  public Path idxLabels;

  @Option(names = "--heldout-idx-labels", paramLabel = "FILE",
      description = "The IDX labels file of the --heldout images.")
  public Path heldoutIdxLabels;

  @Mixin public LogLabelOption logLabel = new LogLabelOption();
}
