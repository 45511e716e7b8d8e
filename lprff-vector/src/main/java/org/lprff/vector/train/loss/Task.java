package org.lprff.vector.train.loss;

import java.io.Serializable;
import org.lprff.vector.stream.MiniBatch;

/**
 * What a linear model predicts, and so its number of outputs c and its {@link Loss}:
 *
 * <ul>
 *   <li>{@link #REGRESSION}: one output, float targets, {@link SquaredLoss};
 *   <li>{@link #BINARY}: one output (a logit), int labels 0 or 1, {@link LogisticLoss};
 *   <li>{@link #BINARY_HINGE}: one output (a score whose sign is the class), int labels 0 or 1
 *       read as -1 and +1, {@link HingeLoss} (trained by {@code Solver.RKS} only);
 *   <li>{@link #multiclass}(k): k outputs, int labels in [0, k), {@link SoftmaxLoss}.
 * </ul>
 */
public sealed interface Task extends Serializable
    permits Task.Regression, Task.Binary, Task.Multiclass {

  Task REGRESSION = new Regression();

  Task BINARY = new Binary();

  /** Binary classification on the hinge loss. */
  Task BINARY_HINGE = new Binary(true);

  /** k-class classification, k >= 2. */
  static Task multiclass(int classes) {
    return new Multiclass(classes);
  }

  /** The kinds of task, as model files, JSON and the command line name them. */
  enum Kind {
    REGRESSION("regression"), BINARY("binary"), CLASSIFICATION("classification");

    /** The name in files and on the command line. */
    public final String id;

    Kind(String id) {
      this.id = id;
    }

    /**
     * The kind named {@code id}.
     *
     * @throws IllegalArgumentException naming the value and the names there are
     */
    public static Kind named(String id) {
      for (Kind k : values()) {
        if (k.id.equals(id)) {
          return k;
        }
      }
      throw new IllegalArgumentException(
          "task is '" + id + "', expected regression, binary or classification");
    }
  }

  /**
   * The task of a kind: {@code classes} for {@link Kind#CLASSIFICATION} (k >= 2; 2 classes of
   * one logit are {@link Kind#BINARY}), {@code hinge} for a binary model trained on the hinge.
   */
  static Task of(Kind kind, int classes, boolean hinge) {
    return switch (kind) {
      case REGRESSION -> REGRESSION;
      case BINARY -> hinge ? BINARY_HINGE : BINARY;
      case CLASSIFICATION -> multiclass(classes);
    };
  }

  /** Its kind: regression, binary (one output, two classes) or classification (k outputs). */
  default Kind kind() {
    return !usesClasses() ? Kind.REGRESSION : outputs() == 1 ? Kind.BINARY : Kind.CLASSIFICATION;
  }

  /** The classes of its labels: 1 for regression, 2 for binary, k for k classes. */
  default int classes() {
    return !usesClasses() ? 1 : Math.max(2, outputs());
  }

  /** Outputs of the model, c: 1 for regression and binary, k for k classes. */
  int outputs();

  /** The training loss of this task. */
  Loss loss();

  /** True if labels are int class indices ({@link MiniBatch#classes()}), false for float targets. */
  default boolean usesClasses() {
    return !(this instanceof Regression);
  }

  /** Squared loss on float targets. */
  record Regression() implements Task {
    @Override
    public int outputs() {
      return 1;
    }

    @Override
    public Loss loss() {
      return SquaredLoss.INSTANCE;
    }

    @Override
    public String toString() {
      return "regression";
    }
  }

  /**
   * Labels 0 and 1: the logistic loss, the single output the logit of class 1; or, with {@code
   * hinge}, the hinge loss, the output a score whose sign is the class.
   */
  record Binary(boolean hinge) implements Task {
    /** The logistic task. */
    public Binary() {
      this(false);
    }

    @Override
    public int outputs() {
      return 1;
    }

    @Override
    public Loss loss() {
      return hinge ? HingeLoss.INSTANCE : LogisticLoss.INSTANCE;
    }

    @Override
    public String toString() {
      return hinge ? "binary(hinge)" : "binary";
    }
  }

  /** Softmax cross-entropy over {@code classes} outputs. */
  record Multiclass(int classes) implements Task {
    public Multiclass {
      if (classes < 2) {
        throw new IllegalArgumentException("classes is " + classes + ", expected >= 2");
      }
    }

    @Override
    public int outputs() {
      return classes;
    }

    @Override
    public Loss loss() {
      return new SoftmaxLoss(classes);
    }

    @Override
    public String toString() {
      return "multiclass(" + classes + ")";
    }
  }
}
