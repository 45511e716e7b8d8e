package org.lprff.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.lprff.arrow.input.RowTable;
import org.lprff.arrow.model.BandwidthSearch;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.RowSplit;
import org.lprff.vector.train.TrainingRequest;

/**
 * The kernel's bandwidth chosen on validation rows, as a Spark ML {@link Estimator} whose model
 * ({@link Fitted}) featurizes with the {@link LpRffTransformer} at the chosen σ: put it where the
 * transformer would go in a pipeline ({@code [LpRffBandwidth, LpRffRegressor]}). With the
 * template's {@code sigma} set, fit keeps it. Unset, fit collects a seeded sample of the labelled
 * rows to the driver (at most {@link BandwidthSearch#SEARCH_ROWS} + {@link
 * BandwidthSearch#SEARCH_VALIDATION_ROWS} of them and 2^24 input values, kept by a hash of their
 * row ids, so the sample does not depend on the partitioning), splits it as every lprff tool does
 * (row id i is validation iff {@link RowSplit#validation}(seed, i)), runs the library's {@link
 * BandwidthSearch} on the raw input (the transformer does not standardize) and returns the
 * template with the chosen σ, which its output column then carries in its {@code lprff.sigma}
 * metadata.
 *
 * <p>Params: {@code labelCol} ("label"), {@code task} ("regression" or "classification"), {@code
 * seed} (1, the validation split's, as the command line's); the featurizer's own are the
 * template's.
 */
public final class LpRffBandwidth extends Estimator<LpRffBandwidth.Fitted> {

  private static final long serialVersionUID = 1L;

  /** Input values the sample may hold on the driver: 64 MiB of floats. */
  static final long DRIVER_VALUES = 1L << 24;

  private final String uid;
  private final LpRffTransformer template;
  private final Param<String> labelCol;
  private final Param<String> task;
  private final LongParam seed;
  private transient Consumer<String> progress;

  /** An estimator of {@code template}'s σ (every other param of the template is kept). */
  public LpRffBandwidth(LpRffTransformer template) {
    this(Identifiable.randomUID("lpRffBandwidth"), template);
  }

  public LpRffBandwidth(String uid, LpRffTransformer template) {
    if (template == null) {
      throw new IllegalArgumentException("template is null: give the LpRffTransformer to tune");
    }
    this.uid = uid;
    this.template = template;
    labelCol = new Param<>(uid, "labelCol", "the label column (double)");
    task = new Param<>(uid, "task", "regression or classification");
    seed = new LongParam(uid, "seed", "the validation split's seed");
    setDefault(labelCol, "label");
    setDefault(task, "regression");
    setDefault(seed, 1L);
  }

  @Override
  public String uid() {
    return uid;
  }

  /** The transformer whose σ is chosen. */
  public LpRffTransformer template() {
    return template;
  }

  public Param<String> labelCol() { return labelCol; }
  public Param<String> task() { return task; }
  public LongParam seed() { return seed; }

  public LpRffBandwidth setLabelCol(String value) { set(labelCol, value); return this; }
  public LpRffBandwidth setTask(String value) { set(task, value); return this; }
  public LpRffBandwidth setSeed(long value) { set(seed, value); return this; }

  /** Where the search's lines go (null: nowhere). Not a param: not saved. */
  public LpRffBandwidth setProgress(Consumer<String> lines) {
    this.progress = lines;
    return this;
  }

  @Override
  public Fitted fit(Dataset<?> dataset) {
    transformSchema(dataset.schema());
    LpRffTransformer chosen = template.copy(ParamMap.empty());
    if (template.isSet(template.sigma())) {
      return fitted(chosen);
    }
    boolean classification = switch (getOrDefault(task)) {
      case "regression" -> false;
      case "classification" -> true;
      default -> throw new IllegalArgumentException("task is '" + getOrDefault(task)
          + "', expected regression or classification");
    };
    RowTable[] parts = sample(dataset);
    FeaturizerSpec spec = template.spec(parts[0].d());
    long s = (Long) getOrDefault(seed);
    TrainingRequest request = (classification
        ? TrainingRequest.classification(spec.modelFeatures())
        : TrainingRequest.regression(spec.modelFeatures())).withSeed(s);
    BandwidthSearch.Result found =
        BandwidthSearch.run(spec, parts[0], parts[1], request, progress);
    return fitted(chosen.setSigma(found.lengthScale()));
  }

  private Fitted fitted(LpRffTransformer transformer) {
    Fitted model = new Fitted(uid, transformer);
    model.setParent(this);
    return model;
  }

  /**
   * The fitted stage: the template with the chosen σ ({@link #transformer()}), transforming as
   * it does. Not writable: save the {@link #transformer()} itself (a {@code DefaultParamsWritable}
   * stage with σ among its params).
   */
  public static final class Fitted extends Model<Fitted> {
    private static final long serialVersionUID = 1L;
    private final String uid;
    private final LpRffTransformer transformer;

    Fitted(String uid, LpRffTransformer transformer) {
      this.uid = uid;
      this.transformer = transformer;
    }

    /** The transformer at the chosen σ. */
    public LpRffTransformer transformer() {
      return transformer;
    }

    /** The chosen σ (the length scale, for matern). */
    public double sigma() {
      return (Double) transformer.getOrDefault(transformer.sigma());
    }

    @Override
    public String uid() {
      return uid;
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
      return transformer.transform(dataset);
    }

    @Override
    public StructType transformSchema(StructType schema) {
      return transformer.transformSchema(schema);
    }

    @Override
    public Fitted copy(ParamMap extra) {
      Fitted copy = new Fitted(uid, transformer.copy(extra));
      copy.setParent(parent());
      return copy;
    }
  }

  /**
   * {training rows, validation rows} of a seeded sample: row id i kept iff mix64(seed' + i) falls
   * in the lowest (cap / n) of the range, validation iff {@link RowSplit#validation}(seed, i).
   */
  private RowTable[] sample(Dataset<?> dataset) {
    String in = template.getOrDefault(template.inputCol());
    String label = getOrDefault(labelCol);
    String id = template.getOrDefault(template.rowIdCol());
    long s = (Long) getOrDefault(seed);
    long n = dataset.count();
    int d = InputRows.width(dataset.toDF().select(in).head(), 0, in);
    // The search's rows, but no more than 64 MiB of float values on the driver.
    long cap = Math.min(BandwidthSearch.SEARCH_ROWS + BandwidthSearch.SEARCH_VALIDATION_ROWS,
        Math.max(4096, DRIVER_VALUES / d));
    // Keep a row with probability cap / n (all of them when n <= cap), by its id's hash.
    double keep = Math.min(1.0, (double) cap / Math.max(1, n));
    long key = RowSplit.mix64(s ^ 0x73616d706c65L);
    List<Row> rows = new ArrayList<>(dataset.toDF().select(in, label, id).javaRDD()
        .filter(r -> keep >= 1.0 || unit(RowSplit.mix64(key + InputRows.rowId(r, 2))) < keep)
        .collect());
    // In row-id order, so that the search sees the same rows in the same order however the
    // DataFrame is partitioned.
    rows.sort(java.util.Comparator.comparingLong(r -> InputRows.rowId(r, 2)));
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("the DataFrame has no rows to choose sigma on");
    }
    List<Row> fit = new ArrayList<>();
    List<Row> validation = new ArrayList<>();
    for (Row r : rows) {
      (RowSplit.validation(s, InputRows.rowId(r, 2)) ? validation : fit).add(r);
    }
    return new RowTable[] {table(fit, d, in, label), table(validation, d, in, label)};
  }

  private static double unit(long hash) {
    return (hash >>> 11) * 0x1.0p-53;
  }

  private static RowTable table(List<Row> rows, int d, String in, String label) {
    float[] x = new float[rows.size() * d];
    float[] y = new float[rows.size()];
    for (int k = 0; k < rows.size(); k++) {
      Row r = rows.get(k);
      long id = InputRows.rowId(r, 2);
      InputRows.values(r, 0, in, id, d, x, k * d);
      y[k] = (float) FeatureColumn.label(r, 1, label, id);
    }
    List<String> names = new ArrayList<>(d);
    for (int j = 0; j < d; j++) {
      names.add("x" + j);
    }
    return new RowTable(x, y, rows.size(), d, names);
  }

  @Override
  public StructType transformSchema(StructType schema) {
    String label = getOrDefault(labelCol);
    StructField field = FeatureColumn.field(schema, label, "LpRffBandwidth's labels");
    if (!(field.dataType() instanceof org.apache.spark.sql.types.NumericType)) {
      throw new IllegalArgumentException("label column '" + label + "' is "
          + field.dataType().simpleString() + ", expected a number");
    }
    return template.transformSchema(schema);
  }

  @Override
  public LpRffBandwidth copy(ParamMap extra) {
    LpRffBandwidth copy = new LpRffBandwidth(uid, template.copy(extra));
    copy.progress = progress;
    return copyValues(copy, extra);
  }
}
