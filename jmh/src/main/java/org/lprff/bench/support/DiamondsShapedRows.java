package org.lprff.bench.support;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.minibatch.Schedule;
import org.lprff.vector.train.minibatch.SgdSolver;

/**
 * The epoch benchmarks' data: n Gaussian rows of d = 9 (diamonds' width) with Gaussian targets
 * (seed 42), featurized once at m features and b bits (Gaussian kernel sigma 2, circulant
 * projection, stochastic rounding, seed 1) into native memory, as a mapped feature file's pages
 * are; and the SGD solver they time (batches of 250, l2 1e-6, one epoch at a fixed rate).
 */
public record DiamondsShapedRows(
    int rows, float[] x, float[] y, Featurizer featurizer, MemorySegment out,
    InMemoryBatches stored, SgdSolver solver) {

  public static final int D = 9;

  public static DiamondsShapedRows of(int rows, int m, int bits) {
    SplittableRandom random = new SplittableRandom(42);
    float[] x = new float[rows * D];
    float[] y = new float[rows];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) random.nextGaussian();
    }
    for (int r = 0; r < rows; r++) {
      y[r] = (float) random.nextGaussian();
    }
    FeaturizerSpec spec = new FeaturizerSpec(
        new KernelFunction.Gaussian(2), D, m, bits, "circulant", 1, Quantizer.STOCHASTIC);
    Featurizer featurizer = Featurizer.of(spec);
    MemorySegment out = Arena.ofAuto().allocate((long) rows * spec.rowBytes(), 64);
    featurizer.featurize(x, rows, 0, out, 0, 0);
    InMemoryBatches stored = InMemoryBatches.of(FeatureRows.of(spec, out, 0, rows), y);
    SgdSolver solver = SgdSolver.builder(Task.REGRESSION, m).l2(1e-6).batchSize(250)
        .schedule(Schedule.fixed(1, 1e-3)).build();
    return new DiamondsShapedRows(rows, x, y, featurizer, out, stored, solver);
  }

  /** Featurizes the rows again into {@link #out}. */
  public MemorySegment featurizeAgain() {
    featurizer.featurize(x, rows, 0, out, 0, 0);
    return out;
  }
}
