package org.lprff.cli.options;

import java.util.ArrayList;
import java.util.List;
import org.lprff.vector.featurize.FeaturizerSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code train --redraw}: training on raw rows featurized mini-batch by mini-batch, epoch e
 * rounding with draw e, and the options that say how to read the rows and which feature map to
 * draw (those of {@code featurize} and {@code compare}; the map's seed is train's {@code --seed},
 * as compare's). Every field but the flag is null unless given: without {@code --redraw} giving
 * one is refused rather than ignored.
 */
public final class RedrawOptions {

  @Option(names = "--redraw",
      description = "Train on RAW rows (--train, --heldout and --validation are CSV, LIBSVM or"
          + " Arrow rows with labels, not feature files): every SGD mini-batch is featurized"
          + " when it is needed, epoch e with rounding draw e (fresh stochastic rounding each"
          + " epoch, as the LP-RFF reference code trains; epoch 0 sees exactly featurize's"
          + " bytes), nothing of n x m is stored; heldout and validation rows are featurized at"
          + " full precision (stochastic rounding) or the map's bits (deterministic"
          + " quantizers), as predict scores. The map: --sigma/--kernel, -m, -b, --projection,"
          + " --quantizer and --seed. SGD only (--solver auto is sgd here); stochastic"
          + " rounding at 1 to 16 bits only.")
  public boolean enabled;

  @Option(names = "--format", paramLabel = "NAME",
      description = "--redraw: auto, csv, libsvm or arrow, for every raw file (default auto).")
  public String format;

  @Option(names = "--label-column", paramLabel = "COLUMN",
      description = "--redraw: the label column of CSV and Arrow rows: a name, a 0-based"
          + " index, first or last (default last).")
  public String labelColumn;

  @Option(names = "--standardize", negatable = true,
      description = "--redraw: standardize inputs with the training rows' statistics, as"
          + " featurize --standardize (default on).")
  public Boolean standardize;

  @Mixin public LogLabelOption logLabel = new LogLabelOption();

  @Mixin public KernelOptions kernel = new KernelOptions();

  @Option(names = {"--features", "-m"}, paramLabel = "M",
      description = "--redraw: random features m (default 1024).")
  public Integer features;

  @Option(names = {"--bits", "-b"}, paramLabel = "B",
      description = "--redraw: bits per feature, 1, 2, 4, 8 or 16 (default 8).")
  public Integer bits;

  @Option(names = "--projection", paramLabel = "NAME",
      description = "--redraw: dense, circulant, fastfood or orthogonal (default dense).")
  public String projection;

  @Mixin public QuantizerOption quantizer = new QuantizerOption();

  /** Whether to standardize: on unless {@code --no-standardize}. */
  public boolean standardizes() {
    return standardize == null || standardize;
  }

  /**
   * Refuses the options of {@code --redraw} given without it (a feature file's spec is fixed).
   *
   * @throws UsageException naming the options and the fix
   */
  public void requireUnusedWithoutRedraw() {
    if (enabled) {
      return;
    }
    List<String> given = new ArrayList<>();
    add(given, "--format", format);
    add(given, "--label-column", labelColumn);
    add(given, "--standardize", standardize);
    add(given, "--log-label", logLabel.enabled ? true : null);
    add(given, "--kernel", kernel.name);
    add(given, "--sigma", kernel.sigma);
    add(given, "--nu", kernel.nu);
    add(given, "--length-scale", kernel.lengthScale);
    add(given, "--features", features);
    add(given, "--bits", bits);
    add(given, "--projection", projection);
    add(given, "--quantizer", quantizer.name);
    if (!given.isEmpty()) {
      throw new UsageException(String.join(", ", given) + " describe raw rows and their feature"
          + " map, which train reads only with --redraw (a feature file carries its spec); add"
          + " --redraw to train on raw rows, or drop " + (given.size() == 1 ? "it" : "them"));
    }
  }

  private static void add(List<String> given, String name, Object value) {
    if (value != null) {
      given.add(name + (value instanceof Boolean ? "" : " " + value));
    }
  }

  /**
   * The feature map for rows of {@code inputDim} values, seeded with train's {@code --seed},
   * validated as featurize validates its options.
   */
  public FeaturizerSpec spec(int inputDim, long seed) {
    SpecOptions s = new SpecOptions();
    s.kernel = kernel;
    s.features = features;
    s.bits = bits;
    s.projection = projection;
    s.seed = seed;
    s.quantizer = quantizer;
    return s.build(inputDim);
  }
}
