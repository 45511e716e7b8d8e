package org.lprff.cli.options;

import java.util.Locale;
import org.lprff.vector.codec.Quantizer;
import picocli.CommandLine.Option;

/**
 * {@code --quantizer}: how features are rounded to b bits. A mixin of {@code featurize} (through
 * {@link SpecOptions}) and {@code compare}; null unless given, for the {@code --like} check.
 */
public final class QuantizerOption {

  @Option(
      names = "--quantizer",
      paramLabel = "NAME",
      description = "stochastic (unbiased, default) or nearest.")
  public String name;

  /** The quantizer named, stochastic if none is. */
  public Quantizer quantizer() {
    return name == null ? Quantizer.STOCHASTIC : quantizer(name);
  }

  static Quantizer quantizer(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "stochastic" -> Quantizer.STOCHASTIC;
      case "nearest" -> Quantizer.NEAREST;
      default -> throw new UsageException(
          "--quantizer is '" + text + "', expected stochastic or nearest");
    };
  }
}
