package org.lprff.arrow.input;

/** Whether the rows of a {@link RowSource} carry a label. */
public enum LabelKind {
  /** No label: {@link RowBatch#labels()} is null. */
  NONE,
  /**
   * One float label per row (a regression target or a class index; {@link
   * Labels#requireClassIndices} checks the latter).
   */
  PRESENT
}
