package org.lprff.cli.workflow;

import org.lprff.arrow.ModelFile;
import org.lprff.vector.train.Task;

/** The training core's task of a model file. */
public final class ModelTasks {

  private ModelTasks() {}

  public static Task task(ModelFile.Model model) {
    return switch (model.task()) {
      case "regression" -> Task.REGRESSION;
      case "binary" -> Task.BINARY;
      default -> Task.multiclass(model.classes());
    };
  }
}
