package org.lprff.vector.simd.spi;

/**
 * What the bodies need of a circulant product y = circ(g) x (the plan is {@code
 * org.lprff.vector.transform.CirculantPlan}, which builds this once and validates every call):
 * the size n, g[0] for n = 1, the twiddles of the n/2-point complex FFT, and the spectral
 * coefficients of g in bit-reversed order.
 *
 * <p>Coefficients are indexed by slot: slot 0 is position 0, slot N/2 is position 1 (both their
 * own partners); a first-half position p of block [b, 2b) has slot p - b/2, and the partner
 * coefficients of that slot belong to position 3b - 1 - p, so a vector of partners loaded in
 * reverse meets its coefficients in forward order. Immutable by convention: the arrays are
 * filled once by the plan and only read afterwards.
 */
public final class CirculantSpectrum {

  public final int n;
  public final float g0;
  public final float[] twRe;
  public final float[] twIm;
  public final float[] ownARe;
  public final float[] ownAIm;
  public final float[] ownBRe;
  public final float[] ownBIm;
  public final float[] partARe;
  public final float[] partAIm;
  public final float[] partBRe;
  public final float[] partBIm;

  /** Empty coefficients for n > 1 (filled by the plan), or the scalar product g0 x for n = 1. */
  public CirculantSpectrum(int n, float g0, float[] twRe, float[] twIm) {
    this.n = n;
    this.g0 = g0;
    this.twRe = twRe;
    this.twIm = twIm;
    int slots = n == 1 ? 0 : n / 4 + 1;
    ownARe = new float[slots];
    ownAIm = new float[slots];
    ownBRe = new float[slots];
    ownBIm = new float[slots];
    partARe = new float[slots];
    partAIm = new float[slots];
    partBRe = new float[slots];
    partBIm = new float[slots];
  }
}
