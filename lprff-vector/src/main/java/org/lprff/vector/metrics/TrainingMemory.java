package org.lprff.vector.metrics;

import java.util.Set;
import org.lprff.vector.codec.BitWidths;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.projection.Projections;

/**
 * Training memory in bits, in the accounting of Table 1 of Zhang, May, Dao, Ré, "Low-Precision
 * Random Fourier Features for Memory-Constrained Kernel Approximation" (AISTATS 2019): data x in
 * R^d, m features, mini-batch size s, c classes (1 for regression and binary classification),
 * full-precision numbers of 32 bits. Three parts:
 *
 * <ul>
 *   <li><b>feature generation</b>: the parameters the feature map keeps;
 *   <li><b>feature mini-batch</b>: one mini-batch of s feature rows, b m s bits (32 m s for b =
 *       32);
 *   <li><b>model</b>: the weights, 32 m c.
 * </ul>
 *
 * The paper's table gives, for feature generation: Nyström 32 (m d + m^2) (landmarks and the m x
 * m projection), dense RFFs 32 m d, circulant RFFs and LP-RFFs 32 m. (Its reference code's
 * accounting agrees: Nyström m r + m^2 + s m numbers against m r + s m for RFFs, r the input
 * width.)
 *
 * <p><b>Our feature generation counts</b> every parameter our projections keep at 32 bits (floats,
 * the int indices of a permutation, and the ±1 diagonals, which are stored as floats), plus the m
 * phases a_i (32 m), which the paper does not list but which our map z_i(x) = s cos(w_i . x + a_i)
 * keeps. Caches derived from the parameters are not counted (the FFT coefficients and twiddles of
 * the circulant plans, the padded transpose of a dense W), as the paper counts circulant blocks by
 * their first column g. With p = the next power of two >= max(d, 2) and B = ceil(m / p) blocks
 * (every block is kept whole, also the last, cut one):
 *
 * <ul>
 *   <li>dense: W (m d) + phases: 32 (m d + m);
 *   <li>circulant: g and the Rademacher signs per block (2 B p) + phases: 32 (2 B p + m);
 *   <li>fastfood: the signs B, the permutation Π, the gaussians G and the row scales S per block
 *       (4 B p) + phases: 32 (4 B p + m);
 *   <li>orthogonal: the diagonals D1, D2, D3 and the row scales per block (4 B p) + phases: 32 (4
 *       B p + m);
 *   <li>Nyström ({@link #forNystrom}): the paper's 32 (m d + m^2). ({@link NystromFeatures} keeps
 *       the m' x m projection in double, 64 m' m bits, because its entries cancel; a 32-bit count
 *       is what the paper assumes.)
 * </ul>
 *
 * Everything could be regenerated from the seed (the parameters are pure functions of it), which
 * would bring feature generation to O(1); the count above is what is held during training. The
 * model counts the m c weights only (not c intercepts), as the paper.
 *
 * @param featureGenerationBits bits of the feature map's parameters
 * @param miniBatchBits bits of one mini-batch of features
 * @param modelBits bits of the linear model
 */
public record TrainingMemory(long featureGenerationBits, long miniBatchBits, long modelBits) {

  /** The projections {@link #forProjection} knows: those of {@link Projections#NAMES}. */
  public static final Set<String> PROJECTIONS = Set.copyOf(Projections.NAMES);

  public TrainingMemory {
    if (featureGenerationBits < 0 || miniBatchBits < 0 || modelBits < 0) {
      throw new IllegalArgumentException(
          "bits are " + featureGenerationBits + ", " + miniBatchBits + ", " + modelBits
              + "; expected >= 0");
    }
  }

  /**
   * This memory with the model at {@code bits} bits a weight instead of 32, e.g. LM-HALP's 8-bit
   * model (the paper's "LP-RFF, 8-bit model" rows of Table 1).
   *
   * @throws IllegalArgumentException naming the value unless 1 <= bits <= 32
   */
  public TrainingMemory withModelBits(int bits) {
    if (bits < 1 || bits > 32) {
      throw new IllegalArgumentException("model bits is " + bits + ", expected 1 to 32");
    }
    return new TrainingMemory(featureGenerationBits, miniBatchBits, modelBits / 32 * bits);
  }

  /** The sum of the three parts. */
  public long totalBits() {
    return Math.addExact(Math.addExact(featureGenerationBits, miniBatchBits), modelBits);
  }

  /** {@link #totalBits()} / 8. */
  public double totalBytes() {
    return totalBits() / 8.0;
  }

  /**
   * Training memory of random Fourier features with {@code projection} (dense, circulant,
   * fastfood or orthogonal) at b bits per feature in the mini-batch (b = 32: float32 features).
   *
   * @throws IllegalArgumentException naming the value for an unknown projection, d, m, batch or
   *     classes < 1, bits not in {1, 2, 4, 8, 16, 32}, or a count that overflows a long
   */
  public static TrainingMemory forProjection(
      String projection, int d, int m, int bits, int batch, int classes) {
    if (projection == null || !PROJECTIONS.contains(projection)) {
      throw new IllegalArgumentException(
          "projection is " + (projection == null ? "null" : "'" + projection + "'")
              + ", expected one of " + Projections.NAMES);
    }
    checkCommon(d, m, batch, classes);
    BitWidths.check("bits", bits);
    long p = paddedWidth(d);
    long blockEntries = (m + p - 1) / p * p;
    long parameters =
        switch (projection) {
          case "dense" -> Math.multiplyExact((long) m, d);
          case "circulant" -> Math.multiplyExact(2L, blockEntries);
          case "fastfood", "orthogonal" -> Math.multiplyExact(4L, blockEntries);
          default -> throw new AssertionError(projection);
        };
    long generation = Math.multiplyExact(32L, Math.addExact(parameters, m));
    return new TrainingMemory(generation, miniBatch(m, bits, batch), model(m, classes));
  }

  /**
   * {@link #forProjection} of {@code spec}'s projection, d, m and b, with the model over the
   * features a model reads ({@link FeaturizerSpec#modelFeatures()}: m / block for Sigma-Delta).
   */
  public static TrainingMemory forSpec(FeaturizerSpec spec, int batch, int classes) {
    if (spec == null) {
      throw new IllegalArgumentException("spec is null");
    }
    TrainingMemory memory = forProjection(spec.projection(), spec.inputDim(), spec.features(),
        spec.bits(), batch, classes);
    return new TrainingMemory(memory.featureGenerationBits(), memory.miniBatchBits(),
        model(spec.modelFeatures(), classes));
  }

  /**
   * The largest m whose {@link #forProjection} training memory at {@code bits} is at most {@code
   * budgetBits}, e.g. the m of an LP-RFF model that fits in the memory of full-precision RFFs at
   * a smaller m (the paper's memory-matched comparisons). The memory grows with m (by steps at
   * block boundaries, never down), so the answer is found by bisection: m fits, m + 1 does not.
   *
   * @return that m, or 0 if not even m = 1 fits
   * @throws IllegalArgumentException naming the value as {@link #forProjection} does, or if
   *     budgetBits < 0
   */
  public static int largestFeatures(
      String projection, int d, int bits, int batch, int classes, long budgetBits) {
    return largestFeatures(projection, d, bits, batch, classes, budgetBits, 32);
  }

  /** {@link #largestFeatures} with the model at {@code modelBits} a weight ({@link #withModelBits}). */
  public static int largestFeatures(String projection, int d, int bits, int batch, int classes,
      long budgetBits, int modelBits) {
    if (budgetBits < 0) {
      throw new IllegalArgumentException("budgetBits is " + budgetBits + ", expected >= 0");
    }
    forProjection(projection, d, 1, bits, batch, classes).withModelBits(modelBits); // validates
    // The mini-batch alone takes bits * batch per feature, which bounds m from above.
    long hi = Math.min(Integer.MAX_VALUE, budgetBits / ((long) bits * batch));
    long lo = 0; // invariant: lo fits (0 trivially), hi + 1 does not
    while (lo < hi) {
      long mid = lo + (hi - lo + 1) / 2;
      if (forProjection(projection, d, (int) mid, bits, batch, classes).withModelBits(modelBits)
          .totalBits() <= budgetBits) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return (int) lo;
  }

  /**
   * Training memory of Nyström with m landmarks (the paper's row): 32 (m d + m^2) for feature
   * generation, float32 mini-batches 32 m s, model 32 m c.
   *
   * @throws IllegalArgumentException naming the value if d, m, batch or classes < 1
   */
  public static TrainingMemory forNystrom(int d, int m, int batch, int classes) {
    checkCommon(d, m, batch, classes);
    long generation =
        Math.multiplyExact(
            32L, Math.addExact(Math.multiplyExact((long) m, d), Math.multiplyExact((long) m, m)));
    return new TrainingMemory(generation, miniBatch(m, 32, batch), model(m, classes));
  }

  private static long miniBatch(int m, int bits, int batch) {
    return Math.multiplyExact(Math.multiplyExact((long) bits, m), batch);
  }

  private static long model(int m, int classes) {
    return Math.multiplyExact(32L * m, classes);
  }

  /** The next power of two >= max(d, 2), as the structured projections pad. */
  static long paddedWidth(int d) {
    return d <= 2 ? 2 : Long.highestOneBit(d - 1L) << 1;
  }

  private static void checkCommon(int d, int m, int batch, int classes) {
    if (d < 1) {
      throw new IllegalArgumentException("d is " + d + ", expected >= 1");
    }
    if (m < 1) {
      throw new IllegalArgumentException("m is " + m + ", expected >= 1");
    }
    if (batch < 1) {
      throw new IllegalArgumentException("batch is " + batch + ", expected >= 1");
    }
    if (classes < 1) {
      throw new IllegalArgumentException(
          "classes is " + classes + ", expected >= 1 (1 for regression and binary)");
    }
  }
}
