package org.lprff.spark;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

/**
 * LP-RFFs as a Spark ML {@link Transformer}: a vector or {@code array<float|double>} column in, the
 * packed feature column out ({@link FeatureColumn}: binary rows of the feature-file format, the
 * {@code lprff.*} spec in the column's metadata). Each partition featurizes its rows through the
 * library's fused kernels, {@value #CHUNK} rows a call whatever their ids (Spark's internal rows
 * in and out, no conversion to external rows); a row's bytes depend only on the spec and its row
 * id, so the output is the local featurizer's, bit for bit, however the data is partitioned or
 * ordered. Row ids come from {@link #rowIdCol()}; {@link #withRowIds} numbers a DataFrame's rows
 * 0, 1, ... in its order, as a feature file does.
 *
 * <p>Params: {@code inputCol}, {@code outputCol} ("features"), {@code rowIdCol} ("rowId"),
 * {@code kernel} ("gaussian"; "laplacian", "matern"), {@code sigma} (1.0; the length scale for
 * matern), {@code nu} (1.5, matern only), {@code numFeatures} (1024), {@code bits} (4; 1, 2, 4, 8,
 * 16, or 32 for float32), {@code projection} ("circulant"; "dense", "fastfood", "orthogonal"),
 * {@code seed} (0), {@code quantizer} ("stochastic"; any {@link Quantizer#parse} spelling: "nearest", "shared-threshold", "lloyd-max", "sigma-delta:1:4"), {@code inputDim} (0: from the
 * column's ML attributes, else from its first row).
 */
public final class LpRffTransformer extends Transformer implements DefaultParamsWritable {

  private static final long serialVersionUID = 1L;
  /** Rows featurized per call of the fused kernel. */
  private static final int CHUNK = 256;

  private final String uid;
  private final Param<String> inputCol;
  private final Param<String> outputCol;
  private final Param<String> rowIdCol;
  private final Param<String> kernel;
  private final DoubleParam sigma;
  private final DoubleParam nu;
  private final IntParam numFeatures;
  private final IntParam bits;
  private final Param<String> projection;
  private final LongParam seed;
  private final Param<String> quantizer;
  private final IntParam inputDim;

  public LpRffTransformer() {
    this(Identifiable.randomUID("lpRff"));
  }

  public LpRffTransformer(String uid) {
    this.uid = uid;
    inputCol = new Param<>(uid, "inputCol", "the input vectors: vector or array<float|double>");
    outputCol = new Param<>(uid, "outputCol", "the packed feature column (binary)");
    rowIdCol = new Param<>(uid, "rowIdCol", "the row ids (long): a row's bytes depend on it");
    kernel = new Param<>(uid, "kernel", "gaussian, laplacian or matern");
    sigma = new DoubleParam(uid, "sigma", "the kernel's bandwidth (matern: its length scale)");
    nu = new DoubleParam(uid, "nu", "matern's smoothness nu");
    numFeatures = new IntParam(uid, "numFeatures", "features per row m");
    bits = new IntParam(uid, "bits", "bits per feature: 1, 2, 4, 8, 16, or 32 for float32");
    projection = new Param<>(uid, "projection", "dense, circulant, fastfood or orthogonal");
    seed = new LongParam(uid, "seed", "the seed of the projection and the rounding");
    quantizer = new Param<>(uid, "quantizer", "stochastic, nearest, shared-threshold, lloyd-max or sigma-delta[:ORDER[:BLOCK]]");
    inputDim = new IntParam(uid, "inputDim",
        "the input width d; 0 reads it from the column's ML attributes or its first row");
    setDefault(outputCol, "features");
    setDefault(rowIdCol, "rowId");
    setDefault(kernel, "gaussian");
    setDefault(sigma, 1.0);
    setDefault(nu, 1.5);
    setDefault(numFeatures, 1024);
    setDefault(bits, 4);
    setDefault(projection, "circulant");
    setDefault(seed, 0L);
    setDefault(quantizer, "stochastic");
    setDefault(inputDim, 0);
  }

  @Override
  public String uid() {
    return uid;
  }

  public Param<String> inputCol() { return inputCol; }
  public Param<String> outputCol() { return outputCol; }
  public Param<String> rowIdCol() { return rowIdCol; }
  public Param<String> kernel() { return kernel; }
  public DoubleParam sigma() { return sigma; }
  public DoubleParam nu() { return nu; }
  public IntParam numFeatures() { return numFeatures; }
  public IntParam bits() { return bits; }
  public Param<String> projection() { return projection; }
  public LongParam seed() { return seed; }
  public Param<String> quantizer() { return quantizer; }
  public IntParam inputDim() { return inputDim; }

  public LpRffTransformer setInputCol(String value) { set(inputCol, value); return this; }
  public LpRffTransformer setOutputCol(String value) { set(outputCol, value); return this; }
  public LpRffTransformer setRowIdCol(String value) { set(rowIdCol, value); return this; }
  public LpRffTransformer setKernel(String value) { set(kernel, value); return this; }
  public LpRffTransformer setSigma(double value) { set(sigma, value); return this; }
  public LpRffTransformer setNu(double value) { set(nu, value); return this; }
  public LpRffTransformer setNumFeatures(int value) { set(numFeatures, value); return this; }
  public LpRffTransformer setBits(int value) { set(bits, value); return this; }
  public LpRffTransformer setProjection(String value) { set(projection, value); return this; }
  public LpRffTransformer setSeed(long value) { set(seed, value); return this; }
  public LpRffTransformer setQuantizer(String value) { set(quantizer, value); return this; }
  public LpRffTransformer setInputDim(int value) { set(inputDim, value); return this; }

  /**
   * The spec of these params for input width {@code d}.
   *
   * @throws IllegalArgumentException naming the param and value that is invalid
   */
  public FeaturizerSpec spec(int d) {
    String kernelName = getOrDefault(kernel);
    double s = (Double) getOrDefault(sigma);
    Map<String, String> k = new LinkedHashMap<>();
    k.put("kernel", kernelName);
    if ("matern".equals(kernelName)) {
      k.put("nu", Double.toString((Double) getOrDefault(nu)));
      k.put("length_scale", Double.toString(s));
    } else {
      k.put("sigma", Double.toString(s));
    }
    try {
      KernelFunction kf = KernelFunction.fromMap(k);
      return new FeaturizerSpec(kf, d, (Integer) getOrDefault(numFeatures),
          (Integer) getOrDefault(bits), getOrDefault(projection), (Long) getOrDefault(seed),
          Quantizer.parse(getOrDefault(quantizer)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("LpRffTransformer params: " + e.getMessage(), e);
    }
  }

  @Override
  public StructType transformSchema(StructType schema) {
    if (!isSet(inputCol)) {
      throw new IllegalArgumentException("LpRffTransformer: inputCol is not set; setInputCol(name)"
          + " with a vector or array<float|double> column");
    }
    String in = getOrDefault(inputCol);
    StructField field = FeatureColumn.field(schema, in, "LpRffTransformer's input");
    if (!FeatureColumn.numericVectorType(field.dataType())) {
      throw new IllegalArgumentException("input column '" + in + "' is "
          + field.dataType().simpleString() + ", expected vector or array<float|double>");
    }
    FeatureColumn.requireRowIds(schema, getOrDefault(rowIdCol));
    String out = getOrDefault(outputCol);
    if (List.of(schema.fieldNames()).contains(out)) {
      throw new IllegalArgumentException("output column '" + out + "' already exists; choose"
          + " another outputCol");
    }
    int d = declaredDim(field);
    FeaturizerSpec spec = spec(Math.max(d, 1)); // checks every param
    StructField output = d > 0
        ? new StructField(out, DataTypes.BinaryType, false,
            FeatureColumn.metadata(spec, Metadata.empty()))
        : new StructField(out, DataTypes.BinaryType, false,
            Metadata.empty());
    return schema.add(output);
  }

  /** d from the inputDim param or the column's ML attributes; 0 when neither says. */
  private int declaredDim(StructField field) {
    int d = (Integer) getOrDefault(inputDim);
    if (d < 0) {
      throw new IllegalArgumentException("inputDim is " + d + ", expected >= 1 (or 0: infer)");
    }
    if (d == 0 && field.dataType().equals(SQLDataTypes.VectorType())) {
      d = Math.max(0, AttributeGroup.fromStructField(field).size());
    }
    return d;
  }

  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    StructType schema = dataset.schema();
    transformSchema(schema);
    String in = getOrDefault(inputCol);
    StructField field = FeatureColumn.field(schema, in, "LpRffTransformer's input");
    int d = declaredDim(field);
    if (d == 0) {
      Row first = dataset.select(in).head();
      d = InputRows.width(first, 0, in);
    }
    FeaturizerSpec spec = spec(d);
    String out = getOrDefault(outputCol);
    Metadata metadata =
        FeatureColumn.metadata(spec, Metadata.empty());
    StructType outSchema = schema.add(new StructField(out, DataTypes.BinaryType, false, metadata));
    int inIndex = schema.fieldIndex(in);
    int idIndex = schema.fieldIndex(getOrDefault(rowIdCol));
    InputRows.Reader reader = new InputRows.Reader(in, inIndex,
        field.dataType().equals(SQLDataTypes.VectorType()),
        field.dataType() instanceof ArrayType a && a.elementType().equals(DataTypes.FloatType),
        getOrDefault(rowIdCol), idIndex,
        schema.fields()[idIndex].dataType().equals(DataTypes.IntegerType));
    Map<String, String> specMap = spec.toMap();
    // Spark's internal rows, in and out: no conversion to and from external Rows, whose cost
    // is several times the featurizer's at small d (the input row is copied once, as bytes).
    JavaRDD<InternalRow> featurized = dataset.toDF().queryExecution().toRdd().toJavaRDD()
        .mapPartitions(rows -> featurizePartition(rows, specMap, reader));
    return ((org.apache.spark.sql.classic.SparkSession) dataset.sparkSession())
        .internalCreateDataFrame(featurized.rdd(), outSchema, false);
  }

  /** One partition: chunks of rows, each featurized in one call with the rows' ids. */
  private static Iterator<InternalRow> featurizePartition(Iterator<InternalRow> rows,
      Map<String, String> specMap, InputRows.Reader reader) {
    FeaturizerSpec spec = FeaturizerSpec.fromMap(specMap);
    Featurizer featurizer = InputRows.featurizer(spec);
    int d = spec.inputDim();
    int rowBytes = featurizer.rowBytes();
    return new Iterator<>() {
      private final InternalRow[] chunk = new InternalRow[CHUNK];
      private final float[] values = new float[CHUNK * d];
      private final long[] ids = new long[CHUNK];
      private final MemorySegment out = Arena.ofAuto().allocate((long) CHUNK * rowBytes, 64);
      private int size;
      private int next;

      @Override
      public boolean hasNext() {
        return next < size || fill();
      }

      @Override
      public InternalRow next() {
        if (!hasNext()) {
          throw new NoSuchElementException("the partition has no more rows");
        }
        byte[] bytes = new byte[rowBytes];
        MemorySegment.copy(out, ValueLayout.JAVA_BYTE, (long) next * rowBytes, bytes, 0, rowBytes);
        return new JoinedRow(chunk[next++], new GenericInternalRow(new Object[] {bytes}));
      }

      private boolean fill() {
        size = 0;
        next = 0;
        while (size < CHUNK && rows.hasNext()) {
          InternalRow row = rows.next().copy(); // the iterator reuses its row
          ids[size] = reader.rowId(row);
          reader.read(row, ids[size], d, values, size * d);
          chunk[size++] = row;
        }
        if (size > 0) {
          featurizer.featurize(values, size, ids, out, 0);
        }
        return size > 0;
      }
    };
  }

  /**
   * {@code df} with a long column {@code column} numbering its rows 0, 1, ... in the DataFrame's
   * order (RDD zipWithIndex: one extra job when there is more than one partition), the ids a
   * feature file written from the same rows in the same order has.
   */
  public static Dataset<Row> withRowIds(Dataset<?> df, String column) {
    StructType schema = df.schema().add(column, DataTypes.LongType, false);
    var indexed = df.toDF().javaRDD().zipWithIndex().map(t -> {
      Row row = t._1();
      Object[] fields = new Object[row.size() + 1];
      for (int i = 0; i < row.size(); i++) {
        fields[i] = row.get(i);
      }
      fields[row.size()] = t._2();
      return RowFactory.create(fields);
    });
    return df.sparkSession().createDataFrame(indexed, schema);
  }

  @Override
  public LpRffTransformer copy(ParamMap extra) {
    return defaultCopy(extra);
  }

  public static MLReader<LpRffTransformer> read() {
    return new DefaultParamsReader<>();
  }

  public static LpRffTransformer load(String path) {
    return read().load(path);
  }
}
