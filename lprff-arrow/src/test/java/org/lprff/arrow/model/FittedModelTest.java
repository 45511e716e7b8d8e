package org.lprff.arrow.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowTable;
import org.lprff.arrow.input.Standardization;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.TrainingRequest;

class FittedModelTest {

  @TempDir Path dir;

  private static final int D = 3;

  private static FeaturizerSpec spec(int bits) {
    return new FeaturizerSpec(new KernelFunction.Gaussian(1.0), D, 128, bits, "dense", 7L,
        Quantizer.STOCHASTIC);
  }

  /** n rows of D columns, each with its own offset and scale (so standardizing matters). */
  private static float[] rows(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n * D];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < D; j++) {
        x[i * D + j] = (float) (10 * j + (j + 1) * r.nextGaussian());
      }
    }
    return x;
  }

  private static float target(float[] x, int i) {
    return (float) Math.sin(x[i * D] + 0.1 * x[i * D + 1]);
  }

  @Test
  void regressionFitsPredictsSavesAndLoads() throws Exception {
    int n = 2000;
    float[] x = rows(n, 1);
    float[] y = new float[n];
    for (int i = 0; i < n; i++) {
      y[i] = target(x, i);
    }
    float[] before = x.clone();
    FittedModel model = FittedModel.fit(spec(4), x, y, n);
    assertArrayEquals(before, x, "fit leaves the caller's rows as they were");
    assertEquals(Task.REGRESSION, model.task());
    assertTrue(model.standardization() != null);
    int nh = 500;
    float[] xh = rows(nh, 2);
    float[] predicted = model.predict(xh, nh);
    assertArrayEquals(model.scores(xh, nh), predicted);
    double mse = 0;
    double variance = 0;
    for (int i = 0; i < nh; i++) {
      double e = predicted[i] - target(xh, i);
      mse += e * e / nh;
      variance += target(xh, i) * target(xh, i) / nh;
    }
    // A smooth target of two standardized columns: the model explains most of its variance
    // (a model that predicts a constant, or one featurized without standardizing, does not).
    assertTrue(mse < 0.2 * variance, "mse " + mse + ", variance " + variance);

    // The prediction is exactly: standardize, featurize at the scoring spec, weights.
    float[] z = xh.clone();
    model.standardization().apply(new RowBatch(z, nh, D, null, 0));
    FeaturizerSpec scoring = model.scoringSpec();
    assertEquals(32, scoring.bits());
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment features = arena.allocate((long) nh * scoring.rowBytes(), 64);
      Featurizer.of(scoring).featurize(z, nh, 0, features, 0);
      assertArrayEquals(model.weights().predict(FeatureRows.of(scoring, features, 0, nh)),
          predicted);
    }

    Path file = dir.resolve("m.lprff");
    model.save(file);
    FittedModel loaded = FittedModel.load(file);
    assertEquals(model.spec(), loaded.spec());
    assertEquals(model.standardization(), loaded.standardization());
    assertEquals(model.task(), loaded.task());
    assertEquals(model.training(), loaded.training());
    assertArrayEquals(predicted, loaded.predict(xh, nh));
    assertThrows(IllegalStateException.class, () -> loaded.predictClasses(xh, nh));
  }

  @Test
  void predictionsDoNotDependOnTheChunking() {
    int n = FittedModel.CHUNK_ROWS + 37;
    float[] x = rows(n, 3);
    FittedModel model = model(Task.REGRESSION, 1);
    float[] all = model.predict(x, n);
    float[] tail = model.predict(Arrays.copyOfRange(x, (n - 37) * D, n * D), 37);
    assertArrayEquals(Arrays.copyOfRange(all, n - 37, n), tail);
  }

  /** A model of random weights on the 4-bit spec, with a standardization. */
  private static FittedModel model(Task task, long seed) {
    FeaturizerSpec spec = spec(4);
    int c = task.outputs();
    SplittableRandom r = new SplittableRandom(seed);
    float[] wT = new float[c * spec.modelFeatures()];
    for (int i = 0; i < wT.length; i++) {
      wT[i] = (float) r.nextGaussian();
    }
    Standardization s = Standardization.of(List.of("a", "b", "c"), new double[] {0, 10, 20},
        new double[] {1, 2, 3});
    return new FittedModel(spec, s, task, 1e-4, LinearModel.of(spec.modelFeatures(), c, wT,
        new float[c]), Map.of());
  }

  @Test
  void classesAndProbabilitiesFollowTheTasksRule() {
    int n = 300;
    float[] x = rows(n, 4);
    for (Task task : new Task[] {Task.BINARY, Task.BINARY_HINGE, Task.multiclass(4)}) {
      FittedModel model = model(task, 5);
      float[] scores = model.scores(x, n);
      int[] classes = model.predictClasses(x, n);
      float[] predicted = model.predict(x, n);
      int c = task.outputs();
      for (int r = 0; r < n; r++) {
        int expected;
        if (c == 1) {
          expected = task == Task.BINARY_HINGE ? (scores[r] >= 0 ? 1 : 0) : (scores[r] > 0 ? 1 : 0);
        } else {
          expected = 0;
          for (int j = 1; j < c; j++) {
            expected = scores[r * c + j] > scores[r * c + expected] ? j : expected;
          }
        }
        assertEquals(expected, classes[r], task + " row " + r);
        assertEquals(expected, predicted[r], task + " row " + r);
      }
      if (task == Task.BINARY_HINGE) {
        assertThrows(IllegalStateException.class, () -> model.probabilities(x, n));
        continue;
      }
      float[] p = model.probabilities(x, n);
      int k = model.classes();
      assertEquals(n * k, p.length);
      for (int r = 0; r < n; r++) {
        double sum = 0;
        int best = 0;
        for (int j = 0; j < k; j++) {
          sum += p[r * k + j];
          best = p[r * k + j] > p[r * k + best] ? j : best;
        }
        assertEquals(1.0, sum, 1e-5);
        assertEquals(classes[r], best, "the most probable class is the predicted one");
      }
    }
  }

  @Test
  void aHingeModelKeepsItsRuleThroughTheFile() throws Exception {
    FittedModel model = model(Task.BINARY_HINGE, 6);
    Path file = dir.resolve("hinge.lprff");
    model.save(file);
    assertEquals(Task.BINARY_HINGE, FittedModel.load(file).task());
  }

  @Test
  void classificationFitsOnClassIndices() {
    int n = 1500;
    float[] x = rows(n, 8);
    int[] classes = new int[n];
    for (int i = 0; i < n; i++) {
      classes[i] = x[i * D] > 0 ? (x[i * D + 1] > 10 ? 2 : 1) : 0;
    }
    FittedModel model = FittedModel.fit(spec(8), x, classes, n);
    assertEquals(Task.multiclass(3), model.task());
    int[] predicted = model.predictClasses(x, n);
    int errors = 0;
    for (int i = 0; i < n; i++) {
      errors += predicted[i] != classes[i] ? 1 : 0;
    }
    assertTrue(errors < 0.15 * n, errors + " training errors of " + n);
  }

  @Test
  void badInputIsRefusedNamingTheValues() {
    FittedModel model = model(Task.REGRESSION, 9);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> model.predict(new float[5], 2));
    assertTrue(e.getMessage().contains("n = 2 rows of d = 3 need 6"), e.getMessage());
    float[] x = rows(2, 1);
    x[4] = Float.NaN;
    e = assertThrows(IllegalArgumentException.class, () -> model.predict(x, 2));
    assertTrue(e.getMessage().contains("NaN"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> FittedModel.fit(spec(4), new RowTable(new float[4], new float[2], 2, 2,
            List.of("a", "b")), TrainingRequest.regression(128), true, null));
    assertTrue(e.getMessage().contains("2 columns") && e.getMessage().contains("d = 3"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> new FittedModel(spec(4), null, Task.multiclass(3), 0, LinearModel.zeros(128, 1),
            null));
    assertTrue(e.getMessage().contains("1 outputs"), e.getMessage());
  }
}
