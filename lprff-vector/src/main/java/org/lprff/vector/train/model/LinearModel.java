package org.lprff.vector.train.model;

import java.util.Arrays;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.Task;

/**
 * An immutable linear model on m features with c outputs: scores {@code y = z W + b}, with W (m x
 * c) stored class-major ({@code wT[j*m + i] = W[i][j]}, the layout of the product kernels) and
 * bias b, both float32. Thread-safe. Accessors return copies; {@link #toWorking()} gives a mutable
 * {@link WorkingModel} to train.
 */
public final class LinearModel {

  private final int features;
  private final int outputs;
  private final float[] wT;
  private final float[] bias;

  private LinearModel(int features, int outputs, float[] wT, float[] bias) {
    this.features = features;
    this.outputs = outputs;
    this.wT = wT;
    this.bias = bias;
  }

  /** The all-zero model (a solver's default start). */
  public static LinearModel zeros(int features, int outputs) {
    checkShape(features, outputs);
    return new LinearModel(
        features, outputs, new float[features * outputs], new float[outputs]);
  }

  /**
   * A model with copies of {@code wT} (c*m, class-major) and {@code bias} (c).
   *
   * @throws IllegalArgumentException if a length is wrong or a value is not finite (naming it)
   */
  public static LinearModel of(int features, int outputs, float[] wT, float[] bias) {
    checkShape(features, outputs);
    if (wT == null || bias == null) {
      throw new IllegalArgumentException((wT == null ? "wT" : "bias") + " is null");
    }
    if (wT.length != features * outputs) {
      throw new IllegalArgumentException(
          "wT has length " + wT.length + ", expected c * m = " + outputs + " * " + features + " = "
              + features * outputs);
    }
    if (bias.length != outputs) {
      throw new IllegalArgumentException(
          "bias has length " + bias.length + ", expected c = " + outputs);
    }
    checkFinite("wT", wT);
    checkFinite("bias", bias);
    return new LinearModel(features, outputs, wT.clone(), bias.clone());
  }

  /**
   * This model over {@code wider} >= m inputs, the extra ones weighted 0: it scores rows of the
   * wider feature map as this one scores their first m features.
   *
   * @throws IllegalArgumentException if {@code wider} < m (naming both)
   */
  public LinearModel padded(int wider) {
    if (wider < features) {
      throw new IllegalArgumentException("cannot pad a model of " + features + " features to "
          + wider);
    }
    if (wider == features) {
      return this;
    }
    checkShape(wider, outputs);
    float[] w = new float[wider * outputs];
    for (int j = 0; j < outputs; j++) {
      System.arraycopy(wT, j * features, w, j * wider, features);
    }
    return new LinearModel(wider, outputs, w, bias.clone());
  }

  /** Features m. */
  public int features() {
    return features;
  }

  /** Outputs c. */
  public int outputs() {
    return outputs;
  }

  /** A copy of the class-major weights, c*m. */
  public float[] weightsT() {
    return wT.clone();
  }

  /** A copy of the bias, c. */
  public float[] bias() {
    return bias.clone();
  }

  /** W[feature][output]. */
  public float weight(int feature, int output) {
    return wT[output * features + feature];
  }

  public float bias(int output) {
    return bias[output];
  }

  /** ||W||_F^2 in double (the bias excluded). */
  public double squaredNorm() {
    double sum = 0;
    for (float w : wT) {
      sum += (double) w * w;
    }
    return sum;
  }

  /** A mutable copy to train. */
  public WorkingModel toWorking() {
    return new WorkingModel(features, outputs, wT.clone(), bias.clone());
  }

  /** {@code scores[r*c + j] = sum_i z[r][i] W[i][j] + b[j]} for the n rows of z (overwrites). */
  public void predict(FeatureRows z, float[] scores) {
    if (z == null) {
      throw new IllegalArgumentException("z is null");
    }
    if (z.features() != features) {
      throw new IllegalArgumentException(
          "z has " + z.features() + " features, the model expects " + features);
    }
    z.forward(wT, outputs, scores);
    addBias(bias, z.rows(), outputs, scores);
  }

  /** The scores of the rows of z, n*c, row-major. */
  public float[] predict(FeatureRows z) {
    if (z == null) {
      throw new IllegalArgumentException("z is null");
    }
    float[] scores = new float[Math.multiplyExact(z.rows(), outputs)];
    predict(z, scores);
    return scores;
  }

  /** {@link #predict(FeatureRows, float[])} on packed rows. */
  public void predict(PackedRows z, float[] scores) {
    predict(FeatureRows.of(z), scores);
  }

  /** {@link #predict(FeatureRows, float[])} on n float32 rows {@code x[off + r*m ..]}. */
  public void predict(float[] x, int off, int n, float[] scores) {
    predict(FeatureRows.float32(x, off, n, features), scores);
  }

  /** The class each row of z predicts, by the task's rule ({@link Loss#predictedClass}). */
  public int[] predictClasses(FeatureRows z, Task task) {
    if (task == null || task.outputs() != outputs) {
      throw new IllegalArgumentException("task " + task + " does not fit a model of " + outputs
          + " outputs");
    }
    float[] scores = predict(z);
    Loss loss = task.loss();
    int n = z.rows();
    int[] out = new int[n];
    for (int r = 0; r < n; r++) {
      out[r] = loss.predictedClass(scores, r * outputs);
    }
    return out;
  }

  /** Adds the bias (c) to each of n rows of c scores, in place. */
  public static void addBias(float[] bias, int n, int c, float[] scores) {
    for (int r = 0; r < n; r++) {
      for (int j = 0; j < c; j++) {
        scores[r * c + j] += bias[j];
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LinearModel other
        && other.features == features
        && other.outputs == outputs
        && Arrays.equals(other.wT, wT)
        && Arrays.equals(other.bias, bias);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(wT) + Arrays.hashCode(bias);
  }

  @Override
  public String toString() {
    return "LinearModel[features=" + features + ", outputs=" + outputs + "]";
  }

  /** Refuses a shape no model can have (m or c below 1, m x c beyond an array), naming it. */
  public static void checkShape(int features, int outputs) {
    if (features < 1) {
      throw new IllegalArgumentException("features is " + features + ", expected >= 1");
    }
    if (outputs < 1) {
      throw new IllegalArgumentException("outputs is " + outputs + ", expected >= 1");
    }
    if ((long) features * outputs > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          "features * outputs = " + features + " * " + outputs + " exceeds the largest array");
    }
  }

  private static void checkFinite(String name, float[] a) {
    for (int i = 0; i < a.length; i++) {
      if (!Float.isFinite(a[i])) {
        throw new IllegalArgumentException(name + "[" + i + "] is " + a[i] + ", expected finite");
      }
    }
  }
}
