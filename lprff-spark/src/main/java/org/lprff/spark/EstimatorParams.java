package org.lprff.spark;

import java.io.Serializable;
import java.util.function.Consumer;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.Dataset;

/** The params both estimators add to Spark's, with their defaults, and the fit they drive. */
final class EstimatorParams implements Serializable {

  private static final long serialVersionUID = 1L;

  final Param<String> rowIdCol;
  final Param<String> solver;
  final DoubleParam regParam;
  final Param<String> validationIndicatorCol;
  final LongParam seed;

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

  DistributedFit.Fitted fit(Params owner, Dataset<?> dataset, Dataset<?> validation,
      String features, String label, boolean classification, Consumer<String> progress) {
    String indicator = owner.isDefined(validationIndicatorCol)
        ? owner.getOrDefault(validationIndicatorCol) : null;
    Double l2 = owner.isDefined(regParam) ? (Double) owner.getOrDefault(regParam) : null;
    return DistributedFit.run(dataset, validation,
        new DistributedFit.Columns(features, label, owner.getOrDefault(rowIdCol), indicator),
        classification, owner.getOrDefault(solver), l2, (Long) owner.getOrDefault(seed),
        progress);
  }
}
