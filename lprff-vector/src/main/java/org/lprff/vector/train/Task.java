package org.lprff.vector.train;

import java.io.Serializable;
import org.lprff.vector.stream.MiniBatch;

/**
 * What a linear model predicts, and so its number of outputs c and its {@link Loss}:
 *
 * <ul>
 *   <li>{@link #REGRESSION}: one output, float targets, {@link SquaredLoss};
 *   <li>{@link #BINARY}: one output (a logit), int labels 0 or 1, {@link LogisticLoss};
 *   <li>{@link #multiclass}(k): k outputs, int labels in [0, k), {@link SoftmaxLoss}.
 * </ul>
 */
public sealed interface Task extends Serializable
    permits Task.Regression, Task.Binary, Task.Multiclass {

  Task REGRESSION = new Regression();

  Task BINARY = new Binary();

  /** k-class classification, k >= 2. */
  static Task multiclass(int classes) {
    return new Multiclass(classes);
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

  /** Logistic loss on labels 0 and 1; the single output is the logit of class 1. */
  record Binary() implements Task {
    @Override
    public int outputs() {
      return 1;
    }

    @Override
    public Loss loss() {
      return LogisticLoss.INSTANCE;
    }

    @Override
    public String toString() {
      return "binary";
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
