package org.lprff.vector.projection;

import java.util.List;
import org.lprff.vector.kernel.KernelFunction;

/** Creates the projection a featurizer spec names, with its parameters from the seed alone. */
public final class Projections {

  /** Every projection name, in the order the README and benchmarks list them. */
  public static final List<String> NAMES = List.of("dense", "circulant", "fastfood", "orthogonal");

  private Projections() {}

  private static double gaussianSigma(KernelFunction kernel) {
    return ((KernelFunction.Gaussian) kernel).sigma();
  }

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
    if (kernel == null) {
      throw new IllegalArgumentException("kernel is null");
    }
    if (!name.equals("dense") && NAMES.contains(name) && !kernel.supportsStructuredProjections()) {
      throw new IllegalArgumentException(
          "projection '" + name + "' is for the Gaussian kernel only, not " + kernel.name()
              + "; use 'dense' for it");
    }
    return switch (name) {
      case "dense" -> DenseProjection.sample(kernel, seed, inputDim, features);
      case "circulant" -> new CirculantProjection(seed, gaussianSigma(kernel), inputDim, features);
      case "fastfood" -> new FastfoodProjection(seed, gaussianSigma(kernel), inputDim, features);
      case "orthogonal" -> new OrthogonalProjection(seed, gaussianSigma(kernel), inputDim, features);
      default ->
          throw new IllegalArgumentException(
              "projection is '" + name + "', expected one of " + NAMES);
    };
  }
}
