package org.lprff.vector;

import java.util.Locale;

/**
 * Picks, once per JVM, which implementation the kernel facades use.
 *
 * <p>The system property {@value #PROPERTY} forces {@code scalar} or {@code vector}; without it
 * the Vector API bodies are used whenever {@code jdk.incubator.vector} is present and its
 * preferred float species has at least 4 lanes (SSE and wider). Forcing {@code vector} where the
 * module is missing is an error, not a silent fallback, so a benchmark never measures the wrong
 * body.
 */
public final class Kernels {

  /** System property that forces an implementation: {@code scalar} or {@code vector}. */
  public static final String PROPERTY = "lprff.kernels";

  private static final KernelImplementation ACTIVE = select(System.getProperty(PROPERTY));

  private Kernels() {}

  /** The implementation every facade of this JVM uses. */
  public static KernelImplementation active() {
    return ACTIVE;
  }

  /** A line for logs and benchmark reports, e.g. {@code vector (FloatVector 256-bit, 8 lanes)}. */
  public static String describe() {
    return ACTIVE == KernelImplementation.VECTOR
        ? "vector (" + VectorShape.describe() + ")"
        : "scalar" + (vectorApiPresent() ? "" : " (jdk.incubator.vector not present)");
  }

  static KernelImplementation select(String forced) {
    if (forced == null || forced.isBlank()) {
      return vectorApiPresent() && VectorShape.floatLanes() >= 4
          ? KernelImplementation.VECTOR
          : KernelImplementation.SCALAR;
    }
    return switch (forced.trim().toLowerCase(Locale.ROOT)) {
      case "scalar" -> KernelImplementation.SCALAR;
      case "vector" -> {
        if (!vectorApiPresent()) {
          throw new IllegalStateException(
              PROPERTY + "=vector but module jdk.incubator.vector is not present;"
                  + " run the JVM with --add-modules=jdk.incubator.vector");
        }
        yield KernelImplementation.VECTOR;
      }
      default ->
          throw new IllegalStateException(
              PROPERTY + " must be 'scalar' or 'vector', not '" + forced + "'");
    };
  }

  private static boolean vectorApiPresent() {
    return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
  }
}
