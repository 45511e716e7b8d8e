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
 *
 * <p>{@code facade} is the product the featurizer computes, through the public facade in the
 * featurizer's calls: chunks of {@link #chunk} rows, each onto every block of features. With
 * {@code -p rows=1000 -p m=8192 -p block=512} it is the GEMM part of {@code FeaturizerBenchmark}
 * (dense) and of scikit-learn's {@code RBFSampler.transform} (X W^T, OpenBLAS sgemm).
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

  /** Rows per call of {@code facade}: the featurizer's chunk ({@code preferredRows()}, 128). */
  @Param({"128"})
  public int chunk;

  private final DenseProjectionBody scalar = new ScalarDenseProjection();
  private final DenseProjectionBody vector = new VectorDenseProjection();
  private float[] panels;
  private int panel;
  private float[] x;
  private float[] out;
  private DenseProjection projection;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    float[] w = new float[m * d];
    for (int k = 0; k < w.length; k++) {
      w[k] = (float) random.nextGaussian();
    }
    DenseProjection p = new DenseProjection(w, m, d);
    panels = p.packedWeights();
    panel = p.panel();
    x = new float[rows * d];
    for (int k = 0; k < x.length; k++) {
      x[k] = (float) random.nextDouble(-1, 1);
    }
    out = new float[rows * block];
    projection = p;
  }

  private float[] run(DenseProjectionBody kernel) {
    for (int first = 0; first < m; first += block) {
      kernel.project(panels, panel, d, x, 0, rows, first, Math.min(block, m - first), out, 0);
    }
    return out;
  }

  @Benchmark
  public float[] vector() {
    return run(vector);
  }

  @Benchmark
  public float[] facade() {
    for (int r0 = 0; r0 < rows; r0 += chunk) {
      int n = Math.min(chunk, rows - r0);
      for (int first = 0; first < m; first += block) {
        projection.project(x, r0 * d, n, first, Math.min(block, m - first), out, 0);
      }
    }
    return out;
  }

  @Benchmark
  public float[] scalar() {
    return run(scalar);
  }
}
