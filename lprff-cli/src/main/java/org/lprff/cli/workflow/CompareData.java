package org.lprff.cli.workflow;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.lprff.arrow.input.LabelColumn;
import org.lprff.arrow.input.LabelKind;
import org.lprff.arrow.input.RowTable;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.arrow.input.Standardization;
import org.lprff.cli.options.InputOptions;
import org.lprff.cli.options.UsageException;
import org.lprff.vector.train.loss.Task;

/**
 * The raw rows of {@code lprff compare}, read whole into memory: the train and heldout sets (two
 * files, or one file split like the demo), labels transformed and checked, inputs standardized
 * with the training statistics exactly as {@code featurize --standardize} computes them.
 */
public final class CompareData {

  private CompareData() {}

  /**
   * Reads every row of {@code file} with its labels ({@code labels} reads, e.g. {@code
   * --label-column}; {@code idxLabels} for IDX images, given by the option {@code
   * idxLabelsOption}).
   *
   * @throws IllegalArgumentException if the file has no labels or no rows
   */
  public static RowTable read(Path file, String format, String labelColumn, Path idxLabels,
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
      return RowTable.read(file, source);
    }
  }

  /**
   * Refuses heldout rows whose feature columns differ from the training rows' in number or name
   * (the message names both files and the first column that differs).
   */
  public static void requireSameColumns(RowTable train, Path trainFile, RowTable heldout,
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

  /** y := ln(y) in place; every label must be > 0 (the message names set, row and value). */
  public static void logLabels(RowTable rows, String set) {
    try {
      rows.logLabels(set);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--log-label: " + e.getMessage(), e);
    }
  }

  /**
   * Checks that the labels are class indices and returns the number of classes they imply
   * (largest + 1).
   */
  public static int classes(RowTable rows, String set) {
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
  public static Task task(RowTable train, RowTable heldout, boolean classification) {
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
   * featurize --standardize}) and applies it to it and to {@code others} (nulls skipped) in
   * place.
   */
  public static Standardization standardize(RowTable train, RowTable... others) {
    Standardization s = train.standardization();
    s.apply(train.batch());
    for (RowTable other : others) {
      if (other != null) {
        s.apply(other.batch());
      }
    }
    return s;
  }
}
