package org.lprff.properties;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.lprff.vector.simd.panama.VectorShape;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Generated sizes for properties whose sizes are free (counts, feature numbers, row numbers):
 * half the time one of the sizes where kernels have edges (1, small primes and larger ones, the
 * float and int lane counts +- 1 and their multiples +- 1, powers of two +- 1), otherwise uniform
 * in the range.
 */
final class Sizes {

  private Sizes() {}

  private static final int[] PRIMES = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 61, 97, 127,
      251, 257, 509, 521, 1021, 1031, 2039, 4093, 8191, 65521};

  /** The edge sizes in [min, max], sorted. */
  static List<Integer> edges(int min, int max) {
    TreeSet<Integer> s = new TreeSet<>();
    s.add(min);
    s.add(max);
    s.add(1);
    for (int p : PRIMES) {
      s.add(p);
    }
    for (int lanes : new int[] {VectorShape.floatLanes(), 2 * VectorShape.floatLanes(),
        4 * VectorShape.floatLanes(), 8 * VectorShape.floatLanes(), 64}) {
      s.add(lanes - 1);
      s.add(lanes);
      s.add(lanes + 1);
    }
    for (int k = 1; k <= 30; k++) {
      s.add((1 << k) - 1);
      s.add(1 << k);
      s.add((1 << k) + 1);
    }
    List<Integer> out = new ArrayList<>();
    for (int v : s) {
      if (v >= min && v <= max) {
        out.add(v);
      }
    }
    return out;
  }

  /** Sizes in [min, max]: an edge size or a uniform one, with equal weight. */
  static Gen<Integer> between(int min, int max) {
    List<Integer> edges = edges(min, max);
    return Generate.pick(edges).mix(integers().between(min, max), 50);
  }
}
