package org.lprff.spark;

import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.regression.Regressor;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Kernel ridge regression on LP-RFFs as a Spark ML {@code Regressor}: trains on the packed feature
 * column ({@link LpRffTransformer}'s output) with the library's full-batch solvers and defaults
 * (solver auto: the closed form up to m = 2048, conjugate gradients above; l2 on the automatic
 * path chosen on the validation rows, or on a seeded 10% of the training rows), every pass run per
 * partition, the partitions' sums added in partition order. Params beside Spark's featuresCol
 * ("features"), labelCol and predictionCol: {@code rowIdCol} ("rowId"), {@code solver}
 * ("auto"), {@code regParam} (unset: automatic), {@code validationIndicatorCol} (unset: the
 * seeded split), {@code seed} (1, the split's).
 */
public final class LpRffRegressor
    extends Regressor<byte[], LpRffRegressor, LpRffRegressionModel>
    implements LpRffEstimator<LpRffRegressor, LpRffRegressionModel>, DefaultParamsWritable {

  private static final long serialVersionUID = 1L;

  private final String uid;
  private final EstimatorParams params;

  public LpRffRegressor() {
    this(Identifiable.randomUID("lpRffRegressor"));
  }

  public LpRffRegressor(String uid) {
    // Spark's shared params (featuresCol, ...) take their parent's uid as the superclass is
    // built, so it is set first (a flexible constructor body, JDK 25).
    this.uid = uid;
    super();
    this.params = new EstimatorParams(this, uid);
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public EstimatorParams lprffParams() {
    return params;
  }

  @Override
  public DataType featuresDataType() {
    return DataTypes.BinaryType;
  }

  @Override
  public LpRffRegressionModel train(Dataset<?> dataset) {
    DistributedFit.Fitted fitted =
        params.fit(this, dataset, getFeaturesCol(), getLabelCol(), false);
    return new LpRffRegressionModel(uid, LpRffModelData.of(fitted.spec(), fitted.report()));
  }

  public static MLReader<LpRffRegressor> read() {
    return new DefaultParamsReader<>();
  }

  public static LpRffRegressor load(String path) {
    return read().load(path);
  }

  @Override
  public LpRffRegressor copy(ParamMap extra) {
    return defaultCopy(extra);
  }
}
