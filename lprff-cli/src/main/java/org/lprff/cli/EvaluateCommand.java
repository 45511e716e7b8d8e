package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.lprff.arrow.FeatureFileBatches;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.FeatureFileBatches.Order;
import org.lprff.arrow.ChecksumPass;
import org.lprff.arrow.model.FittedModel;
import org.lprff.cli.options.JsonOption;
import org.lprff.cli.options.VerifyOption;
import org.lprff.cli.options.ModelOption;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.Version;
import org.lprff.report.Json;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.Evaluation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code lprff evaluate}: a model's metrics on a labelled feature file. */
@Command(
    name = "evaluate",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Evaluate a model file on a labelled feature file",
    sortOptions = false,
    description = {
      "Evaluate a model file on a labelled feature file. The file must have the model's spec"
          + " (kernel, sigma, d, m, projection, seed) except the bits: evaluating on features"
          + " quantized to other bits is allowed (quantized test features add about"
          + " |w|^2 sigma_b^2 to the expected squared error)."
    })
final class EvaluateCommand implements Callable<Integer> {

  @Spec CommandSpec command;

  @Mixin ModelOption model;

  @Option(names = "--data", required = true, paramLabel = "FILE",
      description = "A feature file with labels.")
  Path data;

  @Mixin JsonOption json;

  @Mixin VerifyOption verify;

  @Override
  public Integer call() throws IOException {
    FittedModel m = model.read();
    Task task = m.task();
    boolean classification = task != Task.REGRESSION;
    Evaluation e;
    FeaturizerSpec fileSpec;
    try (FeatureFileBatches source = FeatureFileBatches.mapped(data, Order.SEQUENTIAL, classification)) {
      fileSpec = source.spec();
      try {
        source.schema().requireCompatible(m.spec().withBits(fileSpec.bits()));
      } catch (IllegalArgumentException ex) {
        throw new IllegalArgumentException(data + " was not featurized like the model "
            + model.path + " (bits may differ): " + ex.getMessage(), ex);
      }
      if (source.labelType() == LabelType.NONE) {
        throw new IllegalArgumentException(data + " has no label column; evaluate needs labels");
      }
      if (!classification && source.labelType() == LabelType.CLASSES) {
        throw new IllegalArgumentException(data + " has Int32 class labels, but the model "
            + model.path + " is a regression model");
      }
      if (verify.enabled()) {
        ChecksumPass.verify(source);
      }
      try {
        e = Evaluation.of(m.weights(), task, source, 1000);
      } catch (RuntimeException | Error failure) {
        // A file truncated or rewritten under its mapping faults on the next read.
        FeatureFileBatches.throwIfChanged(failure, source);
        throw failure;
      }
    }
    PrintWriter out = command.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> o = Json.object();
      o.put("model", model.path.toString());
      o.put("data", data.toString());
      o.put("task", task.kind().id);
      o.put("rows", e.rows());
      o.put("model_bits", m.spec().bits());
      o.put("data_bits", fileSpec.bits());
      if (classification) {
        o.put("error_rate", e.metric());
        // A hinge model's scores are not logits: its mean loss is the hinge's.
        o.put(task == Task.BINARY_HINGE ? "hinge_loss" : "log_loss", e.meanLoss());
      } else {
        o.put("mse", e.metric());
      }
      out.println(Json.write(o));
    } else {
      out.println(String.format(Locale.ROOT, "%s rows at %d bits: %s", Human.count(e.rows()),
          fileSpec.bits(), classification
              ? String.format(Locale.ROOT, "error rate %.4f, %s %.6g", e.metric(),
                  task == Task.BINARY_HINGE ? "hinge loss" : "log-loss", e.meanLoss())
              : String.format(Locale.ROOT, "MSE %.6g", e.metric())));
    }
    out.flush();
    return 0;
  }
}
