package org.lprff.cli.options;

import picocli.CommandLine.Option;

/** {@code --log-label}: regress ln(label); a mixin of the commands that read raw labelled rows. */
public final class LogLabelOption {

  @Option(names = "--log-label",
      description = "Regress ln(label) (labels must be > 0), e.g. log(price) on diamonds.")
  public boolean enabled;
}
