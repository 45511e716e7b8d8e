package org.lprff.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.simd.panama.VectorUnpack;
import org.lprff.vector.simd.scalar.ScalarUnpack;
import org.lprff.vector.simd.spi.UnpackBody;
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
 * Dequantizing one packed row of m features to floats, vector and scalar bodies; the reference
 * is copying a row of m little-endian float32 values out of a segment (b = 32).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PackedUnpackBenchmark {

  @Param({"1", "2", "4", "8", "16"})
  public int bits;

  @Param({"4096"})
  public int m;

  private final UnpackBody scalar = new ScalarUnpack();
  private final UnpackBody vector = new VectorUnpack();
  private MemorySegment packed;
  private MemorySegment floats;
  private float lo;
  private float step;
  private float[] out;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(7);
    packed = Arena.ofAuto().allocate(PackedFeatures.rowBytes(m, bits), 64);
    for (long k = 0; k < packed.byteSize(); k++) {
      packed.set(ValueLayout.JAVA_BYTE, k, (byte) random.nextInt());
    }
    floats = Arena.ofAuto().allocate(4L * m, 64);
    for (long k = 0; k < m; k++) {
      floats.setAtIndex(
          LittleEndian.FLOAT, k, (float) random.nextDouble());
    }
    lo = (float) -Math.sqrt(2.0 / m);
    step = (float) (2 * Math.sqrt(2.0 / m) / ((1L << bits) - 1));
    out = new float[m];
  }

  @Benchmark
  public float[] unpackVector() {
    vector.unpack(packed, 0, bits, m, lo, step, out, 0);
    return out;
  }

  @Benchmark
  public float[] unpackScalar() {
    scalar.unpack(packed, 0, bits, m, lo, step, out, 0);
    return out;
  }

  /** b = 32 reference: the same row already in float32, copied out. */
  @Benchmark
  public float[] copyFloat32() {
    MemorySegment.copy(
        floats, LittleEndian.FLOAT, 0, out, 0, m);
    return out;
  }
}
