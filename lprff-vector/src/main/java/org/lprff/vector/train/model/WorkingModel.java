package org.lprff.vector.train.model;

/**
 * The mutable weights of a linear model while it trains: the live class-major weights {@code wT}
 * (c*m) and bias (c), which the solver updates in place. Not thread-safe: owned by one solver
 * (or caller) at a time. {@link #snapshot()} freezes a copy into a {@link LinearModel}.
 */
public final class WorkingModel {

  private final int features;
  private final int outputs;
  private final float[] wT;
  private final float[] bias;

  WorkingModel(int features, int outputs, float[] wT, float[] bias) {
    this.features = features;
    this.outputs = outputs;
    this.wT = wT;
    this.bias = bias;
  }

  /** A zero model. */
  public static WorkingModel zeros(int features, int outputs) {
    return LinearModel.zeros(features, outputs).toWorking();
  }

  public int features() {
    return features;
  }

  public int outputs() {
    return outputs;
  }

  /** The live weights, class-major, c*m: writes change this model. */
  public float[] weightsT() {
    return wT;
  }

  /** The live bias, c. */
  public float[] bias() {
    return bias;
  }

  /** An independent copy. */
  public WorkingModel copy() {
    return new WorkingModel(features, outputs, wT.clone(), bias.clone());
  }

  /** Overwrites this model's weights and bias with {@code other}'s (same shape). */
  public void copyFrom(WorkingModel other) {
    checkSameShape(other.features, other.outputs);
    System.arraycopy(other.wT, 0, wT, 0, wT.length);
    System.arraycopy(other.bias, 0, bias, 0, bias.length);
  }

  /** True if every weight and bias is finite. */
  public boolean isFinite() {
    for (float w : wT) {
      if (!Float.isFinite(w)) {
        return false;
      }
    }
    for (float b : bias) {
      if (!Float.isFinite(b)) {
        return false;
      }
    }
    return true;
  }

  /** An immutable copy; refuses non-finite weights (naming the first). */
  public LinearModel snapshot() {
    return LinearModel.of(features, outputs, wT, bias);
  }

  private void checkSameShape(int otherFeatures, int otherOutputs) {
    if (otherFeatures != features || otherOutputs != outputs) {
      throw new IllegalArgumentException(
          "model is " + otherFeatures + " x " + otherOutputs + ", expected " + features + " x "
              + outputs);
    }
  }
}
