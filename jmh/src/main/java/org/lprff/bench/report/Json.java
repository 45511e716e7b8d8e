package org.lprff.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON {@code lprff bench} needs: writing maps, lists, strings, numbers, booleans and
 * null (non-finite numbers as null), and reading the scikit-learn script's output.
 */
final class Json {

  private Json() {}

  /** {@code value} as indented JSON. */
  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, "");
    return out.append('\n').toString();
  }

  private static void write(Object value, StringBuilder out, String indent) {
    String inner = indent + "  ";
    switch (value) {
      case null -> out.append("null");
      case String s -> quote(s, out);
      case Boolean b -> out.append(b);
      case Double d when !Double.isFinite(d) -> out.append("null");
      case Float f when !Float.isFinite(f) -> out.append("null");
      case Number n -> out.append(n);
      case Map<?, ?> map -> {
        if (map.isEmpty()) {
          out.append("{}");
          return;
        }
        out.append("{\n");
        int k = 0;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          out.append(inner);
          quote(String.valueOf(e.getKey()), out);
          out.append(": ");
          write(e.getValue(), out, inner);
          out.append(++k < map.size() ? ",\n" : "\n");
        }
        out.append(indent).append('}');
      }
      case List<?> list -> {
        if (list.isEmpty()) {
          out.append("[]");
          return;
        }
        boolean flat = list.stream().noneMatch(v -> v instanceof Map || v instanceof List);
        out.append(flat ? "[" : "[\n");
        for (int k = 0; k < list.size(); k++) {
          if (!flat) {
            out.append(inner);
          }
          write(list.get(k), out, inner);
          if (k + 1 < list.size()) {
            out.append(flat ? ", " : ",\n");
          }
        }
        out.append(flat ? "]" : "\n" + indent + "]");
      }
      default -> quote(value.toString(), out);
    }
  }

  private static void quote(String s, StringBuilder out) {
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

  /** Parses one JSON value: objects as LinkedHashMap, arrays as List, numbers as Double or Long. */
  static Object parse(String text) {
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
