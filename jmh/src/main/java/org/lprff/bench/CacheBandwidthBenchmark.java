package org.lprff.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.simd.ParallelTasks;
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
 * Read bandwidth of a buffer that stays in one cache level: the roofline's ceilings for the
 * kernels whose data never leaves L1, L2 or L3 ({@link MachineLimitsBenchmark#readBandwidth} is
 * the ceiling past the caches). {@code bytes} is the buffer of each thread: 16 KiB (in any L1d),
 * 256 KiB (in any L2, not in L1), 4 MiB (in a last-level cache's share of one or two cores, not
 * in L2). Each thread reads its own buffer over and over, so the bytes stay in that thread's
 * core; a buffer shared by the threads would measure the traffic between cores instead.
 *
 * <p>The read is {@link LongVector}s of the preferred species summed into 8 independent
 * accumulators (two loads a cycle need more chains than an add's latency covers), from a native
 * segment aligned to 4 KiB, so that no load straddles two cache lines. The secondary result
 * {@code bytes} is bytes read per second.
 *
 * <ul>
 *   <li>{@link #readOneThread}: the benchmark thread alone, {@link #PASS_BYTES} read per op.
 *   <li>{@link #readAllThreads}: the caller and the common pool's workers ({@link
 *       ParallelTasks#run}, as MachineLimitsBenchmark), each task reading {@link #PASS_BYTES}
 *       from the buffer of the thread that runs it (a thread-local buffer, allocated and
 *       touched by that thread), 2 tasks per thread and op.
 * </ul>
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CacheBandwidthBenchmark {

  private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;

  /** Independent accumulators of the read loop. */
  private static final int ACCUMULATORS = 8;

  /**
   * Bytes one task (or the one-thread op) reads: 16 MiB, some 100 us at L1 speed, so that the
   * fork and join of a parallel op stay a few percent of it.
   */
  static final long PASS_BYTES = 1L << 24;

  /** Tasks per thread of {@link #readAllThreads}: a slowed core leaves its second to another. */
  private static final int TASKS_PER_THREAD = 2;

  /** Bytes per thread's buffer: 16 KiB (L1), 256 KiB (L2), 4 MiB (L3). */
  @Param({"16384", "262144", "4194304"})
  public long bytes;

  private ThreadLocal<MemorySegment> buffers;
  private long[] partial;
  private int tasks;

  @Setup
  public void setUp() {
    long unit = (long) ACCUMULATORS * LONGS.vectorByteSize();
    if (bytes < unit || bytes % unit != 0 || PASS_BYTES % bytes != 0) {
      throw new IllegalArgumentException("bytes is " + bytes + ", expected a multiple of "
          + unit + " (8 vectors of " + LONGS + ") that divides " + PASS_BYTES);
    }
    long size = bytes;
    buffers = ThreadLocal.withInitial(() -> {
      MemorySegment s = Arena.ofAuto().allocate(size, 4096);
      s.fill((byte) 1); // touched by the thread that reads it
      return s;
    });
    tasks = TASKS_PER_THREAD * (ForkJoinPool.getCommonPoolParallelism() + 1);
    partial = new long[tasks];
  }

  /** {@link #PASS_BYTES} read from this thread's buffer; {@code bytes} counts bytes per second. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public long readOneThread(MachineLimitsBenchmark.Bytes counter) {
    long total = passes(buffers.get(), PASS_BYTES / bytes);
    counter.bytes += PASS_BYTES;
    return total;
  }

  /** {@link #PASS_BYTES} per task, each thread from its own buffer, on all threads. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public long readAllThreads(MachineLimitsBenchmark.Bytes counter) {
    long[] sums = partial;
    long repeats = PASS_BYTES / bytes;
    ParallelTasks.run(tasks, ForkJoinPool.commonPool(),
        k -> sums[k] = passes(buffers.get(), repeats));
    long total = 0;
    for (long p : sums) {
      total += p;
    }
    counter.bytes += tasks * PASS_BYTES;
    return total;
  }

  /** {@code repeats} reads of the whole segment; the sum keeps the loads alive. */
  private static long passes(MemorySegment s, long repeats) {
    long total = 0;
    for (long r = 0; r < repeats; r++) {
      total += sum(s, s.byteSize());
    }
    return total;
  }

  /** The sum of the segment's longs, 8 vectors per trip into 8 accumulators. */
  private static long sum(MemorySegment s, long n) {
    long step = LONGS.vectorByteSize();
    ByteOrder order = ByteOrder.nativeOrder();
    LongVector a0 = LongVector.zero(LONGS);
    LongVector a1 = a0;
    LongVector a2 = a0;
    LongVector a3 = a0;
    LongVector a4 = a0;
    LongVector a5 = a0;
    LongVector a6 = a0;
    LongVector a7 = a0;
    for (long i = 0; i < n; i += 8 * step) {
      a0 = a0.add(LongVector.fromMemorySegment(LONGS, s, i, order));
      a1 = a1.add(LongVector.fromMemorySegment(LONGS, s, i + step, order));
      a2 = a2.add(LongVector.fromMemorySegment(LONGS, s, i + 2 * step, order));
      a3 = a3.add(LongVector.fromMemorySegment(LONGS, s, i + 3 * step, order));
      a4 = a4.add(LongVector.fromMemorySegment(LONGS, s, i + 4 * step, order));
      a5 = a5.add(LongVector.fromMemorySegment(LONGS, s, i + 5 * step, order));
      a6 = a6.add(LongVector.fromMemorySegment(LONGS, s, i + 6 * step, order));
      a7 = a7.add(LongVector.fromMemorySegment(LONGS, s, i + 7 * step, order));
    }
    return a0.add(a1).add(a2).add(a3).add(a4).add(a5).add(a6).add(a7)
        .reduceLanes(VectorOperators.ADD);
  }
}
