package org.lprff.spark;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.lprff.arrow.model.FittedModel;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.TrainingReport;

/**
 * The fitted linear model of an LP-RFF Spark model, serializable (Spark ships a model to the
 * executors inside its prediction UDF): the spec as its {@code lprff.*} strings, the weights and
 * biases as arrays, and what the training report says. Scores one packed row at a time, and
 * exports itself as the project's {@code .lprff} model file. Opaque to callers: they use the
 * model's accessors ({@link LpRffModel}).
 */
public final class LpRffModelData implements Serializable {

  private static final long serialVersionUID = 1L;

  private final Map<String, String> spec;
  private final Task.Kind task;
  private final int classes;
  private final double l2;
  private final int features;
  private final int outputs;
  private final float[] weightsT;
  private final float[] bias;
  private final Map<String, String> training;
  private transient LinearModel model;
  private transient FeaturizerSpec featurizerSpec;

  private LpRffModelData(FeaturizerSpec spec, Task.Kind task, int classes, double l2,
      LinearModel model, Map<String, String> training) {
    this.spec = new LinkedHashMap<>(spec.toMap());
    this.task = task;
    this.classes = classes;
    this.l2 = l2;
    this.features = model.features();
    this.outputs = model.outputs();
    this.weightsT = model.weightsT().clone();
    this.bias = model.bias().clone();
    this.training = new LinkedHashMap<>(training);
  }

  static LpRffModelData of(FeaturizerSpec spec, TrainingReport report) {
    if (report.diverged()) {
      throw new IllegalStateException("training diverged: " + report.result().message());
    }
    Task.Kind task = report.task().kind();
    Map<String, String> training = new LinkedHashMap<>();
    training.put("solver", report.solver().id);
    training.put("selected_on", report.selectedOn());
    training.put("rows", Long.toString(report.trainRows()));
    training.put("passes", Long.toString(report.passes()));
    training.put("seconds", String.format(Locale.ROOT, "%.3f", report.seconds()));
    // The last solve's iterations (the refit's, or the only one at a fixed l2).
    double[] iterations = report.result().history().stream()
        .mapToDouble(r -> r.seconds()).sorted().toArray();
    training.put("iterations", Integer.toString(iterations.length));
    if (iterations.length > 0) {
      training.put("median_iteration_seconds",
          String.format(Locale.ROOT, "%.4f", iterations[iterations.length / 2]));
    }
    training.put("engine", "spark");
    return new LpRffModelData(spec, task, report.classes(), report.l2(), report.model(), training);
  }

  static LpRffModelData of(FittedModel file) {
    return new LpRffModelData(file.spec(), file.task().kind(), file.classes(), file.l2(),
        file.weights(), file.training());
  }

  /** The library's fitted model of these weights: what the .lprff file holds. */
  FittedModel fitted() {
    return new FittedModel(spec(), null, Task.of(task, classes, false), l2,
        model(), training);
  }

  FeaturizerSpec spec() {
    if (featurizerSpec == null) {
      featurizerSpec = FeaturizerSpec.fromMap(spec);
    }
    return featurizerSpec;
  }

  LinearModel model() {
    if (model == null) {
      model = LinearModel.of(features, outputs, weightsT, bias);
    }
    return model;
  }

  Task.Kind task() {
    return task;
  }

  int classes() {
    return classes;
  }

  double l2() {
    return l2;
  }

  Map<String, String> training() {
    return training;
  }

  /** The c scores of one packed row. */
  float[] scores(byte[] row) {
    FeaturizerSpec s = spec();
    if (row == null || row.length != s.rowBytes()) {
      throw new IllegalArgumentException("a packed row has " + (row == null ? "no" : row.length)
          + " bytes, the model's spec says " + s.rowBytes());
    }
    FeatureRows z = FeatureRows.of(s, MemorySegment.ofArray(row), 0, 1);
    return model().predict(z);
  }

  /** Writes the {@code .lprff} model file that {@code lprff predict} reads. */
  void export(Path path) {
    try {
      fitted().save(path);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the model file " + path + ": " + e.getMessage(),
          e);
    }
  }

  static LpRffModelData read(Path path) {
    try {
      return of(FittedModel.load(path));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the model file " + path + ": " + e.getMessage(),
          e);
    }
  }
}
