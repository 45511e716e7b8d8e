package org.lprff.vector;

/**
 * Structured orthogonal projection for the Gaussian kernel (SORF / structured spinner: Yu, Suresh,
 * Choromanski, Holtmann-Rice, Kumar, "Orthogonal random features", 2016; Bojarski et al.,
 * "Structured adaptive and random spinners", 2017). Block k is
 *
 * <pre>  W_k = (sqrt(p)/sigma) H~ D3_k H~ D2_k H~ D1_k,   H~ = H / sqrt(p)</pre>
 *
 * with H the Walsh–Hadamard matrix ({@link Fwht#transformNormalized} applies H~) and D1, D2, D3
 * Rademacher diagonals. H~ and the D's are orthogonal, so the rows of one block are exactly
 * orthogonal with norm sqrt(p)/sigma: W_k W_k^T = (p / sigma^2) I (up to float rounding).
 *
 * <p>Parameters: D1_k[i], D2_k[i], D3_k[i] = {@link RandomParameters#rademacher} of streams
 * {@link #STREAM_D1} (= {@link RandomParameters#STREAM_FIRST_STRUCTURED}), {@link #STREAM_D2},
 * {@link #STREAM_D3} at index k p + i. The factor sqrt(p)/sigma is folded into D3 (computed in
 * double, rounded to float once).
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

  private final float[][] d1;
  private final float[][] d2;
  /** D3 times sqrt(p)/sigma. */
  private final float[][] d3Scaled;

  /**
   * Draws the parameters from (seed, sigma, d, m) alone.
   *
   * @throws IllegalArgumentException naming sigma (not finite and > 0), d (< 1) or m (< 1)
   */
  public OrthogonalProjection(long seed, double sigma, int d, int m) {
    super(sigma, d, m);
    d1 = new float[blocks][];
    d2 = new float[blocks][];
    d3Scaled = new float[blocks][];
    float scale = (float) (Math.sqrt(p) / sigma);
    for (int k = 0; k < blocks; k++) {
      d1[k] = signs(seed, STREAM_D1, k);
      d2[k] = signs(seed, STREAM_D2, k);
      float[] d3 = signs(seed, STREAM_D3, k);
      for (int i = 0; i < p; i++) {
        d3[i] *= scale; // exact: a sign flip
      }
      d3Scaled[k] = d3;
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
    multiplyRows(work, d3Scaled[k], work, length, p);
    Fwht.transformRowsNormalized(work, 0, p, rowCount);
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
    INTERLEAVED.scale(work, d3Scaled[k], work, p, GROUP);
    Fwht.transformInterleavedNormalized(work, 0, p, GROUP);
  }
}
