package org.lprff.bench;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.lprff.bench.support.DiamondsShapedRows;
import org.lprff.vector.stream.OnTheFlyBatches;
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
 * {@code train --redraw}'s epoch against training from stored features: one shuffled SGD epoch
 * (batches of 250) over n = 8192 rows of d = 9 (diamonds' width), Gaussian kernel, circulant
 * projection, stochastic rounding. {@code onTheFly}: {@link OnTheFlyBatches}, every batch
 * featurized by the fused pass into packed bytes (the epoch's draw); {@code stored}: the same
 * rows featurized once ({@code featurizeOnce}, the reference's one-time cost) and read from
 * memory by {@link InMemoryBatches} (as a mapped feature file in the page cache). One thread
 * each: the featurization's share is what is compared. With {@code -prof gc}, the bytes
 * allocated per epoch show that no n x m (or batch x m float) block is built.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class OnTheFlyEpochBenchmark {

  @Param({"1", "4"})
  public int bits;

  @Param({"1024", "4096"})
  public int m;

  private static final int ROWS = 8192;
  private DiamondsShapedRows data;
  private OnTheFlyBatches onTheFly;

  @Setup
  public void setUp() {
    data = DiamondsShapedRows.of(ROWS, m, bits);
    onTheFly = OnTheFlyBatches.of(data.featurizer(), data.x(), ROWS, data.y());
  }

  /** One epoch, each batch featurized when it is needed (draw 0: the epoch index of one). */
  @Benchmark
  public LinearModel onTheFly() {
    return data.solver().train(onTheFly, null).model();
  }

  /** One epoch over the rows featurized once. */
  @Benchmark
  public LinearModel stored() {
    return data.solver().train(data.stored(), null).model();
  }

  /** Featurizing the n rows once: what storing costs up front. */
  @Benchmark
  public MemorySegment featurizeOnce() {
    return data.featurizeAgain();
  }
}
