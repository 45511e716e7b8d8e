package org.lprff.cli.output;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A minimal JSON writer for {@code info --json}: objects keep insertion order; values are strings,
 * numbers, booleans, null, lists and nested maps. Numbers must be finite.
 */
public final class Json {

  private Json() {}

  /** A new insertion-ordered object. */
  public static Map<String, Object> object() {
    return new LinkedHashMap<>();
  }

  /** The JSON text of {@code value}, on one line. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value);
    return out.toString();
  }

  private static void append(StringBuilder out, Object value) {
    switch (value) {
      case null -> out.append("null");
      case String s -> string(out, s);
      case Boolean b -> out.append(b);
      case Integer i -> out.append(i);
      case Long l -> out.append(l);
      case Double d -> out.append(number(d, Double.toString(d)));
      case Float f -> out.append(number(f, Float.toString(f)));
      case Map<?, ?> map -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          if (!first) {
            out.append(',');
          }
          first = false;
          string(out, String.valueOf(e.getKey()));
          out.append(':');
          append(out, e.getValue());
        }
        out.append('}');
      }
      case Iterable<?> items -> {
        out.append('[');
        boolean first = true;
        for (Object item : items) {
          if (!first) {
            out.append(',');
          }
          first = false;
          append(out, item);
        }
        out.append(']');
      }
      default -> throw new IllegalArgumentException(
          "no JSON form for " + value.getClass().getName());
    }
  }

  /** Java's shortest round-trip form ("2.0", "1.0E-5") is valid JSON for finite values. */
  private static String number(double value, String text) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("JSON has no form for " + value);
    }
    return text;
  }

  private static void string(StringBuilder out, String s) {
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
}
