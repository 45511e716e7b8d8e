package org.lprff.vector.featurize;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.lprff.vector.codec.BitWidths;
import org.lprff.vector.codec.Condensation;
import org.lprff.vector.codec.FloatList;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.projection.Projections;

/**
 * Everything that determines an LP-RFF feature map, and so the bytes it writes: the kernel, the
 * input width d, the number of features m, the bits per feature b, the projection, the seed and
 * the quantizer. Immutable; validated at construction.
 *
 * <p>b is 1, 2, 4, 8 or 16 (packed codes on the grid {@link QuantizationScale#forFeatures}), or 32
 * for plain float32 features (the quantizer is then recorded but unused). Structured projections
 * (every name but {@code dense}) need a kernel with a Gaussian spectral density ({@link
 * KernelFunction#supportsStructuredProjections}).
 *
 * <p>{@link #toMap} gives the strings stored as Arrow schema metadata (DESIGN.md section 3): the
 * kernel's own keys prefixed with {@code lprff.} ({@code lprff.kernel}, {@code lprff.sigma}, or
 * {@code lprff.nu} and {@code lprff.length_scale}), then {@code lprff.input_dim}, {@code
 * lprff.features}, {@code lprff.bits}, {@code lprff.projection}, {@code lprff.seed}, {@code
 * lprff.quantizer} and the quantizer's own keys ({@link Quantizer#metadata}: Sigma-Delta's order,
 * block and condensation, Lloyd-Max's codebook), and for b < 32 the derived {@code
 * lprff.scale.lo}, {@code lprff.scale.step} (codes on a uniform grid: every quantizer but
 * Lloyd-Max; {@link Float#toString}, which parses back to the same float) and {@code
 * lprff.bit_order} = {@code lsb0}.
 *
 * @param kernel the shift-invariant kernel the features approximate
 * @param inputDim d >= 1
 * @param features m >= 1
 * @param bits b in {1, 2, 4, 8, 16, 32} ({@link BitWidths}; 32: float32 features)
 * @param projection one of {@link Projections#NAMES}
 * @param seed the seed every random parameter and rounding draw derives from
 * @param quantizer how features become codes ({@link Quantizer})
 */
public record FeaturizerSpec(
    KernelFunction kernel,
    int inputDim,
    int features,
    int bits,
    String projection,
    long seed,
    Quantizer quantizer) {

  public static final String PREFIX = "lprff.";
  public static final String KEY_KERNEL = "lprff.kernel";
  public static final String KEY_INPUT_DIM = "lprff.input_dim";
  public static final String KEY_FEATURES = "lprff.features";
  public static final String KEY_BITS = "lprff.bits";
  public static final String KEY_PROJECTION = "lprff.projection";
  public static final String KEY_SEED = "lprff.seed";
  public static final String KEY_QUANTIZER = "lprff.quantizer";
  public static final String KEY_SCALE_LO = "lprff.scale.lo";
  public static final String KEY_SCALE_STEP = "lprff.scale.step";
  public static final String KEY_BIT_ORDER = "lprff.bit_order";
  /** Written by the Arrow layer, not by this spec; {@link #fromMap} ignores it. */
  public static final String KEY_FORMAT_VERSION = "lprff.format.version";
  public static final String BIT_ORDER = "lsb0";

  private static final Set<String> SPEC_KEYS =
      Set.of(
          KEY_INPUT_DIM, KEY_FEATURES, KEY_BITS, KEY_PROJECTION, KEY_SEED, KEY_QUANTIZER,
          KEY_SCALE_LO, KEY_SCALE_STEP, KEY_BIT_ORDER, KEY_FORMAT_VERSION, Quantizer.KEY_ORDER,
          Quantizer.KEY_BLOCK, Quantizer.KEY_CODEBOOK, Quantizer.KEY_CONDENSATION,
          Quantizer.KEY_RNG);

  public FeaturizerSpec {
    if (kernel == null) {
      throw new IllegalArgumentException("kernel is null");
    }
    if (inputDim < 1) {
      throw new IllegalArgumentException("inputDim is " + inputDim + ", expected >= 1");
    }
    if (features < 1) {
      throw new IllegalArgumentException("features is " + features + ", expected >= 1");
    }
    BitWidths.check("bits", bits);
    if (quantizer == null) {
      throw new IllegalArgumentException(
          "quantizer is null; expected one of " + Quantizer.FAMILIES);
    }
    if (projection == null || !Projections.NAMES.contains(projection)) {
      throw new IllegalArgumentException(
          "projection is " + (projection == null ? "null" : "'" + projection + "'")
              + ", expected one of " + Projections.NAMES);
    }
    if (!supports(projection, kernel)) {
      throw new IllegalArgumentException(
          "projection '" + projection + "' needs a Gaussian spectral density, but the kernel is "
              + kernel.name() + "; structured projections support only the gaussian kernel"
              + " (use projection 'dense' for laplacian or matern)");
    }
    quantizer.check(features, bits);
    long bytes = PackedLayout.rowBytes(features, bits);
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          features + " features at " + bits + " bits need " + bytes + " bytes per row, more than"
              + " an int");
    }
  }

  /** True if {@code projection} can realise {@code kernel}: dense any kernel, others Gaussian. */
  public static boolean supports(String projection, KernelFunction kernel) {
    return "dense".equals(projection) || kernel.supportsStructuredProjections();
  }

  /** True for b = 32: float32 features, no quantization. */
  public boolean isFloat() {
    return bits == 32;
  }

  /** Bytes of one output row: ceil(m b / 8) for b < 32, 4 m for b = 32. */
  public int rowBytes() {
    return (int) PackedLayout.rowBytes(features, bits);
  }

  /**
   * The grid of the codes for b < 32: lo = -sqrt(2/m), step = 2 sqrt(2/m) / (2^b - 1), or
   * Sigma-Delta's wider grid ({@link Quantizer#scale}).
   *
   * @throws IllegalStateException for b = 32 or a codebook quantizer (Lloyd-Max: {@link #levels})
   */
  public QuantizationScale scale() {
    if (bits == 32) {
      throw new IllegalStateException("bits is 32 (float32 features): there is no quantization scale");
    }
    return quantizer.scale(features, bits);
  }

  /** The values of the 2^b codes in feature units, for b < 32: the grid's levels or a codebook. */
  public float[] levels() {
    if (bits == 32) {
      throw new IllegalStateException("bits is 32 (float32 features): there are no code values");
    }
    return quantizer.levels(features, bits);
  }

  /**
   * The condensation of a Sigma-Delta spec (its m features, codes or float32, are read as
   * {@link #modelFeatures()} condensed ones); empty for every other quantizer.
   */
  public Optional<Condensation> condensation() {
    return quantizer instanceof Quantizer.SigmaDelta sd
        ? Optional.of(sd.condenser())
        : Optional.empty();
  }

  /** The features a model reads: m, or m / block for Sigma-Delta codes ({@link Quantizer}). */
  public int modelFeatures() {
    return quantizer.modelFeatures(features, bits);
  }

  /**
   * The spec a model trained on this spec's features scores new rows with by default: float32
   * (b = 32) for stochastic rounding, whose codes average to the features (quantized test rows
   * only add |w|^2 times the rounding variance); this spec itself for a deterministic quantizer
   * (nearest, shared-threshold, Lloyd-Max, Sigma-Delta), whose codes are the feature map the
   * model learned (a full-precision row is not what it was trained on).
   */
  public FeaturizerSpec scoringSpec() {
    return quantizer.randomized() ? withBits(32) : this;
  }

  /** This spec with another seed. */
  public FeaturizerSpec withSeed(long newSeed) {
    return new FeaturizerSpec(kernel, inputDim, features, bits, projection, newSeed, quantizer);
  }

  /** This spec with another bit width. */
  public FeaturizerSpec withBits(int newBits) {
    return new FeaturizerSpec(kernel, inputDim, features, newBits, projection, seed, quantizer);
  }

  /** This spec with another number of features. */
  public FeaturizerSpec withFeatures(int newFeatures) {
    return new FeaturizerSpec(kernel, inputDim, newFeatures, bits, projection, seed, quantizer);
  }

  /** This spec with the kernel's length scale ({@link KernelFunction#lengthScale}) replaced. */
  public FeaturizerSpec withLengthScale(double lengthScale) {
    return new FeaturizerSpec(kernel.withLengthScale(lengthScale), inputDim, features, bits,
        projection, seed, quantizer);
  }

  /** This spec with another quantizer. */
  public FeaturizerSpec withQuantizer(Quantizer newQuantizer) {
    return new FeaturizerSpec(kernel, inputDim, features, bits, projection, seed, newQuantizer);
  }

  /** The metadata strings, in a fixed order (kernel keys first); unmodifiable. */
  public Map<String, String> toMap() {
    Map<String, String> map = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : kernel.toMap().entrySet()) {
      map.put(PREFIX + e.getKey(), e.getValue());
    }
    map.put(KEY_INPUT_DIM, Integer.toString(inputDim));
    map.put(KEY_FEATURES, Integer.toString(features));
    map.put(KEY_BITS, Integer.toString(bits));
    map.put(KEY_PROJECTION, projection);
    map.put(KEY_SEED, Long.toString(seed));
    map.put(KEY_QUANTIZER, quantizer.key());
    map.putAll(quantizer.metadata(features, bits));
    if (bits != 32) {
      if (quantizer.affine()) {
        QuantizationScale scale = scale();
        map.put(KEY_SCALE_LO, Float.toString(scale.lo()));
        map.put(KEY_SCALE_STEP, Float.toString(scale.step()));
      }
      map.put(KEY_BIT_ORDER, BIT_ORDER);
    }
    return Collections.unmodifiableMap(map);
  }

  /**
   * Restores a spec from {@link #toMap}'s form. Keys not starting with {@code lprff.} and {@code
   * lprff.format.version} are ignored (they belong to the file); every other {@code lprff.} key
   * that is not a spec key is handed to {@link KernelFunction#fromMap} without the prefix, which
   * rejects unknown ones. {@code lprff.scale.lo}, {@code lprff.scale.step} and {@code
   * lprff.bit_order} are optional; when present they must equal the derived values (b < 32) and
   * must be absent for b = 32.
   *
   * @throws IllegalArgumentException naming the key and value that is missing, malformed or
   *     inconsistent
   */
  public static FeaturizerSpec fromMap(Map<String, String> map) {
    if (map == null) {
      throw new IllegalArgumentException("map is null");
    }
    Map<String, String> kernelMap = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : map.entrySet()) {
      String key = e.getKey();
      if (key != null && key.startsWith(PREFIX) && !SPEC_KEYS.contains(key)) {
        kernelMap.put(key.substring(PREFIX.length()), e.getValue());
      }
    }
    if (!kernelMap.containsKey("kernel")) {
      throw new IllegalArgumentException(
          "map has no '" + KEY_KERNEL + "' key; expected gaussian, laplacian or matern");
    }
    KernelFunction kernel = KernelFunction.fromMap(kernelMap);
    int bits = intValue(map, KEY_BITS);
    FeaturizerSpec spec =
        new FeaturizerSpec(
            kernel,
            intValue(map, KEY_INPUT_DIM),
            intValue(map, KEY_FEATURES),
            bits,
            required(map, KEY_PROJECTION),
            longValue(map, KEY_SEED),
            Quantizer.fromMap(map));
    Map<String, String> derived = spec.toMap();
    if (bits == 32) {
      for (String key : new String[] {KEY_SCALE_LO, KEY_SCALE_STEP, KEY_BIT_ORDER,
          Quantizer.KEY_CODEBOOK}) {
        if (map.containsKey(key)) {
          throw new IllegalArgumentException(
              key + " is '" + map.get(key) + "', but bits is 32 (float32 features) which has no"
                  + " packed layout; expected the key to be absent");
        }
      }
      checkFloats(map, Quantizer.KEY_CONDENSATION, derived.get(Quantizer.KEY_CONDENSATION), spec);
    } else {
      for (String key : new String[] {KEY_SCALE_LO, KEY_SCALE_STEP, Quantizer.KEY_CODEBOOK,
          Quantizer.KEY_CONDENSATION}) {
        checkFloats(map, key, derived.get(key), spec);
      }
      String order = map.get(KEY_BIT_ORDER);
      if (order != null && !order.equals(BIT_ORDER)) {
        throw new IllegalArgumentException(
            KEY_BIT_ORDER + " is '" + order + "', expected '" + BIT_ORDER + "'");
      }
    }
    return spec;
  }

  /**
   * A derived key, when present, must hold the derived floats; a key the spec does not derive
   * (a codebook beside a uniform grid, a scale beside a codebook) must be absent.
   */
  private static void checkFloats(Map<String, String> map, String key, String expected,
      FeaturizerSpec spec) {
    String text = map.get(key);
    if (text == null) {
      return;
    }
    String given = "features " + spec.features() + ", bits " + spec.bits() + " and quantizer "
        + spec.quantizer().spelling();
    if (expected == null) {
      throw new IllegalArgumentException(key + " is '" + text + "', but " + given
          + " do not use it; expected the key to be absent");
    }
    float[] want = FloatList.parse(key, expected, expected.split(",").length);
    float[] got = FloatList.parse(key, text, want.length);
    for (int i = 0; i < want.length; i++) {
      if (Float.floatToIntBits(got[i]) != Float.floatToIntBits(want[i])) {
        throw new IllegalArgumentException(key + " is " + text + ", but " + given + " give "
            + expected);
      }
    }
  }

  private static String required(Map<String, String> map, String key) {
    String text = map.get(key);
    if (text == null) {
      throw new IllegalArgumentException("map has no '" + key + "' key");
    }
    return text;
  }

  private static int intValue(Map<String, String> map, String key) {
    String text = required(map, key);
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " is '" + text + "', not an integer", e);
    }
  }

  private static long longValue(Map<String, String> map, String key) {
    String text = required(map, key);
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " is '" + text + "', not a long integer", e);
    }
  }
}
