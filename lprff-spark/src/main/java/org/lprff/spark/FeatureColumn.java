package org.lprff.spark;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * The packed feature column of a DataFrame: binary, one feature-file row per value ({@code
 * ceil(m b / 8)} bytes of b-bit codes, or 4 m bytes of little-endian float32 for b = 32, DESIGN.md
 * section 3), with the spec as the column's metadata: the same {@code lprff.*} strings a feature
 * file's schema carries ({@link FeaturizerSpec#toMap}). Parquet written by Spark keeps a column's
 * metadata, so the spec travels with the column there too.
 */
public final class FeatureColumn {

  private FeatureColumn() {}

  /** The column's metadata for {@code spec}, added to {@code base}'s. */
  public static Metadata metadata(FeaturizerSpec spec, Metadata base) {
    MetadataBuilder b = new MetadataBuilder().withMetadata(base);
    for (Map.Entry<String, String> e : spec.toMap().entrySet()) {
      b.putString(e.getKey(), e.getValue());
    }
    return b.build();
  }

  /** True if the field's metadata holds a spec. */
  public static boolean hasSpec(StructField field) {
    return field.metadata().contains(FeaturizerSpec.KEY_KERNEL);
  }

  /**
   * The spec of a packed feature column.
   *
   * @throws IllegalArgumentException naming the column if it is not binary or has no spec, or its
   *     spec is invalid
   */
  public static FeaturizerSpec spec(StructType schema, String column) {
    StructField field = field(schema, column, "the packed features");
    if (!field.dataType().equals(DataTypes.BinaryType)) {
      throw new IllegalArgumentException("column '" + column + "' is " + field.dataType()
          .simpleString() + ", expected binary packed features (LpRffTransformer's output)");
    }
    if (!hasSpec(field)) {
      throw new IllegalArgumentException("column '" + column + "' has no lprff spec in its"
          + " metadata; make it with LpRffTransformer or read it with LpRffFiles");
    }
    Map<String, String> map = new LinkedHashMap<>();
    scala.collection.Iterator<String> keys = field.metadata().map().keysIterator();
    while (keys.hasNext()) {
      String key = keys.next();
      if (key.startsWith(FeaturizerSpec.PREFIX)) {
        map.put(key, field.metadata().getString(key));
      }
    }
    try {
      return FeaturizerSpec.fromMap(map);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("column '" + column + "': " + e.getMessage(), e);
    }
  }

  /**
   * The packed bytes of {@code row}'s field {@code index} (column {@code column}), refusing a null
   * or a value of other than the spec's {@code rowBytes}, naming the row id.
   */
  static byte[] packedRow(Row row, int index, String column, long id, int rowBytes) {
    byte[] bytes = (byte[]) row.get(index);
    if (bytes == null || bytes.length != rowBytes) {
      throw new IllegalArgumentException("column '" + column + "' has "
          + (bytes == null ? "null" : bytes.length + " bytes") + " in the row with id " + id
          + ", its spec says " + rowBytes + " bytes");
    }
    return bytes;
  }

  /** The label of {@code row}'s field {@code index} (column {@code column}), refusing a null. */
  static double label(Row row, int index, String column, long id) {
    if (row.isNullAt(index)) {
      throw new IllegalArgumentException("label column '" + column + "' is null in the row with id "
          + id);
    }
    return ((Number) row.get(index)).doubleValue();
  }

  /** The field of {@code column}, or an error naming the columns there are. */
  static StructField field(StructType schema, String column, String role) {
    if (column == null || column.isEmpty()) {
      throw new IllegalArgumentException("the column of " + role + " is not set");
    }
    for (StructField f : schema.fields()) {
      if (f.name().equals(column)) {
        return f;
      }
    }
    throw new IllegalArgumentException("no column '" + column + "' (" + role + ") among "
        + String.join(", ", schema.fieldNames()));
  }

  /** True for the input types the transformer reads: ml vectors, arrays of float or double. */
  static boolean numericVectorType(DataType type) {
    if (type.equals(SQLDataTypes.VectorType())) {
      return true;
    }
    return type instanceof ArrayType a
        && (a.elementType().equals(DataTypes.FloatType)
            || a.elementType().equals(DataTypes.DoubleType));
  }

  /** Checks a row-id column: long or int. */
  static void requireRowIds(StructType schema, String column) {
    StructField f = field(schema, column, "the row ids");
    if (!f.dataType().equals(DataTypes.LongType) && !f.dataType().equals(DataTypes.IntegerType)) {
      throw new IllegalArgumentException("row id column '" + column + "' is "
          + f.dataType().simpleString() + ", expected long (add one with"
          + " LpRffTransformer.withRowIds(df, \"" + column + "\"))");
    }
  }
}
