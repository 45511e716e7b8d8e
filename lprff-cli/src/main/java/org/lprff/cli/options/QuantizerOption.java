package org.lprff.cli.options;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.lprff.vector.codec.Quantizer;
import picocli.CommandLine.Option;

/**
 * {@code --quantizer}: how features become b-bit codes. A mixin of {@code featurize} (through
 * {@link SpecOptions}: one quantizer), {@code compare} (a comma list: one row per quantizer and
 * b) and {@code experiment} (a comma list replacing its plan's stochastic and nearest); null
 * unless given, for the {@code --like} check and the plan's default.
 */
public final class QuantizerOption {

  @Option(
      names = "--quantizer",
      paramLabel = "NAME",
      description = "stochastic (unbiased, default), nearest, shared-threshold, lloyd-max, or"
          + " sigma-delta[:ORDER[:BLOCK]] (default order " + Quantizer.DEFAULT_ORDER + ", block "
          + Quantizer.DEFAULT_BLOCK + "); compare and experiment take a comma list (experiment:"
          + " default stochastic,nearest).")
  public String name;

  /** The one quantizer named, stochastic if none is; a list is refused. */
  public Quantizer quantizer() {
    List<Quantizer> all = quantizers();
    if (all.size() > 1) {
      throw new UsageException("--quantizer is '" + name + "', expected one quantizer here"
          + " (compare and experiment take a list)");
    }
    return all.get(0);
  }

  /** The quantizers of the comma list, in order, stochastic if none is given; repeats refused. */
  public List<Quantizer> quantizers() {
    if (name == null) {
      return List.of(Quantizer.STOCHASTIC);
    }
    List<Quantizer> list = new ArrayList<>();
    for (String item : name.split(",", -1)) {
      Quantizer q = quantizer(item.strip());
      if (list.contains(q)) {
        throw new UsageException("--quantizer lists " + q.spelling() + " twice");
      }
      list.add(q);
    }
    return List.copyOf(list);
  }

  static Quantizer quantizer(String text) {
    try {
      return Quantizer.parse(text.toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      // "quantizer is 'x', expected ..." names the option already; "sigma-delta order is 4"
      // (a parameter out of range) is told which text it came from.
      String message = e.getMessage();
      throw new UsageException(message.startsWith("quantizer ") ? "--" + message
          : "--quantizer is '" + text + "': " + message);
    }
  }
}
