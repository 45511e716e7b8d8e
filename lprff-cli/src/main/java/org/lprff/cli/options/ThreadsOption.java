package org.lprff.cli.options;

import picocli.CommandLine.Option;

/** {@code --threads}: how many cores featurize and compare use. */
public final class ThreadsOption {

  @Option(names = "--threads", paramLabel = "N", description = "Threads (default: all cores).")
  public Integer threads;

  /** The threads given, else every core. */
  public int count() {
    int count = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
    if (count < 1) {
      throw new UsageException("--threads is " + count + ", expected >= 1");
    }
    return count;
  }
}
