package org.lprff.vector.simd;

/** Which body every kernel of this library runs: the scalar reference or the Vector API one. */
public enum Implementation {
  /** Plain Java loops; the reference the vector bodies are tested against. */
  SCALAR,
  /** {@code jdk.incubator.vector} bodies on the platform's preferred species. */
  VECTOR
}
