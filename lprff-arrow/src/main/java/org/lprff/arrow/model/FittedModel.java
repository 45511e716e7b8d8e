package org.lprff.arrow.model;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowTable;
import org.lprff.arrow.input.Standardization;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.RowSplit;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.vector.train.fullbatch.KitchenSinks;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;

/**
 * A trained LP-RFF model, the library's front door: the featurizer spec, the standardization of
 * the raw columns, the linear model and its task. It predicts raw rows (standardize, featurize,
 * score, decide), and is saved and loaded as a {@code .lprff} model file that {@code lprff
 * predict}, the Python package and Spark read alike.
 *
 * <pre>{@code
 * FittedModel model = FittedModel.fit(spec, train, Bandwidth.SEARCH); // sigma and l2 chosen
 * model.save(Path.of("m.lprff"));
 * float[] predicted = FittedModel.load(Path.of("m.lprff")).predict(x, n);
 * }</pre>
 *
 * <p>Prediction featurizes at {@link FeaturizerSpec#scoringSpec()}, as {@code lprff predict}
 * does: full precision for stochastic rounding (the same map, unrounded), the model's own bits for
 * a deterministic quantizer. Features live in native memory, a chunk of rows at a time (the
 * packed products run about 10x slower over heap arrays). Immutable and thread-safe.
 */
public final class FittedModel {

  /** Rows featurized at a time when predicting: bounds the native scratch to a chunk's features. */
  static final int CHUNK_ROWS = 4096;

  private final FeaturizerSpec spec;
  private final Standardization standardization;
  private final Task task;
  private final double l2;
  private final LinearModel weights;
  private final Map<String, String> training;
  private volatile Featurizer scoring;

  /**
   * A model with what describes it.
   *
   * @param standardization the statistics raw rows are standardized with, or null for none
   * @param l2 the l2 strength it was trained with
   * @param training a free-form summary of its training (solver, epochs, ...), saved as {@code
   *     lprff.train.*} strings; null for none
   * @throws IllegalArgumentException if the weights do not fit the spec and task, or the
   *     standardization the input width (naming both values)
   */
  public FittedModel(FeaturizerSpec spec, Standardization standardization, Task task, double l2,
      LinearModel weights, Map<String, String> training) {
    if (spec == null || task == null || weights == null) {
      throw new IllegalArgumentException(
          (spec == null ? "spec" : task == null ? "task" : "weights") + " is null");
    }
    if (weights.features() != spec.modelFeatures()) {
      throw new IllegalArgumentException("weights have " + weights.features()
          + " features, the spec's model reads " + spec.modelFeatures() + " (m = "
          + spec.features() + ", quantizer " + spec.quantizer().spelling() + ")");
    }
    if (weights.outputs() != task.outputs()) {
      throw new IllegalArgumentException("weights have " + weights.outputs() + " outputs, the"
          + " task " + task + " has " + task.outputs());
    }
    if (standardization != null && standardization.size() != spec.inputDim()) {
      throw new IllegalArgumentException("standardization has " + standardization.size()
          + " columns, the spec's input has d = " + spec.inputDim());
    }
    this.spec = spec;
    this.standardization = standardization;
    this.task = task;
    this.l2 = l2;
    this.weights = weights;
    this.training = training == null ? Map.of() : Map.copyOf(training);
  }

  // ---- fitting

  /**
   * Fits regression on n raw rows {@code x} (row-major, d = {@code spec.inputDim()} each) with
   * targets {@code y}, every default of {@code lprff train}: columns standardized, the solver for
   * m, l2 chosen on a seeded 10% of the rows, then refit on all of them.
   */
  public static FittedModel fit(FeaturizerSpec spec, float[] x, float[] y, int n) {
    return fit(spec, table(spec, x, y, n), TrainingRequest.regression(spec.modelFeatures()),
        true, null);
  }

  /** As {@link #fit(FeaturizerSpec, float[], float[], int)}, classification of class indices. */
  public static FittedModel fit(FeaturizerSpec spec, float[] x, int[] classes, int n) {
    if (classes == null) {
      throw new IllegalArgumentException("classes is null");
    }
    float[] y = new float[classes.length];
    for (int i = 0; i < y.length; i++) {
      y[i] = classes[i];
    }
    return fit(spec, table(spec, x, y, n), TrainingRequest.classification(spec.modelFeatures()),
        true, null);
  }

  /**
   * Regression on a table's rows with every default, the kernel's length scale set by {@code
   * bandwidth} ({@link Bandwidth#SEARCH}: chosen on a seeded 10% of the rows; the spec's own is
   * then a placeholder).
   */
  public static FittedModel fit(FeaturizerSpec spec, RowTable train, Bandwidth bandwidth) {
    return fit(spec, train, null, TrainingRequest.regression(spec.modelFeatures()), bandwidth,
        null);
  }

  /** Regression on a table's rows with every default (see {@link #fit(FeaturizerSpec, float[], float[], int)}). */
  public static FittedModel fit(FeaturizerSpec spec, RowTable train) {
    return fit(spec, train, TrainingRequest.regression(spec.modelFeatures()), true, null);
  }

  /**
   * Fits {@code request} on a table's rows: standardizes the columns with the table's statistics
   * (when {@code standardize}), featurizes every row (row ids 0..n-1, as {@code lprff featurize}
   * numbers them) into native memory, and trains through {@link Trainer}.
   *
   * @param progress a line per step worth telling, or null
   * @throws IllegalArgumentException if the rows do not fit the spec, a label does not fit the
   *     task, or training diverged (naming the value and the fix)
   */
  public static FittedModel fit(FeaturizerSpec spec, RowTable train, TrainingRequest request,
      boolean standardize, Consumer<String> progress) {
    if (spec == null || train == null || request == null) {
      throw new IllegalArgumentException(
          (spec == null ? "spec" : train == null ? "train" : "request") + " is null");
    }
    requireFits(spec, train, request);
    Standardization standardization = standardize ? train.standardization() : null;
    RowTable rows = standardize ? standardized(train, standardization) : train;
    return train(spec, standardization, rows, null, request, progress);
  }

  /**
   * Featurizes {@code train} (and {@code validation}, which then chooses l2 and joins the closed
   * form's refit) with {@code spec} and trains {@code request} on them; rows already standardized.
   */
  private static FittedModel train(FeaturizerSpec spec, Standardization standardization,
      RowTable train, RowTable validation, TrainingRequest request, Consumer<String> progress) {
    Featurizer featurizer = Featurizer.of(spec);
    try (Arena arena = Arena.ofShared()) {
      InMemoryBatches source = batches(spec, featurizer, train, request, arena);
      // SGD reads shuffled mini-batches; the full-batch solvers every row in order.
      Trainer.Data trainData = new Trainer.Data("train", "",
          request.solver().shufflesRows() ? source : source.ordered());
      Trainer.Data validationData = validation == null ? null : new Trainer.Data("validation",
          "", batches(spec, featurizer, validation, request, arena).ordered());
      TrainingReport report = Trainer.run(request, trainData, validationData, validationData,
          progress);
      return of(spec, standardization, request, report, null, null);
    }
  }

  /**
   * Fits {@code request} on raw rows with the kernel's length scale chosen by {@code bandwidth}:
   * the columns standardized with the training rows' statistics (the validation rows with the
   * same), σ set ({@link Bandwidth}), every training row featurized and trained on, l2 chosen on
   * {@code validation} (then refit on train + validation by the closed form) or on the seeded 10%
   * split of the training rows, as {@code lprff train} chooses it. The model's training strings
   * record how σ was chosen ({@code sigma_rule}) and, for {@link Bandwidth#SEARCH}, every σ tried
   * ({@link BandwidthSearch.Result#toMap}).
   *
   * <pre>{@code
   * RowTable train = RowTable.readCsv(Path.of("train.csv"), "price");
   * FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1), train.d(), 4096, 4,
   *     "fastfood", 0, Quantizer.STOCHASTIC);           // sigma 1 is a placeholder: searched
   * FittedModel model = FittedModel.fit(spec, train, null,
   *     TrainingRequest.regression(spec.modelFeatures()), Bandwidth.SEARCH, System.err::println);
   * }</pre>
   *
   * @param validation rows that choose σ and l2 instead of a split of {@code train}, or null
   * @param progress a line per step worth telling, or null
   * @throws IllegalArgumentException if the rows do not fit the spec, are too few to split, all
   *     equal (no σ tells them apart), or a label does not fit the task (naming the value and the
   *     fix)
   */
  public static FittedModel fit(FeaturizerSpec spec, RowTable train, RowTable validation,
      TrainingRequest request, Bandwidth bandwidth, Consumer<String> progress) {
    if (spec == null || train == null || request == null || bandwidth == null) {
      throw new IllegalArgumentException((spec == null ? "spec" : train == null ? "train"
          : request == null ? "request" : "bandwidth") + " is null");
    }
    requireFits(spec, train, request);
    if (validation != null && validation.d() != train.d()) {
      throw new IllegalArgumentException("the validation rows have " + validation.d()
          + " columns, the training rows " + train.d());
    }
    if (request.classification()) {
      requireTwoClasses(train);
    }
    Standardization standardization = train.standardization();
    RowTable t = standardized(train, standardization);
    RowTable v = validation == null ? null : standardized(validation, standardization);
    Map<String, String> chosenBy = new LinkedHashMap<>();
    FeaturizerSpec at = spec;
    switch (bandwidth) {
      case GIVEN -> chosenBy.put("sigma_rule", "given");
      case MEDIAN -> {
        double median = Bandwidth.median(t, request.seed());
        at = spec.withLengthScale(median);
        chosenBy.put("sigma_rule", "median");
        chosenBy.put("sigma_median_distance", Double.toString(median));
      }
      case SEARCH -> {
        RowTable[] parts = v != null ? new RowTable[] {t, v} : validationSplit(t, request.seed());
        BandwidthSearch.Result found =
            BandwidthSearch.run(spec, parts[0], parts[1], request, progress);
        at = spec.withLengthScale(found.lengthScale());
        chosenBy.putAll(found.toMap());
      }
    }
    if (progress != null) {
      progress.accept(String.format(Locale.ROOT, "fitting: m = %d at %d bits, sigma"
          + " %.4g, on %d training rows", at.features(), at.bits(), at.kernel().lengthScale(),
          t.n()));
    }
    return train(at, standardization, t, v, request, progress).withTraining(chosenBy);
  }

  /** Refuses classification labels that are all one class, naming it. */
  private static void requireTwoClasses(RowTable train) {
    int[] classes = train.classes();
    for (int c : classes) {
      if (c != classes[0]) {
        return;
      }
    }
    throw new IllegalArgumentException("every training label is class " + classes[0] + " ("
        + train.n() + " rows): classification needs at least 2 classes; check the label column,"
        + " or fit regression");
  }

  /** Rows the validation split must leave on either side to choose σ on. */
  static final int MIN_VALIDATION_ROWS = 5;

  /** {training rows, validation rows}: the seeded 10% split {@code lprff train} chooses l2 on. */
  static RowTable[] validationSplit(RowTable rows, long seed) {
    int[][] parts = RowTable.partition(rows.n(), i -> RowSplit.validation(seed, i));
    if (parts[1].length < MIN_VALIDATION_ROWS || parts[0].length < MIN_VALIDATION_ROWS) {
      throw new IllegalArgumentException("the seeded 10% validation split of " + rows.n()
          + " training rows left " + parts[1].length + " validation and " + parts[0].length
          + " training rows (at least " + MIN_VALIDATION_ROWS + " of each are needed to choose"
          + " sigma): give more rows, a validation file, or sigma itself");
    }
    return new RowTable[] {rows.select(parts[0]), rows.select(parts[1])};
  }

  private static RowTable standardized(RowTable rows, Standardization standardization) {
    float[] x = rows.x().clone(); // the caller's rows stay as they were
    standardization.apply(new RowBatch(x, rows.n(), rows.d(), null, 0));
    return new RowTable(x, rows.y(), rows.n(), rows.d(), rows.names());
  }

  /** Every row of {@code rows} featurized into {@code arena}, with its targets or classes. */
  static InMemoryBatches batches(FeaturizerSpec spec, Featurizer featurizer,
      RowTable rows, TrainingRequest request, Arena arena) {
    MemorySegment z = arena.allocate(Math.max(1, (long) featurizer.rowBytes() * rows.n()), 64);
    featurizer.featurize(rows.x(), rows.n(), 0, z, 0, 0, request.executor());
    FeatureRows features = FeatureRows.of(spec, z, 0, rows.n());
    return request.classification() ? InMemoryBatches.of(features, rows.classes())
        : InMemoryBatches.of(features, rows.y());
  }

  private static void requireFits(FeaturizerSpec spec, RowTable train, TrainingRequest request) {
    if (train.d() != spec.inputDim()) {
      throw new IllegalArgumentException("the rows have " + train.d() + " columns, the spec's"
          + " input has d = " + spec.inputDim());
    }
    if (request.features() != spec.modelFeatures()) {
      throw new IllegalArgumentException("the request is for " + request.features()
          + " features, the spec's model reads " + spec.modelFeatures());
    }
  }

  /**
   * Fits on a feature file with {@code lprff train}'s defaults for the task: l2 chosen on a seeded
   * split of its rows, checksums verified first. {@link FileTraining} has the rest (validation,
   * refit and heldout files, any request).
   */
  public static FittedModel fit(Path trainFile, boolean classification) throws IOException {
    return FileTraining.run(new FileTraining.Files(trainFile, null, null, null),
        m -> classification ? TrainingRequest.classification(m) : TrainingRequest.regression(m),
        true, null).model();
  }

  /** Refuses a diverged solve, naming its message and, for SGD, a smaller rate. */
  static void requireConverged(TrainingReport report) {
    if (!report.diverged()) {
      return;
    }
    String message = report.result().message();
    if (!report.solver().miniBatch()) {
      throw new IllegalStateException("training diverged (" + message + "); no model was made");
    }
    double lr = report.learningRate();
    throw new IllegalStateException("training diverged (" + message + ") at learning rate " + lr
        + "; try a smaller --lr (TrainingRequest.withSgd), e.g. " + lr / 4
        + "; no model was made");
  }

  /**
   * The model a finished training made, with what its file says of the training (the {@code
   * lprff.train.*} strings): solver, epochs, stop, rows, the l2 path and what chose on it, the
   * learning rate of the mini-batch solvers, rks's bound, LM-HALP's model bits, and the metrics
   * on a validation and a heldout set when given.
   *
   * @param validation the model's metrics on a validation set the caller gave, or null
   * @param heldout its metrics on a heldout set, or null
   * @throws IllegalStateException if the training diverged
   */
  public static FittedModel of(FeaturizerSpec spec, Standardization standardization,
      TrainingRequest request, TrainingReport report, Evaluation validation, Evaluation heldout) {
    requireConverged(report);
    Map<String, String> s = new LinkedHashMap<>();
    s.put("solver", report.solver().id);
    s.put("epochs", Integer.toString(report.result().epochs()));
    s.put("halvings", Integer.toString(report.result().halvings()));
    s.put("stop_reason", report.result().stopReason().name());
    s.put("best_epoch", Integer.toString(report.result().bestEpoch()));
    s.put("rows", Long.toString(report.trainRows()));
    if (heldout != null) {
      s.put("heldout_metric", Double.toString(heldout.metric()));
    }
    if (validation != null) {
      s.put("validation_metric", Double.toString(validation.metric()));
    }
    if (report.l2Path().size() > 1) {
      // The l2 path tried, with the loss that chose among it: l2=loss;l2=loss;...
      StringBuilder path = new StringBuilder();
      report.l2Path().forEach((lambda, loss) ->
          path.append(path.isEmpty() ? "" : ";").append(lambda).append('=').append(loss));
      s.put("l2_path", path.toString());
      s.put("l2_selected_on", report.selectedOn());
    }
    if (report.solver().miniBatch()) {
      s.put("learning_rate", Double.toString(report.learningRate()));
    }
    if (report.solver() == Solver.RKS) {
      s.put("alpha_bound", Double.toString(request.alphaBound()));
      s.put("weight_bound", Double.toString(
          KitchenSinks.weightBound(request.alphaBound(), spec.modelFeatures())));
      s.put("stop_message", report.result().message());
    }
    if (report.solver() == Solver.HALP) {
      s.put("model_bits", Integer.toString(request.trainingModelBits()));
    }
    return new FittedModel(spec, standardization, report.task(), report.l2(), report.model(), s);
  }

  private static RowTable table(FeaturizerSpec spec, float[] x, float[] y, int n) {
    if (spec == null) {
      throw new IllegalArgumentException("spec is null");
    }
    int d = spec.inputDim();
    if (x == null || y == null || n < 1 || (long) n * d > x.length || y.length < n) {
      throw new IllegalArgumentException("fit needs n >= 1 rows of d = " + d + " values and n"
          + " labels; got n = " + n + ", " + (x == null ? "no" : x.length) + " values and "
          + (y == null ? "no" : y.length) + " labels");
    }
    List<String> names = new ArrayList<>(d);
    for (int j = 0; j < d; j++) {
      names.add("x" + j);
    }
    return new RowTable(x, y, n, d, names);
  }

  // ---- predicting

  /**
   * The scores of n raw rows {@code x} (row-major, d values each), n*c row-major: c = 1 for
   * regression and binary tasks (a logit, or a hinge model's signed score), k for k classes.
   *
   * @throws IllegalArgumentException if {@code x} holds fewer than n*d values or a value is not
   *     finite (naming the row, column and value)
   */
  public float[] scores(float[] x, int n) {
    int c = task.outputs();
    float[] scores = new float[Math.multiplyExact(n, c)];
    try (Predictor p = predictor(false)) {
      p.scores(x, n, 0, scores);
    }
    return scores;
  }

  /**
   * The prediction of each of n raw rows: the value for regression, the class index (as a float)
   * for classification.
   */
  public float[] predict(float[] x, int n) {
    float[] scores = scores(x, n);
    if (task == Task.REGRESSION) {
      return scores;
    }
    int[] classes = classes(scores, n);
    float[] out = new float[n];
    for (int r = 0; r < n; r++) {
      out[r] = classes[r];
    }
    return out;
  }

  /** The class of each of n raw rows (the task's rule: {@link Task#loss()}'s predicted class). */
  public int[] predictClasses(float[] x, int n) {
    requireClassification("predictClasses");
    return classes(scores(x, n), n);
  }

  /** The class of each of n rows' scores, by the task's loss. */
  private int[] classes(float[] scores, int n) {
    Loss loss = task.loss();
    int c = task.outputs();
    int[] out = new int[n];
    for (int r = 0; r < n; r++) {
      out[r] = loss.predictedClass(scores, r * c);
    }
    return out;
  }

  /**
   * The class probabilities of each of n raw rows, n*k row-major (k = 2 for a binary model: 1 - p
   * and p = sigmoid(logit); softmax of the k scores otherwise).
   *
   * @throws IllegalStateException for regression and hinge models, whose scores are no
   *     probabilities
   */
  public float[] probabilities(float[] x, int n) {
    requireClassification("probabilities");
    if (task == Task.BINARY_HINGE) {
      throw new IllegalStateException("the model was trained on the hinge loss, whose scores"
          + " are not probabilities; use predictClasses or scores");
    }
    float[] scores = scores(x, n);
    int k = classes();
    float[] p = new float[Math.multiplyExact(n, k)];
    for (int r = 0; r < n; r++) {
      probabilitiesOfScores(scores, r, p);
    }
    return p;
  }

  /**
   * Row r's class probabilities from its scores ({@link #scores}: {@code scores[r*c ..]}) into
   * {@code p[r*k ..]}, as {@link #probabilities} computes them.
   */
  public void probabilitiesOfScores(float[] scores, int r, float[] p) {
    int c = task.outputs();
    if (c == 1) {
      double p1 = 1 / (1 + Math.exp(-scores[r]));
      p[2 * r] = (float) (1 - p1);
      p[2 * r + 1] = (float) p1;
      return;
    }
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < c; j++) {
      max = Math.max(max, scores[r * c + j]);
    }
    double sum = 0;
    for (int j = 0; j < c; j++) {
      sum += Math.exp(scores[r * c + j] - max);
    }
    for (int j = 0; j < c; j++) {
      p[r * c + j] = (float) (Math.exp(scores[r * c + j] - max) / sum);
    }
  }

  private void requireClassification(String what) {
    if (task == Task.REGRESSION) {
      throw new IllegalStateException(what + " needs a classification model; this one is"
          + " regression: use predict");
    }
  }

  /**
   * A predictor over chunks of raw rows that keeps one native buffer, for a stream of batches;
   * confined to the thread that opened it. {@code quantized}: featurize at the model's own bits
   * (stochastic rounding keyed by the row ids given) instead of {@link #scoringSpec()}.
   */
  public Predictor predictor(boolean quantized) {
    return new Predictor(quantized ? spec : scoringSpec(),
        quantized ? Featurizer.of(spec) : scoringFeaturizer());
  }

  /** The spec raw rows are featurized at to predict: {@link FeaturizerSpec#scoringSpec()}. */
  public FeaturizerSpec scoringSpec() {
    return spec.scoringSpec();
  }

  private Featurizer scoringFeaturizer() {
    Featurizer f = scoring;
    if (f == null) {
      // Plans (projection matrices, FFT twiddles) are built once; a featurizer is thread-safe.
      scoring = f = Featurizer.of(spec.scoringSpec());
    }
    return f;
  }

  /** Scores raw rows chunk by chunk through one native buffer; see {@link #predictor}. */
  public final class Predictor implements AutoCloseable {
    private final FeaturizerSpec at;
    private final Featurizer featurizer;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment z;
    private final float[] chunk;
    private final float[] chunkScores;

    private Predictor(FeaturizerSpec at, Featurizer featurizer) {
      this.at = at;
      this.featurizer = featurizer;
      this.z = arena.allocate((long) CHUNK_ROWS * featurizer.rowBytes(), 64);
      this.chunk = new float[CHUNK_ROWS * spec.inputDim()];
      this.chunkScores = new float[CHUNK_ROWS * task.outputs()];
    }

    /**
     * Writes the n*c scores of n raw rows {@code x} (their ids {@code firstRowId}, ... for the
     * rounding of a quantized predictor) into {@code scores}; {@code x} is left as it was.
     */
    public void scores(float[] x, int n, long firstRowId, float[] scores) {
      int d = spec.inputDim();
      int c = task.outputs();
      if (x == null || n < 0 || (long) n * d > x.length) {
        throw new IllegalArgumentException("x holds " + (x == null ? "no" : x.length)
            + " values; n = " + n + " rows of d = " + d + " need " + (long) Math.max(0, n) * d);
      }
      if (scores == null || (long) n * c > scores.length) {
        throw new IllegalArgumentException("scores holds " + (scores == null ? "no"
            : scores.length) + " values; n = " + n + " rows of c = " + c + " need "
            + (long) n * c);
      }
      for (int from = 0; from < n; from += CHUNK_ROWS) {
        int rows = Math.min(CHUNK_ROWS, n - from);
        // A chunk of the caller's rows, standardized in the scratch: x stays as it was.
        System.arraycopy(x, from * d, chunk, 0, rows * d);
        if (standardization != null) {
          standardization.apply(new RowBatch(chunk, rows, d, null, firstRowId + from));
        }
        featurizer.featurize(chunk, rows, firstRowId + from, z, 0);
        weights.predict(FeatureRows.of(at, z, 0, rows), chunkScores);
        System.arraycopy(chunkScores, 0, scores, from * c, rows * c);
      }
    }

    @Override
    public void close() {
      arena.close();
    }
  }

  // ---- files

  /** Writes this model as a {@code .lprff} file, atomically (whole or not at all). */
  public void save(Path file) throws IOException {
    ModelFile.write(file, this);
  }

  /**
   * Reads a {@code .lprff} model file (every version written so far), its weights checked against
   * their checksum.
   *
   * @throws IOException naming the file if it is unreadable or not a valid model
   */
  public static FittedModel load(Path file) throws IOException {
    return ModelFile.read(file);
  }

  // ---- what it is

  public FeaturizerSpec spec() {
    return spec;
  }

  /** The statistics raw rows are standardized with, or null for none. */
  public Standardization standardization() {
    return standardization;
  }

  public Task task() {
    return task;
  }

  /** k for classification (2 for binary), 1 for regression. */
  public int classes() {
    return task.classes();
  }

  public double l2() {
    return l2;
  }

  public LinearModel weights() {
    return weights;
  }

  /** The training summary saved with the model ({@code lprff.train.*} without the prefix). */
  public Map<String, String> training() {
    return training;
  }

  /** This model with more training summary entries (e.g. heldout figures). */
  public FittedModel withTraining(Map<String, String> more) {
    Map<String, String> all = new LinkedHashMap<>(training);
    all.putAll(more);
    return new FittedModel(spec, standardization, task, l2, weights, all);
  }

  @Override
  public String toString() {
    return "FittedModel[" + task + ", d = " + spec.inputDim() + ", m = " + spec.features()
        + " at " + spec.bits() + " bits, " + spec.projection() + ", l2 " + l2
        + (standardization == null ? "" : ", standardized") + "]";
  }
}
