package org.lprff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.simd.panama.VectorFwht;
import org.lprff.vector.simd.panama.VectorInterleaved;
import org.lprff.vector.simd.scalar.ScalarFwht;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * In-place FWHT of one vector of n floats, Vector API body beside the scalar reference.
 *
 * <p>Each op transforms the same array in place, as a caller would; there is no copy in the timed
 * region. The orthonormal transform is used because it is its own inverse: applied repeatedly
 * the values alternate between x and Hx/sqrt(n) (up to rounding) and never overflow, which the
 * tear-down checks. Compare with FFHT (C, AVX2) at the same n measured on the same machine.
 *
 * <p>{@code interleaved*}: one group of the structured projections, {@code width} vectors of n
 * floats side by side (width = the vector body's register of floats), normalized in place; per
 * vector, divide by width.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class FwhtBenchmark {

  @Param({"128", "1024", "8192", "65536"})
  public int n;

  private final VectorFwht vector = new VectorFwht();
  private final ScalarFwht scalar = new ScalarFwht();
  private final int width = new VectorInterleaved().width();
  private float[] x;
  private float[] group;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) (2 * random.nextDouble() - 1);
    }
    group = new float[n * width];
    for (int i = 0; i < group.length; i++) {
      group[i] = (float) (2 * random.nextDouble() - 1);
    }
  }

  @TearDown(Level.Iteration)
  public void checkFinite() {
    check(x);
    check(group);
  }

  private void check(float[] values) {
    for (float v : values) {
      if (!Float.isFinite(v) || Math.abs(v) > n) {
        throw new IllegalStateException("values drifted: " + v + " at n = " + n);
      }
    }
  }

  @Benchmark
  public float[] vector() {
    vector.transformNormalized(x, 0, n);
    return x;
  }

  @Benchmark
  public float[] scalar() {
    scalar.transformNormalized(x, 0, n);
    return x;
  }

  @Benchmark
  public float[] interleavedVector() {
    vector.transformInterleaved(group, 0, n, width, true);
    return group;
  }

  @Benchmark
  public float[] interleavedScalar() {
    scalar.transformInterleaved(group, 0, n, width, true);
    return group;
  }
}
