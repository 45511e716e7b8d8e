package org.lprff.vector.simd.spi;

/**
 * The definition both bodies of {@link CosineCodesBody} share bit for bit: the cosine at the
 * precision b bits need, and the rounding of a cosine to a b-bit code with a 16-bit draw.
 *
 * <h2>The cosine, matched to b</h2>
 *
 * For an argument x with |x| <= {@link #POLYNOMIAL_LIMIT}: k = rint(x / pi) (adding 1.5 2^23 in
 * the same FMA, so k's parity is the low bit of the sum), r = x - k pi by a two-part Cody–Waite
 * split (the first FMA is exact), and cos x = (-1)^k p(r^2) with p the minimax polynomial of
 * cos(sqrt z) on z in [0, (pi/2 + 0.0031)^2] (0.0031 covers |r|'s overshoot of pi/2: k comes
 * from a float product with float(1/pi), off by |x| 4.7e-8 at most). One polynomial per tier:
 *
 * <ul>
 *   <li>b <= 4: degree 3 in z, minimax error 6.8e-6; {@link #maxError} 1e-5 with float rounding;
 *   <li>5 <= b <= 8: degree 4 in z, minimax error 4.7e-8; {@link #maxError} 3e-7 with float
 *       rounding (2.1e-7 measured).
 * </ul>
 *
 * The bound is what the rounding can tolerate: a rounding step is 2 / (2^b - 1) in units of the
 * cosine, and {@link #maxError}(b) is below 2^-13 of it (b = 4: 1.6e-5; b = 8: 9.6e-7), so the
 * cosine's error moves a code's expectation by less than 2^-13 of a step, 8x less than the
 * draw's own 2^-16 (below). Lanes beyond the limit (never feature-map arguments in practice)
 * take {@link Math#cos} in double; NaN and infinite arguments give NaN.
 *
 * <h2>The code</h2>
 *
 * With H = (2^b - 1) 2^15 (exact in float for b <= 8), the scaled position of the cosine on the
 * grid is T = (int) fl(c H + (H + 1/2)), the nearest integer to t 2^16 where t = (c + 1)(2^b -
 * 1)/2 is the grid position in steps (up to one unit of fl). The code is clamp((T + h) >> 16,
 * 0, 2^b - 1) with h the 16-bit draw of {@code CounterRng.bits16} for stochastic rounding and h
 * = 2^15 for round-to-nearest. So a code rounds up with probability (T mod 2^16) / 2^16: its
 * expectation is t within 2^-16 of a step (plus the cosine's error), and the decoded value lo +
 * code step, with lo = -s and step = 2 s / (2^b - 1), is s cos x in expectation.
 *
 * <p>With byte draws ({@code lprff.rng} = {@code threefry4x32-13:8}, {@link #BYTE_DRAWS}) h is
 * d 2^8 + 2^7 for the 8-bit draw d of {@code CounterRng.bits8}, i.e. u = (d + 1/2) 2^-8: the code
 * rounds up with probability within 2^-9 of (T mod 2^16) / 2^16, half the Threefry work of the
 * 16-bit draws per feature ({@link #HALF_WORD_DRAWS}).
 *
 * <h2>The other quantizers' codes</h2>
 *
 * <ul>
 *   <li><b>Shared threshold</b> ({@link #sharedCode}): stochastic rounding's rule with the draw
 *       fixed per feature and grid interval, h = {@code draws[j]}, j = clamp(T >> 16, 0, 2^b - 2)
 *       the interval of the cosine; the featurizer's table holds {@code CounterRng.bits16(seed,
 *       Long.MIN_VALUE + feature, j, 0)}, so every row of a feature meets the same thresholds.
 *   <li><b>Lloyd-Max</b> ({@link #thresholdCode}): the number of thresholds below the cosine,
 *       c > thresholds[k], for 2^b - 1 ascending thresholds (the codebook's, as floats).
 *   <li><b>Sigma-Delta</b> of order r in {1, 2, 3} ({@link #sigmaDelta}): along each block of
 *       features of a row, greedy r-th order error feedback onto 2^b levels (k - C) D, C = (2^b
 *       - 1) / 2, with D = {@link #sigmaDeltaStep}(b, r) = 2 / (2^b - 2^r + 1), wide enough that
 *       the state stays within D / 2 (for |cosine| <= 1, |rho| <= 1 + (2^r - 1) D / 2 = the top
 *       level + D / 2). The state u starts at 0 in every block; for each cosine y, in float:
 *       rho = y + u1 (r = 1), (y - u2) + 2 u1 (r = 2), (y + u3) + 3 (u1 - u2) (r = 3); code =
 *       clamp((int) (max(fma(rho, 1 / D, C), 0) + 0.5), 0, 2^b - 1) with 1 / D = (2^b - 2^r +
 *       1) / 2 exact; the new state fma(-(code - C), D, rho) shifts in as u1.
 * </ul>
 */
public final class CosineCodes {

  private CosineCodes() {}

  /** Largest b this definition serves; b = 16 and 32 keep the full-precision cosine. */
  public static final int MAX_BITS = 8;

  /** Lanes with |x| above this take the double cosine. */
  public static final float POLYNOMIAL_LIMIT = 0x1p16f;

  /** float(1/pi). */
  public static final float ONE_OVER_PI = 0x1.45f306p-2f;

  /** 1.5 2^23: adding it rounds to an integer and leaves that integer in the low bits. */
  public static final float ROUNDING_MAGIC = 0x1.8p23f;

  /** pi = PI1 + PI2 + 3.6e-15, each the float nearest to what is left. */
  public static final float PI1 = 0x1.921fb6p1f;

  public static final float PI2 = -0x1.777a5cp-24f;

  // cos r = A0 + z (A1 + z (A2 + z A3)), z = r^2: b <= 4.
  public static final float A0 = 0x1.ffff1cp-1f;
  public static final float A1 = -0x1.ffe8c8p-2f;
  public static final float A2 = 0x1.53db3ap-5f;
  public static final float A3 = -0x1.4d1f72p-10f;

  // cos r = B0 + z (B1 + z (B2 + z (B3 + z B4))): 5 <= b <= 8.
  public static final float B0 = 0x1.fffffep-1f;
  public static final float B1 = -0x1.ffffc0p-2f;
  public static final float B2 = 0x1.554eccp-5f;
  public static final float B3 = -0x1.6b28cep-10f;
  public static final float B4 = 0x1.845a4ap-16f;

  /** Draw widths of {@link CosineCodesBody#quantize}: none (round to nearest), 8 or 16 bits. */
  public static final int NO_DRAWS = 0;

  public static final int BYTE_DRAWS = 8;
  public static final int HALF_WORD_DRAWS = 16;

  /** The draw of round-to-nearest: half of 2^16. */
  public static final int NEAREST_DRAW = 1 << 15;

  /** The largest |cos x - cosine(x, b)| over finite x (tested on a sweep). */
  public static double maxError(int bits) {
    return bits <= 4 ? 1e-5 : 3e-7;
  }

  /** H = (2^b - 1) 2^15. */
  public static float gridScale(int bits) {
    return ((1 << bits) - 1) * 32768f;
  }

  /** cos x at the precision of b bits (see the class doc), in the bodies' float operations. */
  public static float cosine(float x, int bits) {
    if (!(Math.abs(x) <= POLYNOMIAL_LIMIT)) {
      return (float) Math.cos(x); // NaN for NaN and infinities
    }
    float shifted = Math.fma(x, ONE_OVER_PI, ROUNDING_MAGIC);
    float k = shifted - ROUNDING_MAGIC;
    float r = Math.fma(k, -PI1, x);
    r = Math.fma(k, -PI2, r);
    float z = r * r;
    float p = bits <= 4
        ? Math.fma(Math.fma(Math.fma(A3, z, A2), z, A1), z, A0)
        : Math.fma(Math.fma(Math.fma(Math.fma(B4, z, B3), z, B2), z, B1), z, B0);
    // (-1)^k: the low bit of the sum is k's parity, moved to the sign bit.
    return Float.intBitsToFloat(Float.floatToRawIntBits(p) ^ (Float.floatToRawIntBits(shifted) << 31));
  }

  /** The code of cosine c with the 16-bit draw h (see the class doc). */
  public static int code(float c, int h, int bits) {
    float scale = gridScale(bits);
    int t = (int) Math.fma(c, scale, scale + 0.5f);
    return Math.min(Math.max((t + h) >> 16, 0), (1 << bits) - 1);
  }

  /** Largest Sigma-Delta order. */
  public static final int MAX_ORDER = 3;

  /**
   * The shared-threshold code of cosine c: {@link #code} with the draw {@code draws[drawOff +
   * j]} of the interval j = clamp(T >> 16, 0, 2^b - 2) the cosine falls in.
   */
  public static int sharedCode(float c, int[] draws, int drawOff, int bits) {
    float scale = gridScale(bits);
    int t = (int) Math.fma(c, scale, scale + 0.5f);
    int j = Math.min(Math.max(t >> 16, 0), (1 << bits) - 2);
    return Math.min(Math.max((t + draws[drawOff + j]) >> 16, 0), (1 << bits) - 1);
  }

  /** The number of the 2^b - 1 ascending {@code thresholds} below c (c > threshold). */
  public static int thresholdCode(float c, float[] thresholds, int bits) {
    int code = 0;
    for (int k = 0; k < (1 << bits) - 1; k++) {
      code += c > thresholds[k] ? 1 : 0;
    }
    return code;
  }

  /** D = 2 / (2^b - 2^r + 1): the level spacing of Sigma-Delta of order r at b bits (b >= r). */
  public static float sigmaDeltaStep(int bits, int order) {
    return 2f / ((1 << bits) - (1 << order) + 1);
  }

  /**
   * Sigma-Delta codes of the cosines {@code c[off .. off + count)}, block by block ({@code count}
   * a multiple of {@code block}), into {@code codes[codesOff ..]} (see the class doc).
   */
  public static void sigmaDelta(
      float[] c, int off, int count, int bits, int order, int block, int[] codes, int codesOff) {
    float step = sigmaDeltaStep(bits, order);
    float inverse = ((1 << bits) - (1 << order) + 1) * 0.5f;
    float center = ((1 << bits) - 1) * 0.5f;
    int maxCode = (1 << bits) - 1;
    for (int b0 = 0; b0 < count; b0 += block) {
      float u1 = 0;
      float u2 = 0;
      float u3 = 0;
      for (int i = b0; i < b0 + block; i++) {
        float y = c[off + i];
        float rho = switch (order) {
          case 1 -> y + u1;
          case 2 -> (y - u2) + 2 * u1;
          default -> (y + u3) + 3 * (u1 - u2);
        };
        int code = Math.min(
            (int) (Math.max(Math.fma(rho, inverse, center), 0f) + 0.5f), maxCode);
        codes[codesOff + i] = code;
        u3 = u2;
        u2 = u1;
        u1 = Math.fma(-(code - center), step, rho);
      }
    }
  }
}
