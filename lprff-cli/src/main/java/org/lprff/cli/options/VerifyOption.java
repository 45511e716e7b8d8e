package org.lprff.cli.options;

import picocli.CommandLine.Option;

/**
 * {@code --no-verify}: skip the checksum pass over the feature files read. A mixin of train and
 * evaluate, which verify every record batch before they start unless told not to.
 */
public final class VerifyOption {

  @Option(
      names = "--no-verify",
      description = "Do not check the feature files' record batches against their CRC32C"
          + " checksums before starting (one sequential read of each file; its cost is in"
          + " docs/reliability.md).")
  public boolean skip;

  /** True unless {@code --no-verify} was given. */
  public boolean enabled() {
    return !skip;
  }
}
