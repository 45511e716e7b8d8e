package org.lprff.spark;

import java.util.function.Consumer;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.Dataset;

/**
 * What {@link LpRffRegressor} and {@link LpRffClassifier} add to their Spark base classes, once:
 * the params and setters of the LP-RFF fit, the progress callback, and a fit with a validation
 * DataFrame. Java cannot mix in Spark's Scala traits; these default methods play their part, over
 * the state each estimator holds ({@link #lprffParams()}).
 *
 * @param <T> the estimator (the setters return it)
 * @param <M> its model
 */
public interface LpRffEstimator<T extends LpRffEstimator<T, M>, M extends Model<M>> {

  /** The estimator's LP-RFF params and fit state; callers use the accessors below. */
  EstimatorParams lprffParams();

  /** The row ids (long) the seeded validation split reads; default "rowId". */
  default Param<String> rowIdCol() {
    return lprffParams().rowIdCol;
  }

  /** auto (default), lbfgs, cg or closed-form. */
  default Param<String> solver() {
    return lprffParams().solver;
  }

  /** The l2 of the objective; unset (default): the automatic path chosen on validation rows. */
  default DoubleParam regParam() {
    return lprffParams().regParam;
  }

  /** A boolean column of the rows that choose l2; unset (default): a seeded 10% of the rows. */
  default Param<String> validationIndicatorCol() {
    return lprffParams().validationIndicatorCol;
  }

  /** The validation split's seed; default 1, as the command line's. */
  default LongParam seed() {
    return lprffParams().seed;
  }

  default T setRowIdCol(String value) {
    return set(rowIdCol(), value);
  }

  default T setSolver(String value) {
    return set(solver(), value);
  }

  default T setRegParam(double value) {
    return set(regParam(), value);
  }

  default T setValidationIndicatorCol(String value) {
    return set(validationIndicatorCol(), value);
  }

  default T setSeed(long value) {
    return set(seed(), value);
  }

  /** Where the training's progress lines go (null: nowhere). Not a param: not saved. */
  @SuppressWarnings("unchecked")
  default T setProgress(Consumer<String> lines) {
    lprffParams().progress = lines;
    return (T) this;
  }

  /**
   * Fits with l2 chosen on {@code validation} (rows with the same columns, featurized with the
   * same spec), which then joins the training rows for the closed form's refit.
   */
  @SuppressWarnings("unchecked")
  default M fit(Dataset<?> train, Dataset<?> validation) {
    if (validation == null) {
      throw new IllegalArgumentException("validation is null; use fit(train) for a seeded split");
    }
    EstimatorParams state = lprffParams();
    state.validationRows = validation;
    try {
      return ((Estimator<M>) this).fit(train);
    } finally {
      state.validationRows = null;
    }
  }

  @SuppressWarnings("unchecked")
  private <V> T set(Param<V> param, V value) {
    ((Params) this).set(param, value);
    return (T) this;
  }
}
