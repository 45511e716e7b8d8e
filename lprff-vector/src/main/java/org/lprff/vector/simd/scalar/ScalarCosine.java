package org.lprff.vector.simd.scalar;

import org.lprff.vector.simd.spi.CosineBody;

/**
 * The reference: the float32 argument {@code fl(t + a)} widened to double, {@link Math#cos} in
 * double (error below 1 ulp of a double), scaled in double and rounded once to float.
 */
public final class ScalarCosine implements CosineBody {

  @Override
  public boolean map(
      float[] t, int tOff, float[] a, int aOff, float s, float[] out, int outOff, int n) {
    assert n >= 0 && tOff >= 0 && aOff >= 0 && outOff >= 0;
    assert tOff + n <= t.length && aOff + n <= a.length && outOff + n <= out.length;
    boolean sawNaN = false;
    for (int i = 0; i < n; i++) {
      double c = Math.cos((double) (t[tOff + i] + a[aOff + i]));
      sawNaN |= Double.isNaN(c);
      out[outOff + i] = (float) (s * c);
    }
    return sawNaN;
  }
}
