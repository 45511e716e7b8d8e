package org.lprff.vector.testing;

import java.util.TreeSet;
import java.util.stream.IntStream;
import org.lprff.vector.simd.panama.VectorShape;

/** The sizes every kernel test sweeps (DESIGN.md section 5). */
public final class TestSizes {

  private TestSizes() {}

  /** 0..17, lane count ± 1 (float and int lanes), primes, powers of two ± 1, several thousand. */
  public static int[] general() {
    TreeSet<Integer> sizes = new TreeSet<>();
    for (int n = 0; n <= 17; n++) {
      sizes.add(n);
    }
    int lanes = VectorShape.floatLanes();
    for (int k = 1; k <= 4; k++) {
      sizes.add(k * lanes - 1);
      sizes.add(k * lanes);
      sizes.add(k * lanes + 1);
    }
    for (int p : new int[] {19, 23, 31, 37, 61, 97, 127, 251, 509, 1021, 4093}) {
      sizes.add(p);
    }
    for (int e = 5; e <= 12; e++) {
      sizes.add((1 << e) - 1);
      sizes.add(1 << e);
      sizes.add((1 << e) + 1);
    }
    sizes.add(3000);
    sizes.add(5000);
    return sizes.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Powers of two 2^lo .. 2^hi. */
  public static int[] powersOfTwo(int lo, int hi) {
    return IntStream.rangeClosed(lo, hi).map(e -> 1 << e).toArray();
  }
}
