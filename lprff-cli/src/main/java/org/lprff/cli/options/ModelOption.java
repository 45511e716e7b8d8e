package org.lprff.cli.options;

import java.io.IOException;
import java.nio.file.Path;
import org.lprff.arrow.model.FittedModel;
import picocli.CommandLine.Option;

/** {@code --model}: the model file that {@code evaluate} and {@code predict} read. */
public final class ModelOption {

  @Option(
      names = {"--model", "-m"},
      required = true,
      paramLabel = "FILE",
      description = "The model file (.lprff) written by train.")
  public Path path;

  public FittedModel read() throws IOException {
    return FittedModel.load(path);
  }
}
