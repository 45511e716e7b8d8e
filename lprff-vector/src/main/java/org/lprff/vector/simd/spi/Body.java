package org.lprff.vector.simd.spi;

/**
 * A compute body: one operation with a scalar reference implementation and a Vector API one,
 * chosen once per JVM by {@code org.lprff.vector.simd.VectorizationProvider}. Implementations
 * only {@code assert} their preconditions: the facades above validate every argument.
 */
public interface Body {

  /**
   * The registers this implementation runs on, for logs and benchmark reports: {@code scalar}, or
   * the species, e.g. {@code FloatVector 512-bit, 16 lanes}.
   */
  default String shape() {
    return "scalar";
  }
}
