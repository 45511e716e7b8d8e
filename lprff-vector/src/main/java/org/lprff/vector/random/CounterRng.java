package org.lprff.vector.random;

import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.CounterRngBody;
import org.lprff.vector.simd.spi.Threefry;

/**
 * Counter-based random bits: a pure function of (seed, row, column, draw), so that stochastic
 * rounding is bit-identical whatever the thread count, batch size, vector width or partitioning.
 *
 * <h2>Algorithm</h2>
 *
 * Threefry-4x32 with 13 rounds (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as
 * 1, 2, 3", SC 2011; their Random123 library's threefry4x32_R(13, ...)), a reduced Threefish
 * block cipher from Skein. The state is four 32-bit words x0..x3, initialised to counter + key.
 * Each round applies two MIX operations (x0 += x1; x1 = rotl(x1, R) ^ x0 on even rounds pairing
 * (0,1),(2,3), on odd rounds pairing (0,3),(2,1)) with the rotation constants (10,26), (11,21),
 * (13,27), (23,5), (6,20), (17,11), (25,10), (18,20) for rounds mod 8. After rounds 3, 7 and 11,
 * key injection s = 1, 2, 3 adds the 5-word key schedule (k0, k1, k2, k3, k4 = 0x1BD11BDA ^ k0 ^
 * k1 ^ k2 ^ k3) rotated by s words, plus s to word 3; round 12 (constants (6,20), as 12 mod 8 =
 * 4) ends the block without a further injection. The implementation is checked against
 * Random123's known-answer vectors for 13 rounds and, through the same round-count-parameterised
 * function, for 20 and 72.
 *
 * <p>Why 13 rounds and not Random123's default of 20: the paper reports Threefry-4x32
 * Crush-resistant (passing TestU01's SmallCrush, Crush and BigCrush over many keys and counter
 * patterns) from 12 rounds on, and 13 keeps a round of margin over that; 20 is their conservative
 * default for a generator of unknown use. The bits here drive stochastic rounding and the draws
 * of random projection parameters, which need statistical quality (uniformity and independence
 * across columns, rows and draws; see CounterRngTest), not cryptographic strength. A 13-round
 * block does 13/20 of the work of a 20-round one.
 *
 * <h2>Mapping of the inputs</h2>
 *
 * <ul>
 *   <li>key = (seed low 32 bits, seed high 32 bits, 0, 0);
 *   <li>counter = (block, row low 32 bits, row high 32 bits, draw), where {@code block =
 *       ((column >>> 5) << 3) | (column & 7)};
 *   <li>the result is output word {@code w = (column >>> 3) & 3} of that block.
 * </ul>
 *
 * Columns 32q..32q+31 therefore use the 8 blocks 8q..8q+7, and word w of those blocks covers the
 * 8 consecutive columns 32q+8w..32q+8w+7: a 256-bit vector of 8 int lanes evaluating blocks
 * 8q..8q+7 yields 32 consecutive columns as four vectors, without shuffles. The map from
 * (column) to (block, word) is injective over all non-negative int columns, so distinct
 * (seed, row, column, draw) use distinct (key, counter, word).
 *
 * <p>{@link #uniform} keeps the top 24 bits ({@code (bits >>> 8) * 2^-24}, exact in float, in
 * [0, 1)); {@link #uniformDouble} uses all 32 ({@code unsigned(bits) * 2^-32}, in [0, 1)).
 *
 * <h2>Half-word draws</h2>
 *
 * For callers that need only 16 random bits per column ({@link #bits16}, {@link #uniform16},
 * {@link #fillBits16}), a second mapping takes two columns from each output word:
 *
 * <ul>
 *   <li>block = {@code ((column >>> 6) << 3) | (column & 7)}, same key and counter layout;
 *   <li>word {@code w = (column >>> 3) & 3} of that block, and of that word the low 16 bits
 *       (half {@code (column >>> 5) & 1} = 0) or the high 16 bits (half 1).
 * </ul>
 *
 * Columns 64q..64q+63 therefore use the blocks 8q..8q+7: 64q+8w..64q+8w+7 the low halves of
 * word w, 64q+32+8w..64q+32+8w+7 its high halves, so one 8-lane group of blocks yields 64
 * consecutive columns, again without shuffles, at half the Threefry work per column. The map is
 * injective: distinct (seed, row, column, draw) use distinct (key, counter, word, half).
 *
 * <p>The two mappings are two views of the same blocks: {@code bits(s, r, c, d)} and {@code
 * bits16(s, r, c', d)} may share a word, so a consumer picks one view per (seed, row, draw).
 * Stochastic rounding uses half words for b <= 8 and whole words for b = 16, one view per row.
 *
 * <p>{@link #uniform16} is {@code (h + 1/2) * 2^-16} (exact in float, in (0, 1), mean exactly
 * 1/2): the half offset makes the 16-bit quantization symmetric, so for every f in [0, 1],
 * |P(u >= 1 - f) - f| <= 2^-17. Rounding t to floor(t + u) then goes up with probability
 * frac(t) up to 2^-17 in exact arithmetic (see ScalarRounding for the float addition).
 *
 * <h2>Byte draws</h2>
 *
 * For callers that need 8 random bits per column ({@link #bits8}, {@link #fillBits8}: the
 * featurizer's stochastic rounding at b <= 8 since {@code lprff.rng} = {@value #BYTES}), a third
 * mapping takes four columns from each output word:
 *
 * <ul>
 *   <li>block = {@code ((column >>> 7) << 3) | (column & 7)}, same key and counter layout;
 *   <li>word {@code w = (column >>> 3) & 3} of that block, and of that word byte {@code k =
 *       (column >>> 5) & 3} (bits 8k .. 8k + 7).
 * </ul>
 *
 * Columns 128q..128q+127 use the blocks 8q..8q+7, byte k of word w covering 128q+32k+8w ..
 * 128q+32k+8w+7: one group of blocks yields 128 consecutive columns, at a quarter of the Threefry
 * work per column of {@link #bits}. The map is injective like the others. A rounding draw d of 8
 * bits stands for u = (d + 1/2) 2^-8 (mean exactly 1/2, and |P(u >= 1 - f) - f| <= 2^-9 for every
 * f in [0, 1]): rounding goes up with probability frac(t) up to 2^-9 of a step, a bias below what
 * the quantizer's property tests can see (QuantizerProperties: 0.0062 of a step).
 */
public final class CounterRng {

  private static final CounterRngBody BODY = VectorizationProvider.get().counterRng();

  /**
   * The {@code lprff.rng} of stochastic rounding at b <= 8 with byte draws (the default), and with
   * half-word draws (files without the key: {@value #HALF_WORDS}).
   */
  public static final String BYTES = "threefry4x32-13:8";

  public static final String HALF_WORDS = "threefry4x32-13:16";

  private CounterRng() {}


  /** 32 random bits for (seed, row, column, draw); column must be >= 0. */
  public static int bits(long seed, long row, int column, int draw) {
    checkColumn(column);
    return Threefry.bits(seed, row, column, draw);
  }

  /** A uniform float in [0, 1) on the grid k * 2^-24: {@code (bits >>> 8) * 0x1p-24f}. */
  public static float uniform(long seed, long row, int column, int draw) {
    return toUniform(bits(seed, row, column, draw));
  }

  /** A uniform double in [0, 1) on the grid k * 2^-32: {@code unsigned(bits) * 0x1p-32}. */
  public static double uniformDouble(long seed, long row, int column, int draw) {
    return toUniformDouble(bits(seed, row, column, draw));
  }

  /**
   * 16 random bits, in [0, 65535], for (seed, row, column, draw) by the half-word mapping (see
   * the class documentation); column must be >= 0.
   */
  public static int bits16(long seed, long row, int column, int draw) {
    checkColumn(column);
    return Threefry.bits16(seed, row, column, draw);
  }

  /**
   * 8 random bits, in [0, 255], for (seed, row, column, draw) by the byte mapping (see the class
   * documentation); column must be >= 0.
   */
  public static int bits8(long seed, long row, int column, int draw) {
    checkColumn(column);
    return Threefry.bits8(seed, row, column, draw);
  }

  /** out[off + i] = bits8(seed, row, firstColumn + i, draw) for i in [0, count). */
  public static void fillBits8(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    checkRange(firstColumn, count);
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    checkBounds(out.length, off, count);
    BODY.fillBits8(seed, row, firstColumn, draw, out, off, count);
  }

  /** A uniform float in (0, 1) on the grid (k + 1/2) * 2^-16: {@code (bits16 + 0.5f) * 0x1p-16f}. */
  public static float uniform16(long seed, long row, int column, int draw) {
    return toUniform16(bits16(seed, row, column, draw));
  }

  /** out[off + i] = bits16(seed, row, firstColumn + i, draw) for i in [0, count). */
  public static void fillBits16(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    checkRange(firstColumn, count);
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    checkBounds(out.length, off, count);
    BODY.fillBits16(seed, row, firstColumn, draw, out, off, count);
  }

  /** out[off + i] = bits(seed, row, firstColumn + i, draw) for i in [0, count). */
  public static void fillBits(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    checkRange(firstColumn, count);
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    checkBounds(out.length, off, count);
    BODY.fillBits(seed, row, firstColumn, draw, out, off, count);
  }

  /** out[off + i] = uniform(seed, row, firstColumn + i, draw) for i in [0, count). */
  public static void fillUniform(
      long seed, long row, int firstColumn, int draw, float[] out, int off, int count) {
    checkRange(firstColumn, count);
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    checkBounds(out.length, off, count);
    BODY.fillUniform(seed, row, firstColumn, draw, out, off, count);
  }

  static float toUniform(int bits) {
    return (bits >>> 8) * 0x1p-24f;
  }

  /** h in [0, 65535]: h + 0.5 has 17 significant bits, so both operations are exact. */
  static float toUniform16(int h) {
    return (h + 0.5f) * 0x1p-16f;
  }

  static double toUniformDouble(int bits) {
    return (bits & 0xFFFFFFFFL) * 0x1p-32;
  }

  private static void checkColumn(int column) {
    if (column < 0) {
      throw new IllegalArgumentException("column is " + column + ", expected >= 0");
    }
  }

  public static void checkRange(int firstColumn, int count) {
    if (firstColumn < 0) {
      throw new IllegalArgumentException("firstColumn is " + firstColumn + ", expected >= 0");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    if (firstColumn + (long) count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "firstColumn " + firstColumn + " + count " + count + " exceeds " + Integer.MAX_VALUE);
    }
  }

  private static void checkBounds(int length, int off, int count) {
    if (off < 0 || off + (long) count > length) {
      throw new IllegalArgumentException(
          "out has length " + length + ", cannot hold " + count + " values from offset " + off);
    }
  }
}
