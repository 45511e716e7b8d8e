package org.lprff.bench;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.simd.panama.VectorCosine;
import org.lprff.vector.simd.panama.VectorCosineCodes;
import org.lprff.vector.simd.panama.VectorRounding;
import org.lprff.vector.simd.scalar.ScalarCosineCodes;
import org.lprff.vector.simd.spi.CosineBody;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;
import org.lprff.vector.simd.spi.RoundingBody;
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
 * The featurizer's last step for one row's block of m = 512 projections (what {@code Featurizer}
 * hands over per row and block), per way of producing its output, in one run:
 *
 * <ul>
 *   <li>{@code float32}: the full-precision cosine and a store of 4-byte floats (b = 32's path);
 *   <li>{@code separate}: the same cosine into a float block, then the general stochastic rounding
 *       and packing (the b <= 8 path before the fused kernel);
 *   <li>{@code fusedStochastic}: the fused kernel (cosine at b's precision, 16-bit draws, integer
 *       rounding, packing);
 *   <li>{@code fusedNearest}: the fused kernel without draws: the difference to {@code
 *       fusedStochastic} is the rounding randomness;
 *   <li>{@code fusedScalar}: the scalar reference of the fused kernel.
 * </ul>
 *
 * Divide ns/op by 512 for ns per feature.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CosineCodesBenchmark {

  private static final int M = 512;

  @Param({"1", "4", "8"})
  public int bits;

  private final CosineBody cosine = new VectorCosine();
  private final RoundingBody rounding = new VectorRounding();
  private final CosineCodesBody fused = new VectorCosineCodes();
  private final CosineCodesBody scalar = new ScalarCosineCodes();

  private float[] t;
  private float[] a;
  private float[] values;
  private MemorySegment out;
  private float s;
  private QuantizationScale scale;
  private long row;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    t = new float[M];
    a = new float[M];
    values = new float[M];
    for (int i = 0; i < M; i++) {
      t[i] = (float) (3 * random.nextGaussian());
      a[i] = (float) random.nextDouble(0, 2 * Math.PI);
    }
    s = (float) Math.sqrt(2.0 / 4096);
    scale = QuantizationScale.forFeatures(4096, bits);
    out = MemorySegment.ofArray(new byte[4 * M]);
  }

  @Benchmark
  public MemorySegment float32() {
    cosine.map(t, 0, a, 0, s, values, 0, M);
    MemorySegment.copy(values, 0, out, LittleEndian.FLOAT, 0, M);
    return out;
  }

  @Benchmark
  public MemorySegment separate() {
    cosine.map(t, 0, a, 0, s, values, 0, M);
    rounding.quantizeStochastic(values, 0, M, bits, scale.lo(), scale.step(), 7, row++, 1024, 0,
        out, 0);
    return out;
  }

  /** Stochastic rounding with byte draws (lprff.rng threefry4x32-13:8, the default). */
  @Benchmark
  public MemorySegment fusedStochastic() {
    fused.quantize(t, 0, a, 0, M, bits, CosineCodes.BYTE_DRAWS, 7, row++, 1024, 0, out, 0);
    return out;
  }

  /** The same with 16-bit draws (files from before lprff.rng): twice the Threefry blocks. */
  @Benchmark
  public MemorySegment fusedHalfWordDraws() {
    fused.quantize(t, 0, a, 0, M, bits, CosineCodes.HALF_WORD_DRAWS, 7, row++, 1024, 0, out, 0);
    return out;
  }

  @Benchmark
  public MemorySegment fusedNearest() {
    fused.quantize(t, 0, a, 0, M, bits, CosineCodes.NO_DRAWS, 7, row++, 1024, 0, out, 0);
    return out;
  }

  @Benchmark
  public MemorySegment fusedScalar() {
    scalar.quantize(t, 0, a, 0, M, bits, CosineCodes.BYTE_DRAWS, 7, row++, 1024, 0, out, 0);
    return out;
  }
}
