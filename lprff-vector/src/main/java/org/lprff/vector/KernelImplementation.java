package org.lprff.vector;

/** Which body every kernel of this library runs: the scalar reference or the Vector API one. */
public enum KernelImplementation {
  /** Plain Java loops; the reference the vector bodies are tested against. */
  SCALAR,
  /** {@code jdk.incubator.vector} bodies on the platform's preferred species. */
  VECTOR
}
