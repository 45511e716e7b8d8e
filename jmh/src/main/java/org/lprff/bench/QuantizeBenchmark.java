package org.lprff.bench;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.simd.panama.VectorCounterRng;
import org.lprff.vector.simd.panama.VectorRounding;
import org.lprff.vector.simd.scalar.ScalarCounterRng;
import org.lprff.vector.simd.scalar.ScalarRounding;
import org.lprff.vector.simd.spi.CounterRngBody;
import org.lprff.vector.simd.spi.RoundingBody;
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
 * Stochastic rounding fused with packing of one row of m = 4096 features, per bit width, vector
 * body against the scalar reference; round-to-nearest (no RNG) for the cost of the rounding and
 * packing alone; and, in {@link Rng}, the counter-based RNG by itself (whole words as for b = 16,
 * half words as for b <= 8). Scores are ns per row (op); divide by 4096 for ns per feature.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class QuantizeBenchmark {

  static final int FEATURES = 4096;
  static final long SEED = 0x1234_5678_9ABCL;

  @Param({"1", "2", "4", "8", "16"})
  public int bits;

  private final RoundingBody scalar = new ScalarRounding();
  private final RoundingBody vector = new VectorRounding();
  private float[] values;
  private MemorySegment out;
  private float lo;
  private float step;
  private long row;

  @Setup(Level.Trial)
  public void setUp() {
    QuantizationScale scale = QuantizationScale.forFeatures(FEATURES, bits);
    lo = scale.lo();
    step = scale.step();
    SplittableRandom random = new SplittableRandom(1);
    values = new float[FEATURES];
    for (int i = 0; i < FEATURES; i++) {
      values[i] = (float) (scale.lo() + (scale.hi() - scale.lo()) * random.nextDouble());
    }
    out = MemorySegment.ofArray(new byte[scale.rowBytes(FEATURES)]);
  }

  @Benchmark
  public MemorySegment stochasticVector() {
    vector.quantizeStochastic(values, 0, FEATURES, bits, lo, step, SEED, row++, 0, 0, out, 0);
    return out;
  }

  @Benchmark
  public MemorySegment stochasticScalar() {
    scalar.quantizeStochastic(values, 0, FEATURES, bits, lo, step, SEED, row++, 0, 0, out, 0);
    return out;
  }

  @Benchmark
  public MemorySegment nearestVector() {
    vector.quantizeNearest(values, 0, FEATURES, bits, lo, step, out, 0);
    return out;
  }

  @Benchmark
  public MemorySegment nearestScalar() {
    scalar.quantizeNearest(values, 0, FEATURES, bits, lo, step, out, 0);
    return out;
  }

  /** The RNG alone: 4096 columns of 32-bit words (or 16-bit half words) per op. */
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @State(Scope.Thread)
  public static class Rng {
    private final CounterRngBody scalar = new ScalarCounterRng();
    private final CounterRngBody vector = new VectorCounterRng();
    private final int[] bits = new int[FEATURES];
    private long row;

    @Benchmark
    public int[] fillBitsVector() {
      vector.fillBits(SEED, row++, 0, 0, bits, 0, FEATURES);
      return bits;
    }

    @Benchmark
    public int[] fillBitsScalar() {
      scalar.fillBits(SEED, row++, 0, 0, bits, 0, FEATURES);
      return bits;
    }

    /** Half-word draws (16 bits per column, two columns per Threefry word), as used for b <= 8. */
    @Benchmark
    public int[] fillBits16Vector() {
      vector.fillBits16(SEED, row++, 0, 0, bits, 0, FEATURES);
      return bits;
    }

    @Benchmark
    public int[] fillBits16Scalar() {
      scalar.fillBits16(SEED, row++, 0, 0, bits, 0, FEATURES);
      return bits;
    }
  }
}
