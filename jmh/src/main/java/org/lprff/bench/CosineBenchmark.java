package org.lprff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.bench.support.VectorCosineOperator;
import org.lprff.vector.featurize.CosineFeatures;
import org.lprff.vector.simd.panama.VectorCosine;
import org.lprff.vector.simd.scalar.ScalarCosine;
import org.lprff.vector.simd.spi.CosineBody;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code out[i] = s * cos(t[i] + a[i])}: the scalar reference ({@link Math#cos} in double), the
 * {@code VectorOperators.COS} body and the polynomial body, plus the facade (validation and the
 * NaN check included). Divide ns/op by {@code n} for ns per element.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CosineBenchmark {

  @Param({"1024", "8192", "65536"})
  public int n;

  private final CosineBody scalar = new ScalarCosine();
  private final CosineBody operator = new VectorCosineOperator();
  private final CosineBody polynomial = new VectorCosine();

  private float[] t;
  private float[] a;
  private float[] out;
  private float s;

  @Setup
  public void setUp() {
    // Projections of a Gaussian-kernel map are roughly N(0, ||x||^2 / sigma^2): spread over
    // tens, with phases uniform in [0, 2 pi).
    SplittableRandom random = new SplittableRandom(42);
    t = new float[n];
    a = new float[n];
    out = new float[n];
    for (int i = 0; i < n; i++) {
      t[i] = (float) (10 * random.nextGaussian());
      a[i] = (float) random.nextDouble(0, 2 * Math.PI);
    }
    s = (float) Math.sqrt(2.0 / n);
  }

  @Benchmark
  public float[] scalar() {
    scalar.map(t, 0, a, 0, s, out, 0, n);
    return out;
  }

  @Benchmark
  public float[] vectorOperator() {
    operator.map(t, 0, a, 0, s, out, 0, n);
    return out;
  }

  @Benchmark
  public float[] vectorPolynomial() {
    polynomial.map(t, 0, a, 0, s, out, 0, n);
    return out;
  }

  @Benchmark
  public float[] facade() {
    CosineFeatures.map(t, a, s, out);
    return out;
  }
}
