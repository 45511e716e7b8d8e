package org.lprff.spark;

import org.apache.spark.ml.classification.ProbabilisticClassifier;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Logistic (two classes) or softmax (k classes) regression on LP-RFFs as a Spark ML probabilistic
 * classifier: labels 0, 1, ..., k - 1; trains on the packed feature column with the library's
 * full-batch L-BFGS (solver auto), l2 on the automatic path chosen on validation rows, each
 * evaluation one pass per partition, the partitions' sums added in partition order
 * ({@link SparkPartitions#sum}). Params as {@link LpRffRegressor}.
 */
public final class LpRffClassifier
    extends ProbabilisticClassifier<byte[], LpRffClassifier, LpRffClassificationModel>
    implements LpRffEstimator<LpRffClassifier, LpRffClassificationModel>, DefaultParamsWritable {

  private static final long serialVersionUID = 1L;

  private final String uid;
  private final EstimatorParams params;

  public LpRffClassifier() {
    this(Identifiable.randomUID("lpRffClassifier"));
  }

  public LpRffClassifier(String uid) {
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
  public LpRffClassificationModel train(Dataset<?> dataset) {
    DistributedFit.Fitted fitted =
        params.fit(this, dataset, getFeaturesCol(), getLabelCol(), true);
    return new LpRffClassificationModel(uid, LpRffModelData.of(fitted.spec(), fitted.report()));
  }

  public static MLReader<LpRffClassifier> read() {
    return new DefaultParamsReader<>();
  }

  public static LpRffClassifier load(String path) {
    return read().load(path);
  }

  @Override
  public LpRffClassifier copy(ParamMap extra) {
    return defaultCopy(extra);
  }
}
