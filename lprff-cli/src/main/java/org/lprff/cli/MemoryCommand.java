package org.lprff.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.lprff.cli.options.BatchOption;
import org.lprff.cli.options.JsonOption;
import org.lprff.cli.options.ModelBitsOption;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.Version;
import org.lprff.report.Json;
import org.lprff.vector.metrics.TrainingMemory;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lprff memory}: the training memory of the paper's Table 1 ({@link TrainingMemory}) for m
 * features, or the largest m within a budget (memory-matched comparisons).
 */
@Command(
    name = "memory",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Training memory in bits, or the largest m within a budget",
    sortOptions = false,
    description = {
      "Training memory in bits (the LP-RFF paper's Table 1: feature generation + one mini-batch"
          + " of features + the model), for --features M, or the largest M whose memory is"
          + " within --budget BITS (e.g. the total of full-precision features at a smaller M)."
    })
final class MemoryCommand implements Callable<Integer> {

  @Spec CommandSpec command;

  @Option(names = "--projection", defaultValue = "dense", paramLabel = "NAME",
      description = "dense, circulant, fastfood or orthogonal (default ${DEFAULT-VALUE}).")
  String projection;

  @Option(names = "--input-dim", required = true, paramLabel = "D",
      description = "Input width d.")
  int inputDim;

  @ArgGroup(multiplicity = "1")
  Size size;

  static final class Size {
    @Option(names = "--features", paramLabel = "M", description = "Features m.")
    Integer features;

    @Option(names = "--budget", paramLabel = "BITS",
        description = "Print the largest m whose training memory is at most BITS.")
    Long budget;
  }

  @Option(names = "--bits", defaultValue = "32", paramLabel = "B",
      description = "Bits per feature in the mini-batch, 1, 2, 4, 8, 16 or 32 (default"
          + " ${DEFAULT-VALUE}).")
  int bits;

  @Mixin BatchOption batch;

  @Option(names = "--classes", defaultValue = "1", paramLabel = "C",
      description = "Model outputs c: classes of a softmax model, 1 for regression and binary"
          + " (default ${DEFAULT-VALUE}).")
  int classes;

  @Mixin ModelBitsOption modelBits;

  @Mixin JsonOption json;

  @Override
  public Integer call() {
    int m;
    try {
      modelBits.memory(); // checked before any count
      m = size.budget == null
          ? size.features
          : TrainingMemory.largestFeatures(projection, inputDim, bits, batch.rows, classes,
              size.budget, modelBits.memory());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
    if (m == 0) {
      throw new IllegalArgumentException("--budget " + size.budget + " bits is less than the"
          + " training memory of m = 1 (" + memory(1).totalBits() + " bits)");
    }
    TrainingMemory memory = memory(m);
    PrintWriter out = command.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> o = Json.object();
      o.put("projection", projection);
      o.put("input_dim", inputDim);
      o.put("features", m);
      o.put("bits", bits);
      o.put("batch", batch.rows);
      o.put("classes", classes);
      o.put("model_bits_per_weight", modelBits.memory());
      o.put("budget_bits", size.budget);
      o.put("feature_generation_bits", memory.featureGenerationBits());
      o.put("mini_batch_bits", memory.miniBatchBits());
      o.put("model_bits", memory.modelBits());
      o.put("total_bits", memory.totalBits());
      out.println(Json.write(o));
    } else {
      out.println(String.format(Locale.ROOT,
          "%s, d %d, m %d, %d bits, batch %d, %d outputs, %d-bit model: feature generation %d"
              + " + mini-batch %d + model %d = %d bits (%s)%s",
          projection, inputDim, m, bits, batch.rows, classes, modelBits.memory(),
          memory.featureGenerationBits(),
          memory.miniBatchBits(), memory.modelBits(), memory.totalBits(),
          Human.bytes(Math.round(memory.totalBytes())),
          size.budget == null ? "" : "; the largest m within " + size.budget + " bits"));
    }
    out.flush();
    return 0;
  }

  private TrainingMemory memory(int m) {
    try {
      return TrainingMemory.forProjection(projection, inputDim, m, bits, batch.rows, classes)
          .withModelBits(modelBits.memory());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
  }
}
