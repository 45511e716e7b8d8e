package org.lprff.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;

/**
 * What the two estimators share: a DataFrame's packed feature column, labels and row ids made into
 * cached blocks ({@link SparkPartitions}), and the library's training workflow ({@link
 * Trainer#run}) over them: the same solvers, defaults and l2 path as {@code lprff train}, each pass
 * run per partition. The blocks are released when the fit ends.
 */
final class DistributedFit {

  /** Rows per cached block. */
  static final int BLOCK_ROWS = 1024;

  /** The columns and choices of one fit. */
  record Columns(String features, String label, String rowId, String validationIndicator) {}

  /** A fit's result: the spec of the features and the library's report. */
  record Fitted(FeaturizerSpec spec, TrainingReport report) {}

  private DistributedFit() {}

  /**
   * @param validationRows rows that choose l2 (a validation DataFrame with the same columns), or
   *     null: then the indicator column's rows, or a seeded split of the training rows
   */
  static Fitted run(Dataset<?> dataset, Dataset<?> validationRows, Columns columns,
      boolean classification, String solver, Double l2, long seed, Consumer<String> progress) {
    FeaturizerSpec spec = FeatureColumn.spec(dataset.schema(), columns.features());
    FeatureColumn.requireRowIds(dataset.schema(), columns.rowId());
    TrainingRequest request = (classification
        ? TrainingRequest.classification(spec.modelFeatures())
        : TrainingRequest.regression(spec.modelFeatures()))
        .withSolver(solver(solver))
        .withSeed(seed);
    if (l2 != null) {
      request = request.withL2(List.of(l2));
    }
    if (request.solver() == Solver.SGD) {
      throw new IllegalArgumentException("solver sgd reads mini-batches on one machine; on Spark"
          + " use auto, lbfgs, cg or closed-form");
    }
    List<JavaRDD<?>> cached = new ArrayList<>();
    try {
      Dataset<Row> rows = dataset.toDF();
      Dataset<Row> train = rows;
      Trainer.Data validation = null;
      if (validationRows != null) {
        if (columns.validationIndicator() != null) {
          throw new IllegalArgumentException("both a validation DataFrame and"
              + " validationIndicatorCol '" + columns.validationIndicator() + "' are given;"
              + " choose one");
        }
        FeaturizerSpec other = FeatureColumn.spec(validationRows.schema(), columns.features());
        if (!other.equals(spec)) {
          throw new IllegalArgumentException("the validation rows' features have spec " + other
              + ", the training rows' " + spec + "; featurize both with the same transformer");
        }
        validation = new Trainer.Data("validation", "DataFrame",
            partitions(validationRows.toDF(), columns, classification, spec, cached));
      } else if (columns.validationIndicator() != null) {
        var indicator = functions.col(columns.validationIndicator());
        train = rows.filter(functions.not(indicator));
        validation = new Trainer.Data("validation", columns.validationIndicator(),
            partitions(rows.filter(indicator), columns, classification, spec, cached));
      }
      Trainer.Data trainData = new Trainer.Data("train", "",
          partitions(train, columns, classification, spec, cached));
      TrainingReport report = Trainer.run(request, trainData, validation, validation, null,
          progress);
      return new Fitted(spec, report);
    } finally {
      for (JavaRDD<?> rdd : cached) {
        rdd.unpersist(false);
      }
    }
  }

  private static Solver solver(String name) {
    Solver s = Solver.named(name);
    if (s == null) {
      throw new IllegalArgumentException("solver is '" + name + "', expected auto, lbfgs, cg or"
          + " closed-form");
    }
    return s;
  }

  private static SparkPartitions partitions(Dataset<Row> rows, Columns columns,
      boolean classification, FeaturizerSpec spec, List<JavaRDD<?>> cached) {
    Dataset<Row> selected = rows.select(columns.features(), columns.label(), columns.rowId());
    String features = columns.features();
    String label = columns.label();
    int rowBytes = spec.rowBytes();
    JavaRDD<PackedBlock> blocks = selected.javaRDD()
        .mapPartitions(it -> blocks(it, rowBytes, classification, features, label));
    return SparkPartitions.of(blocks, spec, cached);
  }

  /** A partition's rows as blocks of {@link #BLOCK_ROWS}. */
  private static Iterator<PackedBlock> blocks(Iterator<Row> rows, int rowBytes,
      boolean classification, String features, String label) {
    List<PackedBlock> out = new ArrayList<>();
    while (rows.hasNext()) {
      byte[] f = new byte[BLOCK_ROWS * rowBytes];
      float[] t = classification ? null : new float[BLOCK_ROWS];
      int[] c = classification ? new int[BLOCK_ROWS] : null;
      long[] ids = new long[BLOCK_ROWS];
      int n = 0;
      while (n < BLOCK_ROWS && rows.hasNext()) {
        Row row = rows.next();
        ids[n] = InputRows.rowId(row, 2);
        System.arraycopy(FeatureColumn.packedRow(row, 0, features, ids[n], rowBytes), 0, f,
            n * rowBytes, rowBytes);
        double y = FeatureColumn.label(row, 1, label, ids[n]);
        if (classification) {
          if (!(y >= 0) || y != Math.rint(y) || y > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("label column '" + label + "' is " + y
                + " in the row with id " + ids[n] + ", expected a class index 0, 1, 2, ...");
          }
          c[n] = (int) y;
        } else {
          t[n] = (float) y;
        }
        n++;
      }
      out.add(new PackedBlock(Arrays.copyOf(f, n * rowBytes), n,
          t == null ? null : Arrays.copyOf(t, n),
          c == null ? null : Arrays.copyOf(c, n), Arrays.copyOf(ids, n)));
    }
    return out.iterator();
  }
}
