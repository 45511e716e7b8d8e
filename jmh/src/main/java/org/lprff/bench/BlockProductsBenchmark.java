package org.lprff.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.products.BlockProducts;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The fused products of a full-batch pass ({@link BlockProducts}) on one thread over rows that
 * stay in the core's L2 (64 rows of m = 4096: 128 KiB at 4 bits): block by block the forward
 * product, then the transposed accumulate with d = y (CG's {@code Z^T Z v}), then one drain. The
 * kernels' own speed, with memory out of the picture: {@code blocks:flops} is 4 flops per
 * (row, feature, output) per second (two multiply-adds), to hold against one thread's FMA peak
 * ({@link MachineLimitsBenchmark#fmaPeak} / 2 on 2 threads).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BlockProductsBenchmark {

  @Param({"1", "2", "4", "8"})
  public int bits;

  @Param({"1", "10"})
  public int classes;

  @Param({"4096"})
  public int m;

  @Param({"64"})
  public int rows;

  private MemorySegment z;
  private long rowBytes;
  private BlockProducts blocks;
  private float[] work;
  private float[] y;
  private float[] gT;

  /** Flops done, reported per second. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Flops {
    public double flops;

    @Setup(Level.Iteration)
    public void reset() {
      flops = 0;
    }
  }

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    rowBytes = PackedLayout.rowBytes(m, bits);
    z = Arena.ofAuto().allocate(rows * rowBytes, 64);
    for (long k = 0; k < z.byteSize(); k++) {
      z.set(ValueLayout.JAVA_BYTE, k, (byte) random.nextInt());
    }
    float[] wT = new float[classes * m];
    for (int k = 0; k < wT.length; k++) {
      wT[k] = (float) random.nextDouble(-1, 1) * 1e-3f;
    }
    blocks = BlockProducts.packed(m, QuantizationScale.forFeatures(m, bits), wT, classes);
    work = blocks.work();
    y = new float[Math.min(blocks.blockRows(), rows) * classes];
    gT = new float[classes * m];
  }

  /** All rows block by block (forward, then accumulate with d = y), then one drain. */
  @Benchmark
  public float[] blocks(Flops counter) {
    int block = Math.min(blocks.blockRows(), rows);
    for (int r = 0; r < rows; r += block) {
      int n = Math.min(block, rows - r);
      blocks.forward(z, r * rowBytes, n, y, work);
      blocks.accumulate(z, r * rowBytes, n, y, work);
    }
    blocks.drain(work, gT);
    counter.flops += 4.0 * rows * m * classes;
    return gT;
  }

  /** The forward halves alone: the blocks' {@code Y = Z W}. */
  @Benchmark
  public float[] forward() {
    int block = Math.min(blocks.blockRows(), rows);
    for (int r = 0; r < rows; r += block) {
      blocks.forward(z, r * rowBytes, Math.min(block, rows - r), y, work);
    }
    return y;
  }

  /** The transposed halves alone: {@code G += Z^T D} block by block, then one drain. */
  @Benchmark
  public float[] accumulate() {
    int block = Math.min(blocks.blockRows(), rows);
    for (int r = 0; r < rows; r += block) {
      blocks.accumulate(z, r * rowBytes, Math.min(block, rows - r), y, work);
    }
    blocks.drain(work, gT);
    return gT;
  }
}
