package org.lprff.vector.projection;

import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.transform.Fwht;

/**
 * Fastfood projection for the Gaussian kernel (Le, Sarlós, Smola, "Fastfood: approximating kernel
 * expansions in loglinear time", 2013). Block k is
 *
 * <pre>  V_k = (1 / (sigma sqrt(p))) S_k H G_k Pi_k H B_k</pre>
 *
 * with H the unnormalized Walsh–Hadamard matrix ({@link Fwht#transform}, entries ±1), B_k a
 * Rademacher diagonal, Pi_k a uniformly random permutation ((Pi z)_i = z_{pi(i)}), G_k a diagonal
 * of standard normals and S_k the diagonal S_ii = c_i / ||G_k||_F with c_i ~ chi(p), the square
 * root of a chi-squared(p) draw.
 *
 * <p>Why that S: Pi H B is sqrt(p) times an orthogonal matrix, and row i of H G has entries
 * ±G_jj, so row i of H G Pi H B has norm sqrt(p) ||G||_F and row i of V_k has norm exactly c_i /
 * sigma: the chi(p)-distributed norm of a N(0, sigma^-2 I_p) row, as in random Fourier features.
 *
 * <p>Parameters, block k, i and j in [0, p):
 *
 * <ul>
 *   <li>G_k[i] = {@link RandomParameters#normal} of stream {@link
 *       RandomParameters#STREAM_FREQUENCIES} at index k p + i;
 *   <li>B_k[i] = {@link RandomParameters#rademacher} of stream {@link #STREAM_SIGNS} (= {@link
 *       RandomParameters#STREAM_FIRST_STRUCTURED}) at index k p + i;
 *   <li>Pi_k = {@link RandomParameters#permutation}(seed, t_k, p) with t_k = {@link
 *       #STREAM_FIRST_BLOCK} + k (p + 1);
 *   <li>c_i^2 = sum_j z_j^2 with z_j = normal of stream t_k + 1 + i at index j (p squared normals).
 * </ul>
 *
 * Streams are laid out block by block, so the first features do not change when m grows. G, the
 * norm ||G||_F and the combined row scale c_i / (||G||_F sigma sqrt(p)) are computed in double and
 * rounded to float once. Drawing the c_i costs p normals per feature (m p in all; e.g. 8.4 million
 * for d = 784, m = 8192); rows of the last block past m are not drawn.
 *
 * <p>Immutable and thread-safe; scratch is allocated per {@link #project} call.
 */
public final class FastfoodProjection extends StructuredProjection {

  /** Stream of the Rademacher diagonals B_k. */
  public static final int STREAM_SIGNS = RandomParameters.STREAM_FIRST_STRUCTURED;

  /** First stream of the per-block streams (permutation, then one chi stream per row). */
  public static final int STREAM_FIRST_BLOCK = RandomParameters.STREAM_FIRST_STRUCTURED + 1;

  private final float[][] signs;
  private final int[][] permutations;
  private final float[][] gaussians;
  /** c_i / (||G_k||_F sigma sqrt(p)). */
  private final float[][] rowScales;

  /**
   * Draws the parameters from (seed, sigma, d, m) alone.
   *
   * @throws IllegalArgumentException naming sigma (not finite and > 0), d (< 1) or m (< 1)
   */
  public FastfoodProjection(long seed, double sigma, int d, int m) {
    super(sigma, d, m);
    long lastStream = STREAM_FIRST_BLOCK + (long) blocks * (p + 1);
    if (lastStream > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "m is " + m + " with p = " + p + ": needs stream " + lastStream + " > "
              + Integer.MAX_VALUE);
    }
    signs = new float[blocks][];
    permutations = new int[blocks][];
    gaussians = new float[blocks][];
    rowScales = new float[blocks][];
    double[] z = new double[p];
    for (int k = 0; k < blocks; k++) {
      signs[k] = signs(seed, STREAM_SIGNS, k);
      int blockStream = STREAM_FIRST_BLOCK + k * (p + 1);
      permutations[k] = RandomParameters.permutation(seed, blockStream, p);
      double[] g = normals(seed, RandomParameters.STREAM_FREQUENCIES, k);
      double frobenius = 0;
      float[] gFloat = new float[p];
      for (int i = 0; i < p; i++) {
        frobenius += g[i] * g[i];
        gFloat[i] = (float) g[i];
      }
      gaussians[k] = gFloat;
      double common = 1 / (Math.sqrt(frobenius) * sigma * Math.sqrt(p));
      float[] scale = new float[p];
      // Rows of the cut last block past m are never read: their scale stays 0, no chi drawn.
      int used = Math.min(p, m - k * p);
      for (int i = 0; i < used; i++) {
        scale[i] = (float) (chiNorm(seed, blockStream + 1 + i, z) * common);
      }
      rowScales[k] = scale;
    }
  }

  @Override
  public String name() {
    return "fastfood";
  }

  @Override
  int scratchLength(int rowCount) {
    return rowCount * p;
  }

  @Override
  void applyBlock(
      int k, float[] padded, float[] work, float[] scratch, float[] line, int rowCount) {
    int length = rowCount * p;
    multiplyRows(padded, signs[k], work, length, p);
    Fwht.transformRows(work, 0, p, rowCount);
    int[] pi = permutations[k];
    float[] g = gaussians[k];
    for (int r = 0; r < length; r += p) {
      for (int i = 0; i < p; i++) {
        scratch[r + i] = g[i] * work[r + pi[i]];
      }
    }
    Fwht.transformRows(scratch, 0, p, rowCount);
    multiplyRows(scratch, rowScales[k], work, length, p);
  }

  @Override
  boolean interleaves() {
    return true;
  }

  @Override
  void applyBlockInterleaved(int k, float[] padded, float[] work, float[] scratch) {
    INTERLEAVED.scale(padded, signs[k], work, p, GROUP);
    Fwht.transformInterleaved(work, 0, p, GROUP);
    INTERLEAVED.permuteScale(work, permutations[k], gaussians[k], scratch, p, GROUP);
    Fwht.transformInterleaved(scratch, 0, p, GROUP);
    INTERLEAVED.scale(scratch, rowScales[k], work, p, GROUP);
  }
}
