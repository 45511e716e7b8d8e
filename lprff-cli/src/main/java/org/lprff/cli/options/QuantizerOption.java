package org.lprff.cli.options;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.lprff.vector.codec.Quantizer;
import picocli.CommandLine.Option;

/**
 * {@code --quantizer}: how features become b-bit codes. A mixin of {@code featurize} (through
 * {@link SpecOptions}: one quantizer) and {@code compare} (a comma list: one row per quantizer and
 * b); null unless given, for the {@code --like} check.
 */
public final class QuantizerOption {

  @Option(
      names = "--quantizer",
      paramLabel = "NAME",
      description = "stochastic (unbiased, default), nearest, shared-threshold, lloyd-max, or"
          + " sigma-delta[:ORDER[:BLOCK]] (default order " + Quantizer.DEFAULT_ORDER + ", block "
          + Quantizer.DEFAULT_BLOCK + "); compare takes a comma list.")
  public String name;

  /** The one quantizer named, stochastic if none is; a list is refused. */
  public Quantizer quantizer() {
    List<Quantizer> all = quantizers();
    if (all.size() > 1) {
      throw new UsageException("--quantizer is '" + name + "', expected one quantizer here"
          + " (compare takes a list)");
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
      throw new UsageException("--" + e.getMessage());
    }
  }
}
