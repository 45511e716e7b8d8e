package org.lprff.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.jtransforms.fft.FloatFFT_1D;
import org.lprff.bench.support.BodySeams;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.panama.VectorFft;
import org.lprff.vector.simd.scalar.ScalarFft;
import org.lprff.vector.simd.spi.FftBody;
import org.lprff.vector.transform.CirculantPlan;
import org.lprff.vector.transform.FftPlan;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Complex FFT and circulant product, vector body vs scalar body, with JTransforms'
 * FloatFFT_1D (complexForward, realForward; forced to one thread) as an external reference of
 * the same size in the same run.
 *
 * <p>Every FFT benchmark first copies the input into its work arrays (an O(n) copy, the same
 * for all variants) so that repeated forward transforms do not grow the data to infinity.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class FftBenchmark {

  @Param({"128", "1024", "8192", "65536"})
  public int n;

  private final FftBody scalar = new ScalarFft();
  private final FftBody vector = new VectorFft();

  private FftPlan plan;
  private CirculantPlan circulant;
  private FloatFFT_1D jtransforms;

  private float[] inputRe;
  private float[] inputIm;
  private float[] inputInterleaved;
  private float[] realInput;

  private float[] re;
  private float[] im;
  private float[] interleaved;
  private float[] real;
  private float[] out;
  private float[] scratch;
  private float[] halfRe;
  private float[] halfIm;
  private final int width = VectorizationProvider.get().interleaved().width();
  private float[] inputGroup;
  private float[] group;
  private float[] groupScratch;

  @Setup
  public void setUp() {
    // JTransforms splits large transforms over a thread pool; measure it on one thread like ours.
    pl.edu.icm.jlargearrays.ConcurrencyUtils.setNumberOfThreads(1);
    SplittableRandom random = new SplittableRandom(42);
    plan = FftPlan.forSize(n);
    float[] g = new float[n];
    inputRe = new float[n];
    inputIm = new float[n];
    realInput = new float[n];
    inputInterleaved = new float[2 * n];
    for (int i = 0; i < n; i++) {
      g[i] = (float) random.nextGaussian();
      inputRe[i] = (float) random.nextGaussian();
      inputIm[i] = (float) random.nextGaussian();
      realInput[i] = inputRe[i];
      inputInterleaved[2 * i] = inputRe[i];
      inputInterleaved[2 * i + 1] = inputIm[i];
    }
    circulant = new CirculantPlan(g);
    jtransforms = new FloatFFT_1D(n);
    re = new float[n];
    im = new float[n];
    interleaved = new float[2 * n];
    real = new float[n];
    out = new float[n];
    scratch = new float[circulant.scratchLength()];
    halfRe = new float[n / 2 + 1];
    halfIm = new float[n / 2 + 1];
    inputGroup = new float[n * width];
    for (int i = 0; i < inputGroup.length; i++) {
      inputGroup[i] = (float) random.nextGaussian();
    }
    group = new float[n * width];
    groupScratch = new float[n * width];
  }

  private float[] complexForward(FftBody kernel) {
    System.arraycopy(inputRe, 0, re, 0, n);
    System.arraycopy(inputIm, 0, im, 0, n);
    kernel.forwardToBitReversed(re, 0, im, 0, n, plan.twRe, plan.twIm);
    FftPlan.bitReverse(re, im, n);
    return re;
  }

  /** Natural-order complex FFT (DIF + bit-reversal permutation), vector body. */
  @Benchmark
  public float[] complexForwardVector() {
    return complexForward(vector);
  }

  /** Natural-order complex FFT, scalar reference body. */
  @Benchmark
  public float[] complexForwardScalar() {
    return complexForward(scalar);
  }

  /** Bit-reversed-order complex FFT (what convolutions use), vector body. */
  @Benchmark
  public float[] complexForwardBitReversedVector() {
    System.arraycopy(inputRe, 0, re, 0, n);
    System.arraycopy(inputIm, 0, im, 0, n);
    vector.forwardToBitReversed(re, 0, im, 0, n, plan.twRe, plan.twIm);
    return re;
  }

  /** JTransforms complexForward on the interleaved layout, one thread. */
  @Benchmark
  public float[] complexForwardJTransforms() {
    System.arraycopy(inputInterleaved, 0, interleaved, 0, 2 * n);
    jtransforms.complexForward(interleaved);
    return interleaved;
  }

  /** Our real FFT of n points (n/2-point complex FFT + split step), active body. */
  @Benchmark
  public float[] realForwardActive() {
    plan.realForward(realInput, halfRe, halfIm);
    return halfRe;
  }

  /** JTransforms realForward of n points, one thread. */
  @Benchmark
  public float[] realForwardJTransforms() {
    System.arraycopy(realInput, 0, real, 0, n);
    jtransforms.realForward(real);
    return real;
  }

  /** circ(g) x, vector body. */
  @Benchmark
  public float[] circulantVector() {
    BodySeams.multiplyWith(circulant, vector, realInput, out, scratch);
    return out;
  }

  /** circ(g) x, scalar reference body. */
  @Benchmark
  public float[] circulantScalar() {
    BodySeams.multiplyWith(circulant, scalar, realInput, out, scratch);
    return out;
  }

  /**
   * circ(g) x for one group of the circulant projection: {@code width} vectors side by side (the
   * interleaved body's width), active body; per vector, divide by width.
   */
  @Benchmark
  public float[] circulantInterleaved() {
    System.arraycopy(inputGroup, 0, group, 0, group.length);
    circulant.multiplyInterleaved(group, groupScratch, group, width);
    return group;
  }
}
