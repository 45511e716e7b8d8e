package org.lprff.bench.support;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.lprff.vector.products.Gram;
import org.lprff.vector.simd.spi.FftBody;
import org.lprff.vector.simd.spi.GramBody;
import org.lprff.vector.transform.CirculantPlan;

/**
 * The two facade seams that run a given body, so a benchmark measures the vector and the scalar
 * body side by side: {@code CirculantPlan.multiplyWith} and {@code Gram.accumulateUpperWith}.
 * They are package-private in lprff-vector (no body type in an exported signature), and a
 * benchmark declares no class inside a library package, so they are reached here by a private
 * lookup: the benchmarks run on the class path, one unnamed module, where it is allowed. The
 * handles are constants, so the JIT inlines the calls as it would direct ones. {@code
 * BodySeamsTest} runs both, so a renamed seam fails the build, not a benchmark run.
 */
public final class BodySeams {

  private static final MethodHandle MULTIPLY_WITH = find(CirculantPlan.class, "multiplyWith",
      MethodType.methodType(
          void.class, FftBody.class, float[].class, float[].class, float[].class),
      false);

  private static final MethodHandle ACCUMULATE_UPPER_WITH = find(Gram.class,
      "accumulateUpperWith",
      MethodType.methodType(
          void.class, GramBody.class, double[].class, int.class, int.class, double[].class),
      true);

  private static final MethodHandle ACCUMULATE_FLOAT_UPPER_WITH = find(Gram.class,
      "accumulateUpperWith",
      MethodType.methodType(void.class, GramBody.class, float[].class, float[].class, int.class,
          int.class, double[].class),
      true);

  private BodySeams() {}

  /** {@code out = circ(g) x} on {@code body}, as {@link CirculantPlan#multiply} runs it. */
  public static void multiplyWith(
      CirculantPlan plan, FftBody body, float[] x, float[] out, float[] scratch) {
    try {
      MULTIPLY_WITH.invokeExact(plan, body, x, out, scratch);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** The panels of {@link Gram#accumulateUpper} in order on {@code body}. */
  public static void accumulateUpperWith(
      GramBody body, double[] c, int k, int stride, double[] g) {
    try {
      ACCUMULATE_UPPER_WITH.invokeExact(body, c, k, stride, g);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** The float panels of {@link Gram#accumulateUpper} in order on {@code body}. */
  public static void accumulateUpperWith(
      GramBody body, float[] rows, float[] cols, int k, int stride, double[] g) {
    try {
      ACCUMULATE_FLOAT_UPPER_WITH.invokeExact(body, rows, cols, k, stride, g);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private static MethodHandle find(Class<?> owner, String name, MethodType type, boolean isStatic) {
    try {
      MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(owner, MethodHandles.lookup());
      return isStatic
          ? lookup.findStatic(owner, name, type)
          : lookup.findVirtual(owner, name, type);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(
          "lprff-vector's test seam " + owner.getSimpleName() + "." + name + type + " is gone: " + e);
    }
  }
}
