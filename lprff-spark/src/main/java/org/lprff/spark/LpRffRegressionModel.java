package org.lprff.spark;

import java.nio.file.Path;
import org.lprff.vector.train.loss.Task;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.regression.RegressionModel;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * A fitted {@link LpRffRegressor}: predicts from the packed feature column like any Spark ML
 * regression model, and exports the project's {@code .lprff} model file ({@link #export}), which
 * {@code lprff predict} and the Python package read; {@link #load} reads one back.
 */
public final class LpRffRegressionModel
    extends RegressionModel<byte[], LpRffRegressionModel>
    implements LpRffModel {

  private static final long serialVersionUID = 1L;

  private final String uid;
  private final LpRffModelData data;

  LpRffRegressionModel(String uid, LpRffModelData data) {
    // Spark's shared params (featuresCol, ...) take their parent's uid as the superclass is
    // built, so it is set first (a flexible constructor body, JDK 25).
    this.uid = uid;
    super();
    this.data = data;
  }

  /** The model of a {@code .lprff} file written by {@link #export} or {@code lprff train}. */
  public static LpRffRegressionModel fromModelFile(String path) {
    LpRffModelData data = LpRffModelData.read(Path.of(path));
    if (data.task() != Task.Kind.REGRESSION) {
      throw new IllegalArgumentException(path + " holds a " + data.task().id + " model, expected"
          + " regression; load it with LpRffClassificationModel");
    }
    return new LpRffRegressionModel(org.apache.spark.ml.util.Identifiable.randomUID(
        "lpRffRegressor"), data);
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public LpRffModelData lprffData() {
    return data;
  }

  @Override
  public int numFeatures() {
    return data.spec().features();
  }

  @Override
  public DataType featuresDataType() {
    return DataTypes.BinaryType;
  }

  @Override
  public double predict(byte[] features) {
    return data.scores(features)[0];
  }

  public static MLReader<LpRffRegressionModel> read() {
    return new ModelPersistence.Reader<>(LpRffRegressionModel.class, LpRffRegressionModel::new);
  }

  /** A model saved by {@code save(path)}; {@link #fromModelFile} reads a {@code .lprff} file. */
  public static LpRffRegressionModel load(String path) {
    return read().load(path);
  }

  @Override
  public LpRffRegressionModel copy(ParamMap extra) {
    return copyValues(new LpRffRegressionModel(uid, data), extra).setParent(parent());
  }
}
