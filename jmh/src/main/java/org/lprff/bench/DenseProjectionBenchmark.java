package org.lprff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.projection.DenseProjection;
import org.lprff.vector.simd.panama.VectorDenseProjection;
import org.lprff.vector.simd.scalar.ScalarDenseProjection;
import org.lprff.vector.simd.spi.DenseProjectionBody;
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
 * Dense projection of one batch of rows onto all m features, in blocks of features as the
 * featurizer calls it; vector and scalar bodies. One operation is 2 n m d flops (n = rows): divide
 * by the time for GFLOP/s, and n m by the time for features x rows per second.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DenseProjectionBenchmark {

  @Param({"9", "90", "784"})
  public int d;

  @Param({"1024"})
  public int m;

  @Param({"256"})
  public int block;

  @Param({"64"})
  public int rows;

  private final DenseProjectionBody scalar = new ScalarDenseProjection();
  private final DenseProjectionBody vector = new VectorDenseProjection();
  private float[] wT;
  private int stride;
  private float[] x;
  private float[] out;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    float[] w = new float[m * d];
    for (int k = 0; k < w.length; k++) {
      w[k] = (float) random.nextGaussian();
    }
    DenseProjection p = new DenseProjection(w, m, d);
    wT = p.transposedWeights();
    stride = p.stride();
    x = new float[rows * d];
    for (int k = 0; k < x.length; k++) {
      x[k] = (float) random.nextDouble(-1, 1);
    }
    out = new float[rows * block];
  }

  private float[] run(DenseProjectionBody kernel) {
    for (int first = 0; first < m; first += block) {
      kernel.project(wT, stride, d, x, 0, rows, first, Math.min(block, m - first), out, 0);
    }
    return out;
  }

  @Benchmark
  public float[] vector() {
    return run(vector);
  }

  @Benchmark
  public float[] scalar() {
    return run(scalar);
  }
}
