package org.lprff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.StochasticRounding;
import org.lprff.vector.featurize.CosineFeatures;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
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
 * End-to-end LP-RFF featurization of a batch of {@link #rows} rows: the fused pass on one thread
 * ({@code fused}) and on the common pool ({@code fusedCommonPool}), against the unfused
 * composition of the public facades ({@code unfused}: project the whole batch into an n x m float
 * matrix, then cosines, then quantization) as the reference. Features per second = rows * m /
 * (time per operation). The scalar kernels are measured by the same benchmark run with {@code
 * -jvmArgsAppend -Dlprff.vectorization=scalar} (the featurizer picks its kernels once per JVM).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FeaturizerBenchmark {

  @Param({"9", "90", "784"})
  public int d;

  @Param({"8192"})
  public int m;

  @Param({"4", "32"})
  public int bits;

  @Param({"dense", "circulant", "fastfood", "orthogonal"})
  public String projection;

  @Param({"1000"})
  public int rows;

  private Featurizer featurizer;
  private float[] x;
  private byte[] out;
  private float[] t;
  private float[] z;
  private float[] phases;

  @Setup
  public void setUp() {
    FeaturizerSpec spec =
        new FeaturizerSpec(
            new KernelFunction.Gaussian(Math.sqrt(d)), d, m, bits, projection, 42L,
            Quantizer.STOCHASTIC);
    featurizer = Featurizer.of(spec);
    SplittableRandom random = new SplittableRandom(7);
    x = new float[rows * d];
    for (int k = 0; k < x.length; k++) {
      x[k] = (float) random.nextGaussian();
    }
    out = new byte[rows * featurizer.rowBytes()];
    t = new float[rows * m];
    z = new float[rows * m];
    phases = featurizer.phases();
  }

  @Benchmark
  public byte[] fused() {
    featurizer.featurize(x, rows, 0, out, 0, 0);
    return out;
  }

  @Benchmark
  public byte[] fusedCommonPool() {
    featurizer.featurizeParallel(x, rows, 0, out, 0, 0);
    return out;
  }

  @Benchmark
  public byte[] unfused() {
    featurizer.projection().project(x, 0, rows, 0, m, t, 0);
    float s = featurizer.featureScale();
    int rowBytes = featurizer.rowBytes();
    for (int r = 0; r < rows; r++) {
      CosineFeatures.map(t, r * m, phases, 0, s, z, r * m, m);
      if (bits == 32) {
        java.nio.ByteBuffer.wrap(out, r * rowBytes, rowBytes)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(z, r * m, m);
      } else {
        StochasticRounding.quantizeStochastic(
            z, r * m, m, featurizer.scale(), 42L, r, 0, 0, out, r * rowBytes);
      }
    }
    return out;
  }
}
