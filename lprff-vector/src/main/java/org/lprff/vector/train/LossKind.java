package org.lprff.vector.train;

import org.lprff.vector.train.loss.Task;

/**
 * The loss a {@link TrainingRequest} names, when it names one: the task's own by default
 * (squared for regression, logistic for two classes, softmax for more). {@link #HINGE} is for two
 * classes and {@link Solver#RKS} only: the hinge is not smooth, and the other full-batch solvers
 * assume a gradient.
 */
public enum LossKind {
  SQUARED("squared"), LOGISTIC("logistic"), HINGE("hinge");

  /** The loss's name on the command line and in model files. */
  public final String id;

  LossKind(String id) {
    this.id = id;
  }

  /** The loss named {@code name} (any case), or null. */
  public static LossKind named(String name) {
    for (LossKind k : values()) {
      if (k.id.equalsIgnoreCase(name)) {
        return k;
      }
    }
    return null;
  }

  /**
   * Checks that this loss fits the task and solver, with a message naming both.
   *
   * @throws IllegalArgumentException if it does not
   */
  void requireFits(boolean classification, Solver solver) {
    if (this == SQUARED && classification) {
      throw new IllegalArgumentException("loss is squared, but the task is classification"
          + " (use logistic or hinge; least squares on classes is --solver closed-form)");
    }
    if (this != SQUARED && !classification) {
      throw new IllegalArgumentException(
          "loss is " + id + ", but the task is regression (use squared)");
    }
    if (this == HINGE && solver != Solver.RKS) {
      throw new IllegalArgumentException("loss is hinge, which solver " + solver.id
          + " cannot minimize (not smooth); use solver rks");
    }
  }

  /**
   * The task of this loss for {@code classes} classes (1 for regression).
   *
   * @throws IllegalArgumentException naming the classes if a binary loss meets more than two
   */
  Task task(int classes) {
    return switch (this) {
      case SQUARED -> Task.REGRESSION;
      case LOGISTIC, HINGE -> {
        if (classes != 2) {
          throw new IllegalArgumentException("loss is " + id + ", a binary loss, but the labels"
              + " have " + classes + " classes (softmax, the default loss, takes more than 2)");
        }
        yield this == HINGE ? Task.BINARY_HINGE : Task.BINARY;
      }
    };
  }
}
