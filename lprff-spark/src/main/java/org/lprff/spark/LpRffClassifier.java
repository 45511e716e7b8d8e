package org.lprff.spark;

import java.util.function.Consumer;
import org.apache.spark.ml.classification.ProbabilisticClassifier;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
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
 * evaluation one pass per partition combined with treeAggregate. Params as {@link LpRffRegressor}.
 */
public final class LpRffClassifier
    extends ProbabilisticClassifier<byte[], LpRffClassifier, LpRffClassificationModel>
    implements DefaultParamsWritable {

  private static final long serialVersionUID = 1L;

  private final String uid;
  final EstimatorParams params;
  private transient Consumer<String> progress;
  /** The validation rows of the fit under way ({@link #fit(Dataset, Dataset)}), else null. */
  private transient Dataset<?> validationRows;

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

  public Param<String> rowIdCol() { return params.rowIdCol; }
  public Param<String> solver() { return params.solver; }
  public DoubleParam regParam() { return params.regParam; }
  public Param<String> validationIndicatorCol() { return params.validationIndicatorCol; }
  public LongParam seed() { return params.seed; }

  public LpRffClassifier setRowIdCol(String value) { set(params.rowIdCol, value); return this; }
  public LpRffClassifier setSolver(String value) { set(params.solver, value); return this; }
  public LpRffClassifier setRegParam(double value) { set(params.regParam, value); return this; }
  public LpRffClassifier setValidationIndicatorCol(String value) {
    set(params.validationIndicatorCol, value);
    return this;
  }
  public LpRffClassifier setSeed(long value) { set(params.seed, value); return this; }

  /** Where the training's progress lines go (null: nowhere). Not a param: not saved. */
  public LpRffClassifier setProgress(Consumer<String> lines) {
    this.progress = lines;
    return this;
  }

  /**
   * Fits with l2 chosen on {@code validation} (rows with the same columns, featurized with the
   * same spec), which then joins the training rows for the closed form's refit.
   */
  public LpRffClassificationModel fit(Dataset<?> train, Dataset<?> validation) {
    if (validation == null) {
      throw new IllegalArgumentException("validation is null; use fit(train) for a seeded split");
    }
    validationRows = validation;
    try {
      return fit(train);
    } finally {
      validationRows = null;
    }
  }

  @Override
  public DataType featuresDataType() {
    return DataTypes.BinaryType;
  }

  @Override
  public LpRffClassificationModel train(Dataset<?> dataset) {
    DistributedFit.Fitted fitted = params.fit(this, dataset, validationRows, getFeaturesCol(),
        getLabelCol(), true, progress);
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
