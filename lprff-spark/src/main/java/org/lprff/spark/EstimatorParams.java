package org.lprff.spark;

import java.io.Serializable;
import java.util.function.Consumer;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.Dataset;

/**
 * The LP-RFF params of an estimator ({@link LpRffEstimator}), with their defaults, the state of
 * a fit under way, and the fit they drive. Opaque to callers: they use the estimator's accessors.
 */
public final class EstimatorParams implements Serializable {

  private static final long serialVersionUID = 1L;

  final Param<String> rowIdCol;
  final Param<String> solver;
  final DoubleParam regParam;
  final Param<String> validationIndicatorCol;
  final LongParam seed;
  /** Not params, not saved: the progress callback, and the validation rows of a fit under way. */
  transient Consumer<String> progress;
  transient Dataset<?> validationRows;

  EstimatorParams(Params owner, String uid) {
    rowIdCol = new Param<>(uid, "rowIdCol", "the row ids (long): the seeded split reads them");
    solver = new Param<>(uid, "solver", "auto, lbfgs, cg or closed-form");
    regParam = new DoubleParam(uid, "regParam",
        "the l2 of the objective; unset: the automatic path 1e-2 .. 1e-7 chosen on validation"
            + " rows");
    validationIndicatorCol = new Param<>(uid, "validationIndicatorCol",
        "a boolean column marking the rows that choose l2; unset: a seeded 10% of the rows");
    seed = new LongParam(uid, "seed", "the seed of the validation split");
    owner.setDefault(rowIdCol, "rowId");
    owner.setDefault(solver, "auto");
    owner.setDefault(seed, 1L);
  }

  DistributedFit.Fitted fit(Params owner, Dataset<?> dataset, String features, String label,
      boolean classification) {
    String indicator = owner.isDefined(validationIndicatorCol)
        ? owner.getOrDefault(validationIndicatorCol) : null;
    Double l2 = owner.isDefined(regParam) ? (Double) owner.getOrDefault(regParam) : null;
    return DistributedFit.run(dataset, validationRows,
        new DistributedFit.Columns(features, label, owner.getOrDefault(rowIdCol), indicator),
        classification, owner.getOrDefault(solver), l2, (Long) owner.getOrDefault(seed),
        progress);
  }
}
