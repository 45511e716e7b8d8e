package org.lprff.cli.experiment;

/**
 * One row of an experiment's {@code runs.csv}: one method at one m, b and seed, trained and
 * measured. Its key ({@link #key()}) is what {@code --resume} skips when it is already in the file.
 *
 * @param method {@value #RFF} (full precision, b = 32), {@value #LP_RFF} (b &lt; 32) or {@value
 *     #NYSTROM}
 * @param projection dense, circulant, fastfood or orthogonal; empty for Nyström
 * @param quantizer LP-RFF's quantizer as {@code Quantizer.spelling()} spells it (stochastic,
 *     nearest, shared-threshold, lloyd-max, sigma-delta:ORDER:BLOCK); {@value #NONE} for full
 *     precision and Nyström
 * @param m random features, or Nyström landmarks
 * @param bits bits per feature (32: float32)
 * @param seed the seed of the feature map (projection, rounding draws, landmarks)
 * @param metricName {@value #MSE} (regression) or {@value #ERROR_RATE} (classification)
 * @param heldoutMetric the heldout metric, NaN if training diverged
 * @param delta1 Δ1 of the spectral approximation on the kernel subsample
 * @param delta2 Δ2 of the spectral approximation
 * @param frobeniusError ||K - K~||_F on the kernel subsample
 * @param spectralError ||K - K~||_2 on the kernel subsample
 * @param memoryBits training memory in bits (the LP-RFF paper's Table 1): the sum of the next three
 * @param featureGenerationBits the feature map's parameters
 * @param miniBatchBits one mini-batch of features at b bits
 * @param modelBits the model in float32
 * @param sigma the kernel bandwidth used (chosen on the validation split)
 * @param l2 the l2 penalty used (chosen on the validation split)
 * @param featurizeSeconds featurizing the training and heldout rows
 * @param kernelSeconds the kernel metrics (K~ on the subsample and the Δ's)
 * @param trainSeconds training
 */
public record RunRecord(
    String method, String projection, String quantizer, int m, int bits, long seed,
    String metricName, double heldoutMetric, double delta1, double delta2, double frobeniusError,
    double spectralError, long memoryBits, long featureGenerationBits, long miniBatchBits,
    long modelBits, double sigma, double l2, double featurizeSeconds, double kernelSeconds,
    double trainSeconds) {

  public static final String RFF = "rff";
  public static final String LP_RFF = "lp-rff";
  public static final String NYSTROM = "nystrom";
  public static final String NONE = "none";
  public static final String MSE = "mse";
  public static final String ERROR_RATE = "error_rate";

  /** What identifies a run: method, projection, quantizer, m, bits and seed. */
  public record Key(String method, String projection, String quantizer, int m, int bits,
      long seed) {}

  public Key key() {
    return new Key(method, projection, quantizer, m, bits, seed);
  }

  /** The seconds of the whole run. */
  public double seconds() {
    return featurizeSeconds + kernelSeconds + trainSeconds;
  }

  /** 1 / (1 - Δ1), the paper's first axis of Figure 5 (infinite when Δ1 = 1). */
  public double inverseOneMinusDelta1() {
    return 1 / (1 - delta1);
  }

  /** max(1 / (1 - Δ1), Δ2): the paper's single-number summary of (Δ1, Δ2). */
  public double deltaMax() {
    return Math.max(inverseOneMinusDelta1(), delta2);
  }

  /**
   * The series a run belongs to in the plots: its method, projection, quantizer and bits, e.g.
   * "LP-RFF circulant b=4 stochastic", "RFF dense fp32", "Nystrom".
   */
  public String series() {
    return switch (method) {
      case NYSTROM -> "Nystrom";
      case RFF -> "RFF " + projection + " fp32";
      default -> "LP-RFF " + projection + " b=" + bits + " " + quantizer;
    };
  }
}
