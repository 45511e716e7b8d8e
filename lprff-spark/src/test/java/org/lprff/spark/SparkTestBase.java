package org.lprff.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One local[2] Spark session per test class, and DataFrames of rows (id, x vector, label). */
abstract class SparkTestBase {

  static SparkSession spark;

  @BeforeAll
  static void startSpark() {
    spark = SparkSession.builder().master("local[2]").appName("lprff-spark-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  /** Rows (rowId, x: vector of d, label) from row-major x, in {@code partitions} partitions. */
  static Dataset<Row> frame(float[] x, int d, double[] labels, long firstId, int partitions) {
    int n = labels.length;
    List<Row> rows = new ArrayList<>(n);
    for (int r = 0; r < n; r++) {
      double[] v = new double[d];
      for (int i = 0; i < d; i++) {
        v[i] = x[r * d + i];
      }
      rows.add(RowFactory.create(firstId + r, Vectors.dense(v), labels[r]));
    }
    StructType schema = new StructType()
        .add("rowId", DataTypes.LongType, false)
        .add("x", SQLDataTypes.VectorType(), false)
        .add("label", DataTypes.DoubleType, false);
    return spark.createDataFrame(rows, schema).repartition(partitions);
  }
}
