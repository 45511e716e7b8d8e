package org.lprff.vector.projection;

import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.transform.Fwht;

/**
 * Structured orthogonal projection for the Gaussian kernel (SORF / structured spinner: Yu, Suresh,
 * Choromanski, Holtmann-Rice, Kumar, "Orthogonal random features", 2016; Bojarski et al.,
 * "Structured adaptive and random spinners", 2017), with the row norms of ORF. Block k is
 *
 * <pre>  W_k = (1/sigma) S_k H~ D3_k H~ D2_k H~ D1_k,   H~ = H / sqrt(p)</pre>
 *
 * with H the Walsh–Hadamard matrix ({@link Fwht#transformNormalized} applies H~), D1, D2, D3
 * Rademacher diagonals and S_k the diagonal of c_i ~ chi(p). H~ and the D's are orthogonal, so
 * the rows of one block are exactly orthogonal, row i with norm c_i / sigma.
 *
 * <p>Why S: SORF as published scales every row by sqrt(p), a fixed norm where a Gaussian row has
 * a chi(p)-distributed one; at small p that biases the kernel estimate (measured at p = 16: about
 * -0.01 at every m, which no number of features removes). Chi norms, as in ORF, make a row
 * Gaussian in law whenever its direction is uniform, and leave only the direction's departure from
 * uniform, which is small after three H D rounds.
 *
 * <p>Parameters: D1_k[i], D2_k[i], D3_k[i] = {@link RandomParameters#rademacher} of streams
 * {@link #STREAM_D1} (= {@link RandomParameters#STREAM_FIRST_STRUCTURED}), {@link #STREAM_D2},
 * {@link #STREAM_D3} at index k p + i; c_i^2 of feature f = k p + i is the sum of p squared
 * normals of stream {@link #STREAM_FIRST_NORM} + f at indices 0..p-1 (rows of the last block past
 * m are not drawn). The factor c_i / sigma is computed in double and rounded to float once.
 *
 * <p>Immutable and thread-safe; scratch is allocated per {@link #project} call.
 */
public final class OrthogonalProjection extends StructuredProjection {

  /** Stream of D1. */
  public static final int STREAM_D1 = RandomParameters.STREAM_FIRST_STRUCTURED;

  /** Stream of D2. */
  public static final int STREAM_D2 = RandomParameters.STREAM_FIRST_STRUCTURED + 1;

  /** Stream of D3. */
  public static final int STREAM_D3 = RandomParameters.STREAM_FIRST_STRUCTURED + 2;

  /** Stream of feature 0's chi norm; feature f uses this + f. */
  public static final int STREAM_FIRST_NORM = RandomParameters.STREAM_FIRST_STRUCTURED + 3;

  private final float[][] d1;
  private final float[][] d2;
  private final float[][] d3;
  /** c_i / sigma. */
  private final float[][] rowScales;

  /**
   * Draws the parameters from (seed, sigma, d, m) alone.
   *
   * @throws IllegalArgumentException naming sigma (not finite and > 0), d (< 1) or m (< 1)
   */
  public OrthogonalProjection(long seed, double sigma, int d, int m) {
    super(sigma, d, m);
    if (STREAM_FIRST_NORM + (long) m > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "m is " + m + ": needs stream " + (STREAM_FIRST_NORM + (long) m) + " > "
              + Integer.MAX_VALUE);
    }
    d1 = new float[blocks][];
    d2 = new float[blocks][];
    d3 = new float[blocks][];
    rowScales = new float[blocks][];
    double[] z = new double[p];
    for (int k = 0; k < blocks; k++) {
      d1[k] = signs(seed, STREAM_D1, k);
      d2[k] = signs(seed, STREAM_D2, k);
      d3[k] = signs(seed, STREAM_D3, k);
      float[] scale = new float[p];
      int used = Math.min(p, m - k * p);
      for (int i = 0; i < used; i++) {
        scale[i] = (float) (chiNorm(seed, STREAM_FIRST_NORM + k * p + i, z) / sigma);
      }
      rowScales[k] = scale;
    }
  }

  @Override
  public String name() {
    return "orthogonal";
  }

  @Override
  int scratchLength(int rowCount) {
    return 0;
  }

  @Override
  void applyBlock(
      int k, float[] padded, float[] work, float[] scratch, float[] line, int rowCount) {
    int length = rowCount * p;
    multiplyRows(padded, d1[k], work, length, p);
    Fwht.transformRowsNormalized(work, 0, p, rowCount);
    multiplyRows(work, d2[k], work, length, p);
    Fwht.transformRowsNormalized(work, 0, p, rowCount);
    multiplyRows(work, d3[k], work, length, p);
    Fwht.transformRowsNormalized(work, 0, p, rowCount);
    multiplyRows(work, rowScales[k], work, length, p);
  }

  @Override
  boolean interleaves() {
    return true;
  }

  @Override
  void applyBlockInterleaved(int k, float[] padded, float[] work, float[] scratch) {
    INTERLEAVED.scale(padded, d1[k], work, p, GROUP);
    Fwht.transformInterleavedNormalized(work, 0, p, GROUP);
    INTERLEAVED.scale(work, d2[k], work, p, GROUP);
    Fwht.transformInterleavedNormalized(work, 0, p, GROUP);
    INTERLEAVED.scale(work, d3[k], work, p, GROUP);
    Fwht.transformInterleavedNormalized(work, 0, p, GROUP);
    INTERLEAVED.scale(work, rowScales[k], work, p, GROUP);
  }
}
