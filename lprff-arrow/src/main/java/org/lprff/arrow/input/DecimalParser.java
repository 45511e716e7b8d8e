package org.lprff.arrow.input;

import java.nio.charset.StandardCharsets;

/**
 * Decimal text in a byte range to the nearest float, without a String per value.
 *
 * <p>Grammar (strict; no surrounding whitespace, no hex, no {@code f}/{@code d} suffix): {@code
 * [+-]? (digits [. digits?]? | . digits) ([eE] [+-]? digits)?}.
 *
 * <p><b>Exactly rounded.</b> Most values take Clinger's fast path: when the decimal significand m
 * (leading zeros dropped) is at most 2^24 and the decimal exponent e is within [-10, 10], both m
 * and 10^|e| are exact floats (5^10 < 2^24), so one float multiplication or division, itself
 * correctly rounded, gives the correctly rounded result. Every other value that matches the grammar
 * goes to {@link Float#parseFloat}, which is correctly rounded too. (Going through double would
 * round twice and can be off by one ulp, so this parser never does.)
 */
final class DecimalParser {

  private DecimalParser() {}

  /** Why a text is not a finite float. */
  enum Problem {
    EMPTY("is empty"),
    SYNTAX("is not a number"),
    NON_FINITE("is not a finite number (NaN and infinities are not allowed)"),
    OVERFLOW("overflows float (|x| > 3.4028235e38)");

    /** Completes "'text' ..." in a message. */
    final String description;

    Problem(String description) {
      this.description = description;
    }
  }

  /** Thrown (without a stack trace: it is turned into a message by the caller) for bad text. */
  static final class BadNumber extends Exception {
    private static final long serialVersionUID = 1L;
    final Problem problem;

    BadNumber(Problem problem) {
      super(problem.description, null, false, false);
      this.problem = problem;
    }
  }

  /** 10^0 .. 10^10, all exact in float. */
  private static final float[] POWERS_OF_TEN = {
    1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f
  };

  private static final long MAX_EXACT_SIGNIFICAND = 1L << 24;

  /** The float nearest to the decimal text in {@code bytes[from, to)}. */
  static float parse(byte[] bytes, int from, int to) throws BadNumber {
    if (from >= to) {
      throw new BadNumber(Problem.EMPTY);
    }
    int i = from;
    boolean negative = false;
    if (bytes[i] == '-' || bytes[i] == '+') {
      negative = bytes[i] == '-';
      i++;
    }
    long significand = 0;
    int significantDigits = 0;
    int exponent = 0;
    boolean anyDigit = false;
    for (; i < to; i++) {
      int d = bytes[i] - '0';
      if (d < 0 || d > 9) {
        break;
      }
      anyDigit = true;
      if (significantDigits < 18) {
        significand = significand * 10 + d;
        if (significand != 0) {
          significantDigits++;
        }
      } else {
        exponent++; // digits beyond 18 only scale; such values take the slow path anyway
      }
    }
    if (i < to && bytes[i] == '.') {
      i++;
      for (; i < to; i++) {
        int d = bytes[i] - '0';
        if (d < 0 || d > 9) {
          break;
        }
        anyDigit = true;
        if (significantDigits < 18) {
          significand = significand * 10 + d;
          if (significand != 0) {
            significantDigits++;
          }
          exponent--;
        }
      }
    }
    if (!anyDigit) {
      throw new BadNumber(nonNumericProblem(bytes, from, to));
    }
    if (i < to && (bytes[i] == 'e' || bytes[i] == 'E')) {
      i++;
      boolean negativeExponent = false;
      if (i < to && (bytes[i] == '-' || bytes[i] == '+')) {
        negativeExponent = bytes[i] == '-';
        i++;
      }
      int start = i;
      int e = 0;
      for (; i < to; i++) {
        int d = bytes[i] - '0';
        if (d < 0 || d > 9) {
          break;
        }
        if (e < 100_000) { // far beyond float's range; keeps the sum below int overflow
          e = e * 10 + d;
        }
      }
      if (i == start) {
        throw new BadNumber(Problem.SYNTAX);
      }
      exponent += negativeExponent ? -e : e;
    }
    if (i != to) {
      throw new BadNumber(Problem.SYNTAX);
    }
    if (significand == 0) {
      return negative ? -0f : 0f;
    }
    if (significand <= MAX_EXACT_SIGNIFICAND && exponent >= -10 && exponent <= 10) {
      float m = significand;
      float magnitude = exponent < 0 ? m / POWERS_OF_TEN[-exponent] : m * POWERS_OF_TEN[exponent];
      return negative ? -magnitude : magnitude;
    }
    // The text matched the grammar above, a subset of what parseFloat accepts.
    float value = Float.parseFloat(new String(bytes, from, to - from, StandardCharsets.ISO_8859_1));
    if (Float.isInfinite(value)) {
      throw new BadNumber(Problem.OVERFLOW);
    }
    return value;
  }

  /** NaN or infinity spelled out (any case, optional sign), or plain syntax. */
  private static Problem nonNumericProblem(byte[] bytes, int from, int to) {
    int i = from;
    if (i < to && (bytes[i] == '-' || bytes[i] == '+')) {
      i++;
    }
    String word =
        new String(bytes, i, to - i, StandardCharsets.ISO_8859_1)
            .toLowerCase(java.util.Locale.ROOT);
    return switch (word) {
      case "nan", "inf", "infinity" -> Problem.NON_FINITE;
      default -> Problem.SYNTAX;
    };
  }
}
