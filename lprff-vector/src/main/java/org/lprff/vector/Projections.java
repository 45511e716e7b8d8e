package org.lprff.vector;

import java.util.List;

/** Creates the projection a featurizer spec names, with its parameters from the seed alone. */
public final class Projections {

  /** Every projection name, in the order the README and benchmarks list them. */
  public static final List<String> NAMES = List.of("dense");

  private Projections() {}

  /**
   * The projection {@code name} for {@code kernel}, input width d and m features.
   *
   * @throws IllegalArgumentException for an unknown name, or a structured projection asked for a
   *     kernel other than the Gaussian
   */
  public static Projection create(
      String name, KernelFunction kernel, int inputDim, int features, long seed) {
    if (name == null) {
      throw new IllegalArgumentException("projection name is null; expected one of " + NAMES);
    }
    return switch (name) {
      case "dense" -> DenseProjection.sample(kernel, seed, inputDim, features);
      default ->
          throw new IllegalArgumentException(
              "projection is '" + name + "', expected one of " + NAMES);
    };
  }
}
