package org.lprff.cli.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * An experiment folder from {@link ExperimentReportTest#withQuantizers()}'s runs, for checks
 * outside this package: runs.csv and summary.md as the experiment writes them. Its LP-RFF
 * (stochastic, nearest, shared-threshold, Sigma-Delta) and full-precision families reach the
 * tolerance and Nyström and Lloyd-Max do not, so Table 2 prints ratios and families without one.
 */
public final class SyntheticExperiment {

  private SyntheticExperiment() {}

  public static void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    List<RunRecord> runs = ExperimentReportTest.withQuantizers();
    RunsCsv.rewrite(dir.resolve("runs.csv"), runs);
    Files.writeString(dir.resolve("summary.md"),
        ExperimentSummary.markdown(runs, "synthetic", "# synthetic\n\n"));
  }
}
