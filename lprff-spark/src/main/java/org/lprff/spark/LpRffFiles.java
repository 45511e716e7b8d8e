package org.lprff.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructType;
import org.lprff.arrow.FeatureFile;
import org.lprff.arrow.FeatureSchema;
import org.lprff.arrow.FeatureWriter;
import org.lprff.arrow.LabelType;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;

/**
 * The packed feature column in and out of files: Arrow IPC feature files (the project's format:
 * {@code lprff info}, {@code lprff train} and any Arrow tool read them) and Parquet (Spark keeps
 * the column's {@code lprff.*} metadata in the file's Spark schema, so the spec comes back with
 * the column).
 *
 * <p>A feature file is one file on the driver's file system: {@link #writeArrow} streams the
 * partitions to the driver one at a time ({@code toLocalIterator}) and writes record batches as
 * they come, atomically; {@link #readArrow} reads one record batch per task, so the file must be
 * where the executors can read it (local mode, or a shared file system).
 */
public final class LpRffFiles {

  /** Column names of a DataFrame read from a feature file. */
  public static final String ROW_ID = "rowId";
  public static final String LABEL = "label";
  public static final String FEATURES = "features";

  private LpRffFiles() {}

  /**
   * Writes {@code df}'s packed column {@code featuresCol} with its row ids and, unless {@code
   * labels} is NONE, the labels of {@code labelCol} (REGRESSION: float targets; CLASSES: class
   * indices), as an Arrow IPC feature file at {@code target}, replacing it atomically.
   *
   * @throws IllegalArgumentException naming the column or row if a column is missing or of the
   *     wrong type, or a label is not valid for {@code labels}
   */
  public static FeatureWriter.Summary writeArrow(Dataset<?> df, String featuresCol,
      String labelCol, String rowIdCol, LabelType labels, Path target) {
    FeaturizerSpec spec = FeatureColumn.spec(df.schema(), featuresCol);
    FeatureColumn.requireRowIds(df.schema(), rowIdCol);
    boolean labelled = labels != LabelType.NONE;
    Dataset<Row> selected = labelled
        ? df.select(featuresCol, rowIdCol, labelCol) : df.select(featuresCol, rowIdCol);
    FeatureSchema schema = FeatureSchema.of(spec, labels, true);
    int rowBytes = spec.rowBytes();
    int batch = FeatureWriter.DEFAULT_BATCH_SIZE;
    try (BufferAllocator allocator = new RootAllocator();
        FeatureWriter writer = FeatureWriter.builder(target, Featurizer.of(spec), schema,
            allocator).open()) {
      byte[] features = new byte[batch * rowBytes];
      float[] y = labelled ? new float[batch] : null;
      long[] ids = new long[batch];
      int n = 0;
      Iterator<Row> rows = selected.toLocalIterator();
      while (rows.hasNext()) {
        Row row = rows.next();
        ids[n] = InputRows.rowId(row, 1);
        System.arraycopy(FeatureColumn.packedRow(row, 0, featuresCol, ids[n], rowBytes), 0,
            features, n * rowBytes, rowBytes);
        if (labelled) {
          y[n] = (float) FeatureColumn.label(row, 2, labelCol, ids[n]);
        }
        if (++n == batch) {
          writer.writeFeaturized(features, 0, n, y, ids);
          n = 0;
        }
      }
      writer.writeFeaturized(features, 0, n, y, ids);
      return writer.finish();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the feature file " + target + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * A feature file as a DataFrame: {@value #ROW_ID} (long; the file's row ids, or the row's
   * index where it has none), {@value #LABEL} (double, where the file has labels) and {@value
   * #FEATURES} (binary, the spec in its metadata); one partition per record batch.
   *
   * @throws UncheckedIOException naming the file if it cannot be read or is not a feature file
   */
  public static Dataset<Row> readArrow(SparkSession spark, Path file) {
    FeaturizerSpec spec;
    LabelType labels;
    List<long[]> batches = new ArrayList<>(); // {index, first row}
    try (BufferAllocator allocator = new RootAllocator();
        FeatureFile f = FeatureFile.open(file, allocator)) {
      spec = f.spec();
      labels = f.featureSchema().labelType();
      long first = 0;
      for (int i = 0; i < f.batchCount(); i++) {
        batches.add(new long[] {i, first});
        first += f.batchRows(i);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
    StructType schema = new StructType().add(ROW_ID, DataTypes.LongType, false);
    if (labels != LabelType.NONE) {
      schema = schema.add(LABEL, DataTypes.DoubleType, false);
    }
    schema = schema.add(FEATURES, DataTypes.BinaryType, false,
        FeatureColumn.metadata(spec, Metadata.empty()));
    String path = file.toAbsolutePath().toString();
    int rowBytes = spec.rowBytes();
    LabelType type = labels;
    JavaRDD<Row> rows = JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(batches, Math.max(1, batches.size()))
        .flatMap(b -> readBatch(path, (int) b[0], b[1], rowBytes, type).iterator());
    return spark.createDataFrame(rows, schema);
  }

  /** The rows of record batch {@code index} of a feature file. */
  private static List<Row> readBatch(String path, int index, long firstRow, int rowBytes,
      LabelType labels) throws IOException {
    try (BufferAllocator allocator = new RootAllocator();
        FeatureFile f = FeatureFile.open(Path.of(path), allocator)) {
      FeatureFile.Batch batch = f.read(index);
      List<Row> rows = new ArrayList<>(batch.rows());
      for (int r = 0; r < batch.rows(); r++) {
        long id = batch.rowIds() != null ? batch.rowIds().get(LittleEndian.LONG, 8L * r)
            : firstRow + r;
        byte[] bytes = batch.features().asSlice((long) r * rowBytes, rowBytes)
            .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        rows.add(switch (labels) {
          case NONE -> RowFactory.create(id, bytes);
          case REGRESSION -> RowFactory.create(id,
              (double) batch.labels().get(LittleEndian.FLOAT, 4L * r), bytes);
          case CLASSES -> RowFactory.create(id,
              (double) batch.labels().get(LittleEndian.INT, 4L * r), bytes);
        });
      }
      return rows;
    }
  }

  /** Writes {@code df} as Parquet at {@code path}; the packed column keeps its spec. */
  public static void writeParquet(Dataset<?> df, String featuresCol, String path) {
    FeatureColumn.spec(df.schema(), featuresCol); // refuse a column without a spec up front
    df.write().mode("overwrite").parquet(path);
  }

  /**
   * Parquet written by {@link #writeParquet}, with the packed column's spec checked.
   *
   * @throws IllegalArgumentException naming the column if it lost its spec or is not binary
   */
  public static Dataset<Row> readParquet(SparkSession spark, String path, String featuresCol) {
    Dataset<Row> df = spark.read().parquet(path);
    FeatureColumn.spec(df.schema(), featuresCol);
    return df;
  }
}
