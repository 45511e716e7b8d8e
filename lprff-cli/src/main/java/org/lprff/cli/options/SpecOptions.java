package org.lprff.cli.options;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.lprff.vector.codec.BitWidths;
import org.lprff.arrow.model.Bandwidth;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.Projections;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The featurizer options of {@code featurize}. Every field is null unless given, so that with
 * {@code --like} an option given explicitly can be checked against the file's spec, and without it
 * the defaults apply.
 */
public final class SpecOptions {

  static final int DEFAULT_FEATURES = 1024;
  static final int DEFAULT_BITS = 8;
  static final String DEFAULT_PROJECTION = "dense";
  static final long DEFAULT_SEED = 0;

  @Mixin public KernelOptions kernel = new KernelOptions();

  @Option(
      names = {"--features", "-m"},
      paramLabel = "M",
      description = "Number of random features m (default " + DEFAULT_FEATURES + ").")
  public Integer features;

  @Option(
      names = {"--bits", "-b"},
      paramLabel = "B",
      description = "Bits per feature: 1, 2, 4, 8, 16, or 32 for float32 features (default "
          + DEFAULT_BITS + "). With --like, 32 featurizes at full precision with the file's map"
          + " (for heldout and test rows: quantized test features add noise to predictions).")
  public Integer bits;

  @Option(
      names = "--projection",
      paramLabel = "NAME",
      description = "dense, circulant, fastfood or orthogonal (default " + DEFAULT_PROJECTION
          + "; the structured ones need the gaussian kernel).")
  public String projection;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "Seed of every random parameter and rounding draw (default " + DEFAULT_SEED
          + ").")
  public Long seed;

  @Mixin public QuantizerOption quantizer = new QuantizerOption();

  /**
   * The spec these options give for input rows of {@code inputDim} values, defaults filled in.
   *
   * @throws UsageException for a missing kernel parameter, one that does not apply to the kernel,
   *     or a value the spec refuses
   */
  public FeaturizerSpec build(int inputDim) {
    return build(kernel.build(), inputDim, DEFAULT_FEATURES, DEFAULT_BITS);
  }

  /** As {@link #build(int)}, with the kernel's length scale {@code scale} (e.g. the median's). */
  public FeaturizerSpec build(int inputDim, double scale) {
    return build(inputDim, scale, DEFAULT_FEATURES, DEFAULT_BITS);
  }

  /**
   * As {@link #build(int)}, with the kernel's length scale {@code scale} in place of a "median"
   * or "auto" one (or of none), and the command's own defaults of m and b.
   */
  public FeaturizerSpec build(int inputDim, double scale, int defaultFeatures, int defaultBits) {
    return build(kernel.build(scale), inputDim, defaultFeatures, defaultBits);
  }

  private FeaturizerSpec build(KernelFunction function, int inputDim, int defaultFeatures,
      int defaultBits) {
    int m = features == null ? defaultFeatures : features;
    if (m < 1) {
      throw new UsageException("--features is " + m + ", expected >= 1");
    }
    int b = bits == null ? defaultBits : bits;
    try {
      BitWidths.check("--bits", b);
      return new FeaturizerSpec(
          function,
          inputDim,
          m,
          b,
          projection == null ? DEFAULT_PROJECTION : projectionName(projection),
          seed == null ? DEFAULT_SEED : seed,
          quantizer.quantizer());
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /**
   * The spec to featurize with under {@code --like}: the file's, or its full-precision twin for
   * {@code --bits 32} (same kernel, frequencies, phases and seed; no rounding), which is how
   * heldout and test rows are best featurized: quantized test features add ||w||^2 sigma^2 to
   * the expected squared error.
   */
  public FeaturizerSpec like(FeaturizerSpec like, String source) {
    requireAgreement(like, source);
    return bits != null && bits == 32 ? like.withBits(32) : like;
  }

  /**
   * Checks every option given explicitly against {@code like}, the spec of the {@code --like}
   * file named {@code source}.
   *
   * @throws IllegalArgumentException naming each conflicting option with both values, e.g.
   *     "--bits 8 conflicts with train.arrow, which has lprff.bits=4"
   */
  void requireAgreement(FeaturizerSpec like, String source) {
    List<String> conflicts = new ArrayList<>();
    KernelFunction k = like.kernel();
    if (kernel.bandwidth(Bandwidth.GIVEN) != Bandwidth.GIVEN) {
      conflicts.add((kernel.sigma != null ? "--sigma " + kernel.sigma : "--length-scale "
          + kernel.lengthScale) + " conflicts with --like " + source + ", whose map has its own"
          + " length scale");
    }
    Double sigma = kernel.sigmaNumber();
    Double nu = kernel.nu;
    Double lengthScale = kernel.lengthScaleNumber();
    if (kernel.name != null && !KernelOptions.kernelName(kernel.name).equals(k.name())) {
      conflicts.add(conflict(source, "--kernel", kernel.name, "lprff.kernel", k.name()));
    }
    double likeSigma = switch (k) {
      case KernelFunction.Gaussian g -> g.sigma();
      case KernelFunction.Laplacian l -> l.sigma();
      case KernelFunction.Matern m -> Double.NaN;
    };
    if (sigma != null && Double.compare(sigma, likeSigma) != 0) {
      conflicts.add(Double.isNaN(likeSigma)
          ? "--sigma " + sigma + " conflicts with the matern kernel of " + source
              + ", which has no sigma"
          : conflict(source, "--sigma", sigma, "lprff.sigma", likeSigma));
    }
    if (nu != null || lengthScale != null) {
      if (k instanceof KernelFunction.Matern m) {
        if (nu != null && Double.compare(nu, m.nu()) != 0) {
          conflicts.add(conflict(source, "--nu", nu, "lprff.nu", m.nu()));
        }
        if (lengthScale != null && Double.compare(lengthScale, m.lengthScale()) != 0) {
          conflicts.add(conflict(source, "--length-scale", lengthScale, "lprff.length_scale",
              m.lengthScale()));
        }
      } else {
        conflicts.add((nu != null ? "--nu" : "--length-scale") + " conflicts with the " + k.name()
            + " kernel of " + source + ", which is not matern");
      }
    }
    if (features != null && features != like.features()) {
      conflicts.add(conflict(source, "--features", features, FeaturizerSpec.KEY_FEATURES, like.features()));
    }
    // --bits 32 with --like is the full-precision twin: the same map without rounding.
    if (bits != null && bits != like.bits() && bits != 32) {
      conflicts.add(conflict(source, "--bits", bits, FeaturizerSpec.KEY_BITS, like.bits()));
    }
    if (projection != null && !projectionName(projection).equals(like.projection())) {
      conflicts.add(conflict(
          source, "--projection", projection, FeaturizerSpec.KEY_PROJECTION, like.projection()));
    }
    if (seed != null && seed != like.seed()) {
      conflicts.add(conflict(source, "--seed", seed, FeaturizerSpec.KEY_SEED, like.seed()));
    }
    if (quantizer.name != null && !quantizer.quantizer().equals(like.quantizer())) {
      conflicts.add(conflict(source, "--quantizer", quantizer.name, FeaturizerSpec.KEY_QUANTIZER,
          like.quantizer().spelling()));
    }
    if (!conflicts.isEmpty()) {
      throw new IllegalArgumentException(
          String.join("; ", conflicts)
              + " (drop the option to featurize like the file, or drop --like)");
    }
  }

  private static String conflict(
      String source, String option, Object given, String key, Object inFile) {
    return option + " " + given + " conflicts with " + source + ", which has " + key + "=" + inFile;
  }

  public static String projectionName(String text) {
    String name = text.toLowerCase(Locale.ROOT);
    if (!Projections.NAMES.contains(name)) {
      throw new UsageException(
          "--projection is '" + text + "', expected one of " + String.join(", ", Projections.NAMES));
    }
    return name;
  }

}
