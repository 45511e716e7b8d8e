package org.lprff.vector.codec;

import java.util.List;

/**
 * The one check of a feature's bit width, and of a width with a quantizer, that every caller
 * asks (the spec, the codec, training memory, the command line), with one wording: {@code bits is
 * 3; expected 1, 2, 4, 8, 16 or 32 (float32)}, the caller's name for the value first (the command
 * line says {@code --bits}).
 *
 * <p>A feature has b in {1, 2, 4, 8, 16} bits (codes), or 32: float32 features, not quantized.
 * Which quantizer codes which widths is {@link Quantizer#codes}: stochastic and nearest every
 * width; shared-threshold, Lloyd-Max and Sigma-Delta 1, 2, 4 or 8 bits (and 32), Sigma-Delta of
 * order r at least r ({@link #QUANTIZER_RULE}).
 */
public final class BitWidths {

  /** Every width of a feature: codes of 1, 2, 4, 8 or 16 bits, or 32, float32 features. */
  public static final List<Integer> ALL = List.of(1, 2, 4, 8, 16, 32);

  /** The widths of codes: every width but 32 (a grid, a packed row, a low-precision run). */
  public static final List<Integer> CODES = List.of(1, 2, 4, 8, 16);

  /** The width of float32 features. */
  public static final int FLOAT32 = 32;

  /** Which quantizers code which widths, in words (the rule of {@link Quantizer#codes}). */
  public static final String QUANTIZER_RULE = "stochastic and nearest code every width;"
      + " shared-threshold, lloyd-max and sigma-delta 1, 2, 4 or 8 bits, sigma-delta of order r"
      + " at least r";

  private BitWidths() {}

  /** True if {@code bits} is one of {@link #ALL}. */
  public static boolean valid(int bits) {
    return ALL.contains(bits);
  }

  /** The widths of {@link #ALL} that {@code quantizer} codes, e.g. 1, 2, 4, 8, 32 for lloyd-max. */
  public static List<Integer> of(Quantizer quantizer) {
    return ALL.stream().filter(quantizer::codes).toList();
  }

  /**
   * Checks that {@code bits} is one of {@link #ALL}.
   *
   * @param name the value's name in the message: {@code bits}, {@code --bits}
   * @return bits
   * @throws IllegalArgumentException "NAME is B; expected 1, 2, 4, 8, 16 or 32 (float32)"
   */
  public static int check(String name, int bits) {
    return require(name, bits, ALL, null);
  }

  /**
   * Checks that {@code bits} is the width of codes, one of {@link #CODES} (not 32).
   *
   * @throws IllegalArgumentException "NAME is B; expected 1, 2, 4, 8 or 16"
   */
  public static int checkCodes(String name, int bits) {
    return require(name, bits, CODES, null);
  }

  /**
   * Checks that {@code bits} is one of {@link #ALL} and that {@code quantizer} codes it.
   *
   * @throws IllegalArgumentException for a width no quantizer has, as {@link #check(String,
   *     int)}; else "NAME is B; expected 1, 2, 4, 8 or 32 (float32) for quantizer lloyd-max
   *     (16 bits: stochastic or nearest)"
   */
  public static int check(String name, int bits, Quantizer quantizer) {
    check(name, bits);
    return require(name, bits, of(quantizer), quantizer);
  }

  /**
   * Checks that {@code bits} is the width of codes that {@code quantizer} codes (not 32: a
   * codebook or a draw table of 2^b levels).
   *
   * @throws IllegalArgumentException "NAME is B; expected 1, 2, 4 or 8 for quantizer lloyd-max"
   */
  public static int checkCodes(String name, int bits, Quantizer quantizer) {
    return require(name, bits, of(quantizer).stream().filter(b -> b != FLOAT32).toList(),
        quantizer);
  }

  /** The widths as the messages list them: "1, 2, 4, 8, 16 or 32 (float32)". */
  public static String describe(List<Integer> widths) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < widths.size(); i++) {
      s.append(i == 0 ? "" : i == widths.size() - 1 ? " or " : ", ").append(widths.get(i));
    }
    return widths.contains(FLOAT32) ? s.append(" (float32)").toString() : s.toString();
  }

  private static int require(String name, int bits, List<Integer> widths, Quantizer quantizer) {
    if (widths.contains(bits)) {
      return bits;
    }
    String message = name + " is " + bits + "; expected " + describe(widths);
    if (quantizer != null) {
      message += " for quantizer " + quantizer.spelling();
      if (quantizer instanceof Quantizer.SigmaDelta sd && bits < sd.order()) {
        message += " (order " + sd.order() + " needs at least " + sd.order() + " bits)";
      } else if (bits == 16) {
        message += " (16 bits: stochastic or nearest)";
      }
    }
    throw new IllegalArgumentException(message);
  }
}
