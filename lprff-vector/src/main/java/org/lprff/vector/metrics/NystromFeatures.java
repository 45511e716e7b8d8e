package org.lprff.vector.metrics;

import java.util.Arrays;
import java.util.concurrent.Executor;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.simd.ParallelTasks;

/**
 * Nyström features (Williams and Seeger 2000), the baseline that LP-RFFs are compared with, as
 * float32 rows so that they train through the same b = 32 path as random Fourier features.
 *
 * <p><b>Landmarks.</b> m distinct training rows, uniformly without replacement: the first m
 * entries of {@link RandomParameters#permutation}(seed, {@value #STREAM_LANDMARKS}, n), so the
 * choice is a pure function of (seed, n, m) and the landmarks for m are a prefix of those for any
 * m' > m. (The stream is the last one, far from those the RFF projections use.)
 *
 * <p><b>Map.</b> K_mm = k(L, L) = U diag(s) U^T (symmetric eigendecomposition in double); with the
 * m' eigenvalues above the floor, sorted decreasingly,
 *
 * <pre>  z(x) = diag(s_k^(-1/2)) U_k^T k(L, x),   so   z(x) . z(y) = k(x, L) K_mm^+ k(L, y),</pre>
 *
 * the Nyström approximation with the pseudo-inverse of K_mm restricted to the kept eigenvalues.
 * Features are computed in double and rounded once to float.
 *
 * <p><b>Floor.</b> Eigenvalues s <= floor = {@link #DEFAULT_RELATIVE_FLOOR} m s_max, i.e. m u s_max
 * with u = 2^-52, are dropped (the pseudo-inverse; the tolerance numpy's {@code matrix_rank} and
 * {@code pinvh} use). Why drop instead of flooring: the symmetric eigensolver's eigenvalues carry
 * an absolute error of order u m s_max, so below that floor they are rounding noise and their
 * s^(-1/2) would only amplify it; a dropped direction removes at most floor from any entry of
 * K~ (|sum over dropped k of s_k u_ik u_jk| <= max dropped s). So m' <= m; a Gaussian kernel
 * with many landmarks is numerically low-rank and m' can be much smaller than m.
 *
 * <p>Immutable and thread-safe. Memory: the m x d landmarks (float) and the m' x m projection
 * (double: its entries reach s^(-1/2) ~ 10^6 and cancel, which float cannot carry).
 */
public final class NystromFeatures {

  /** The stream of {@link RandomParameters#permutation} that picks the landmarks. */
  public static final int STREAM_LANDMARKS = Integer.MAX_VALUE;

  /** The floor relative to m s_max: u = 2^-52 per landmark. */
  public static final double DEFAULT_RELATIVE_FLOOR = 0x1p-52;

  /** Rows per featurization task. */
  static final int ROW_BLOCK = 64;

  private final KernelFunction kernel;
  private final int d;
  private final int m;
  private final int[] landmarkIndices;
  private final float[] landmarks;
  /** Kept eigenvalues, decreasing. */
  private final double[] eigenvalues;
  private final double floor;
  /** m' x m, row k = s_k^(-1/2) u_k^T. */
  private final double[] projection;

  private NystromFeatures(
      KernelFunction kernel, int d, int[] landmarkIndices, float[] landmarks, double[] eigenvalues,
      double floor, double[] projection) {
    this.kernel = kernel;
    this.d = d;
    this.m = landmarks.length / d;
    this.landmarkIndices = landmarkIndices;
    this.landmarks = landmarks;
    this.eigenvalues = eigenvalues;
    this.floor = floor;
    this.projection = projection;
  }

  /** {@link #fit(KernelFunction, float[], int, int, int, long, Executor)} sequentially. */
  public static NystromFeatures fit(
      KernelFunction kernel, float[] rows, int n, int d, int m, long seed) {
    return fit(kernel, rows, n, d, m, seed, null);
  }

  /**
   * Picks m landmarks among the n training rows (d floats each) by the seed and builds the map.
   *
   * @throws IllegalArgumentException naming the value if kernel or rows is null, rows is short or
   *     not finite, n < 1, d < 1, or m is not in [1, min(n, {@value KernelMatrix#MAX_N})]
   */
  public static NystromFeatures fit(
      KernelFunction kernel, float[] rows, int n, int d, int m, long seed, Executor executor) {
    if (kernel == null) {
      throw new IllegalArgumentException("kernel is null");
    }
    KernelMatrix.checkRows("rows", rows, n, d, "d");
    if (m < 1 || m > n || m > KernelMatrix.MAX_N) {
      throw new IllegalArgumentException(
          "m is " + m + ", expected in [1, " + Math.min(n, KernelMatrix.MAX_N)
              + "] (landmarks are distinct training rows; n = " + n + ")");
    }
    int[] order = RandomParameters.permutation(seed, STREAM_LANDMARKS, n);
    int[] chosen = Arrays.copyOf(order, m);
    float[] l = new float[m * d];
    for (int k = 0; k < m; k++) {
      System.arraycopy(rows, chosen[k] * d, l, k * d, d);
    }
    return build(kernel, d, chosen, l, DEFAULT_RELATIVE_FLOOR, executor);
  }

  /**
   * The map with the given m landmarks (rows of d floats, all used, in order) and a relative
   * floor (eigenvalues <= relativeFloor m s_max are dropped); {@link #landmarkIndices()} is then
   * 0..m-1.
   *
   * @throws IllegalArgumentException naming the value for invalid landmarks, m, or a floor that
   *     is not finite and >= 0
   */
  public static NystromFeatures fromLandmarks(
      KernelFunction kernel, float[] landmarks, int m, int d, double relativeFloor,
      Executor executor) {
    if (kernel == null) {
      throw new IllegalArgumentException("kernel is null");
    }
    if (m < 1 || m > KernelMatrix.MAX_N) {
      throw new IllegalArgumentException(
          "m is " + m + ", expected in [1, " + KernelMatrix.MAX_N + "]");
    }
    KernelMatrix.checkRows("landmarks", landmarks, m, d, "d");
    if (!(relativeFloor >= 0) || Double.isInfinite(relativeFloor)) {
      throw new IllegalArgumentException(
          "relativeFloor is " + relativeFloor + ", expected finite and >= 0");
    }
    int[] indices = new int[m];
    for (int k = 0; k < m; k++) {
      indices[k] = k;
    }
    return build(kernel, d, indices, Arrays.copyOf(landmarks, m * d), relativeFloor, executor);
  }

  private static NystromFeatures build(
      KernelFunction kernel, int d, int[] indices, float[] l, double relativeFloor,
      Executor executor) {
    int m = indices.length;
    DMatrixRMaj kmm = KernelMatrix.exact(kernel, l, m, d, executor);
    EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(m, true, true);
    if (!eig.decompose(kmm)) {
      throw new IllegalStateException("symmetric eigensolver did not converge for m = " + m);
    }
    Integer[] order = new Integer[m];
    double[] s = new double[m];
    double max = 0;
    for (int k = 0; k < m; k++) {
      order[k] = k;
      s[k] = eig.getEigenvalue(k).real;
      max = Math.max(max, s[k]);
    }
    Arrays.sort(order, (a, b) -> Double.compare(s[b], s[a]));
    double floor = relativeFloor * m * max;
    int kept = 0;
    while (kept < m && s[order[kept]] > floor) {
      kept++;
    }
    if (kept == 0) {
      throw new IllegalArgumentException(
          "every eigenvalue of K_mm is <= the floor " + floor + " (largest " + max
              + "): the landmarks give no features");
    }
    double[] values = new double[kept];
    double[] projection = new double[kept * m];
    for (int k = 0; k < kept; k++) {
      int index = order[k];
      values[k] = s[index];
      double scale = 1 / Math.sqrt(s[index]);
      DMatrixRMaj u = eig.getEigenVector(index);
      for (int j = 0; j < m; j++) {
        projection[k * m + j] = scale * u.data[j];
      }
    }
    return new NystromFeatures(kernel, d, indices, l, values, floor, projection);
  }

  /** m', the number of features (kept eigenvalues). */
  public int features() {
    return eigenvalues.length;
  }

  /** m, the number of landmarks. */
  public int landmarks() {
    return m;
  }

  public int inputDim() {
    return d;
  }

  public KernelFunction kernel() {
    return kernel;
  }

  /** Indices of the landmarks among the training rows (a copy). */
  public int[] landmarkIndices() {
    return landmarkIndices.clone();
  }

  /** The landmark rows, m x d (a copy). */
  public float[] landmarkRows() {
    return landmarks.clone();
  }

  /** The kept eigenvalues of K_mm, decreasing (a copy). */
  public double[] eigenvalues() {
    return eigenvalues.clone();
  }

  /** The absolute floor: eigenvalues at or below it were dropped. */
  public double floor() {
    return floor;
  }

  /** A new array of n rows of {@link #features()} floats. */
  public float[] featurize(float[] rows, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    long size = (long) n * features();
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          "n * features = " + n + " * " + features() + " exceeds the largest array");
    }
    float[] out = new float[(int) size];
    featurize(rows, n, out, null);
    return out;
  }

  /** {@link #featurize(float[], int, float[], Executor)} sequentially. */
  public void featurize(float[] rows, int n, float[] out) {
    featurize(rows, n, out, null);
  }

  /**
   * Writes z(x_r) for n rows of d floats to {@code out[r m' .. (r+1) m')}; blocks of {@value
   * #ROW_BLOCK} rows run on {@code executor} if not null (the values do not depend on it).
   *
   * @throws IllegalArgumentException naming the value if rows or out is null or too short, n < 0,
   *     or an input is not finite
   */
  public void featurize(float[] rows, int n, float[] out, Executor executor) {
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    int f = features();
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    long need = (long) n * f;
    if (out.length < need) {
      throw new IllegalArgumentException(
          "out has length " + out.length + ", expected at least n * features = " + n + " * " + f
              + " = " + need);
    }
    if (n == 0) {
      return;
    }
    KernelMatrix.checkRows("rows", rows, n, d, "d");
    int blocks = (n + ROW_BLOCK - 1) / ROW_BLOCK;
    ParallelTasks.run(
        blocks,
        executor,
        block -> {
          int r0 = block * ROW_BLOCK;
          int r1 = Math.min(n, r0 + ROW_BLOCK);
          float[] part = Arrays.copyOfRange(rows, r0 * d, r1 * d);
          double[] c = KernelMatrix.cross(kernel, part, r1 - r0, landmarks, m, d).data;
          for (int r = 0; r < r1 - r0; r++) {
            for (int k = 0; k < f; k++) {
              out[(r0 + r) * f + k] = (float) Dots.dot(projection, k * m, c, r * m, m);
            }
          }
        });
  }
}
