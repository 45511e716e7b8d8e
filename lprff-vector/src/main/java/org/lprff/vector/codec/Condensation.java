package org.lprff.vector.codec;

/**
 * The condensation of Sigma-Delta codes: feature k of a row is sum_i u_i z_{k λ + i} over its
 * block of λ quantized features, u the {@link Quantizer.SigmaDelta#condensation()} weights. A
 * model of p = m / λ weights w_c over condensed features is the model Ṽ^T w_c over the m
 * quantized ones ({@link #expand}): training folds the condensation into the weights, so the
 * packed products read the codes as they are, and a trained model scores full-precision features
 * of the same m like any other. Immutable.
 */
public final class Condensation {

  private final float[] weights;

  /** The condensation with weights u (length λ >= 1, finite). */
  public Condensation(float[] weights) {
    if (weights == null || weights.length == 0) {
      throw new IllegalArgumentException("weights is " + (weights == null ? "null" : "empty")
          + ", expected the λ weights of a block");
    }
    for (int i = 0; i < weights.length; i++) {
      if (!Float.isFinite(weights[i])) {
        throw new IllegalArgumentException("weights[" + i + "] is " + weights[i]);
      }
    }
    this.weights = weights.clone();
  }

  /** λ. */
  public int block() {
    return weights.length;
  }

  /** A copy of the weights u. */
  public float[] weights() {
    return weights.clone();
  }

  /** p = m / λ; m must be a multiple of λ. */
  public int condensedFeatures(int features) {
    if (features % weights.length != 0) {
      throw new IllegalArgumentException("features is " + features + ", not a multiple of the"
          + " condensation block " + weights.length);
    }
    return features / weights.length;
  }

  /** out[outOff + k] = sum_i u_i full[off + k λ + i], k in [0, p). */
  public void condense(float[] full, int off, int features, float[] out, int outOff) {
    int p = condensedFeatures(features);
    int block = weights.length;
    for (int k = 0; k < p; k++) {
      float sum = 0;
      int base = off + k * block;
      for (int i = 0; i < block; i++) {
        sum = Math.fma(weights[i], full[base + i], sum);
      }
      out[outOff + k] = sum;
    }
  }

  /**
   * The class-major weights of the m quantized features for c outputs from those of the p
   * condensed ones: full[j m + k λ + i] = u_i wT[j p + k].
   */
  public float[] expand(float[] wT, int outputs, int features) {
    int p = condensedFeatures(features);
    int block = weights.length;
    float[] full = new float[outputs * features];
    for (int j = 0; j < outputs; j++) {
      for (int k = 0; k < p; k++) {
        float w = wT[j * p + k];
        int base = j * features + k * block;
        for (int i = 0; i < block; i++) {
          full[base + i] = weights[i] * w;
        }
      }
    }
    return full;
  }

  /** gT[j p + k] += sum_i u_i full[j m + k λ + i]: a gradient over m features, condensed. */
  public void addCondensed(float[] full, int outputs, int features, float[] gT) {
    int p = condensedFeatures(features);
    for (int j = 0; j < outputs; j++) {
      int base = j * features;
      for (int k = 0; k < p; k++) {
        float sum = 0;
        for (int i = 0; i < weights.length; i++) {
          sum = Math.fma(weights[i], full[base + k * weights.length + i], sum);
        }
        gT[j * p + k] += sum;
      }
    }
  }
}
