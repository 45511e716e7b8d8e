package org.lprff.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.codec.LloydMaxCodebook;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.panama.VectorProducts;
import org.lprff.vector.simd.scalar.ScalarProducts;
import org.lprff.vector.simd.spi.ProductsBody;
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
 * Forward (Y = Z W) and transposed accumulate (G += Z^T D) on one mini-batch of packed rows,
 * vector and scalar bodies, with the float32 rows of the same shape ({@code bits = 32}) measured
 * in the same run as the reference. Target: 4-bit packed no slower than float32.
 *
 * <p>{@code decoding}: {@code affine} rows (values {@code fma(code, step, lo)}, the default) or
 * {@code codebook} rows (values {@code levels[code]}, the Lloyd-Max levels: {@code forwardLevels},
 * {@code accumulateTransposedLevels}), for b in {1, 2, 4, 8} only; {@code -p
 * decoding=affine,codebook -p bits=1,2,4,8} measures both on the same bytes in one run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PackedProductsBenchmark {

  @Param({"1", "2", "4", "8", "16", "32"})
  public int bits;

  @Param({"1", "10"})
  public int classes;

  @Param({"4096"})
  public int m;

  @Param({"250"})
  public int rows;

  @Param({"affine"})
  public String decoding;

  private final ProductsBody scalar = new ScalarProducts();
  private final ProductsBody vector = new VectorProducts();
  private MemorySegment z;
  private float lo;
  private float step;
  private float[] levels;
  private float[] wT;
  private float[] y;
  private float[] d;
  private float[] gT;

  @Setup
  public void setUp() {
    if (!decoding.equals("affine") && !decoding.equals("codebook")) {
      throw new IllegalArgumentException(
          "decoding is " + decoding + ", expected affine or codebook");
    }
    if (decoding.equals("codebook")) {
      if (bits != 1 && bits != 2 && bits != 4 && bits != 8) {
        throw new IllegalArgumentException("codebook rows have 1, 2, 4 or 8 bits, not " + bits);
      }
      // The Lloyd-Max levels in feature units, as FeaturizerSpec hands them to training.
      double[] unit = LloydMaxCodebook.forBits(bits).levels();
      levels = new float[unit.length];
      for (int k = 0; k < unit.length; k++) {
        levels[k] = (float) (Math.sqrt(2.0 / m) * unit[k]);
      }
    }
    SplittableRandom random = new SplittableRandom(42);
    long rowBytes = PackedLayout.rowBytes(m, bits);
    z = Arena.ofAuto().allocate(rows * rowBytes, 64);
    if (bits == PackedLayout.FLOAT_BITS) {
      ValueLayout.OfFloat le = LittleEndian.FLOAT;
      for (long k = 0; k < (long) rows * m; k++) {
        z.setAtIndex(le, k, (float) random.nextDouble(-0.03, 0.03));
      }
    } else {
      for (long k = 0; k < z.byteSize(); k++) {
        z.set(ValueLayout.JAVA_BYTE, k, (byte) random.nextInt());
      }
      lo = (float) -Math.sqrt(2.0 / m);
      step = (float) (2 * Math.sqrt(2.0 / m) / ((1L << bits) - 1));
    }
    wT = new float[classes * m];
    for (int k = 0; k < wT.length; k++) {
      wT[k] = (float) random.nextDouble(-1, 1);
    }
    d = new float[rows * classes];
    for (int k = 0; k < d.length; k++) {
      d[k] = (float) random.nextDouble(-1, 1);
    }
    y = new float[rows * classes];
    gT = new float[classes * m];
  }

  @Benchmark
  public float[] forwardVector() {
    return forward(vector);
  }

  @Benchmark
  public float[] forwardScalar() {
    return forward(scalar);
  }

  @Benchmark
  public float[] accumulateVector() {
    return accumulate(vector);
  }

  @Benchmark
  public float[] accumulateScalar() {
    return accumulate(scalar);
  }

  private float[] forward(ProductsBody body) {
    if (levels != null) {
      body.forwardLevels(z, 0, rows, m, bits, levels, wT, classes, y);
    } else {
      body.forward(z, 0, rows, m, bits, lo, step, wT, classes, y);
    }
    return y;
  }

  private float[] accumulate(ProductsBody body) {
    if (levels != null) {
      body.accumulateTransposedLevels(z, 0, rows, m, bits, levels, d, classes, gT);
    } else {
      body.accumulateTransposed(z, 0, rows, m, bits, lo, step, d, classes, gT);
    }
    return gT;
  }
}
