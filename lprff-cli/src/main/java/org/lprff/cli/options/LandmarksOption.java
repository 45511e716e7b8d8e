package org.lprff.cli.options;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --nystrom}: Nyström's landmark counts, of {@code compare} and {@code experiment}. */
public final class LandmarksOption {

  @Option(names = "--nystrom", split = ",", paramLabel = "M",
      description = "Nyström landmark counts, a comma list (each <= the training rows; empty,"
          + " --nystrom '', for none); landmarks are distinct training rows chosen by the seed.")
  public List<String> counts;

  /** The counts given, in order (none for an empty list), or null if the option was not given. */
  public List<Integer> counts() {
    if (counts == null) {
      return null;
    }
    List<Integer> values = new ArrayList<>();
    for (String text : counts) {
      if (text.isBlank()) {
        continue;
      }
      try {
        values.add(Integer.parseInt(text.strip()));
      } catch (NumberFormatException e) {
        throw new UsageException("--nystrom has '" + text + "', expected a landmark count");
      }
    }
    return values;
  }
}
