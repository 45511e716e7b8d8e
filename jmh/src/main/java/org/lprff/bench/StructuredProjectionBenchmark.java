package org.lprff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.CirculantProjection;
import org.lprff.vector.projection.FastfoodProjection;
import org.lprff.vector.projection.OrthogonalProjection;
import org.lprff.vector.projection.Projection;
import org.lprff.vector.transform.CirculantPlan;
import org.lprff.vector.transform.Fwht;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One batch of 64 rows projected to all m = 8192 features by each structured projection, beside
 * the dense scalar product W x (m x d floats, plain loops) as the reference they replace. Time is
 * per batch: divide by 64 for ns per row; features/s = 64 m / time.
 *
 * <p>The structured projections call the transform facades ({@link Fwht}, {@link CirculantPlan}),
 * which pick the Vector API or scalar bodies once per JVM; to time them on the scalar bodies run
 * with {@code -jvmArgsAppend -Dlprff.vectorization=scalar}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class StructuredProjectionBenchmark {

  private static final int BATCH = 64;

  @Param({"9", "90", "784"})
  public int d;

  @Param({"8192"})
  public int m;

  private Projection circulant;
  private Projection fastfood;
  private Projection orthogonal;
  private float[] dense;
  private float[] rows;
  private float[] out;

  @Setup(Level.Trial)
  public void setUp() {
    double sigma = Math.sqrt(d);
    circulant = new CirculantProjection(1, sigma, d, m);
    fastfood = new FastfoodProjection(1, sigma, d, m);
    orthogonal = new OrthogonalProjection(1, sigma, d, m);
    dense = new float[m * d];
    new KernelFunction.Gaussian(sigma).sampleFrequencies(1, d, m, dense);
    SplittableRandom random = new SplittableRandom(42);
    rows = new float[BATCH * d];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = (float) (2 * random.nextDouble() - 1);
    }
    out = new float[BATCH * m];
  }

  @Benchmark
  public float[] circulant() {
    circulant.project(rows, 0, BATCH, 0, m, out, 0);
    return out;
  }

  @Benchmark
  public float[] fastfood() {
    fastfood.project(rows, 0, BATCH, 0, m, out, 0);
    return out;
  }

  @Benchmark
  public float[] orthogonal() {
    orthogonal.project(rows, 0, BATCH, 0, m, out, 0);
    return out;
  }

  /** Reference: dense W x, scalar loops, W row-major (feature f at dense[f d ..]). */
  @Benchmark
  public float[] denseScalar() {
    for (int r = 0; r < BATCH; r++) {
      for (int f = 0; f < m; f++) {
        float sum = 0;
        for (int j = 0; j < d; j++) {
          sum += dense[f * d + j] * rows[r * d + j];
        }
        out[r * m + f] = sum;
      }
    }
    return out;
  }
}
