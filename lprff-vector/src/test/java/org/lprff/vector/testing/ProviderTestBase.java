package org.lprff.vector.testing;

import java.util.stream.Stream;
import org.lprff.vector.simd.VectorizationProvider;

/**
 * The base of every test that holds the scalar and the vector bodies against each other: both
 * providers, built whatever this JVM's own choice is, so the vector bodies are tested on every
 * machine with the incubator module (also where the provider would pick scalar) and the scalar
 * reference where it would pick vector.
 */
public abstract class ProviderTestBase {

  /** The scalar reference bodies. */
  public static final VectorizationProvider SCALAR = VectorizationProvider.scalar();

  /** The Vector API bodies on this machine's preferred species. */
  public static final VectorizationProvider VECTOR = VectorizationProvider.vector();

  /** Both providers, for {@code @MethodSource("providers")}. */
  public static Stream<VectorizationProvider> providers() {
    return Stream.of(SCALAR, VECTOR);
  }
}
