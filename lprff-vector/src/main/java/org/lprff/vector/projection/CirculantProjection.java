package org.lprff.vector.projection;

import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.transform.CirculantPlan;

/**
 * Circulant random projection for the Gaussian kernel (Yu, Kumar, Rowley, Chang, "Compact
 * nonlinear maps and circulant extensions", 2015). Block k is
 *
 * <pre>  W_k = (1/sigma) circ(g_k) diag(s_k)</pre>
 *
 * with circ(g) the circulant matrix whose FIRST COLUMN is g ((circ(g))_ij = g_{(i - j) mod p}),
 * g_k ~ N(0, I_p) and s_k Rademacher. Every entry g_{(i-j) mod p} s_j / sigma is N(0, sigma^-2),
 * and within one row the entries are independent, so each row is marginally N(0, sigma^-2 I_p)
 * (rows of one block are dependent).
 *
 * <p>Parameters: g_k[i] = {@link RandomParameters#normal} of stream {@link
 * RandomParameters#STREAM_FREQUENCIES} at index k p + i (divided by sigma in double, then
 * rounded to float); s_k[i] = {@link RandomParameters#rademacher} of stream {@link
 * RandomParameters#STREAM_FIRST_STRUCTURED} at index k p + i. Each block holds a {@link
 * CirculantPlan}; the product runs in O(p log p).
 *
 * <p>Immutable and thread-safe; scratch is allocated per {@link #project} call.
 */
public final class CirculantProjection extends StructuredProjection {

  /** Stream of the Rademacher diagonals s_k. */
  public static final int STREAM_SIGNS = RandomParameters.STREAM_FIRST_STRUCTURED;

  private final CirculantPlan[] plans;
  private final float[][] signs;

  /**
   * Draws the parameters from (seed, sigma, d, m) alone.
   *
   * @throws IllegalArgumentException naming sigma (not finite and > 0), d (< 1) or m (< 1)
   */
  public CirculantProjection(long seed, double sigma, int d, int m) {
    super(sigma, d, m);
    plans = new CirculantPlan[blocks];
    signs = new float[blocks][];
    float[] column = new float[p];
    for (int k = 0; k < blocks; k++) {
      double[] g = normals(seed, RandomParameters.STREAM_FREQUENCIES, k);
      for (int i = 0; i < p; i++) {
        column[i] = (float) (g[i] / sigma);
      }
      plans[k] = new CirculantPlan(column);
      signs[k] = signs(seed, STREAM_SIGNS, k);
    }
  }

  @Override
  public String name() {
    return "circulant";
  }

  /** The plan's scratch; rows go through line, as CirculantPlan takes whole arrays of length p. */
  @Override
  int scratchLength(int rowCount) {
    return p;
  }

  @Override
  void applyBlock(
      int k, float[] padded, float[] work, float[] scratch, float[] line, int rowCount) {
    float[] s = signs[k];
    CirculantPlan plan = plans[k];
    for (int r = 0; r < rowCount * p; r += p) {
      for (int i = 0; i < p; i++) {
        line[i] = padded[r + i] * s[i];
      }
      plan.multiply(line, line, scratch);
      System.arraycopy(line, 0, work, r, p);
    }
  }

  @Override
  boolean interleaves() {
    return true;
  }

  @Override
  void applyBlockInterleaved(int k, float[] padded, float[] work, float[] scratch) {
    INTERLEAVED.scale(padded, signs[k], work, p, GROUP);
    plans[k].multiplyInterleaved(work, scratch, work, GROUP);
  }
}
