package org.lprff.bench;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.lprff.bench.support.DiamondsShapedRows;
import org.lprff.vector.train.model.LinearModel;
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
 * What the record batch checksums cost, against the work they sit beside: n = 8192 rows of d = 9
 * (diamonds' width), Gaussian kernel, circulant projection, stochastic rounding, one thread.
 * {@code crc32c}: the CRC32C of the n packed rows in native memory, which is what featurize adds
 * per record batch (its body) and what a verification pass does per batch (over the mapped file,
 * once its pages are in memory); {@code featurize}: featurizing the n rows, the work the write
 * checksum sits beside; {@code sgdEpoch}: one SGD epoch over them (batches of 250), the work a
 * training run repeats after its one verification pass.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ChecksumCostBenchmark {

  @Param({"1", "4", "32"})
  public int bits;

  @Param({"4096"})
  public int m;

  private static final int ROWS = 8192;
  private DiamondsShapedRows data;
  private final CRC32C crc = new CRC32C();

  @Setup
  public void setUp() {
    data = DiamondsShapedRows.of(ROWS, m, bits);
  }

  /** The CRC32C of the n rows' bytes (one body's worth per record batch). */
  @Benchmark
  public long crc32c() {
    crc.reset();
    crc.update(data.out().asByteBuffer());
    return crc.getValue();
  }

  /** Featurizing the n rows: what a write's checksum is added to. */
  @Benchmark
  public MemorySegment featurize() {
    return data.featurizeAgain();
  }

  /** One SGD epoch over the n rows: what a training run repeats after verifying once. */
  @Benchmark
  public LinearModel sgdEpoch() {
    return data.solver().train(data.stored(), null).model();
  }
}
