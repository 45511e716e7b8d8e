package org.lprff.spark;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.regression.LinearRegression;
import org.apache.spark.ml.regression.LinearRegressionModel;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;

/**
 * The scaling figures of the README, behind {@code scripts/spark-scaling.sh}: diamonds repeated
 * {@code --copies} times (distinct row ids, log price, inputs standardized), in 1, 2 and 4
 * partitions of a {@code --master} session; for each, the median of {@code --runs} runs of
 *
 * <ul>
 *   <li>featurizing (LpRffTransformer to the noop sink: rows per second);
 *   <li>an iteration of LpRffRegressor's L-BFGS and CG (fits at a fixed l2: the median of the
 *       iterations' seconds; an L-BFGS iteration is one or more loss-and-gradient passes, a CG
 *       iteration one A v pass, each pass one Spark job);
 *   <li>the reference a Spark user has today: Spark ML's LinearRegression (L-BFGS) on the same
 *       features at full precision as ml vectors, seconds per iteration.
 * </ul>
 *
 * and, as the last row, the same work on one JVM without Spark: the library's featurizer over
 * the collected rows (both cores) and its solvers over the same packed rows in native memory.
 * Prints a Markdown table and the machine's vector bodies.
 */
public final class SparkBenchmark {

  private SparkBenchmark() {}

  public static void main(String[] args) {
    String master = "local[2]";
    String diamonds = null;
    int copies = 2;
    int m = 1024;
    int runs = 3;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--master" -> master = args[i + 1];
        case "--diamonds" -> diamonds = args[i + 1];
        case "--copies" -> copies = Integer.parseInt(args[i + 1]);
        case "--features" -> m = Integer.parseInt(args[i + 1]);
        case "--runs" -> runs = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; options: --master, --diamonds, --copies, --features, --runs");
      }
    }
    SparkSession spark = SparkSession.builder().master(master).appName("lprff spark scaling")
        .config("spark.ui.enabled", "false").getOrCreate();
    try {
      Dataset<Row> rows = input(spark, diamonds, copies).cache();
      long n = rows.count();
      System.out.printf(Locale.ROOT, "diamonds x %d = %d rows, d = 9, m = %d, 4 bits,"
          + " circulant; master %s, %d cores; %s%n%n", copies, n, m, master,
          Runtime.getRuntime().availableProcessors(), VectorizationProvider.get().describe());
      System.out.println("| partitions | featurize rows/s | L-BFGS s/iteration"
          + " | CG s/iteration | Spark LinearRegression (float64 vectors) s/iteration |");
      System.out.println("|---:|---:|---:|---:|---:|");
      // Warm-up: the first featurized rows run at a fraction of the kernels' speed (JIT).
      new LpRffTransformer().setInputCol("x").setNumFeatures(m).setBits(4).setSigma(2.0)
          .transform(rows).write().format("noop").mode("overwrite").save();
      for (int partitions : new int[] {1, 2, 4}) {
        Dataset<Row> input = rows.repartition(partitions).cache();
        input.count();
        LpRffTransformer t = new LpRffTransformer().setInputCol("x").setNumFeatures(m)
            .setBits(4).setSigma(2.0);
        double[] featurize = new double[runs];
        for (int r = 0; r < runs; r++) {
          long t0 = System.nanoTime();
          t.transform(input).write().format("noop").mode("overwrite").save();
          featurize[r] = n / ((System.nanoTime() - t0) / 1e9);
        }
        Dataset<Row> features = t.transform(input).cache();
        features.count();
        double lbfgs = secondsPerIteration(features, "lbfgs", runs);
        double cg = secondsPerIteration(features, "cg", runs);
        double reference = referenceSecondsPerIteration(
            new LpRffTransformer().setInputCol("x").setNumFeatures(m).setBits(32).setSigma(2.0)
                .setOutputCol("f32").transform(input), m, runs);
        System.out.printf(Locale.ROOT, "| %d | %,.0f | %.3f | %.3f | %.3f |%n", partitions,
            median(featurize), lbfgs, cg, reference);
        features.unpersist();
        input.unpersist();
      }
      singleMachine(rows, m, runs);
    } finally {
      spark.stop();
    }
  }

  /** The last row: featurizer and solvers of the library on this JVM, no Spark. */
  private static void singleMachine(Dataset<Row> rows, int m, int runs) {
    List<Row> collected = rows.orderBy("rowId").collectAsList();
    int n = collected.size();
    float[] x = new float[n * 9];
    float[] y = new float[n];
    for (int r = 0; r < n; r++) {
      scala.collection.Seq<?> v = (scala.collection.Seq<?>) collected.get(r).get(1);
      for (int i = 0; i < 9; i++) {
        x[r * 9 + i] = ((Number) v.apply(i)).floatValue();
      }
      y[r] = (float) collected.get(r).getDouble(2);
    }
    FeaturizerSpec spec = new LpRffTransformer().setNumFeatures(m)
        .setBits(4).setSigma(2.0).spec(9);
    Featurizer featurizer =
        Featurizer.of(spec);
    try (Arena arena = Arena.ofShared()) {
      MemorySegment out =
          arena.allocate((long) n * spec.rowBytes(), 64);
      double[] featurize = new double[runs + 1];
      for (int r = 0; r <= runs; r++) { // run 0 warms up
        long t0 = System.nanoTime();
        featurizer.featurize(x, n, 0, out, 0, 0, ForkJoinPool.commonPool());
        featurize[r] = n / ((System.nanoTime() - t0) / 1e9);
      }
      MiniBatchSource source = InMemoryBatches
          .of(FeatureRows.of(new PackedRows(
              out, 0, n, m, spec.scale())), y).ordered();
      double[] lbfgs = new double[runs];
      double[] cg = new double[runs];
      for (int r = 0; r < runs; r++) {
        lbfgs[r] = localIteration(source, m, Solver.LBFGS);
        cg[r] = localIteration(source, m, Solver.CG);
      }
      System.out.printf(Locale.ROOT, "| one JVM, no Spark | %,.0f | %.3f | %.3f | |%n",
          median(Arrays.copyOfRange(featurize, 1, runs + 1)), median(lbfgs), median(cg));
    }
  }

  private static double localIteration(MiniBatchSource source, int m,
      Solver solver) {
    TrainingReport report = Trainer.run(
        TrainingRequest.regression(m).withSolver(solver)
            .withL2(List.of(1e-4)),
        new Trainer.Data("train", "", source), null);
    double[] seconds = report.result().history().stream().mapToDouble(e -> e.seconds())
        .sorted().toArray();
    return seconds[seconds.length / 2];
  }

  /** Diamonds {@code copies} times: rowId, x (standardized, array of 9), label log(price). */
  private static Dataset<Row> input(SparkSession spark, String path, int copies) {
    Dataset<Row> raw = spark.read().option("header", "true").option("inferSchema", "true")
        .csv(path);
    String[] columns = raw.columns();
    Column[] x = SparkExample.standardized(raw, Arrays.copyOf(columns, columns.length - 1));
    Dataset<Row> one = LpRffTransformer.withRowIds(raw, "id");
    return one.crossJoin(spark.range(copies).toDF("copy"))
        .select(functions.expr("copy * " + one.count() + " + id").as("rowId"),
            functions.array(x).as("x"),
            functions.log(functions.col("price")).as("label"));
  }

  /** Seconds per iteration of a fit at a fixed l2 (the median of runs of medians). */
  private static double secondsPerIteration(Dataset<Row> features, String solver, int runs) {
    double[] perPass = new double[runs];
    for (int r = 0; r < runs; r++) {
      LpRffRegressionModel model = new LpRffRegressor().setSolver(solver).setRegParam(1e-4)
          .fit(features);
      perPass[r] = Double.parseDouble(model.training().get("median_iteration_seconds"));
    }
    return median(perPass);
  }

  /** Spark ML LinearRegression (L-BFGS, 20 iterations) on the float32 features as vectors. */
  private static double referenceSecondsPerIteration(Dataset<Row> f32, int m, int runs) {
    Dataset<Row> vectors = f32.select(functions.col("label"), functions.udf((byte[] b) -> {
      java.nio.FloatBuffer floats = java.nio.ByteBuffer.wrap(b)
          .order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
      double[] v = new double[m];
      for (int i = 0; i < m; i++) {
        v[i] = floats.get(i);
      }
      return Vectors.dense(v);
    }, SQLDataTypes.VectorType()).apply(functions.col("f32")).as("features")).cache();
    vectors.count();
    double[] perIteration = new double[runs];
    for (int r = 0; r < runs; r++) {
      long t0 = System.nanoTime();
      LinearRegressionModel model = new LinearRegression().setSolver("l-bfgs").setMaxIter(20)
          .setTol(0).setRegParam(1e-4).setStandardization(false).fit(vectors);
      perIteration[r] = (System.nanoTime() - t0) / 1e9
          / Math.max(1, model.summary().totalIterations());
    }
    vectors.unpersist();
    return median(perIteration);
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v[v.length / 2];
  }
}
