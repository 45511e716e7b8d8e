package org.lprff.vector.simd.spi;


/**
 * Body of {@code CosineFeatures}: {@code out[outOff + i] = s * cos(fl(t[tOff + i] + a[aOff + i]))}
 * for {@code i} in {@code [0, n)}, where {@code fl(t + a)} is the float32 sum.
 *
 * <p>Implementations only {@code assert} their preconditions (ranges in bounds, {@code out} either
 * disjoint from {@code t} and {@code a} or the very same region); the facade validates.
 */
public interface CosineBody extends Body {

  /**
   * Maps {@code n} elements.
   *
   * @return {@code true} if some output is NaN, which happens exactly when some argument {@code
   *     fl(t + a)} is NaN or infinite; the caller then locates the offending input
   */
  boolean map(float[] t, int tOff, float[] a, int aOff, float s, float[] out, int outOff, int n);
}
