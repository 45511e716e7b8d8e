package org.lprff.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.FeatureFile;
import org.lprff.arrow.FeatureWriter;
import org.lprff.arrow.LabelType;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;

class LpRffFilesTest extends SparkTestBase {

  private static final int N = 2500;
  private static final Diamonds.Split DATA = Diamonds.split(Diamonds.sample(N, 9), N, 0);

  private static Dataset<Row> features(int bits) {
    return new LpRffTransformer().setInputCol("x").setNumFeatures(100).setBits(bits)
        .transform(frame(DATA.trainX(), Diamonds.D, DATA.trainY(), 0, 3));
  }

  /**
   * The Arrow feature file holds, in the DataFrame's order, each row's bytes (the local
   * featurizer's), label and id, with the column's spec; read back as a DataFrame it gives the
   * same rows.
   */
  @Test
  void arrowFeatureFilesRoundTripTheBytes(@TempDir Path dir) throws Exception {
    for (int bits : new int[] {2, 32}) {
      Dataset<Row> df = features(bits).orderBy("rowId");
      Path file = dir.resolve("f" + bits + ".arrow");
      FeatureWriter.Summary summary = LpRffFiles.writeArrow(df, "features", "label", "rowId",
          LabelType.REGRESSION, file);
      assertEquals(N, summary.rows());
      FeaturizerSpec spec = FeatureColumn.spec(df.schema(), "features");
      byte[] expected = Featurizer.of(spec).featurize(DATA.trainX(), N, 0);
      try (BufferAllocator allocator = new RootAllocator();
          FeatureFile f = FeatureFile.open(file, allocator)) {
        assertEquals(spec, f.spec());
        assertEquals(LabelType.REGRESSION, f.featureSchema().labelType());
        long row = 0;
        for (int i = 0; i < f.batchCount(); i++) {
          FeatureFile.Batch b = f.read(i);
          byte[] got = b.features().toArray(ValueLayout.JAVA_BYTE);
          int from = (int) row * spec.rowBytes();
          assertArrayEquals(java.util.Arrays.copyOfRange(expected, from, from + got.length), got);
          for (int r = 0; r < b.rows(); r++, row++) {
            assertEquals(row, b.rowIds().get(LittleEndian.LONG, 8L * r));
            assertEquals((float) DATA.trainY()[(int) row], b.labels().get(LittleEndian.FLOAT,
                4L * r));
          }
        }
        assertEquals(N, row);
      }
      Dataset<Row> back = LpRffFiles.readArrow(spark, file);
      assertEquals(spec, FeatureColumn.spec(back.schema(), "features"));
      assertSameRows(df, back);
    }
  }

  @Test
  void parquetKeepsTheSpecAndTheBytes(@TempDir Path dir) {
    Dataset<Row> df = features(4);
    String path = dir.resolve("features.parquet").toString();
    LpRffFiles.writeParquet(df.select("rowId", "label", "features"), "features", path);
    Dataset<Row> back = LpRffFiles.readParquet(spark, path, "features");
    assertEquals(FeatureColumn.spec(df.schema(), "features"),
        FeatureColumn.spec(back.schema(), "features"));
    assertSameRows(df, back);
  }

  @Test
  void aColumnWithoutSpecIsRefusedAndNoFileIsLeft(@TempDir Path dir) {
    Dataset<Row> df = features(4);
    Dataset<Row> stripped = df.withMetadata("features",
        org.apache.spark.sql.types.Metadata.empty());
    Path file = dir.resolve("none.arrow");
    LpRffTransformerTest.assertMessage("column 'features' has no lprff spec",
        () -> LpRffFiles.writeArrow(stripped, "features", "label", "rowId", LabelType.REGRESSION,
            file));
    assertFalse(Files.exists(file));
    LpRffTransformerTest.assertMessage("label column 'label' is null in the row with id",
        () -> LpRffFiles.writeArrow(df.withColumn("label", org.apache.spark.sql.functions.expr(
            "if(rowId = 1234, null, label)")), "features", "label", "rowId",
            LabelType.REGRESSION, file));
    assertFalse(Files.exists(file));
  }

  private static void assertSameRows(Dataset<Row> expected, Dataset<Row> actual) {
    List<Row> a = expected.select("rowId", "label", "features").orderBy("rowId").collectAsList();
    List<Row> b = actual.select("rowId", "label", "features").orderBy("rowId").collectAsList();
    assertEquals(a.size(), b.size());
    for (int r = 0; r < a.size(); r++) {
      assertEquals(a.get(r).getLong(0), b.get(r).getLong(0));
      assertEquals((float) a.get(r).getDouble(1), (float) b.get(r).getDouble(1));
      assertArrayEquals((byte[]) a.get(r).get(2), (byte[]) b.get(r).get(2));
    }
  }
}
