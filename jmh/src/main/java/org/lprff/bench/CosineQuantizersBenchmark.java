package org.lprff.bench;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.SharedThresholdQuantizer;
import org.lprff.vector.simd.panama.VectorCosineCodes;
import org.lprff.vector.simd.scalar.ScalarCosineCodes;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;
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
 * The fused featurizer's last step per quantizer: one row's block of m = 512 projections to
 * packed b-bit codes (what {@code Featurizer} hands {@link CosineCodesBody} per row and block),
 * the vector body ({@code vector}) and the scalar reference ({@code scalar}), every quantizer in
 * one run so each is read against stochastic rounding, the reference. Sigma-Delta of order r
 * needs b >= r: {@code sigma-delta:2:8} at b = 1 fails its setup. Divide ns/op by 512 for ns per
 * feature.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CosineQuantizersBenchmark {

  private static final int M = 512;

  @Param({"stochastic", "nearest", "shared-threshold", "lloyd-max", "sigma-delta:1:8",
      "sigma-delta:2:8"})
  public String quantizer;

  @Param({"1", "2", "4", "8"})
  public int bits;

  private final CosineCodesBody vectorBody = new VectorCosineCodes();
  private final CosineCodesBody scalarBody = new ScalarCosineCodes();

  private Quantizer q;
  private float[] t;
  private float[] a;
  private int[] draws;
  private float[] thresholds;
  private MemorySegment out;
  private long row;

  @Setup
  public void setUp() {
    q = Quantizer.parse(quantizer);
    if (q instanceof Quantizer.SigmaDelta sd && sd.order() > bits) {
      throw new IllegalArgumentException(
          quantizer + " needs at least " + sd.order() + " bits, bits is " + bits);
    }
    SplittableRandom random = new SplittableRandom(42);
    t = new float[M];
    a = new float[M];
    for (int i = 0; i < M; i++) {
      t[i] = (float) (3 * random.nextGaussian());
      a[i] = (float) random.nextDouble(0, 2 * Math.PI);
    }
    // The table of a 4096-feature spec, read from feature 1024 as the featurizer's third block.
    draws = SharedThresholdQuantizer.draws(7, 4096, bits);
    thresholds = Quantizer.LloydMax.cosineThresholds(bits);
    out = MemorySegment.ofArray(new byte[M]);
  }

  @Benchmark
  public MemorySegment vector() {
    code(vectorBody);
    return out;
  }

  @Benchmark
  public MemorySegment scalar() {
    code(scalarBody);
    return out;
  }

  /** The featurizer's dispatch (Featurizer.run) for one row's block. */
  private void code(CosineCodesBody body) {
    int intervals = (1 << bits) - 1;
    switch (q) {
      case Quantizer.Stochastic s -> body.quantize(t, 0, a, 0, M, bits, s.drawBits(), 7, row++,
          1024, 0, out, 0);
      case Quantizer.Nearest n -> body.quantize(t, 0, a, 0, M, bits, CosineCodes.NO_DRAWS, 7,
          row++, 1024, 0, out, 0);
      case Quantizer.SharedThreshold s -> body.quantizeShared(t, 0, a, 0, M, bits, draws,
          1024 * intervals, out, 0);
      case Quantizer.LloydMax l -> body.quantizeThresholds(t, 0, a, 0, M, bits, thresholds, out,
          0);
      case Quantizer.SigmaDelta sd -> body.quantizeSigmaDelta(t, 0, a, 0, M, bits, sd.order(),
          sd.block(), out, 0);
    }
  }
}
