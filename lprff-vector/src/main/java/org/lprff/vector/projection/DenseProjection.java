package org.lprff.vector.projection;

import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.DenseProjectionBody;

/**
 * Dense random projection {@code x -> W x} with an m x d matrix W (m features, d input
 * coordinates), the first step of the dense LP-RFF featurizer. The featurizer projects a block of
 * features for a batch of rows at a time ({@link #project}) and turns it into features at once,
 * so the whole n x m float matrix is never held.
 *
 * <p>Immutable and thread-safe: W is copied at construction into the layout the kernel streams,
 * panels of {@link #panel()} features, each the d x P matrix of its features' weights
 * coordinate by coordinate (see {@link DenseProjectionBody}), so that the kernel loads consecutive
 * features of one coordinate as one vector and walks each panel front to back; any number of
 * threads may call {@link #project} concurrently with their own output arrays.
 *
 * <p>W must be finite (checked here). The rows are NOT checked for NaN or infinities: that would
 * cost a pass over every batch, and a non-finite input gives a non-finite projection that the
 * cosine step of the featurizer rejects downstream.
 */
public final class DenseProjection implements Projection {

  static final DenseProjectionBody BODY = VectorizationProvider.get().denseProjection();

  private final int features;
  private final int inputDim;
  /** Features per panel of {@link #panels}: the active body's {@code panelWidth()}. */
  private final int panel;
  /** W packed in panels; the padding of the last panel is 0. */
  private final float[] panels;

  /**
   * @param weights W row-major, {@code weights[i*inputDim + j] = W[i][j]} (row i is w_i); copied
   * @param features m >= 1
   * @param inputDim d >= 1
   */
  public DenseProjection(float[] weights, int features, int inputDim) {
    if (features < 1) {
      throw new IllegalArgumentException("features is " + features + ", expected >= 1");
    }
    if (inputDim < 1) {
      throw new IllegalArgumentException("inputDim is " + inputDim + ", expected >= 1");
    }
    long size = (long) features * inputDim;
    if (size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "features * inputDim = " + features + " * " + inputDim + " = " + size
              + " exceeds the largest array");
    }
    if (weights == null) {
      throw new IllegalArgumentException("weights is null");
    }
    if (weights.length != size) {
      throw new IllegalArgumentException(
          "weights has length " + weights.length + ", expected features * inputDim = "
              + features + " * " + inputDim + " = " + size);
    }
    for (int k = 0; k < weights.length; k++) {
      if (!Float.isFinite(weights[k])) {
        throw new IllegalArgumentException(
            "weights[" + k + "] (W[" + k / inputDim + "][" + k % inputDim + "]) is " + weights[k]
                + ", expected a finite value");
      }
    }
    int panel = BODY.panelWidth();
    long paddedSize = packedSize(features, inputDim, panel);
    if (paddedSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "panels * panel * inputDim = " + paddedSize / ((long) panel * inputDim) + " * " + panel
              + " * " + inputDim + " = " + paddedSize + " exceeds the largest array (features "
              + features + " padded to whole panels)");
    }
    this.features = features;
    this.inputDim = inputDim;
    this.panel = panel;
    this.panels = pack(weights, features, inputDim, panel);
  }

  /** Floats of W (m x d) packed in panels of {@code panel} features: m rounded up to panels, times d. */
  static long packedSize(int features, int inputDim, int panel) {
    return ((long) features + panel - 1) / panel * panel * inputDim;
  }

  /**
   * W (row-major m x d, {@code weights[i*d + j] = W[i][j]}) packed in panels of {@code panel}
   * features, the layout of {@link DenseProjectionBody}: {@code [(i / P) P d + j P + i % P] =
   * W[i][j]}, the last panel padded with zeros. For the kernels' tests and benchmarks, which pack
   * for other widths than the active body's; the arguments are not checked again.
   */
  public static float[] pack(float[] weights, int features, int inputDim, int panel) {
    float[] packed = new float[(int) packedSize(features, inputDim, panel)];
    for (int i = 0; i < features; i++) {
      for (int j = 0; j < inputDim; j++) {
        packed[DenseProjectionBody.at(panel, inputDim, i, j)] = weights[i * inputDim + j];
      }
    }
    return packed;
  }

  /** m, the number of features (rows of W). */
  /**
   * W with rows drawn from the spectral density of {@code kernel} (any kernel), from the seed
   * alone: {@link KernelFunction#sampleFrequencies}.
   */
  public static DenseProjection sample(KernelFunction kernel, long seed, int inputDim, int features) {
    if (kernel == null) {
      throw new IllegalArgumentException("kernel is null");
    }
    if (features < 1 || inputDim < 1) {
      throw new IllegalArgumentException(
          "features is " + features + " and inputDim is " + inputDim + ", expected both >= 1");
    }
    long size = (long) features * inputDim;
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          "features * inputDim = " + size + " exceeds the largest array");
    }
    float[] w = new float[(int) size];
    kernel.sampleFrequencies(seed, inputDim, features, w);
    return new DenseProjection(w, features, inputDim);
  }

  /**
   * Any block works; 256 features are whole panels of every body (16, 32 or 64 features) and keep
   * a chunk's outputs in L1 and L2.
   */
  @Override
  public int preferredBlock() {
    return 256;
  }

  /**
   * 128 rows: every call streams its block of W from memory (W is m d floats, 25 MiB at m = 8192,
   * d = 784, past L2), and each weight loaded serves 2 flops per row of the call; with 32 rows
   * that traffic bounds the kernel below its FMA rate at large d. The chunk's block of
   * projections (128 x 512 floats, 256 KiB) still fits in L2.
   */
  @Override
  public int preferredRows() {
    return 128;
  }

  @Override
  public String name() {
    return "dense";
  }

  @Override
  public int features() {
    return features;
  }

  /** d, the input dimension (columns of W). */
  @Override
  public int inputDim() {
    return inputDim;
  }

  /** A copy of W, row-major m x d ({@code [i*d + j] = W[i][j]}), as given to the constructor. */
  public float[] weights() {
    float[] w = new float[features * inputDim];
    for (int i = 0; i < features; i++) {
      for (int j = 0; j < inputDim; j++) {
        w[i * inputDim + j] = panels[DenseProjectionBody.at(panel, inputDim, i, j)];
      }
    }
    return w;
  }

  /**
   * Projects a batch of n rows onto features [firstFeature, firstFeature + count):
   * {@code out[outOffset + r*count + k] = sum_j W[firstFeature + k][j] * rows[rowOffset + r*d + j]}
   * for r in [0, n), k in [0, count). Only those n * count elements of out are written. The rows
   * (n x d, row-major) are not checked for NaN (see the class comment). Summation is in float;
   * each output is within gamma_d * sum_j |W[i][j] x[j]| of the exact value (gamma_d = d u / (1 -
   * d u), u = 2^-24), whichever implementation runs.
   */
  @Override
  public void project(
      float[] rows, int rowOffset, int n, int firstFeature, int count, float[] out, int outOffset) {
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    checkRange("rows", rows, rowOffset, "rowOffset", (long) n * inputDim,
        "n * inputDim = " + n + " * " + inputDim);
    if (firstFeature < 0 || firstFeature > features) {
      throw new IllegalArgumentException(
          "firstFeature is " + firstFeature + ", expected in [0, " + features + "]");
    }
    if (count < 0 || count > features - firstFeature) {
      throw new IllegalArgumentException(
          "count is " + count + ", expected in [0, features - firstFeature = " + features + " - "
              + firstFeature + " = " + (features - firstFeature) + "]");
    }
    checkRange("out", out, outOffset, "outOffset", (long) n * count,
        "n * count = " + n + " * " + count);
    if (n == 0 || count == 0) {
      return;
    }
    BODY.project(panels, panel, inputDim, rows, rowOffset, n, firstFeature, count, out,
        outOffset);
  }

  private static void checkRange(
      String name, float[] a, int offset, String offsetName, long need, String formula) {
    if (a == null) {
      throw new IllegalArgumentException(name + " is null");
    }
    if (offset < 0 || need > a.length - (long) offset) {
      throw new IllegalArgumentException(
          name + " has length " + a.length + ", " + offsetName + " " + offset + " + " + formula
              + " = " + need + " does not fit");
    }
  }

  /** W packed in panels ({@link #pack}), for the kernels' tests and benchmarks; not copied. */
  public float[] packedWeights() {
    return panels;
  }

  /** Features per panel of {@link #packedWeights()}: the active body's panel width. */
  public int panel() {
    return panel;
  }
}
