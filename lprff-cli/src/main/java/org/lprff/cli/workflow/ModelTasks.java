package org.lprff.cli.workflow;

import org.lprff.arrow.ModelFile;
import org.lprff.vector.train.loss.Task;

/**
 * The training core's task of a model file: its task name, and for a binary model the loss it
 * was trained on ({@link #LOSS_KEY}: a hinge model's score is not a logit, and its class is the
 * sign of the score, 0 included).
 */
public final class ModelTasks {

  /** The training key ({@code lprff.train.loss}) naming a model's loss when not the task's. */
  public static final String LOSS_KEY = "loss";

  private ModelTasks() {}

  public static Task task(ModelFile.Model model) {
    return switch (model.task()) {
      case "regression" -> Task.REGRESSION;
      case "binary" -> "hinge".equals(model.training().get(LOSS_KEY))
          ? Task.BINARY_HINGE : Task.BINARY;
      default -> Task.multiclass(model.classes());
    };
  }
}
