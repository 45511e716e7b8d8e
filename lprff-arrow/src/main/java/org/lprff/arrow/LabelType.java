package org.lprff.arrow;

/**
 * The optional {@code label} column of a feature file (DESIGN.md section 3): absent, Float32 for
 * regression targets, or Int32 for class indices.
 */
public enum LabelType {
  /** No label column. */
  NONE,
  /** A non-nullable Float32 {@code label} column. */
  REGRESSION,
  /** A non-nullable Int32 {@code label} column of class indices. */
  CLASSES;

  /** How the column is described in messages: "no label column", "Float32 labels", "Int32 labels". */
  String describe() {
    return switch (this) {
      case NONE -> "no label column";
      case REGRESSION -> "Float32 labels (REGRESSION)";
      case CLASSES -> "Int32 labels (CLASSES)";
    };
  }
}
