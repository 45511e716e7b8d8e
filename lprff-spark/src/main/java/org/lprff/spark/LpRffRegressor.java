package org.lprff.spark;

import java.util.function.Consumer;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
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
 * partition and combined with treeAggregate. Params beside Spark's featuresCol ("features"),
 * labelCol and predictionCol: {@code rowIdCol} ("rowId"), {@code solver} ("auto"), {@code
 * regParam} (unset: automatic), {@code validationIndicatorCol} (unset: the seeded split), {@code
 * seed} (1, the split's).
 */
public final class LpRffRegressor
    extends Regressor<byte[], LpRffRegressor, LpRffRegressionModel>
    implements DefaultParamsWritable {

  private static final long serialVersionUID = 1L;

  private final String uid;
  final EstimatorParams params;
  private transient Consumer<String> progress;
  /** The validation rows of the fit under way ({@link #fit(Dataset, Dataset)}), else null. */
  private transient Dataset<?> validationRows;

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

  public Param<String> rowIdCol() { return params.rowIdCol; }
  public Param<String> solver() { return params.solver; }
  public DoubleParam regParam() { return params.regParam; }
  public Param<String> validationIndicatorCol() { return params.validationIndicatorCol; }
  public LongParam seed() { return params.seed; }

  public LpRffRegressor setRowIdCol(String value) { set(params.rowIdCol, value); return this; }
  public LpRffRegressor setSolver(String value) { set(params.solver, value); return this; }
  public LpRffRegressor setRegParam(double value) { set(params.regParam, value); return this; }
  public LpRffRegressor setValidationIndicatorCol(String value) {
    set(params.validationIndicatorCol, value);
    return this;
  }
  public LpRffRegressor setSeed(long value) { set(params.seed, value); return this; }

  /** Where the training's progress lines go (null: nowhere). Not a param: not saved. */
  public LpRffRegressor setProgress(Consumer<String> lines) {
    this.progress = lines;
    return this;
  }

  /**
   * Fits with l2 chosen on {@code validation} (rows with the same columns, featurized with the
   * same spec), which then joins the training rows for the closed form's refit.
   */
  public LpRffRegressionModel fit(Dataset<?> train, Dataset<?> validation) {
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
  public LpRffRegressionModel train(Dataset<?> dataset) {
    DistributedFit.Fitted fitted = params.fit(this, dataset, validationRows, getFeaturesCol(),
        getLabelCol(), false, progress);
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
