package org.lprff.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.minibatch.Schedule;
import org.lprff.vector.train.minibatch.SgdSolver;
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
 * One SGD epoch of 10 mini-batches of 250 rows (forward through the packed products, loss
 * gradient, transposed accumulate, update), packed b-bit rows against float32 rows (bits = 32) as
 * the reference measured in the same run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TrainingBenchmark {

  @Param({"4", "8", "32"})
  public int bits;

  @Param({"1", "10"})
  public int classes;

  @Param({"4096"})
  public int m;

  private static final int ROWS = 2500;

  private SgdSolver solver;
  private MiniBatchSource source;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    // Native memory, as Arrow buffers are (byte[]-backed segments run the products slower).
    FeatureRows rows;
    if (bits == 32) {
      MemorySegment x = Arena.ofAuto().allocate(4L * ROWS * m, 64);
      double s = Math.sqrt(2.0 / m);
      for (long k = 0; k < (long) ROWS * m; k++) {
        x.setAtIndex(LittleEndian.FLOAT, k, (float) random.nextDouble(-s, s));
      }
      rows = FeatureRows.float32(x, 0, ROWS, m);
    } else {
      QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
      byte[] bytes = new byte[ROWS * scale.rowBytes(m)];
      random.nextBytes(bytes);
      MemorySegment z = Arena.ofAuto().allocate(bytes.length, 64);
      z.copyFrom(MemorySegment.ofArray(bytes));
      rows = FeatureRows.of(new PackedRows(z, 0, ROWS, m, scale));
    }
    Task task = classes == 1 ? Task.REGRESSION : Task.multiclass(classes);
    if (classes == 1) {
      float[] t = new float[ROWS];
      for (int r = 0; r < ROWS; r++) {
        t[r] = (float) random.nextGaussian();
      }
      source = InMemoryBatches.of(rows, t).ordered();
    } else {
      int[] labels = new int[ROWS];
      for (int r = 0; r < ROWS; r++) {
        labels[r] = random.nextInt(classes);
      }
      source = InMemoryBatches.of(rows, labels).ordered();
    }
    solver = SgdSolver.builder(task, m).l2(1e-6).schedule(Schedule.fixed(1, 1e-3)).build();
  }

  /** One epoch: 10 SGD steps of 250 rows (ordered batches: no gather). */
  @Benchmark
  public LinearModel sgdEpoch() {
    return solver.train(source, null).model();
  }
}
