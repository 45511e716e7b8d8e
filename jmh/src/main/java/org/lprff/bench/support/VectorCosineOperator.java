package org.lprff.bench.support;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.panama.VectorShape;
import org.lprff.vector.simd.spi.CosineBody;

/**
 * The reference {@link CosineBenchmark} measures the library's polynomial body ({@code
 * org.lprff.vector.simd.panama.VectorCosine}) against: {@code
 * FloatVector.lanewise(VectorOperators.COS)}, which on x86-64 HotSpot calls Intel's SVML vector
 * routine (a stub call per vector) and elsewhere may fall back to per-lane {@link Math#cos}.
 * {@code VectorCosineOperatorTest} holds it to the library's accuracy requirement.
 *
 * <p>The tail runs the same operator under a mask, so every element goes through the same
 * routine whatever its position.
 */
public final class VectorCosineOperator implements CosineBody {

  private static final VectorSpecies<Float> SPECIES = VectorShape.FLOAT;

  @Override
  public boolean map(
      float[] t, int tOff, float[] a, int aOff, float s, float[] out, int outOff, int n) {
    assert n >= 0 && tOff >= 0 && aOff >= 0 && outOff >= 0;
    assert tOff + n <= t.length && aOff + n <= a.length && outOff + n <= out.length;
    // Sum of the unscaled cosines: finite (|cos| <= 1) unless some lane is NaN.
    FloatVector nanProbe = FloatVector.zero(SPECIES);
    int bound = SPECIES.loopBound(n);
    int i = 0;
    for (; i < bound; i += SPECIES.length()) {
      FloatVector x =
          FloatVector.fromArray(SPECIES, t, tOff + i)
              .add(FloatVector.fromArray(SPECIES, a, aOff + i));
      FloatVector c = x.lanewise(VectorOperators.COS);
      nanProbe = nanProbe.add(c);
      c.mul(s).intoArray(out, outOff + i);
    }
    if (i < n) {
      VectorMask<Float> tail = SPECIES.indexInRange(i, n);
      FloatVector x =
          FloatVector.fromArray(SPECIES, t, tOff + i, tail)
              .add(FloatVector.fromArray(SPECIES, a, aOff + i, tail));
      // Inactive lanes load 0 and give cos 0 = 1: no NaN from them.
      FloatVector c = x.lanewise(VectorOperators.COS);
      nanProbe = nanProbe.add(c);
      c.mul(s).intoArray(out, outOff + i, tail);
    }
    return Float.isNaN(nanProbe.reduceLanes(VectorOperators.ADD));
  }

  /** E.g. {@code FloatVector 256-bit, 8 lanes}, as the library's bodies say it. */
  @Override
  public String shape() {
    return "FloatVector " + SPECIES.vectorBitSize() + "-bit, " + SPECIES.length() + " lanes";
  }
}
