package org.lprff.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.model.FittedModel;
import org.lprff.arrow.input.LabelColumn;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.arrow.io.AtomicWrite;
import org.lprff.cli.options.InputOptions;
import org.lprff.cli.options.ModelOption;
import org.lprff.cli.options.UsageException;
import org.lprff.cli.output.StandardStreams;
import org.lprff.cli.output.Version;
import org.lprff.cli.workflow.SpreadColumns;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.train.model.PredictionSpread;
import org.lprff.vector.train.loss.Task;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code lprff predict}: featurizes raw rows like the model's training data and predicts. */
@Command(
    name = "predict",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Predict raw rows with a model file",
    sortOptions = false,
    description = {
      "Predict raw rows (CSV, LIBSVM, IDX, Arrow) with a model file: the rows are standardized"
          + " with the training statistics and featurized with the model's spec (same kernel,"
          + " projection, seed); for stochastic rounding at FULL PRECISION (float32, the same"
          + " z(x) unrounded) unless --quantized, which uses the model's bits (quantized test"
          + " features add about |w|^2 sigma_b^2 to the expected squared error); for a"
          + " deterministic quantizer (nearest, shared-threshold, lloyd-max, sigma-delta) at the"
          + " model's bits, the feature map it learned.",
      "",
      "Writes a CSV, one line per input row, in input order: 'prediction' (regression) or"
          + " 'class' (classification) and with --probabilities the class probabilities."
          + " Streaming; written atomically.",
      "",
      "--draws K (stochastic rounding only) adds the prediction's spread over K rounding draws"
          + " of the row's features (draws 1..K; training files are draw 0): regression adds"
          + " mean,sd,lo,hi (the K predictions' mean, sample standard deviation and central"
          + " --level interval) and sd_exact,sd_bound (sqrt of sum_i w_i^2 (z_i - lo_i)(hi_i -"
          + " z_i), the rounding's exact variance, and of its bound |w|^2 step^2 / 4);"
          + " classification adds agreement (the fraction of draws predicting the"
          + " full-precision class), p_mean,p_lo,p_hi (that class's probability over the"
          + " draws) and score,score_mean,score_sd,score_lo,score_hi,score_sd_exact,"
          + "score_sd_bound, the same for the logit (binary) or the class's score (multiclass)."
    })
final class PredictCommand implements Callable<Integer> {

  @Spec CommandSpec command;

  @Mixin InputOptions in;

  @Mixin ModelOption model;

  @Option(names = {"--output", "-o"}, required = true, paramLabel = "FILE",
      description = "The predictions CSV to write, or - for standard output.")
  Path output;

  @Option(names = "--quantized", description = "Featurize at the model's bits instead of"
      + " float32 (stochastic rounding; the deterministic quantizers always do).")
  boolean quantized;

  @Option(names = "--probabilities", description = "Classification: add p0..p(k-1) columns.")
  boolean probabilities;

  @Option(names = "--draws", paramLabel = "K", description = "Add the spread of each"
      + " prediction over K >= 2 stochastic rounding draws of its features (see above).")
  Integer draws;

  @Option(names = "--level", paramLabel = "X", defaultValue = "0.95", description = "--draws:"
      + " the central interval's level, in (0, 1) (default ${DEFAULT-VALUE}).")
  double level;

  @Override
  public Integer call() throws IOException {
    FittedModel m = model.read();
    Task task = m.task();
    if (probabilities && task == Task.BINARY_HINGE) {
      throw new ParameterException(command.commandLine(), "--probabilities: the model "
          + model.path + " was trained on the hinge loss, whose scores are not probabilities");
    }
    FeaturizerSpec spec = m.spec();
    PredictionSpread spread = spread(m, task);
    return StandardStreams.reading(in.input, file -> {
      in.input = file;
      return predictInput(m, task, spec, spread);
    });
  }

  private int predictInput(FittedModel m, Task task, FeaturizerSpec spec, PredictionSpread spread)
      throws IOException {
    RowSources.Format resolved;
    LabelColumn label;
    try {
      resolved = in.format();
      label = in.labelColumn(resolved, LabelType.NONE);
    } catch (UsageException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
    // Standard output, or a temporary file moved onto the output once every row is written.
    boolean pipe = StandardStreams.isDash(output);
    AtomicWrite.Temp temp = pipe ? null : AtomicWrite.open(output);
    WritableByteChannel target = pipe ? StandardStreams.current().outChannel() : temp.channel();
    int c = task.outputs();
    int batchRows = 4096;
    try (BufferAllocator allocator = new RootAllocator();
        RowSource source = in.open(resolved, label, batchRows, allocator);
        FittedModel.Predictor predictor = m.predictor(quantized)) {
      if (source.columns() != spec.inputDim()) {
        throw new IllegalArgumentException("input " + in.input + " has " + source.columns()
            + " feature columns, the model " + model.path + " expects d = " + spec.inputDim());
      }
      if (m.standardization() != null) {
        try {
          m.standardization().requireColumns(source.columnNames());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("input " + in.input + " does not match the model's"
              + " standardization: " + e.getMessage(), e);
        }
      }
      float[] scores = new float[batchRows * c];
      float[] p = new float[batchRows * m.classes()];
      try (BufferedWriter w = new BufferedWriter(
          Channels.newWriter(target, StandardCharsets.UTF_8))) {
        w.write(header(task, m.classes()) + (spread == null ? "" : SpreadColumns.header(task)));
        w.newLine();
        StringBuilder line = new StringBuilder();
        for (RowBatch batch; (batch = source.next()) != null; ) {
          int n = batch.rows();
          // The model standardizes and featurizes raw rows itself, as every library user's do.
          predictor.scores(batch.values(), n, batch.firstRowId(), scores);
          if (m.standardization() != null && spread != null) {
            m.standardization().apply(batch); // the spread featurizes standardized rows
          }
          PredictionSpread.Result spreads =
              spread == null ? null : spread.predict(batch.values(), n, batch.firstRowId());
          for (int r = 0; r < n; r++) {
            line.setLength(0);
            if (task == Task.REGRESSION) {
              line.append(scores[r]);
            } else {
              line.append(task.loss().predictedClass(scores, r * c));
              if (probabilities) {
                m.probabilitiesOfScores(scores, r, p);
                for (int j = 0; j < m.classes(); j++) {
                  line.append(',').append(p[r * m.classes() + j]);
                }
              }
            }
            if (spreads != null) {
              SpreadColumns.format(line, spreads, r);
            }
            w.write(line.toString());
            w.newLine();
          }
        }
        // Committed before the writer's close closes the channel: the commit forces the bytes.
        w.flush();
        if (temp != null) {
          temp.commit();
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      if (temp != null) {
        temp.abort();
      }
      throw e;
    }
    return 0;
  }

  /** The spread of --draws, or null without it; refusals name the option and the fix. */
  private PredictionSpread spread(FittedModel m, Task task) {
    if (draws == null) {
      return null;
    }
    if (quantized) {
      throw new ParameterException(command.commandLine(), "--draws compares K rounding draws"
          + " with the full-precision prediction, which --quantized replaces; drop --quantized");
    }
    try {
      return PredictionSpread.of(m.weights(), task, m.spec(), draws, level);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(command.commandLine(), "--draws " + draws + ", --level "
          + level + " with model " + model.path + ": " + e.getMessage()
          + (draws >= 2 && level > 0 && level < 1 ? "; drop --draws" : ""), e);
    }
  }

  private String header(Task task, int classes) {
    if (task == Task.REGRESSION) {
      return "prediction";
    }
    StringBuilder s = new StringBuilder("class");
    if (probabilities) {
      for (int j = 0; j < classes; j++) {
        s.append(",p").append(j);
      }
    }
    return s.toString();
  }
}
