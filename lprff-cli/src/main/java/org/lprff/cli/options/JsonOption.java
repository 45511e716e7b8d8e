package org.lprff.cli.options;

import picocli.CommandLine.Option;

/**
 * {@code --json}: the result as one JSON object instead of text, for scripts. A mixin of train,
 * compare, evaluate, memory and info; demo prints an object per configuration and declares its
 * own.
 */
public final class JsonOption {

  @Option(
      names = "--json",
      description = "Print the result as one JSON object, the last line of stdout, instead of"
          + " text.")
  public boolean enabled;
}
