package org.lprff.vector.codec;

import java.util.LinkedHashMap;
import java.util.Map;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.simd.spi.CosineCodes;

/**
 * How a featurizer turns a feature s cos(w.x + a), s = sqrt(2/m), into a b-bit code, and how a
 * reader turns the code back into a value (DESIGN.md sections 1 and 3). A value of the spec:
 * {@link #key()} is stored under {@code lprff.quantizer}, its parameters and decoding under the
 * keys of {@link #metadata}.
 *
 * <ul>
 *   <li>{@link #STOCHASTIC}: unbiased rounding onto the uniform grid of {@link
 *       QuantizationScale#forFeatures}, a fresh draw per entry (LP-RFF);
 *   <li>{@link #NEAREST}: deterministic rounding to the nearest level, biased (a baseline);
 *   <li>{@link #SHARED_THRESHOLD}: stochastic rounding's rule with one draw per feature and grid
 *       interval, shared by every row: deterministic in x, unbiased over the seed;
 *   <li>{@link #LLOYD_MAX}: the nearest of the 2^b Lloyd-Max levels of the cosine's arcsine law
 *       ({@link LloydMaxCodebook}; Li and Li 2021), decoded through a codebook, not a grid:
 *       deterministic, the smallest mean squared error, biased;
 *   <li>{@link SigmaDelta}: r-th order Sigma-Delta error feedback along blocks of features,
 *       decoded by a condensation of each block into one feature (Zhang, Kannan, Cloninger and
 *       Saab 2024): a model reads m / block condensed features.
 * </ul>
 *
 * Every quantizer but the first two needs b in {1, 2, 4, 8}; all of them accept b = 32, where a
 * spec records the quantizer but its float features are not quantized ({@link #codes}, checked
 * by {@link BitWidths}).
 */
public sealed interface Quantizer
    permits Quantizer.Stochastic, Quantizer.Nearest, Quantizer.SharedThreshold,
        Quantizer.LloydMax, Quantizer.SigmaDelta {

  /** Stochastic rounding with byte draws at b <= 8: what a new featurizer uses. */
  Stochastic STOCHASTIC = new Stochastic(CosineCodes.BYTE_DRAWS);

  /**
   * Stochastic rounding with 16-bit draws at b <= 8: files written before {@code lprff.rng}
   * (absent key), whose bytes {@code --like} and every reader reproduce.
   */
  Stochastic STOCHASTIC_HALF_WORDS = new Stochastic(CosineCodes.HALF_WORD_DRAWS);
  Quantizer NEAREST = new Nearest();
  Quantizer SHARED_THRESHOLD = new SharedThreshold();
  Quantizer LLOYD_MAX = new LloydMax();

  /** Sigma-Delta's order and block when the spelling gives none. */
  int DEFAULT_ORDER = 1;

  int DEFAULT_BLOCK = 8;

  /** Largest Sigma-Delta block. */
  int MAX_BLOCK = 256;

  String KEY = "lprff.quantizer";
  String KEY_ORDER = "lprff.quantizer.order";
  String KEY_BLOCK = "lprff.quantizer.block";
  /** Lloyd-Max: the 2^b values of the codes, in feature units, comma-separated floats. */
  String KEY_CODEBOOK = "lprff.codebook";
  /** Sigma-Delta: the block's condensation weights, comma-separated floats. */
  String KEY_CONDENSATION = "lprff.condensation";
  /**
   * Stochastic rounding: the generator and draw width of b <= 8 ({@code CounterRng.BYTES} or
   * {@code HALF_WORDS}); absent: half words, as every file before the key.
   */
  String KEY_RNG = "lprff.rng";

  /** The families, as {@code lprff.quantizer} spells them. */
  String FAMILIES = "stochastic, nearest, shared-threshold, lloyd-max, sigma-delta[:ORDER[:BLOCK]]";

  /** The family's metadata spelling, e.g. {@code sigma-delta}. */
  String key();

  /** The text {@link #parse} reads back, e.g. {@code sigma-delta:2:8}; the key for the others. */
  default String spelling() {
    return key();
  }

  /** True if each entry takes a fresh draw (the featurizer's {@code draw} matters). */
  default boolean randomized() {
    return false;
  }

  /** True if codes decode on a uniform grid lo + code step ({@link #scale}); false: a codebook. */
  default boolean affine() {
    return true;
  }

  /**
   * The grid of the codes for m features at b bits.
   *
   * @throws IllegalStateException for a codebook quantizer
   */
  default QuantizationScale scale(int features, int bits) {
    return QuantizationScale.forFeatures(features, bits);
  }

  /** The values of the 2^b codes in feature units (a copy): the grid's levels or the codebook. */
  default float[] levels(int features, int bits) {
    QuantizationScale scale = scale(features, bits);
    float[] levels = new float[scale.levels()];
    for (int k = 0; k < levels.length; k++) {
      levels[k] = scale.value(k);
    }
    return levels;
  }

  /**
   * The features a model reads for m features at b bits: m, or m / block for Sigma-Delta (whose
   * feature map, quantized or not, is the condensed one).
   */
  default int modelFeatures(int features, int bits) {
    return features;
  }

  /**
   * Checks that this quantizer can code m features at b bits ({@link BitWidths#check(String, int,
   * Quantizer)}; Sigma-Delta: also that its block divides m).
   *
   * @throws IllegalArgumentException naming the value and the widths this quantizer codes
   */
  default void check(int features, int bits) {
    BitWidths.check("bits", bits, this);
  }

  /**
   * True if this quantizer codes b bits (b one of the spec's): every b for stochastic and
   * nearest, 1 to 8 (and 32, unquantized) for the others, and for Sigma-Delta of order r at
   * least r.
   */
  default boolean codes(int bits) {
    return bits == 32 || bits <= LloydMaxCodebook.MAX_BITS;
  }

  /**
   * The keys beside {@code lprff.quantizer}: the parameters and what a reader needs to decode
   * (Lloyd-Max's codebook below 32 bits; Sigma-Delta's order, block and condensation at any
   * bits: a Sigma-Delta map is the condensed one, float32 features included).
   */
  default Map<String, String> metadata(int features, int bits) {
    return Map.of();
  }

  /**
   * The quantizer spelled {@code text}: a family of {@link #FAMILIES}, Sigma-Delta optionally with
   * its order and block ({@code sigma-delta:2:8}).
   *
   * @throws IllegalArgumentException naming the text and the accepted spellings
   */
  static Quantizer parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("quantizer is null; expected one of " + FAMILIES);
    }
    String[] parts = text.trim().split(":", -1);
    Quantizer family = switch (parts[0]) {
      case "stochastic" -> STOCHASTIC;
      case "nearest" -> NEAREST;
      case "shared-threshold" -> SHARED_THRESHOLD;
      case "lloyd-max" -> LLOYD_MAX;
      case "sigma-delta" -> null;
      default -> throw new IllegalArgumentException(
          "quantizer is '" + text + "', expected one of " + FAMILIES);
    };
    if (family != null) {
      if (parts.length > 1) {
        throw new IllegalArgumentException("quantizer is '" + text + "': " + parts[0]
            + " takes no parameters (only sigma-delta[:ORDER[:BLOCK]] does)");
      }
      return family;
    }
    if (parts.length > 3) {
      throw new IllegalArgumentException(
          "quantizer is '" + text + "', expected sigma-delta[:ORDER[:BLOCK]], e.g. sigma-delta:2:8");
    }
    int order = parts.length > 1 ? parameter(text, "ORDER", parts[1]) : DEFAULT_ORDER;
    int block = parts.length > 2 ? parameter(text, "BLOCK", parts[2]) : DEFAULT_BLOCK;
    return sigmaDelta(order, block);
  }

  private static int parameter(String text, String name, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("quantizer is '" + text + "': " + name + " is '" + value
          + "', not an integer (sigma-delta[:ORDER[:BLOCK]], e.g. sigma-delta:2:8)", e);
    }
  }

  /**
   * The quantizer of a file's metadata: {@code lprff.quantizer}, with {@code
   * lprff.quantizer.order} and {@code lprff.quantizer.block} for Sigma-Delta.
   */
  static Quantizer fromMap(Map<String, String> map) {
    String key = map.get(KEY);
    if (key == null) {
      throw new IllegalArgumentException("map has no '" + KEY + "' key");
    }
    if (!"sigma-delta".equals(key)) {
      if (key.contains(":")) {
        throw new IllegalArgumentException(KEY + " is '" + key + "', expected one of stochastic,"
            + " nearest, shared-threshold, lloyd-max, sigma-delta");
      }
      Quantizer family = parse(key);
      String rng = map.get(KEY_RNG);
      if (family instanceof Stochastic) {
        return Stochastic.ofRng(rng);
      }
      checkNoRng(key, rng);
      return family;
    }
    checkNoRng(key, map.get(KEY_RNG));
    String order = map.get(KEY_ORDER);
    String block = map.get(KEY_BLOCK);
    if (order == null || block == null) {
      throw new IllegalArgumentException(KEY + " is sigma-delta but the map has no '"
          + (order == null ? KEY_ORDER : KEY_BLOCK) + "' key");
    }
    return sigmaDelta(parameter(KEY_ORDER, "order", order), parameter(KEY_BLOCK, "block", block));
  }

  /** A quantizer that draws nothing has no {@code lprff.rng}: a map that gives one is refused. */
  private static void checkNoRng(String key, String rng) {
    if (rng != null) {
      throw new IllegalArgumentException(KEY + " is " + key + " but the map has '" + KEY_RNG
          + "' = '" + rng + "', which only stochastic rounding records");
    }
  }

  /**
   * Sigma-Delta of order r in [1, {@code CosineCodes.MAX_ORDER} = 3] over blocks of {@code block}
   * features, block in [1, {@link #MAX_BLOCK}].
   */
  static SigmaDelta sigmaDelta(int order, int block) {
    return new SigmaDelta(order, block);
  }

  /**
   * Unbiased stochastic rounding, a fresh draw per entry: LP-RFF's quantizer. At b <= 8 a draw is
   * {@code drawBits} = 8 ({@link #STOCHASTIC}) or 16 ({@link #STOCHASTIC_HALF_WORDS}) bits of
   * Threefry-4x32-13 (CounterRng's byte and half-word mappings), unbiased to 2^-9 + 2^-16 or to
   * 2^-16 of a step (the draw's grid, and the one rounding of the grid position: CosineCodes);
   * b = 16 takes whole words either way.
   */
  record Stochastic(int drawBits) implements Quantizer {
    public Stochastic {
      if (drawBits != CosineCodes.BYTE_DRAWS && drawBits != CosineCodes.HALF_WORD_DRAWS) {
        throw new IllegalArgumentException("drawBits is " + drawBits + ", expected 8 or 16");
      }
    }

    /** The quantizer a file's {@code lprff.rng} names (null: a file from before the key). */
    static Stochastic ofRng(String rng) {
      if (rng == null || rng.equals(CounterRng.HALF_WORDS)) {
        return STOCHASTIC_HALF_WORDS;
      }
      if (rng.equals(CounterRng.BYTES)) {
        return STOCHASTIC;
      }
      throw new IllegalArgumentException(KEY_RNG + " is '" + rng + "', expected "
          + CounterRng.BYTES + " or " + CounterRng.HALF_WORDS + " (a newer lprff wrote it?"
          + " upgrade)");
    }

    /** The generator and draw width this quantizer records under {@code lprff.rng}. */
    public String rng() {
      return drawBits == CosineCodes.BYTE_DRAWS ? CounterRng.BYTES : CounterRng.HALF_WORDS;
    }

    @Override
    public String key() {
      return "stochastic";
    }

    @Override
    public Map<String, String> metadata(int features, int bits) {
      return Map.of(KEY_RNG, rng());
    }

    @Override
    public boolean randomized() {
      return true;
    }

    @Override
    public boolean codes(int bits) {
      return true;
    }

    @Override
    public String toString() {
      return key();
    }
  }

  /** Round to the nearest level of the grid. */
  record Nearest() implements Quantizer {
    @Override
    public String key() {
      return "nearest";
    }

    @Override
    public boolean codes(int bits) {
      return true;
    }

    @Override
    public String toString() {
      return key();
    }
  }

  /**
   * Stochastic rounding's rule with the draw of feature i and grid interval j fixed: {@code
   * CounterRng.bits16(seed, Long.MIN_VALUE + i, j, 0)} ({@link SharedThresholdQuantizer}).
   */
  record SharedThreshold() implements Quantizer {
    @Override
    public String key() {
      return "shared-threshold";
    }

    @Override
    public String toString() {
      return key();
    }
  }

  /** The nearest of the 2^b Lloyd-Max levels of the cosine, times s = sqrt(2/m). */
  record LloydMax() implements Quantizer {
    @Override
    public String key() {
      return "lloyd-max";
    }

    @Override
    public boolean affine() {
      return false;
    }

    @Override
    public QuantizationScale scale(int features, int bits) {
      throw new IllegalStateException(
          "lloyd-max codes index a codebook (" + KEY_CODEBOOK + "), not a uniform grid");
    }

    @Override
    public float[] levels(int features, int bits) {
      if (features < 1) {
        throw new IllegalArgumentException("features is " + features + ", expected >= 1");
      }
      double s = Math.sqrt(2.0 / features);
      double[] unit = LloydMaxCodebook.forBits(bits).levels();
      float[] levels = new float[unit.length];
      for (int k = 0; k < unit.length; k++) {
        levels[k] = (float) (s * unit[k]);
      }
      return levels;
    }

    /** The 2^b - 1 thresholds on the cosine (unit scale), as floats: what the featurizer compares. */
    public static float[] cosineThresholds(int bits) {
      double[] unit = LloydMaxCodebook.forBits(bits).thresholds();
      float[] thresholds = new float[unit.length];
      for (int k = 0; k < unit.length; k++) {
        thresholds[k] = (float) unit[k];
      }
      return thresholds;
    }

    @Override
    public Map<String, String> metadata(int features, int bits) {
      return bits == 32 ? Map.of() : Map.of(KEY_CODEBOOK, FloatList.format(levels(features, bits)));
    }

    @Override
    public String toString() {
      return key();
    }
  }

  /**
   * Sigma-Delta quantization of order r along blocks of λ features: greedy error feedback onto 2^b
   * levels spaced D = 2 / (2^b - 2^r + 1) (cosine units; b >= r), the state within D / 2. Block k
   * condenses to the feature sum_i u_i q_{kλ + i} with the weights {@link #condensation()}: v the
   * coefficients of prod_j (1 + z + ... + z^{a_j - 1}), boxes whose lengths a_1 + ... + a_r = λ +
   * r - 1 differ by at most 1, scaled to u = sqrt(λ) v / |v|_2 so that the condensed features
   * estimate the kernel without a factor. Since the r-th difference of v has l1 norm 2^r, the
   * condensed error |sum_i v_i (y_i - q_i)| is at most 2^r D / 2 times s, while |v|_1 grows as
   * λ^r.
   */
  record SigmaDelta(int order, int block) implements Quantizer {

    public SigmaDelta {
      if (order < 1 || order > 3) {
        throw new IllegalArgumentException(
            "sigma-delta order is " + order + ", expected 1, 2 or 3");
      }
      if (block < 1 || block > MAX_BLOCK) {
        throw new IllegalArgumentException(
            "sigma-delta block is " + block + ", expected 1 to " + MAX_BLOCK);
      }
    }

    @Override
    public String key() {
      return "sigma-delta";
    }

    @Override
    public String spelling() {
      return "sigma-delta:" + order + ":" + block;
    }

    @Override
    public QuantizationScale scale(int features, int bits) {
      double s = Math.sqrt(2.0 / features);
      double step = 2.0 / ((1 << bits) - (1 << order) + 1);
      double center = ((1 << bits) - 1) / 2.0;
      return QuantizationScale.of(bits, (float) (-s * center * step), (float) (s * step));
    }

    @Override
    public int modelFeatures(int features, int bits) {
      return features / block;
    }

    @Override
    public boolean codes(int bits) {
      return Quantizer.super.codes(bits) && (bits == 32 || bits >= order);
    }

    @Override
    public void check(int features, int bits) {
      Quantizer.super.check(features, bits);
      if (features % block != 0) {
        throw new IllegalArgumentException("features is " + features + ", not a multiple of the"
            + " sigma-delta block " + block + " (use a block that divides m)");
      }
    }

    /** The integer weights v of a block (see the class doc). */
    public long[] weights() {
      long[] v = {1};
      int extra = block - 1; // sum over boxes of (a_j - 1)
      for (int j = 0; j < order; j++) {
        int length = 1 + extra / order + (j < extra % order ? 1 : 0);
        long[] next = new long[v.length + length - 1];
        for (int i = 0; i < v.length; i++) {
          for (int k = 0; k < length; k++) {
            next[i + k] += v[i];
          }
        }
        v = next;
      }
      return v;
    }

    /** u = sqrt(λ) v / |v|_2: the condensed feature of a block is sum_i u_i value(code_i). */
    public float[] condensation() {
      long[] v = weights();
      double norm = 0;
      for (long x : v) {
        norm += (double) x * x;
      }
      double factor = Math.sqrt(block / norm);
      float[] u = new float[block];
      for (int i = 0; i < block; i++) {
        u[i] = (float) (v[i] * factor);
      }
      return u;
    }

    /** The condensation of this block's codes. */
    public Condensation condenser() {
      return new Condensation(condensation());
    }

    @Override
    public Map<String, String> metadata(int features, int bits) {
      Map<String, String> map = new LinkedHashMap<>();
      map.put(KEY_ORDER, Integer.toString(order));
      map.put(KEY_BLOCK, Integer.toString(block));
      map.put(KEY_CONDENSATION, FloatList.format(condensation()));
      return map;
    }

    @Override
    public String toString() {
      return spelling();
    }
  }
}
