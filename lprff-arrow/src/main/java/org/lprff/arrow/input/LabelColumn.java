package org.lprff.arrow.input;

import java.util.ArrayList;
import java.util.List;

/**
 * Which column of a table (CSV header, Arrow schema) holds the label: none, the first, the last,
 * one by name, or one by 0-based index. The other columns are the features, in their order.
 *
 * <p><b>Text form</b> ({@link #parse}, {@link #toString}), for command lines and configuration:
 *
 * <ul>
 *   <li>{@code none}, {@code first}, {@code last}: the keywords (exactly these, lower case);
 *   <li>{@code 3} or {@code #3}: a 0-based index (only ASCII digits after the optional {@code #});
 *   <li>{@code name:TEXT}: the column named TEXT, whatever TEXT looks like; this is how to choose a
 *       column literally named {@code 3}, {@code #3} or {@code last};
 *   <li>anything else: a column name, e.g. {@code price}.
 * </ul>
 *
 * So a plain integer always means an index, never a name: a header with a column named "3" is
 * reached with {@code name:3}.
 */
public sealed interface LabelColumn {

  /** No label: every column is a feature. */
  LabelColumn NONE = Position.NONE;

  /** The first column. */
  LabelColumn FIRST = Position.FIRST;

  /** The last column. */
  LabelColumn LAST = Position.LAST;

  /** The column named {@code name} (exact, case-sensitive match). */
  static LabelColumn named(String name) {
    return new Named(name);
  }

  /** The column at 0-based {@code index}. */
  static LabelColumn index(int index) {
    return new Index(index);
  }

  /** The keywords {@link #NONE}, {@link #FIRST}, {@link #LAST}. */
  enum Position implements LabelColumn {
    NONE,
    FIRST,
    LAST;

    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** A column chosen by its exact name. */
  record Named(String name) implements LabelColumn {
    public Named {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("label column name is empty");
      }
    }

    @Override
    public String toString() {
      boolean plain =
          !name.startsWith("name:")
              && !name.startsWith("#")
              && !isDigits(name)
              && !name.equals("none")
              && !name.equals("first")
              && !name.equals("last");
      return plain ? name : "name:" + name;
    }
  }

  /** A column chosen by its 0-based index. */
  record Index(int index) implements LabelColumn {
    public Index {
      if (index < 0) {
        throw new IllegalArgumentException("label column index is " + index + ", expected >= 0");
      }
    }

    @Override
    public String toString() {
      return "#" + index;
    }
  }

  /**
   * Parses the text form described in the class comment.
   *
   * @throws IllegalArgumentException for empty text, {@code name:} with nothing after it, or an
   *     index beyond {@code int}
   */
  static LabelColumn parse(String text) {
    if (text == null || text.isEmpty()) {
      throw new IllegalArgumentException(
          "label column is empty: expected none, first, last, an index (3 or #3) or a name");
    }
    if (text.startsWith("name:")) {
      String name = text.substring("name:".length());
      if (name.isEmpty()) {
        throw new IllegalArgumentException("label column 'name:' has no name after the colon");
      }
      return new Named(name);
    }
    switch (text) {
      case "none" -> {
        return NONE;
      }
      case "first" -> {
        return FIRST;
      }
      case "last" -> {
        return LAST;
      }
      default -> {}
    }
    String digits = text.startsWith("#") ? text.substring(1) : text;
    if (isDigits(digits)) {
      try {
        return new Index(Integer.parseInt(digits));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("label column index '" + text + "' is too large", e);
      }
    }
    if (text.startsWith("#")) {
      throw new IllegalArgumentException(
          "label column '"
              + text
              + "': '#' must be followed by a 0-based index (use name:"
              + text
              + " for a column of that name)");
    }
    return new Named(text);
  }

  /**
   * The 0-based index of the label among {@code names}, or -1 for {@link #NONE}.
   *
   * @param source what the names come from, for messages (e.g. the file)
   * @throws InputFormatException when the name is unknown (the message lists the names), appears
   *     more than once, or the index is out of range
   */
  default int resolve(List<String> names, String source) {
    return switch (this) {
      case Position.NONE -> -1;
      case Position.FIRST -> requireAny(names, source, 0);
      case Position.LAST -> requireAny(names, source, names.size() - 1);
      case Index(int index) -> {
        if (index >= names.size()) {
          throw new InputFormatException(
              source
                  + ": label column index "
                  + index
                  + " is out of range: there are "
                  + names.size()
                  + " columns (0.."
                  + (names.size() - 1)
                  + ")");
        }
        yield index;
      }
      case Named(String name) -> {
        List<Integer> found = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
          if (names.get(i).equals(name)) {
            found.add(i);
          }
        }
        if (found.isEmpty()) {
          throw new InputFormatException(
              source
                  + ": no column named '"
                  + name
                  + "' for the label; columns: "
                  + String.join(", ", names));
        }
        if (found.size() > 1) {
          throw new InputFormatException(
              source
                  + ": label column name '"
                  + name
                  + "' appears "
                  + found.size()
                  + " times (indices "
                  + found
                  + "); choose one by index, e.g. #"
                  + found.get(0));
        }
        yield found.get(0);
      }
    };
  }

  private static int requireAny(List<String> names, String source, int index) {
    if (names.isEmpty()) {
      throw new InputFormatException(source + ": no columns to take the label from");
    }
    return index;
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
