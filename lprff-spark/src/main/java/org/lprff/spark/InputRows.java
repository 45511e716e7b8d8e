package org.lprff.spark;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.UserDefinedType;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * Reading the transformer's input rows on an executor: the row id, the input vector as d floats
 * (every value checked, the message naming column, row id, index and value), and the featurizer of
 * a spec, built once per JVM (a projection's parameters take a while to draw).
 */
final class InputRows {

  /** The few most recent featurizers of this JVM, by spec. */
  private static final Map<FeaturizerSpec, Featurizer> FEATURIZERS =
      new LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<FeaturizerSpec, Featurizer> eldest) {
          return size() > 4;
        }
      };

  private InputRows() {}

  static Featurizer featurizer(FeaturizerSpec spec) {
    synchronized (FEATURIZERS) {
      return FEATURIZERS.computeIfAbsent(spec, Featurizer::of);
    }
  }

  static long rowId(Row row, int index) {
    if (row.isNullAt(index)) {
      throw new IllegalArgumentException("row id column '" + row.schema().fieldNames()[index]
          + "' is null in a row; every row needs an id");
    }
    return ((Number) row.get(index)).longValue();
  }

  /** The number of values of the input at {@code index}. */
  static int width(Row row, int index, String column) {
    Object v = row.get(index);
    if (v == null) {
      throw new IllegalArgumentException("column '" + column + "' is null in its first row");
    }
    return v instanceof Vector vector ? vector.size() : ((scala.collection.Seq<?>) v).size();
  }

  /**
   * Reads the input at {@code index} of an external row (a vector or an array of numbers) into
   * {@code out[off .. off + d)}, checking it as {@link Reader#read} does.
   */
  static void values(Row row, int index, String column, long id, int d, float[] out, int off) {
    Object v = row.get(index);
    if (v == null) {
      throw new IllegalArgumentException(
          "column '" + column + "' is null in the row with id " + id);
    }
    if (v instanceof Vector vector) {
      check(column, id, vector.size(), d);
      for (int i = 0; i < d; i++) {
        out[off + i] = value(column, id, i, vector.apply(i));
      }
      return;
    }
    scala.collection.Seq<?> seq = (scala.collection.Seq<?>) v;
    check(column, id, seq.size(), d);
    for (int i = 0; i < d; i++) {
      Object x = seq.apply(i);
      if (x == null) {
        throw new IllegalArgumentException("column '" + column + "' of the row with id " + id
            + " has null at index " + i);
      }
      out[off + i] = value(column, id, i, ((Number) x).doubleValue());
    }
  }

  /**
   * Reads the row id and input vector of Spark's internal rows (the transformer's path: no
   * conversion to external rows), checking every value: the messages name the column, the row
   * id, the index and the value.
   *
   * @param vector the input is an ml vector (else an array of float or double)
   * @param floats the input is an array of float
   * @param intIds the row ids are ints (else longs)
   */
  record Reader(String column, int index, boolean vector, boolean floats, String idColumn,
      int idIndex, boolean intIds) implements java.io.Serializable {

    long rowId(InternalRow row) {
      if (row.isNullAt(idIndex)) {
        throw new IllegalArgumentException("row id column '" + idColumn + "' is null in a row;"
            + " every row needs an id");
      }
      return intIds ? row.getInt(idIndex) : row.getLong(idIndex);
    }

    /** Reads the input of {@code row} into {@code out[off .. off + d)}. */
    @SuppressWarnings("unchecked")
    void read(InternalRow row, long id, int d, float[] out, int off) {
      if (row.isNullAt(index)) {
        throw new IllegalArgumentException(
            "column '" + column + "' is null in the row with id " + id);
      }
      if (vector) {
        Vector v = ((UserDefinedType<Vector>) SQLDataTypes.VectorType())
            .deserialize(row.getStruct(index, 4));
        check(column, id, v.size(), d);
        double[] values = v.toArray();
        for (int i = 0; i < d; i++) {
          out[off + i] = value(column, id, i, values[i]);
        }
        return;
      }
      ArrayData a = row.getArray(index);
      check(column, id, a.numElements(), d);
      for (int i = 0; i < d; i++) {
        if (a.isNullAt(i)) {
          throw new IllegalArgumentException("column '" + column + "' of the row with id " + id
              + " has null at index " + i);
        }
        out[off + i] = value(column, id, i, floats ? a.getFloat(i) : a.getDouble(i));
      }
    }
  }

  private static void check(String column, long id, int size, int d) {
    if (size != d) {
      throw new IllegalArgumentException("column '" + column + "' of the row with id " + id
          + " has " + size + " values, expected inputDim d = " + d);
    }
  }

  private static float value(String column, long id, int i, double x) {
    float f = (float) x;
    if (!Float.isFinite(f)) {
      throw new IllegalArgumentException("column '" + column + "' of the row with id " + id
          + " has " + x + " at index " + i + ", expected a finite value"
          + (Double.isFinite(x) ? " (it overflows float)" : ""));
    }
    return f;
  }
}
