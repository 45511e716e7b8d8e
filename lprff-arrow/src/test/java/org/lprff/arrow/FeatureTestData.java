package org.lprff.arrow;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.BufferAllocator;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowBatches;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

/** Specs, raw rows, labels and written files shared by the Arrow tests. */
final class FeatureTestData {

  static final int[] BITS = {1, 2, 4, 8, 16, 32};
  static final int D = 5;
  /** Odd, so that packed rows end inside a byte for b = 1, 2, 4. */
  static final int M = 37;
  static final long SEED = 42;
  static final long FIRST_ROW_ID = 1000;

  private FeatureTestData() {}

  static FeaturizerSpec spec(int bits) {
    return spec(bits, M);
  }

  static FeaturizerSpec spec(int bits, int m) {
    return new FeaturizerSpec(
        new KernelFunction.Gaussian(2.0), D, m, bits, "dense", SEED, Quantizer.STOCHASTIC);
  }

  /** n x D normal rows. */
  static float[] rows(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] rows = new float[n * D];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = (float) random.nextGaussian();
    }
    return rows;
  }

  /** Labels of the type: none (null), reals, or class indices 0..9. */
  static float[] labels(LabelType type, int n, long seed) {
    if (type == LabelType.NONE) {
      return null;
    }
    SplittableRandom random = new SplittableRandom(seed);
    float[] labels = new float[n];
    for (int i = 0; i < n; i++) {
      labels[i] = type == LabelType.CLASSES ? random.nextInt(10) : (float) random.nextGaussian();
    }
    return labels;
  }

  /** A source giving the rows in raw batches of {@code chunk} rows, ids from FIRST_ROW_ID. */
  static RowBatches source(float[] rows, float[] labels, int chunk) {
    int n = rows.length / D;
    return new RowBatches() {
      private int next;

      @Override
      public RowBatch next() {
        if (next >= n) {
          return null;
        }
        int count = Math.min(chunk, n - next);
        float[] values = Arrays.copyOfRange(rows, next * D, (next + count) * D);
        float[] part = labels == null ? null : Arrays.copyOfRange(labels, next, next + count);
        RowBatch batch = new RowBatch(values, count, D, part, FIRST_ROW_ID + next);
        next += count;
        return batch;
      }
    };
  }

  /** Writes n rows of spec's features to a file; returns its summary. */
  static FeatureWriter.Summary write(
      Path target,
      FeaturizerSpec spec,
      LabelType labelType,
      int n,
      int batchSize,
      FeatureWriter.Format format,
      Executor executor,
      BufferAllocator allocator)
      throws IOException {
    float[] rows = rows(n, 7);
    float[] labels = labels(labelType, n, 8);
    FeatureSchema schema = FeatureSchema.of(spec, labelType, true);
    return FeatureWriter.builder(target, Featurizer.of(spec), schema, allocator)
        .format(format)
        .batchSize(batchSize)
        .executor(executor)
        .write(source(rows, labels, 13));
  }
}
