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
 * <p>Immutable and thread-safe: W is copied at construction (and stored transposed, d rows of
 * m features padded to a stride that avoids cache-set conflicts, so that the kernel loads
 * consecutive features of one coordinate as one vector); any number of
 * threads may call {@link #project} concurrently with their own output arrays.
 *
 * <p>W must be finite (checked here). The rows are NOT checked for NaN or infinities: that would
 * cost a pass over every batch, and a non-finite input gives a non-finite projection that the
 * cosine step of the featurizer rejects downstream.
 */
public final class DenseProjection implements Projection {

  static final DenseProjectionBody BODY = VectorizationProvider.get().denseProjection();

  /** Floats per cache line; the stride of the transposed weights is a multiple of it. */
  private static final int LINE_FLOATS = 16;

  private final int features;
  private final int inputDim;
  /** Row stride of {@link #wT}: see {@link #stride(int)}. */
  private final int stride;
  /** {@code wT[j*stride + i] = W[i][j]}; the padding {@code [m, stride)} of each row is 0. */
  private final float[] wT;

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
    int stride = stride(features);
    long paddedSize = (long) stride * inputDim;
    if (paddedSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "stride * inputDim = " + stride + " * " + inputDim + " = " + paddedSize
              + " exceeds the largest array (features " + features + " padded to " + stride + ")");
    }
    float[] transposed = new float[(int) paddedSize];
    for (int i = 0; i < features; i++) {
      for (int j = 0; j < inputDim; j++) {
        float v = weights[i * inputDim + j];
        if (!Float.isFinite(v)) {
          throw new IllegalArgumentException(
              "weights[" + (i * inputDim + j) + "] (W[" + i + "][" + j + "]) is " + v
                  + ", expected a finite value");
        }
        transposed[j * stride + i] = v;
      }
    }
    this.features = features;
    this.inputDim = inputDim;
    this.stride = stride;
    this.wT = transposed;
  }

  /**
   * Row stride of the transposed weights: m rounded up to an ODD number of 64-byte lines. With a
   * power-of-two stride (m = 1024: 4 KiB) the rows of W^T the kernel walks down all map to the same
   * L1 set and evict each other; an odd number of lines cycles through every set.
   */
  public static int stride(int features) {
    int lines = (features + LINE_FLOATS - 1) / LINE_FLOATS;
    return LINE_FLOATS * (lines | 1);
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

  /** Any block works; 256 features keep a block's weight panel and outputs in L1 and L2. */
  @Override
  public int preferredBlock() {
    return 256;
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
    for (int j = 0; j < inputDim; j++) {
      for (int i = 0; i < features; i++) {
        w[i * inputDim + j] = wT[j * stride + i];
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
    BODY.project(wT, stride, inputDim, rows, rowOffset, n, firstFeature, count, out,
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

  /** The transposed weights, for the kernels and tests of this package; not copied. */
  public float[] transposedWeights() {
    return wT;
  }

  /** Row stride of {@link #transposedWeights()}. */
  public int stride() {
    return stride;
  }
}
