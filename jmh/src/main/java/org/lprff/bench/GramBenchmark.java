package org.lprff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.lprff.bench.support.BodySeams;
import org.lprff.vector.products.Gram;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.GramBody;
import org.lprff.vector.train.fullbatch.ClosedFormRidge;
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
 * The closed form's Gram accumulation G += C^T C (upper triangle, double) of one chunk of
 * {@link ClosedFormRidge#CHUNK_ROWS} rows in the packed block layout: Vector API body against the
 * scalar reference, and the panel-parallel form on the common pool. k m^2 / 2 fused multiply-adds
 * per call (67 M at m = 512, 268 M at m = 1024, 4.3 G at m = 4096).
 *
 * <p>{@code codes} and {@code codesParallel}: the float form of b <= 8-bit codes, one chunk of
 * {@link Gram#FLOAT_ROWS} rows of random 4-bit codes (k m^2 / 2 float multiply-adds, summed in
 * float and added to G in double), one thread and on the common pool.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GramBenchmark {

  private static final GramBody VECTOR = VectorizationProvider.vector().gram();
  private static final GramBody SCALAR = VectorizationProvider.scalar().gram();

  @Param({"512", "1024", "4096"})
  public int m;

  private static final int CHUNK = ClosedFormRidge.CHUNK_ROWS;

  private double[] chunk;
  private float[] codeRows;
  private float[] codeCols;
  private double[] gram;
  private int stride;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    stride = Gram.stride(m);
    double[] rows = new double[CHUNK * stride];
    for (int r = 0; r < CHUNK; r++) {
      for (int i = 0; i < m; i++) {
        rows[r * stride + i] = random.nextGaussian();
      }
    }
    chunk = Gram.pack(rows, CHUNK, stride);
    int k = Gram.FLOAT_ROWS;
    codeRows = new float[k * stride];
    codeCols = new float[k * stride];
    float[] codes = new float[m];
    for (int r = 0; r < k; r++) {
      for (int i = 0; i < m; i++) {
        codes[i] = random.nextInt(16);
      }
      Gram.putRow(codes, m, stride, k, r, codeRows, codeCols);
    }
    gram = new double[stride * stride];
  }

  @Benchmark
  public double[] vector() {
    BodySeams.accumulateUpperWith(VECTOR, chunk, CHUNK, stride, gram);
    return gram;
  }

  @Benchmark
  public double[] parallel() {
    Gram.accumulateUpper(chunk, CHUNK, stride, gram, ForkJoinPool.commonPool());
    return gram;
  }

  @Benchmark
  public double[] codes() {
    BodySeams.accumulateUpperWith(VECTOR, codeRows, codeCols, Gram.FLOAT_ROWS, stride, gram);
    return gram;
  }

  @Benchmark
  public double[] codesParallel() {
    Gram.accumulateUpper(codeRows, codeCols, Gram.FLOAT_ROWS, stride, gram,
        ForkJoinPool.commonPool());
    return gram;
  }

  @Benchmark
  public double[] scalar() {
    BodySeams.accumulateUpperWith(SCALAR, chunk, CHUNK, stride, gram);
    return gram;
  }
}
