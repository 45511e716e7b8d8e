package org.lprff.arrow.input;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * Per-column standardization {@code x' = (x - mean) / std}, with statistics computed in one
 * streaming pass and stored as strings beside the features (Arrow schema metadata), so heldout data
 * is standardized with the training data's numbers.
 *
 * <ul>
 *   <li><b>Statistics</b>: in double; each batch's mean and sum of squared deviations by two passes
 *       over the batch, merged into the running totals with Chan et al.'s pairwise update, so the
 *       result does not depend on the batch size beyond rounding.
 *   <li><b>std is the sample standard deviation</b>, sqrt(sum (x - mean)^2 / (n - 1)), as pandas'
 *       {@code std()} and R's {@code sd()}. (scikit-learn's StandardScaler uses n; the two differ
 *       by a factor sqrt(n / (n - 1)), 1.00001 on 53,940 rows.)
 *   <li><b>Constant columns</b> (every value equal, or a single row) get std 1, so they pass
 *       through shifted to 0 instead of dividing by zero.
 *   <li><b>Applying</b> computes {@code (float) (((double) x - mean) / std)}: the same as numpy's
 *       {@code ((x.astype(np.float64) - mean) / std).astype(np.float32)}.
 *   <li><b>Stored form</b> ({@link #toMap}): {@value #KEY_MEAN} and {@value #KEY_STD} are
 *       comma-separated {@link Double#toString} values, which parse back to the same doubles;
 *       {@value #KEY_COLUMNS} the comma-separated column names with {@code %} and {@code ,} written
 *       as {@code %25} and {@code %2C}.
 * </ul>
 *
 * <p>Immutable and thread-safe; {@link Accumulator} is not.
 */
public final class Standardization {

  public static final String KEY_MEAN = "lprff.standardize.mean";
  public static final String KEY_STD = "lprff.standardize.std";
  public static final String KEY_COLUMNS = "lprff.standardize.columns";

  private final List<String> columns;
  private final double[] mean;
  private final double[] std;

  private Standardization(List<String> columns, double[] mean, double[] std) {
    this.columns = columns;
    this.mean = mean;
    this.std = std;
  }

  /**
   * A standardization with the given statistics.
   *
   * @throws IllegalArgumentException when the lengths differ, a mean is not finite, or a std is not
   *     finite and > 0 (naming the column)
   */
  public static Standardization of(List<String> columns, double[] mean, double[] std) {
    if (columns == null || mean == null || std == null) {
      throw new IllegalArgumentException("columns, mean and std must not be null");
    }
    if (mean.length != columns.size() || std.length != columns.size()) {
      throw new IllegalArgumentException(
          "standardization has "
              + columns.size()
              + " columns, "
              + mean.length
              + " means and "
              + std.length
              + " standard deviations; expected equal counts");
    }
    for (int j = 0; j < mean.length; j++) {
      if (!Double.isFinite(mean[j])) {
        throw new IllegalArgumentException(
            "mean of column '"
                + columns.get(j)
                + "' (index "
                + j
                + ") is "
                + mean[j]
                + ", expected a finite number");
      }
      if (!(std[j] > 0) || Double.isInfinite(std[j])) {
        throw new IllegalArgumentException(
            "std of column '"
                + columns.get(j)
                + "' (index "
                + j
                + ") is "
                + std[j]
                + ", expected a finite number > 0");
      }
    }
    return new Standardization(List.copyOf(columns), mean.clone(), std.clone());
  }

  /** Statistics of every row of {@code source}, which is read to its end (not closed). */
  public static Standardization fit(RowSource source) throws IOException {
    Accumulator accumulator = new Accumulator(source.columns());
    for (RowBatch batch = source.next(); batch != null; batch = source.next()) {
      accumulator.add(batch);
    }
    return accumulator.finish(source.columnNames());
  }

  /** Column names, in order. */
  public List<String> columns() {
    return columns;
  }

  /** Number of columns. */
  public int size() {
    return mean.length;
  }

  /** The mean of column {@code j}. */
  public double mean(int j) {
    return mean[j];
  }

  /** The standard deviation of column {@code j} (1 for a constant column). */
  public double std(int j) {
    return std[j];
  }

  /**
   * Standardizes the batch's values in place.
   *
   * @throws IllegalArgumentException when the batch's column count differs from {@link #size()}
   */
  public void apply(RowBatch batch) {
    int d = mean.length;
    if (batch.columns() != d) {
      throw new IllegalArgumentException(
          "batch has " + batch.columns() + " columns, standardization has " + d);
    }
    float[] values = batch.values();
    for (int r = 0, base = 0; r < batch.rows(); r++, base += d) {
      for (int j = 0; j < d; j++) {
        values[base + j] = (float) ((values[base + j] - mean[j]) / std[j]);
      }
    }
  }

  /**
   * Checks that a source's columns are these, in this order (heldout data read with training
   * statistics).
   *
   * @throws IllegalArgumentException naming the first difference
   */
  public void requireColumns(List<String> names) {
    if (names.size() != columns.size()) {
      throw new IllegalArgumentException(
          "input has "
              + names.size()
              + " columns, standardization was fitted on "
              + columns.size()
              + ": "
              + columns);
    }
    for (int j = 0; j < names.size(); j++) {
      if (!names.get(j).equals(columns.get(j))) {
        throw new IllegalArgumentException(
            "input column "
                + j
                + " is '"
                + names.get(j)
                + "', standardization has '"
                + columns.get(j)
                + "'");
      }
    }
  }

  /** The three {@code lprff.standardize.*} entries (insertion ordered). */
  public Map<String, String> toMap() {
    Map<String, String> map = new LinkedHashMap<>();
    map.put(KEY_MEAN, join(mean));
    map.put(KEY_STD, join(std));
    List<String> escaped = new ArrayList<>(columns.size());
    for (String name : columns) {
      escaped.add(name.replace("%", "%25").replace(",", "%2C"));
    }
    map.put(KEY_COLUMNS, String.join(",", escaped));
    return map;
  }

  /**
   * Reads {@link #toMap}'s entries back (other keys are ignored, so a whole schema metadata map can
   * be passed).
   *
   * @throws IllegalArgumentException for a missing key, a value that is not a number, counts that
   *     differ, a non-finite mean, or a std that is not finite and > 0, naming key and column
   */
  public static Standardization fromMap(Map<String, String> map) {
    String meanText = require(map, KEY_MEAN);
    String stdText = require(map, KEY_STD);
    String columnsText = require(map, KEY_COLUMNS);
    List<String> names = new ArrayList<>();
    if (!columnsText.isEmpty()) {
      for (String escaped : columnsText.split(",", -1)) {
        names.add(escaped.replace("%2C", ",").replace("%2c", ",").replace("%25", "%"));
      }
    }
    return of(names, parse(KEY_MEAN, meanText), parse(KEY_STD, stdText));
  }

  private static String require(Map<String, String> map, String key) {
    String value = map.get(key);
    if (value == null) {
      throw new IllegalArgumentException("metadata has no " + key + "; keys: " + map.keySet());
    }
    return value;
  }

  private static double[] parse(String key, String text) {
    if (text.isEmpty()) {
      return new double[0];
    }
    String[] parts = text.split(",", -1);
    double[] values = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        values[i] = Double.parseDouble(parts[i]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            key + " value " + i + " '" + InputFiles.shorten(parts[i]) + "' is not a number", e);
      }
    }
    return values;
  }

  private static String join(double[] values) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        s.append(',');
      }
      s.append(Double.toString(values[i]));
    }
    return s.toString();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Standardization s
        && columns.equals(s.columns)
        && Arrays.equals(mean, s.mean)
        && Arrays.equals(std, s.std);
  }

  @Override
  public int hashCode() {
    return columns.hashCode() * 31 * 31 + Arrays.hashCode(mean) * 31 + Arrays.hashCode(std);
  }

  @Override
  public String toString() {
    return "Standardization" + toMap();
  }

  /**
   * Running per-column statistics: feed batches (or some of their rows, e.g. a training split),
   * then {@link #finish}.
   */
  public static final class Accumulator {
    private final int columns;
    private long count;
    private final double[] mean;

    /** Sum of squared deviations from the running mean. */
    private final double[] m2;

    private final double[] batchSum;
    private final double[] batchM2;

    /** Statistics of rows of {@code columns} values. */
    public Accumulator(int columns) {
      if (columns < 0) {
        throw new IllegalArgumentException("columns is " + columns + ", expected >= 0");
      }
      this.columns = columns;
      this.mean = new double[columns];
      this.m2 = new double[columns];
      this.batchSum = new double[columns];
      this.batchM2 = new double[columns];
    }

    /** Rows added so far. */
    public long count() {
      return count;
    }

    /** Adds every row of the batch. */
    public Accumulator add(RowBatch batch) {
      return add(batch, null);
    }

    /**
     * Adds the rows of the batch whose source row id passes {@code rowIds} (all rows when null).
     *
     * @throws IllegalArgumentException when the batch's column count differs
     */
    public Accumulator add(RowBatch batch, LongPredicate rowIds) {
      if (batch.columns() != columns) {
        throw new IllegalArgumentException(
            "batch has " + batch.columns() + " columns, accumulator has " + columns);
      }
      float[] x = batch.values();
      int d = columns;
      // Two passes over the batch: its mean, then squared deviations from it (no cancellation).
      Arrays.fill(batchSum, 0);
      long n = 0;
      for (int r = 0; r < batch.rows(); r++) {
        if (rowIds == null || rowIds.test(batch.firstRowId() + r)) {
          n++;
          for (int j = 0, base = r * d; j < d; j++) {
            batchSum[j] += x[base + j];
          }
        }
      }
      if (n == 0) {
        return this;
      }
      Arrays.fill(batchM2, 0);
      for (int r = 0; r < batch.rows(); r++) {
        if (rowIds == null || rowIds.test(batch.firstRowId() + r)) {
          for (int j = 0, base = r * d; j < d; j++) {
            double deviation = x[base + j] - batchSum[j] / n;
            batchM2[j] += deviation * deviation;
          }
        }
      }
      // Chan, Golub & LeVeque: merge (count, mean, m2) of the totals with the batch's.
      long total = count + n;
      for (int j = 0; j < d; j++) {
        double batchMean = batchSum[j] / n;
        double delta = batchMean - mean[j];
        mean[j] += delta * ((double) n / total);
        m2[j] += batchM2[j] + delta * delta * ((double) count * n / total);
      }
      count = total;
      return this;
    }

    /**
     * The statistics so far, under the given column names.
     *
     * @throws IllegalArgumentException when no row was added or the name count differs
     */
    public Standardization finish(List<String> names) {
      if (count == 0) {
        throw new IllegalArgumentException("no rows to compute a standardization from");
      }
      if (names.size() != columns) {
        throw new IllegalArgumentException(
            names.size() + " column names for " + columns + " columns");
      }
      double[] std = new double[columns];
      for (int j = 0; j < columns; j++) {
        std[j] = count > 1 && m2[j] > 0 ? Math.sqrt(m2[j] / (count - 1)) : 1.0;
      }
      return of(names, mean, std);
    }
  }
}
