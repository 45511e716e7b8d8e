package org.lprff.cli.workflow;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.lprff.arrow.input.LabelColumn;
import org.lprff.arrow.input.LabelKind;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.arrow.input.Standardization;
import org.lprff.cli.options.InputOptions;
import org.lprff.cli.options.UsageException;
import org.lprff.vector.stream.RowSplit;
import org.lprff.vector.train.loss.Task;

/**
 * The raw rows of {@code lprff compare}, read whole into memory: the train and heldout sets (two
 * files, or one file split like the demo), labels transformed and checked, inputs standardized
 * with the training statistics exactly as {@code featurize --standardize} computes them.
 */
public final class CompareData {

  private CompareData() {}

  /** n rows of d floats, row-major, with one label each; {@code names} the feature columns. */
  public record Rows(float[] x, float[] y, int n, int d, List<String> names) {

    /** Rows {@code indices} of this set, in that order. */
    public Rows select(int[] indices) {
      float[] sx = new float[indices.length * d];
      float[] sy = new float[indices.length];
      for (int k = 0; k < indices.length; k++) {
        System.arraycopy(x, indices[k] * d, sx, k * d, d);
        sy[k] = y[indices[k]];
      }
      return new Rows(sx, sy, indices.length, d, names);
    }

    /** The labels as class indices. */
    public int[] classes() {
      int[] c = new int[n];
      for (int i = 0; i < n; i++) {
        c[i] = (int) y[i];
      }
      return c;
    }
  }

  /**
   * Reads every row of {@code file} with its labels ({@code labels} reads, e.g. {@code
   * --label-column}; {@code idxLabels} for IDX images, given by the option {@code
   * idxLabelsOption}).
   *
   * @throws IllegalArgumentException if the file has no labels or no rows
   */
  public static Rows read(Path file, String format, String labelColumn, Path idxLabels,
      String idxLabelsOption, BufferAllocator allocator) throws IOException {
    // The featurize options, filled in here: the same formats, defaults and messages.
    InputOptions in = new InputOptions();
    in.input = file;
    in.format = format;
    in.labelColumn = labelColumn;
    in.idxLabels = idxLabels;
    RowSources.Format resolved = in.format();
    LabelColumn label = in.labelColumn(resolved, null);
    if (label == LabelColumn.NONE) {
      throw new UsageException("--label-column none: compare trains models and needs labels");
    }
    try (RowSource source = in.open(resolved, label, RowSources.Options.DEFAULT_BATCH_ROWS,
        allocator)) {
      if (source.label() != LabelKind.PRESENT) {
        throw new IllegalArgumentException(file + " has no labels"
            + (resolved == RowSources.Format.IDX
                ? " (give its IDX labels file with " + idxLabelsOption + ")"
                : ""));
      }
      int d = source.columns();
      float[] x = new float[Math.max(1, d) * 1024];
      float[] y = new float[1024];
      int n = 0;
      for (RowBatch b = source.next(); b != null; b = source.next()) {
        long need = (long) n + b.rows();
        if (need * d > Integer.MAX_VALUE - 16) {
          throw new IllegalArgumentException(file + " has more than " + n + " rows of " + d
              + " values: too many to hold in one array for compare");
        }
        while (y.length < need) {
          y = Arrays.copyOf(y, (int) Math.min(Integer.MAX_VALUE - 16L, 2L * y.length));
          x = Arrays.copyOf(x, (int) Math.min(Integer.MAX_VALUE - 16L, (long) y.length * d));
        }
        System.arraycopy(b.values(), 0, x, n * d, b.rows() * d);
        System.arraycopy(b.labels(), 0, y, n, b.rows());
        n += b.rows();
      }
      if (n == 0) {
        throw new IllegalArgumentException(file + " has no data rows");
      }
      return new Rows(Arrays.copyOf(x, n * d), Arrays.copyOf(y, n), n, d, source.columnNames());
    }
  }

  /**
   * Refuses heldout rows whose feature columns differ from the training rows' in number or name
   * (the message names both files and the first column that differs).
   */
  public static void requireSameColumns(Rows train, Path trainFile, Rows heldout,
      Path heldoutFile) {
    if (heldout.d() != train.d()) {
      throw new IllegalArgumentException("heldout " + heldoutFile + " has " + heldout.d()
          + " feature columns, but " + trainFile + " has " + train.d());
    }
    for (int j = 0; j < train.d(); j++) {
      if (!train.names().get(j).equals(heldout.names().get(j))) {
        throw new IllegalArgumentException("heldout " + heldoutFile + " has column " + j + " '"
            + heldout.names().get(j) + "', but " + trainFile + " has '" + train.names().get(j)
            + "'");
      }
    }
  }

  /** {train, heldout}: data row i is heldout iff mix64(seed + i) mod 5 == 0 (the demo's split). */
  public static Rows[] split(Rows all, long seed) {
    int[][] parts = partition(all.n(), i -> RowSplit.heldout(seed, i));
    if (parts[1].length == 0 || parts[0].length == 0) {
      throw new IllegalArgumentException("the seeded 80/20 split of " + all.n()
          + " rows left " + (parts[1].length == 0 ? "no heldout" : "no training") + " rows; give"
          + " more rows or a separate --heldout file");
    }
    return new Rows[] {all.select(parts[0]), all.select(parts[1])};
  }

  /** {indices i in [0, n) where {@code second} is false, those where it is true}, ascending. */
  public static int[][] partition(int n, IntPredicate second) {
    int count = 0;
    for (int i = 0; i < n; i++) {
      if (second.test(i)) {
        count++;
      }
    }
    int[] no = new int[n - count];
    int[] yes = new int[count];
    for (int i = 0, a = 0, b = 0; i < n; i++) {
      if (second.test(i)) {
        yes[b++] = i;
      } else {
        no[a++] = i;
      }
    }
    return new int[][] {no, yes};
  }

  /** y := ln(y) in place; every label must be > 0 (the message names set, row and value). */
  public static void logLabels(Rows rows, String set) {
    float[] y = rows.y();
    for (int i = 0; i < rows.n(); i++) {
      if (!(y[i] > 0) || Float.isInfinite(y[i])) {
        throw new IllegalArgumentException("--log-label: the label of " + set + " row " + i
            + " is " + y[i] + ", expected finite and > 0");
      }
      y[i] = (float) Math.log(y[i]);
    }
  }

  /**
   * Checks that the labels are class indices and returns the number of classes they imply
   * (largest + 1).
   */
  public static int classes(Rows rows, String set) {
    try {
      return org.lprff.arrow.input.Labels.requireClassIndices(rows.y(), rows.n(), 0);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(set + ": " + e.getMessage()
          + " (--task classification needs class indices 0, 1, ...)", e);
    }
  }

  /**
   * The task of labelled rows: regression, or for {@code classification} binary or multiclass
   * with the classes the training labels imply (at least 2), every heldout label checked
   * against them.
   */
  public static Task task(Rows train, Rows heldout, boolean classification) {
    if (!classification) {
      return Task.REGRESSION;
    }
    int trainClasses = classes(train, "train");
    int heldoutClasses = classes(heldout, "heldout");
    int classes = Math.max(2, trainClasses);
    if (heldoutClasses > classes) {
      throw new IllegalArgumentException("heldout has class " + (heldoutClasses - 1)
          + ", but the training labels are in [0, " + (trainClasses - 1) + "]");
    }
    return classes == 2 ? Task.BINARY : Task.multiclass(classes);
  }

  /** The classes of a task: 1 for regression, 2 for binary. */
  public static int classes(Task task) {
    return task == Task.REGRESSION ? 1 : task == Task.BINARY ? 2 : task.outputs();
  }

  /**
   * Fits the standardization on {@code train} (mean and sample standard deviation, as {@code
   * featurize --standardize}) and applies it to both sets in place.
   */
  public static Standardization standardize(Rows train, Rows heldout) {
    Standardization.Accumulator statistics = new Standardization.Accumulator(train.d());
    statistics.add(batch(train));
    Standardization s = statistics.finish(train.names());
    s.apply(batch(train));
    s.apply(batch(heldout));
    return s;
  }

  private static RowBatch batch(Rows rows) {
    return new RowBatch(rows.x(), rows.n(), rows.d(), rows.y(), 0);
  }
}
