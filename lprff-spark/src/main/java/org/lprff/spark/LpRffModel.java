package org.lprff.spark;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.train.model.LinearModel;

/**
 * What {@link LpRffRegressionModel} and {@link LpRffClassificationModel} add to their Spark base
 * classes, once: the fitted linear model and what the fit reported, the {@code .lprff} export,
 * and Spark ML persistence ({@link ModelPersistence}), over the fitted data each model holds
 * ({@link #lprffData()}).
 */
public interface LpRffModel extends MLWritable {

  /** The fitted data; callers use the accessors below. */
  LpRffModelData lprffData();

  /** The spec of the features the model reads. */
  default FeaturizerSpec spec() {
    return lprffData().spec();
  }

  /** The weights and biases. */
  default LinearModel weights() {
    return lprffData().model();
  }

  /** The l2 the fit chose (or was given). */
  default double l2() {
    return lprffData().l2();
  }

  /** What the fit reported: solver, selected_on, rows, passes, seconds, iterations, engine. */
  default Map<String, String> training() {
    return Collections.unmodifiableMap(lprffData().training());
  }

  /** Writes the project's {@code .lprff} model file ({@code lprff predict} reads it). */
  default void export(String path) {
    lprffData().export(Path.of(path));
  }

  /** Spark ML persistence: {@code save(path)}, and the stage's data in a saved pipeline. */
  @Override
  default MLWriter write() {
    return new ModelPersistence.Writer((Params) this, lprffData());
  }
}
