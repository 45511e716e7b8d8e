package org.lprff.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON lprff writes and reads: the command line's {@code --json} lines and the
 * benchmark report's {@code results.json}, and the scikit-learn script's answer.
 *
 * <p>Values are {@code null}, strings, booleans, numbers ({@code Integer}, {@code Long}; {@code
 * Float} and {@code Double} in Java's shortest round-trip form, {@code 2.0}, {@code 1.0E-5},
 * valid JSON when finite), maps (keys through {@link String#valueOf}, in the map's iteration
 * order: {@link #object()} keeps insertion order) and iterables; anything else is an {@link
 * IllegalArgumentException}. Control characters are escaped ({@code \n}, {@code \r}, {@code \t},
 * the others as four-digit Unicode escapes), as are {@code "} and {@code \}; every other character
 * is written as is.
 *
 * <p>Two layouts, each with its policy for non-finite numbers: {@link #write}, one line, where a
 * non-finite number is an error (the command line's {@code --json} output); {@link
 * #writeIndented}, a file to read, where a non-finite number is {@code null} (the benchmark
 * report's {@code results.json}, where NaN marks a figure that was not measured).
 */
public final class Json {

  private static final String INDENT = "  ";

  private Json() {}

  /** A new insertion-ordered object. */
  public static Map<String, Object> object() {
    return new LinkedHashMap<>();
  }

  /**
   * The JSON text of {@code value} on one line, without spaces: {@code {"a":[1,2.5]}}.
   *
   * @throws IllegalArgumentException on a non-finite number or a value with no JSON form
   */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    compact(out, value);
    return out.toString();
  }

  /**
   * The JSON text of {@code value}, indented by two spaces per level, ending in a newline: an
   * object's members one per line as {@code "key": value}, an array on one line ({@code [1, 2]})
   * when it holds no object or array, else one element per line; empty ones as {@code {}} and
   * {@code []}. A non-finite number is written as {@code null}.
   *
   * @throws IllegalArgumentException on a value with no JSON form
   */
  public static String writeIndented(Object value) {
    StringBuilder out = new StringBuilder();
    indented(out, value, "");
    return out.append('\n').toString();
  }

  private static void compact(StringBuilder out, Object value) {
    if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        quote(out, String.valueOf(e.getKey()));
        out.append(':');
        compact(out, e.getValue());
      }
      out.append('}');
    } else if (value instanceof Iterable<?> items) {
      out.append('[');
      boolean first = true;
      for (Object item : items) {
        if (!first) {
          out.append(',');
        }
        first = false;
        compact(out, item);
      }
      out.append(']');
    } else {
      scalar(out, value, false);
    }
  }

  private static void indented(StringBuilder out, Object value, String indent) {
    String inner = indent + INDENT;
    if (value instanceof Map<?, ?> map) {
      if (map.isEmpty()) {
        out.append("{}");
        return;
      }
      out.append("{\n");
      int k = 0;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.append(inner);
        quote(out, String.valueOf(e.getKey()));
        out.append(": ");
        indented(out, e.getValue(), inner);
        out.append(++k < map.size() ? ",\n" : "\n");
      }
      out.append(indent).append('}');
    } else if (value instanceof Iterable<?> items) {
      List<Object> list = new ArrayList<>();
      items.forEach(list::add);
      if (list.isEmpty()) {
        out.append("[]");
        return;
      }
      boolean flat = list.stream().noneMatch(v -> v instanceof Map || v instanceof Iterable);
      out.append(flat ? "[" : "[\n");
      for (int k = 0; k < list.size(); k++) {
        if (!flat) {
          out.append(inner);
        }
        indented(out, list.get(k), inner);
        if (k + 1 < list.size()) {
          out.append(flat ? ", " : ",\n");
        }
      }
      out.append(flat ? "]" : "\n" + indent + "]");
    } else {
      scalar(out, value, true);
    }
  }

  private static void scalar(StringBuilder out, Object value, boolean nonFiniteAsNull) {
    switch (value) {
      case null -> out.append("null");
      case String s -> quote(out, s);
      case Boolean b -> out.append(b);
      case Integer i -> out.append(i);
      case Long l -> out.append(l);
      case Double d -> number(out, d, Double.toString(d), nonFiniteAsNull);
      case Float f -> number(out, f, Float.toString(f), nonFiniteAsNull);
      default -> throw new IllegalArgumentException(
          "no JSON form for " + value.getClass().getName());
    }
  }

  private static void number(StringBuilder out, double value, String text,
      boolean nonFiniteAsNull) {
    if (Double.isFinite(value)) {
      out.append(text);
    } else if (nonFiniteAsNull) {
      out.append("null");
    } else {
      throw new IllegalArgumentException("JSON has no form for " + value);
    }
  }

  private static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * Parses one JSON value: objects as {@link LinkedHashMap} (in the text's order), arrays as
   * {@link List}, integers as {@link Long}, other numbers as {@link Double}; also Python's
   * {@code NaN}, {@code Infinity} and {@code -Infinity}.
   *
   * @throws IllegalArgumentException naming the offset where the text is not JSON
   */
  public static Object parse(String text) {
    Parser p = new Parser(text);
    Object value = p.value();
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("trailing characters");
    }
    return value;
  }

  private static final class Parser {
    private final String s;
    private int pos;

    Parser(String s) {
      this.s = s;
    }

    Object value() {
      skipSpace();
      if (pos >= s.length()) {
        throw error("unexpected end");
      }
      char c = s.charAt(pos);
      switch (c) {
        case '{' -> {
          pos++;
          Map<String, Object> map = new LinkedHashMap<>();
          skipSpace();
          if (peek('}')) {
            return map;
          }
          do {
            skipSpace();
            String key = string();
            skipSpace();
            expect(':');
            map.put(key, value());
            skipSpace();
          } while (peek(','));
          expect('}');
          return map;
        }
        case '[' -> {
          pos++;
          List<Object> list = new ArrayList<>();
          skipSpace();
          if (peek(']')) {
            return list;
          }
          do {
            list.add(value());
            skipSpace();
          } while (peek(','));
          expect(']');
          return list;
        }
        case '"' -> {
          return string();
        }
        default -> {
          for (String word : List.of("true", "false", "null", "NaN", "Infinity", "-Infinity")) {
            if (s.startsWith(word, pos)) {
              pos += word.length();
              return switch (word) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                case "null" -> null;
                case "NaN" -> Double.NaN;
                case "Infinity" -> Double.POSITIVE_INFINITY;
                default -> Double.NEGATIVE_INFINITY;
              };
            }
          }
          int start = pos;
          while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) {
            pos++;
          }
          String number = s.substring(start, pos);
          if (number.isEmpty()) {
            throw error("unexpected '" + c + "'");
          }
          if (number.matches("-?\\d+")) {
            return Long.parseLong(number);
          }
          return Double.parseDouble(number);
        }
      }
    }

    String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (pos < s.length()) {
        char c = s.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c == '\\') {
          char e = s.charAt(pos++);
          switch (e) {
            case 'n' -> out.append('\n');
            case 't' -> out.append('\t');
            case 'r' -> out.append('\r');
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'u' -> {
              out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
              pos += 4;
            }
            default -> out.append(e);
          }
        } else {
          out.append(c);
        }
      }
      throw error("unterminated string");
    }

    boolean peek(char c) {
      if (pos < s.length() && s.charAt(pos) == c) {
        pos++;
        return true;
      }
      return false;
    }

    void expect(char c) {
      if (!peek(c)) {
        throw error("expected '" + c + "'");
      }
    }

    void skipSpace() {
      while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
        pos++;
      }
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("JSON: " + what + " at offset " + pos);
    }
  }
}
