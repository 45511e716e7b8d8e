package org.lprff.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.fullbatch.LbfgsSolver;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.TrainingResult;
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
 * This machine's two limits for a full-batch training pass, and the pass itself, measured in one
 * run so that one can say how far a pass over a 43,152 x 4096 4-bit feature file (the diamonds
 * demo's shape: 88,375,296 packed bytes) is from the memory-bandwidth or the FMA limit.
 *
 * <ul>
 *   <li>{@link #readBandwidth}: a streaming read of a native ({@link Arena}) segment, summed with
 *       {@link LongVector}s of the preferred species into 4 independent accumulators. {@code bytes}
 *       is the packed file's size (88,375,296: on a machine whose last-level cache holds it, this
 *       is the cache's bandwidth, which is what the pass can at best stream at) and 2 GiB (well
 *       above any last-level cache: memory bandwidth). The secondary result {@code
 *       readBandwidth:bytes} is bytes per second (bytes read / time).
 *   <li>{@link #fmaPeak}: {@link FloatVector#fma} on the preferred species into 12 independent
 *       register accumulators (enough to cover the FMA latency on two ports), {@code a = x y + a}
 *       with x and y loaded each trip from a 4 KiB array (L1), the shape of a GEMM micro-kernel.
 *       With x and y held in registers as loop invariants instead, the same 12 chains ran at half
 *       the rate on an AVX2 AMD EPYC (Zen 3: 51 GFLOP/s per thread as {@code a = a x + y}, 35 as
 *       {@code a = x y + a}, against 103 with loaded operands and sgemm's 95): the FMA pipes
 *       were starved of register operands, not of work. The secondary result {@code
 *       fmaPeak:laneFmas} is lane multiply-adds per second (one per lane per FMA instruction).
 *   <li>{@link #onePass}: the library's own full-batch objective (forward product, loss gradient,
 *       transposed accumulate, fused per block of rows in chunks of 256) over 43,152 x 4096 4-bit packed rows
 *       ({@code bits = 4}) or float32 rows of the same shape ({@code bits = 32}, 707 MB: above
 *       the last-level cache, so memory bound) in native memory, through the public API only: {@code LbfgsSolver} (REGRESSION, l2 =
 *       1e-4, {@code maxIterations(1)}) trained from zero weights on an ordered {@link
 *       InMemoryBatches} (views of the stored rows, no copy). One such training is the initial
 *       evaluation plus the first iteration's line search: {@link TrainingResult#steps()} passes
 *       (deterministic, so the same count on every call: 3 for these rows). The per-pass time
 *       is the secondary result {@code onePass:pass}: the measurement iteration's total time
 *       divided by the summed {@code steps()} (JMH divides the time by an operations counter);
 *       it includes the L-BFGS bookkeeping on 4097 doubles, negligible beside a pass. A pass does
 *       2 multiply-adds per (row, feature): one forward, one transposed.
 * </ul>
 *
 * <p>{@link #fmaPeakOneThread} is the FMA loop on the benchmark thread alone: one core's peak.
 *
 * <p>Threads: the other three run on the library's parallelism, {@link ParallelTasks#run} over {@link
 * ForkJoinPool#commonPool()} (the calling thread plus the pool's workers pull task indices from
 * one counter): on a 2-core machine the pool has 1 worker, so 2 threads. The read is cut into
 * blocks of 1 MiB and the FMA loop into 16 equal tasks, so a core slowed by another tenant
 * leaves its share to the other one, as the pass's 256-row chunks do.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MachineLimitsBenchmark {

  /** Rows and features of the diamonds demo's feature file. */
  static final int ROWS = 43_152;

  static final int FEATURES = 4096;

  private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;

  /** Bytes per read task. */
  private static final long BLOCK = 1L << 20;

  /** FMA tasks per op, loop trips (12 FMA instructions each) per task, operand pairs cycled. */
  private static final int FMA_TASKS = 16;

  private static final int FMA_TRIPS = 1 << 18;
  private static final int FMA_ACCUMULATORS = 12;
  private static final int FMA_OPERANDS = 64;

  /** FMA_OPERANDS pairs (x, y) of vectors, x y ~ 1e-6: 2^18 trips add ~0.3, no overflow. */
  private static final float[] FMA_XY = fmaOperands();

  /** The pair after pair o: o + 1, wrapping to 0 after the last. */
  private static final int[] FMA_NEXT = fmaNext();

  private static int[] fmaNext() {
    int[] next = new int[FMA_OPERANDS];
    for (int o = 0; o < FMA_OPERANDS; o++) {
      next[o] = (o + 1) % FMA_OPERANDS;
    }
    return next;
  }

  private static float[] fmaOperands() {
    float[] xy = new float[2 * FMA_OPERANDS * FLOATS.length()];
    SplittableRandom random = new SplittableRandom(7);
    for (int q = 0; q < xy.length; q++) {
      xy[q] = (float) random.nextDouble(0.5e-3, 1.5e-3);
    }
    return xy;
  }

  /** The read buffer. */
  @State(Scope.Benchmark)
  public static class ReadBuffer {
    /** The packed file's size (43,152 x 2048 bytes), and 2 GiB. */
    @Param({"88375296", "2147483648"})
    public long bytes;

    MemorySegment segment;
    long[] partial;

    @Setup
    public void setUp() {
      if (bytes % (4L * LONGS.vectorByteSize()) != 0) {
        throw new IllegalArgumentException("bytes is " + bytes + ", expected a multiple of "
            + 4L * LONGS.vectorByteSize());
      }
      segment = Arena.ofAuto().allocate(bytes, 4096);
      segment.fill((byte) 1); // touches every page before timing
      partial = new long[(int) ((bytes + BLOCK - 1) / BLOCK)];
    }
  }

  /** The rows and the solver of {@link #onePass}. */
  @State(Scope.Benchmark)
  public static class Pass {
    /**
     * 4: the packed rows (88 MB); 32: the same shape as float32 rows (707 MB, above the
     * last-level cache), the reference of the 4-bit pass measured in the same run.
     */
    @Param({"4", "32"})
    public int bits;

    LbfgsSolver solver;
    MiniBatchSource source;

    @Setup
    public void setUp() {
      SplittableRandom random = new SplittableRandom(42);
      long rowBytes = PackedLayout.rowBytes(FEATURES, bits);
      // Native memory, as Arrow buffers are; random codes (or values), filled a row at a time.
      MemorySegment z = Arena.ofAuto().allocate(ROWS * rowBytes, 4096);
      FeatureRows rows;
      if (bits == PackedLayout.FLOAT_BITS) {
        float[] row = new float[FEATURES];
        double s = Math.sqrt(2.0 / FEATURES);
        for (int r = 0; r < ROWS; r++) {
          for (int i = 0; i < FEATURES; i++) {
            row[i] = (float) random.nextDouble(-s, s);
          }
          MemorySegment.copy(row, 0, z, LittleEndian.FLOAT, r * rowBytes, FEATURES);
        }
        rows = FeatureRows.float32(z, 0, ROWS, FEATURES);
      } else {
        byte[] row = new byte[(int) rowBytes];
        for (int r = 0; r < ROWS; r++) {
          random.nextBytes(row);
          MemorySegment.copy(row, 0, z, ValueLayout.JAVA_BYTE, r * rowBytes, row.length);
        }
        rows = FeatureRows.of(
            new PackedRows(z, 0, ROWS, FEATURES, QuantizationScale.forFeatures(FEATURES, bits)));
      }
      float[] targets = new float[ROWS];
      for (int r = 0; r < ROWS; r++) {
        targets[r] = (float) random.nextGaussian();
      }
      source = InMemoryBatches.of(rows, targets).ordered();
      solver = LbfgsSolver.builder(Task.REGRESSION, FEATURES).l2(1e-4).maxIterations(1).build();
    }
  }

  /** Bytes read, reported per second. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Bytes {
    public long bytes;

    @Setup(Level.Iteration)
    public void reset() {
      bytes = 0;
    }
  }

  /** Lane multiply-adds, reported per second. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class LaneFmas {
    public long laneFmas;

    @Setup(Level.Iteration)
    public void reset() {
      laneFmas = 0;
    }
  }

  /** Objective passes, reported as time per pass. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Passes {
    public long pass;

    @Setup(Level.Iteration)
    public void reset() {
      pass = 0;
    }
  }

  private final float[] fmaPartial = new float[FMA_TASKS];

  /** One streaming read of the whole buffer on 2 threads; {@code bytes} counts bytes per second. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public long readBandwidth(ReadBuffer buffer, Bytes counter) {
    MemorySegment s = buffer.segment;
    long n = buffer.bytes;
    long[] partial = buffer.partial;
    ParallelTasks.run(partial.length, ForkJoinPool.commonPool(), k -> {
      long from = k * BLOCK;
      partial[k] = sum(s, from, Math.min(n, from + BLOCK));
    });
    long total = 0;
    for (long p : partial) {
      total += p;
    }
    counter.bytes += n;
    return total;
  }

  /** 16 x 2^18 x 12 FMA instructions on 2 threads; {@code laneFmas} counts lane-FMAs per second. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public float fmaPeak(LaneFmas counter) {
    float[] partial = fmaPartial;
    ParallelTasks.run(FMA_TASKS, ForkJoinPool.commonPool(), k -> partial[k] = fmas(k));
    float total = 0;
    for (float p : partial) {
      total += p;
    }
    counter.laneFmas += (long) FMA_TASKS * FMA_TRIPS * FMA_ACCUMULATORS * FLOATS.length();
    return total;
  }

  /**
   * {@link #fmaPeak}'s loop on the benchmark thread alone, 2 tasks' worth per op: one core's
   * peak, the ceiling of the one-thread kernels. It can exceed the all-threads peak divided by
   * the threads (a core alone may clock higher), so that share is no ceiling for them.
   */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public float fmaPeakOneThread(LaneFmas counter) {
    float total = fmas(0) + fmas(1);
    counter.laneFmas += 2L * FMA_TRIPS * FMA_ACCUMULATORS * FLOATS.length();
    return total;
  }

  /**
   * One L-BFGS training of one iteration: {@code steps()} objective passes; {@code pass} is the
   * time per pass.
   */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public TrainingResult onePass(Pass pass, Passes counter) {
    TrainingResult result = pass.solver.train(pass.source);
    counter.pass += result.steps();
    return result;
  }

  /**
   * The sum of the bytes [from, to) read as longs, into 4 vector accumulators; to - from is a
   * multiple of 4 vectors.
   */
  private static long sum(MemorySegment s, long from, long to) {
    long step = LONGS.vectorByteSize();
    LongVector a0 = LongVector.zero(LONGS);
    LongVector a1 = a0;
    LongVector a2 = a0;
    LongVector a3 = a0;
    ByteOrder order = ByteOrder.nativeOrder();
    for (long i = from; i < to; i += 4 * step) {
      a0 = a0.add(LongVector.fromMemorySegment(LONGS, s, i, order));
      a1 = a1.add(LongVector.fromMemorySegment(LONGS, s, i + step, order));
      a2 = a2.add(LongVector.fromMemorySegment(LONGS, s, i + 2 * step, order));
      a3 = a3.add(LongVector.fromMemorySegment(LONGS, s, i + 3 * step, order));
    }
    return a0.add(a1).add(a2).add(a3).reduceLanes(VectorOperators.ADD);
  }

  /**
   * FMA_TRIPS x 12 independent FMAs a = x y + a, x and y loaded each trip (one pair of the 64 in
   * {@link #FMA_XY}, all in L1): loop-invariant register operands halve the rate (see the class
   * comment), loads cost no FMA pipe. The inner loop walks the 64 pairs through {@link
   * #FMA_NEXT}, so C2 cannot count it and does not unroll it: unrolled 4 times (the counted loop
   * this was until issue 32), 8 operand registers and 12 accumulators do not fit in AVX2's 16,
   * 5 accumulators were spilled to the stack and each FMA chain ran 4 deep, and one thread read 90
   * GFLOP/s where this loop reads 102 (AMD EPYC Zen 3, avx2). The chased index costs one load per
   * 12 FMAs.
   */
  private static float fmas(int seed) {
    float[] xy = FMA_XY;
    int lanes = FLOATS.length();
    FloatVector a0 = FloatVector.broadcast(FLOATS, seed);
    FloatVector a1 = a0.add(1f);
    FloatVector a2 = a0.add(2f);
    FloatVector a3 = a0.add(3f);
    FloatVector a4 = a0.add(4f);
    FloatVector a5 = a0.add(5f);
    FloatVector a6 = a0.add(6f);
    FloatVector a7 = a0.add(7f);
    FloatVector a8 = a0.add(8f);
    FloatVector a9 = a0.add(9f);
    FloatVector a10 = a0.add(10f);
    FloatVector a11 = a0.add(11f);
    int[] next = FMA_NEXT;
    for (int round = 0; round < FMA_TRIPS / FMA_OPERANDS; round++) {
      int o = 0;
      do {
        FloatVector x = FloatVector.fromArray(FLOATS, xy, 2 * o * lanes);
        FloatVector y = FloatVector.fromArray(FLOATS, xy, (2 * o + 1) * lanes);
        a0 = x.fma(y, a0);
        a1 = x.fma(y, a1);
        a2 = x.fma(y, a2);
        a3 = x.fma(y, a3);
        a4 = x.fma(y, a4);
        a5 = x.fma(y, a5);
        a6 = x.fma(y, a6);
        a7 = x.fma(y, a7);
        a8 = x.fma(y, a8);
        a9 = x.fma(y, a9);
        a10 = x.fma(y, a10);
        a11 = x.fma(y, a11);
        o = next[o];
      } while (o != 0);
    }
    return a0.add(a1).add(a2).add(a3).add(a4).add(a5).add(a6).add(a7).add(a8).add(a9).add(a10)
        .add(a11).reduceLanes(VectorOperators.ADD);
  }
}
