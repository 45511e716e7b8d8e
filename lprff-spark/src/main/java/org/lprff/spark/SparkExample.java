package org.lprff.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.stream.RowSplit;

/**
 * The runnable example behind {@code scripts/spark-example.sh}: Spark reads a CSV (label last),
 * standardizes the features with the training rows' mean and sample standard deviation (as {@code
 * lprff featurize --standardize}), featurizes with {@link LpRffTransformer}, trains {@link
 * LpRffRegressor} or {@link LpRffClassifier} with every default, scores the heldout rows and
 * prints one JSON object as its last line of standard output. Progress goes to standard error.
 *
 * <p>Without {@code --train}: the diamonds file ({@code --diamonds PATH}; the script passes the
 * copy shipped with the application), target log(price), split as {@code lprff demo} splits it
 * (row i heldout iff mix64(seed + i) mod 5 == 0).
 */
public final class SparkExample {

  private SparkExample() {}

  /** Exit status 2 for a bad option, 1 for bad data; the message names the value. */
  public static void main(String[] args) {
    Map<String, String> o;
    try {
      o = options(args);
      if (!o.getOrDefault("sigma", "auto").equals("auto")) {
        positiveOption(o.get("sigma"));
      }
    } catch (IllegalArgumentException e) {
      System.err.println("spark-example: " + e.getMessage());
      System.exit(2);
      return;
    }
    try {
      run(o);
    } catch (RuntimeException e) {
      Throwable cause = e;
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof IllegalArgumentException) {
          cause = t;
        }
      }
      if (!(cause instanceof IllegalArgumentException)) {
        throw e;
      }
      System.err.println("spark-example: " + cause.getMessage());
      System.exit(1);
    }
  }

  private static void run(Map<String, String> o) {
    String master = o.getOrDefault("master", "local[2]");
    String task = o.getOrDefault("task", "regression");
    if (!task.equals("regression") && !task.equals("classification")) {
      throw usage("--task is '" + task + "', expected regression or classification");
    }
    boolean classification = task.equals("classification");
    int partitions = intOption(o, "partitions", -1);
    long splitSeed = Long.parseLong(o.getOrDefault("split-seed", "1"));
    SparkSession spark = SparkSession.builder().master(master).appName("lprff spark example")
        .config("spark.ui.enabled", "false").getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    if (partitions < 0) {
      partitions = spark.sparkContext().defaultParallelism();
    }
    try {
      long start = System.nanoTime();
      Dataset<Row> train;
      Dataset<Row> heldout;
      String source;
      if (o.containsKey("train")) {
        if (!o.containsKey("heldout")) {
          throw usage("--train needs --heldout");
        }
        source = o.get("train") + " / " + o.get("heldout");
        train = LpRffTransformer.withRowIds(csv(spark, o.get("train")), "rowId");
        heldout = LpRffTransformer.withRowIds(csv(spark, o.get("heldout")), "rowId");
      } else {
        String path = o.get("diamonds");
        if (path == null) {
          throw usage("give --train and --heldout, or --diamonds PATH");
        }
        Dataset<Row> all = LpRffTransformer.withRowIds(csv(spark, path), "rowId");
        String price = all.columns()[all.columns().length - 2];
        // Regression on log(price); classification: is log(price) above 8 (about $2,981)?
        all = all.withColumn(price, classification
            ? functions.expr("cast(log(price) > 8 as double)")
            : functions.log(functions.col(price)));
        source = path + " (" + (classification ? "class log(price) > 8" : "log price")
            + ", demo split seed " + splitSeed + ")";
        Column isHeldout = functions.udf((Long id) -> RowSplit.heldout(splitSeed, id),
            org.apache.spark.sql.types.DataTypes.BooleanType).apply(functions.col("rowId"));
        train = all.filter(functions.not(isHeldout));
        heldout = all.filter(isHeldout);
      }
      String[] columns = train.columns();
      String label = columns[columns.length - 2];
      String[] inputs = Arrays.copyOf(columns, columns.length - 2);
      Dataset<Row> raw = train;
      train = standardized(train, raw, inputs, label, partitions).cache();
      heldout = standardized(heldout, raw, inputs, label, partitions);
      if (o.containsKey("save-split")) {
        saveSplit(train, heldout, inputs, o.get("save-split"));
      }
      long rows = train.count();
      System.err.printf(Locale.ROOT, "lprff spark example: %s, %d training rows, %d partitions,"
          + " %s; %s%n", source, rows, train.javaRDD().getNumPartitions(), master,
          VectorizationProvider.get().describe());

      LpRffTransformer featurizer = new LpRffTransformer().setInputCol("x")
          .setNumFeatures(intOption(o, "features", 2048)).setBits(intOption(o, "bits", 4))
          .setProjection(o.getOrDefault("projection", "circulant"))
          .setSeed(Long.parseLong(o.getOrDefault("seed", "0")));
      String sigma = o.getOrDefault("sigma", "2.0");
      long t0 = System.nanoTime();
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("task", task);
      if (sigma.equals("auto")) {
        // The estimator in the transformer's place: sigma chosen on the training rows' split.
        featurizer = new LpRffBandwidth(featurizer).setLabelCol(label).setTask(task)
            .setProgress(System.err::println).fit(train).transformer();
        json.put("sigma_search_seconds", (System.nanoTime() - t0) / 1e9);
        t0 = System.nanoTime();
      } else {
        featurizer.setSigma(positiveOption(sigma));
      }
      json.put("sigma", featurizer.getOrDefault(featurizer.sigma()));
      Dataset<Row> trainFeatures = featurizer.transform(train).cache();
      trainFeatures.count();
      double featurizeSeconds = (System.nanoTime() - t0) / 1e9;
      Dataset<Row> heldoutFeatures = featurizer.transform(heldout);
      if (o.containsKey("write-features")) {
        java.nio.file.Path dir = java.nio.file.Path.of(o.get("write-features"));
        org.lprff.arrow.LabelType labels = classification
            ? org.lprff.arrow.LabelType.CLASSES : org.lprff.arrow.LabelType.REGRESSION;
        for (var part : List.of(Map.entry("train", trainFeatures),
            Map.entry("heldout", heldoutFeatures))) {
          Dataset<Row> d = part.getValue().orderBy("rowId");
          var summary = LpRffFiles.writeArrow(d, "features", label, "rowId", labels,
              dir.resolve(part.getKey() + ".arrow"));
          LpRffFiles.writeParquet(d.select("rowId", label, "features"), "features",
              dir.resolve(part.getKey() + ".parquet").toString());
          System.err.printf(Locale.ROOT, "lprff spark example: wrote %s (%d rows) and %s%n",
              summary.file(), summary.rows(), dir.resolve(part.getKey() + ".parquet"));
        }
      }

      t0 = System.nanoTime();
      double metric;
      String solver;
      double l2;
      if (classification) {
        LpRffClassificationModel model = new LpRffClassifier().setLabelCol(label)
            .setSolver(o.getOrDefault("solver", "auto")).setProgress(System.err::println)
            .fit(trainFeatures);
        double seconds = (System.nanoTime() - t0) / 1e9;
        metric = model.transform(heldoutFeatures)
            .select(functions.avg(functions.expr("cast(prediction != `" + label
                + "` as double)"))).first().getDouble(0);
        json.put("heldout_error_rate", metric);
        json.put("train_seconds", seconds);
        solver = model.training().get("solver");
        l2 = model.l2();
        export(o, model::export);
      } else {
        LpRffRegressionModel model = new LpRffRegressor().setLabelCol(label)
            .setSolver(o.getOrDefault("solver", "auto")).setProgress(System.err::println)
            .fit(trainFeatures);
        double seconds = (System.nanoTime() - t0) / 1e9;
        metric = model.transform(heldoutFeatures)
            .select(functions.avg(functions.expr("pow(prediction - `" + label + "`, 2)")))
            .first().getDouble(0);
        json.put("heldout_mse", metric);
        json.put("train_seconds", seconds);
        solver = model.training().get("solver");
        l2 = model.l2();
        export(o, model::export);
      }
      json.put("rows", rows);
      json.put("heldout_rows", heldout.count());
      json.put("partitions", trainFeatures.javaRDD().getNumPartitions());
      json.put("master", master);
      json.put("features", intOption(o, "features", 2048));
      json.put("bits", intOption(o, "bits", 4));
      json.put("solver", solver);
      json.put("l2", l2);
      json.put("featurize_seconds", featurizeSeconds);
      json.put("featurize_rows_per_second", rows / featurizeSeconds);
      json.put("seconds", (System.nanoTime() - start) / 1e9);
      System.out.println(json(json));
    } finally {
      spark.stop();
    }
  }

  private static void export(Map<String, String> o, java.util.function.Consumer<String> export) {
    if (o.containsKey("model")) {
      export.accept(o.get("model"));
      System.err.println("lprff spark example: wrote " + o.get("model"));
    }
  }

  private static Dataset<Row> csv(SparkSession spark, String path) {
    return spark.read().option("header", "true").option("inferSchema", "true").csv(path);
  }

  /**
   * The rows with x = the {@link #standardized(Dataset, String[]) standardized} inputs, the label
   * as double, the row id; in {@code partitions} partitions, ordered by row id within each.
   */
  private static Dataset<Row> standardized(Dataset<Row> rows, Dataset<Row> stats, String[] inputs,
      String label, int partitions) {
    Column x = functions.array(standardized(stats, inputs)).as("x");
    return rows.select(functions.col("rowId"), x,
            functions.col("`" + label + "`").cast("double").as(label))
        .repartitionByRange(partitions, functions.col("rowId"))
        .sortWithinPartitions("rowId");
  }

  /**
   * The {@code inputs} columns standardized with the mean and sample standard deviation of {@code
   * stats}' rows (1 where it is 0 or undefined), as {@code lprff featurize --standardize} does.
   */
  static Column[] standardized(Dataset<Row> stats, String[] inputs) {
    List<Column> aggregates = new ArrayList<>();
    for (String c : inputs) {
      aggregates.add(functions.avg(functions.col("`" + c + "`").cast("double")));
      aggregates.add(functions.stddev_samp(functions.col("`" + c + "`").cast("double")));
    }
    Row s = stats.agg(aggregates.get(0), aggregates.subList(1, aggregates.size())
        .toArray(new Column[0])).first();
    Column[] x = new Column[inputs.length];
    for (int i = 0; i < inputs.length; i++) {
      double mean = s.getDouble(2 * i);
      double sd = s.isNullAt(2 * i + 1) || s.getDouble(2 * i + 1) == 0 ? 1 : s.getDouble(2 * i + 1);
      x[i] = functions.col("`" + inputs[i] + "`").cast("double").minus(mean).divide(sd);
    }
    return x;
  }

  /** Writes the split as two CSV files (inputs as read, label last) for the command line. */
  private static void saveSplit(Dataset<Row> train, Dataset<Row> heldout, String[] inputs,
      String dir) {
    System.err.println("lprff spark example: writing " + dir + "/train and " + dir
        + "/heldout (CSV: the standardized inputs, the label last)");
    for (var part : List.of(Map.entry("train", train), Map.entry("heldout", heldout))) {
      Dataset<Row> d = part.getValue();
      List<Column> cols = new ArrayList<>();
      for (int i = 0; i < inputs.length; i++) {
        cols.add(functions.col("x").getItem(i).as("x" + i));
      }
      cols.add(functions.col(d.columns()[2]));
      d.orderBy("rowId").select(cols.toArray(new Column[0])).coalesce(1).write()
          .mode("overwrite").option("header", "true").csv(dir + "/" + part.getKey());
    }
  }

  private static String json(Map<String, Object> map) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, Object> e : map.entrySet()) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append('"').append(e.getKey()).append("\": ");
      Object v = e.getValue();
      if (v instanceof Number) {
        b.append(v);
      } else {
        b.append('"').append(String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\""))
            .append('"');
      }
    }
    return b.append('}').toString();
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> o = new LinkedHashMap<>();
    List<String> known = List.of("master", "train", "heldout", "diamonds", "task", "features",
        "bits", "sigma", "projection", "seed", "solver", "partitions", "split-seed", "model",
        "save-split", "write-features");
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || !known.contains(a.substring(2))) {
        throw usage("unknown option '" + a + "'; options: --" + String.join(", --", known));
      }
      if (i + 1 == args.length) {
        throw usage(a + " needs a value");
      }
      o.put(a.substring(2), args[++i]);
    }
    return o;
  }

  private static int intOption(Map<String, String> o, String name, int fallback) {
    String v = o.get(name);
    try {
      return v == null ? fallback : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw usage("--" + name + " is '" + v + "', expected an integer");
    }
  }

  /** --sigma S: a number > 0 (auto is handled by the caller). */
  private static double positiveOption(String v) {
    double s;
    try {
      s = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      s = Double.NaN;
    }
    if (!(s > 0) || Double.isInfinite(s)) {
      throw usage("--sigma is '" + v + "', expected a number > 0 or auto");
    }
    return s;
  }

  private static IllegalArgumentException usage(String message) {
    return new IllegalArgumentException(message);
  }
}
