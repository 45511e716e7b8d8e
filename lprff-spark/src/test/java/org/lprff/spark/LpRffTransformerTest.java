package org.lprff.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;

class LpRffTransformerTest extends SparkTestBase {

  private static final int N = 3000;
  private static final Diamonds.Split DATA = Diamonds.split(Diamonds.sample(N, 5), N, 0);

  /** Every row's bytes, by row id, equal the local featurizer's for the same id and spec. */
  @ParameterizedTest(name = "{0} partitions, {1}, b = {2}, {3}")
  @CsvSource({"1, circulant, 4, stochastic", "2, circulant, 4, stochastic",
      "7, circulant, 4, stochastic", "7, dense, 1, stochastic", "2, fastfood, 8, stochastic",
      "7, orthogonal, 32, stochastic", "7, circulant, 2, lloyd-max",
      "2, circulant, 1, shared-threshold", "7, dense, 4, sigma-delta:2:8"})
  void bytesEqualTheLocalFeaturizersWhateverThePartitioning(int partitions, String projection,
      int bits, String quantizer) {
    long firstId = 100; // ids need not start at 0
    LpRffTransformer t = new LpRffTransformer().setInputCol("x").setNumFeatures(200)
        .setBits(bits).setProjection(projection).setSigma(2.0).setSeed(17)
        .setQuantizer(quantizer);
    Dataset<Row> out = t.transform(frame(DATA.trainX(), Diamonds.D, DATA.trainY(), firstId,
        partitions));
    assertEquals(partitions, out.javaRDD().getNumPartitions());
    FeaturizerSpec spec = FeatureColumn.spec(out.schema(), "features");
    assertEquals(t.spec(Diamonds.D), spec);
    byte[] expected = Featurizer.of(spec).featurize(DATA.trainX(), N, firstId);
    int rowBytes = spec.rowBytes();
    List<Row> rows = out.select("rowId", "features").collectAsList();
    assertEquals(N, rows.size());
    for (Row row : rows) {
      int r = (int) (row.getLong(0) - firstId);
      byte[] bytes = (byte[]) row.get(1);
      assertArrayEquals(java.util.Arrays.copyOfRange(expected, r * rowBytes, (r + 1) * rowBytes),
          bytes, "row id " + row.getLong(0));
    }
  }

  @Test
  void arraysOfFloatOrDoubleGiveTheVectorsBytes() {
    StructType schema = new StructType().add("rowId", DataTypes.LongType)
        .add("f", DataTypes.createArrayType(DataTypes.FloatType))
        .add("v", SQLDataTypes.VectorType());
    List<Row> rows = List.of(
        RowFactory.create(0L, new float[] {0.5f, -1f}, Vectors.dense(0.5, -1)),
        RowFactory.create(1L, new float[] {2f, 0.25f}, Vectors.dense(2, 0.25)));
    Dataset<Row> df = spark.createDataFrame(rows, schema);
    List<Row> a = new LpRffTransformer().setInputCol("f").setOutputCol("a").setNumFeatures(64)
        .transform(df).select("a").collectAsList();
    List<Row> b = new LpRffTransformer().setInputCol("v").setOutputCol("b").setNumFeatures(64)
        .transform(df).select("b").collectAsList();
    for (int r = 0; r < 2; r++) {
      assertArrayEquals((byte[]) b.get(r).get(0), (byte[]) a.get(r).get(0));
    }
  }

  @Test
  void saveAndLoadKeepEveryParamAndTheBytes(@TempDir Path dir) throws Exception {
    LpRffTransformer t = new LpRffTransformer().setInputCol("x").setOutputCol("z")
        .setNumFeatures(96).setBits(2).setProjection("dense").setKernel("laplacian")
        .setSigma(3.5).setSeed(-4).setQuantizer("nearest");
    String path = dir.resolve("transformer").toString();
    t.save(path);
    LpRffTransformer loaded = LpRffTransformer.load(path);
    assertEquals(t.uid(), loaded.uid());
    assertEquals(t.spec(9), loaded.spec(9));
    assertEquals("z", loaded.getOrDefault(loaded.outputCol()));
    Dataset<Row> df = frame(DATA.trainX(), Diamonds.D, DATA.trainY(), 0, 2).limit(50);
    List<Row> a = t.transform(df).select("z").collectAsList();
    List<Row> b = loaded.transform(df).select("z").collectAsList();
    for (int r = 0; r < a.size(); r++) {
      assertArrayEquals((byte[]) a.get(r).get(0), (byte[]) b.get(r).get(0));
    }
  }

  @Test
  void badParamsAreRefusedAtTransformSchemaNamingTheValue() {
    StructType schema = frame(DATA.trainX(), Diamonds.D, DATA.trainY(), 0, 1).schema()
        .add("name", DataTypes.StringType);
    assertMessage("bits is 3", () -> new LpRffTransformer().setInputCol("x").setBits(3)
        .transformSchema(schema));
    assertMessage("no column 'nope'", () -> new LpRffTransformer().setInputCol("nope")
        .transformSchema(schema));
    assertMessage("input column 'name' is string", () -> new LpRffTransformer()
        .setInputCol("name").transformSchema(schema));
    assertMessage("inputCol is not set", () -> new LpRffTransformer().transformSchema(schema));
    assertMessage("no column 'id'", () -> new LpRffTransformer().setInputCol("x")
        .setRowIdCol("id").transformSchema(schema));
    assertMessage("projection 'fastfood' needs a Gaussian", () -> new LpRffTransformer()
        .setInputCol("x").setKernel("laplacian").setProjection("fastfood")
        .transformSchema(schema));
  }

  @Test
  void badRowsAreRefusedAtTheFirstOneNamingColumnRowAndValue() {
    StructType schema = new StructType().add("rowId", DataTypes.LongType)
        .add("x", SQLDataTypes.VectorType());
    Dataset<Row> wrongSize = spark.createDataFrame(List.of(
        RowFactory.create(0L, Vectors.dense(1, 2, 3)),
        RowFactory.create(1L, Vectors.dense(1, 2))), schema);
    assertMessage("column 'x' of the row with id 1 has 2 values, expected inputDim d = 3",
        () -> new LpRffTransformer().setInputCol("x").transform(wrongSize).count());
    Dataset<Row> nan = spark.createDataFrame(List.of(
        RowFactory.create(0L, Vectors.dense(1, 2)),
        RowFactory.create(7L, Vectors.dense(1, Double.NaN))), schema);
    assertMessage("column 'x' of the row with id 7 has NaN at index 1",
        () -> new LpRffTransformer().setInputCol("x").transform(nan).count());
  }

  @Test
  void withRowIdsNumbersRowsInOrder() {
    Dataset<Row> df = frame(DATA.trainX(), Diamonds.D, DATA.trainY(), 0, 3).drop("rowId");
    List<Row> rows = LpRffTransformer.withRowIds(df, "id").select("id").collectAsList();
    for (int r = 0; r < rows.size(); r++) {
      assertEquals(r, rows.get(r).getLong(0));
    }
  }

  static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
    Throwable e = assertThrows(Exception.class, call);
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append(" | ");
    }
    assertTrue(all.toString().contains(expected), "expected '" + expected + "' in: " + all);
  }
}
