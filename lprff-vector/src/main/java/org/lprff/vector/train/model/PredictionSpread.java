package org.lprff.vector.train.model;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.SoftmaxLoss;
import org.lprff.vector.train.loss.Task;

/**
 * How much a prediction of stochastically rounded features depends on the rounding: each row is
 * featurized with K independent rounding draws and predicted K times, beside its full-precision
 * prediction.
 *
 * <p><b>What the spread is.</b> With quantized features Q(z(x)), a score is f~(x) = w . Q(z(x)) +
 * b, a random variable: E f~ = w . z(x) + b (stochastic rounding is unbiased) and
 *
 * <pre>
 *   Var f~ = sum_i w_i^2 (z_i - lo_i)(lo_i + step - z_i) <= ||w||^2 step^2 / 4,
 * </pre>
 *
 * lo_i the grid level below z_i, step = 2 s / (2^b - 1), s = sqrt(2/m): the seed's test-time
 * noise, whose bound is ||w||^2 sigma~^2 with sigma~^2 = step^2 / 4 the largest per-feature
 * rounding variance. {@link Result} holds both beside the sample statistics of the K draws, so a
 * user can compare the formula with what the draws show. (The quantized features take the cosine
 * at b's precision and 16-bit draws, CosineFeatures.quantize: the mean is unbiased to within
 * 2^-13 + 2^-16 of a step per feature, far below the rounding's spread.)
 *
 * <p><b>Draws.</b> Draw k in [0, K) of a row with id r rounds with the featurizer's draw {@link
 * #FIRST_DRAW} + k, i.e. draws 1..K: draw 0 is what featurize writes (the training file), so the
 * K predictions are of fresh roundings, independent of each other and of the training file's.
 * (Training with fresh draws per epoch, {@code OnTheFlyBatches}, uses draws 0..epochs-1 of the
 * training rows' ids; a test row sharing an id with a training row shares its uniforms, not its
 * values, and one row's rounding moves a trained model by O(1/n): negligible.)
 *
 * <p><b>Which quantizers.</b> Only {@link Quantizer#randomized()} ones (stochastic rounding) at b
 * < 32. Deterministic quantizers (nearest, Lloyd-Max, Sigma-Delta) give the same prediction at
 * every draw. Shared-threshold is random over the seed only: its thresholds are fixed per (seed,
 * feature, interval) whatever the draw, so all K draws would coincide; its randomness is that of
 * the feature map, which a model is trained for, not of a prediction. Both are refused.
 *
 * <p><b>What is reported</b> (per row, the arrays of {@link Result}):
 *
 * <ul>
 *   <li>the score: regression, the prediction; binary, the logit of class 1; multiclass, the score
 *       (logit) of the class the full-precision features predict. Its full-precision value, the
 *       mean, sample standard deviation (K - 1) and central interval (the empirical quantiles
 *       (1 - level) / 2 and (1 + level) / 2 of the K scores, linear between order statistics) of
 *       the K draws, and its exact variance and bound above;
 *   <li>classification only: the full-precision predicted class, its full-precision probability,
 *       the mean and central interval of that class's probability over the draws, and the
 *       fraction of draws that predict the same class ({@code agreement}).
 * </ul>
 *
 * <p><b>Cost.</b> Rows go in chunks of at most {@link #MAX_CHUNK_ROWS} (fewer when K chunk packed
 * rows would pass {@link #BUFFER_BYTES}): the chunk is featurized once at full precision and K
 * times by the fused featurizer straight into packed bytes (one native buffer, draw after draw),
 * then one packed product scores the K chunk rows: no float copy of the quantized features.
 *
 * <p>Immutable and thread-safe; each call allocates its own buffers.
 */
public final class PredictionSpread {

  /** The central interval's default level. */
  public static final double DEFAULT_LEVEL = 0.95;

  /** The featurizer draw of the first of the K draws (draw 0 is the training file's). */
  public static final int FIRST_DRAW = 1;

  /** Draws at most: the K predictions of a row are held and sorted in memory. */
  public static final int MAX_DRAWS = 1 << 16;

  /** Rows per chunk, at most. */
  static final int MAX_CHUNK_ROWS = 1024;

  /** Packed bytes of a chunk's K draws, at most (fewer rows per chunk for large K m b). */
  static final long BUFFER_BYTES = 16L << 20;

  private final LinearModel model;
  private final Task task;
  private final FeaturizerSpec spec;
  private final Featurizer quantized;
  private final Featurizer fullPrecision;
  private final QuantizationScale scale;
  private final int draws;
  private final double level;

  private PredictionSpread(
      LinearModel model, Task task, FeaturizerSpec spec, int draws, double level) {
    this.model = model;
    this.task = task;
    this.spec = spec;
    this.quantized = Featurizer.of(spec);
    this.fullPrecision = Featurizer.of(spec.withBits(32));
    this.scale = spec.scale();
    this.draws = draws;
    this.level = level;
  }

  /** {@link #of(LinearModel, Task, FeaturizerSpec, int, double)} at {@link #DEFAULT_LEVEL}. */
  public static PredictionSpread of(LinearModel model, Task task, FeaturizerSpec spec, int draws) {
    return of(model, task, spec, draws, DEFAULT_LEVEL);
  }

  /**
   * The spread of {@code model}'s predictions ({@code task}'s scores) over {@code draws}
   * roundings of {@code spec}'s features: the spec the model was trained on, at its bits.
   *
   * @throws IllegalArgumentException naming the value and the fix if an argument is null, the
   *     model does not fit the task or the spec, draws is not in [2, {@link #MAX_DRAWS}], level is
   *     not in (0, 1), the spec is float32 or its quantizer is not randomized
   */
  public static PredictionSpread of(
      LinearModel model, Task task, FeaturizerSpec spec, int draws, double level) {
    if (model == null || task == null || spec == null) {
      throw new IllegalArgumentException(
          (model == null ? "model" : task == null ? "task" : "spec") + " is null");
    }
    if (task.outputs() != model.outputs()) {
      throw new IllegalArgumentException("the model has " + model.outputs() + " outputs, task "
          + task + " has " + task.outputs());
    }
    if (spec.modelFeatures() != model.features()) {
      throw new IllegalArgumentException("the model reads " + model.features()
          + " features, the spec gives " + spec.modelFeatures());
    }
    if (draws < 2 || draws > MAX_DRAWS) {
      throw new IllegalArgumentException("draws is " + draws + ", expected in [2, " + MAX_DRAWS
          + "]: a spread needs at least two roundings");
    }
    if (!(level > 0 && level < 1)) {
      throw new IllegalArgumentException(
          "level is " + level + ", expected in (0, 1), e.g. " + DEFAULT_LEVEL);
    }
    if (spec.isFloat()) {
      throw new IllegalArgumentException("the spec has bits 32 (float32 features): nothing is"
          + " rounded, every draw gives the same prediction; a spread needs a model trained on"
          + " stochastically rounded features (bits 1 to 16)");
    }
    Quantizer q = spec.quantizer();
    if (q instanceof Quantizer.SharedThreshold) {
      throw new IllegalArgumentException("quantizer " + q.spelling() + " draws its thresholds"
          + " once per seed, not per draw: every draw gives the same prediction (its randomness"
          + " is over the seed, i.e. over feature maps, each a different model); a spread needs"
          + " a model trained with quantizer stochastic");
    }
    if (!q.randomized()) {
      throw new IllegalArgumentException("quantizer " + q.spelling() + " is deterministic: every"
          + " draw gives the same prediction; a spread needs a model trained with quantizer"
          + " stochastic");
    }
    return new PredictionSpread(model, task, spec, draws, level);
  }

  public int draws() {
    return draws;
  }

  public double level() {
    return level;
  }

  public FeaturizerSpec spec() {
    return spec;
  }

  /**
   * The per-row spread of n rows ({@code rows[r*d .. (r+1)*d)}, row ids {@code firstRowId + r}:
   * the ids the rounding randomness is keyed by, as {@link Featurizer#featurize}).
   *
   * @throws IllegalArgumentException as the featurizer (naming the row, id, column and value of a
   *     non-finite input), or if n is negative or rows is too short
   */
  public Result predict(float[] rows, int n, long firstRowId) {
    Result result = Result.allocate(n, task != Task.REGRESSION, draws, level);
    run(rows, n, firstRowId, result, null);
    return result;
  }

  /**
   * The K scores of each of n rows: draw k of row r's output j at {@code ((r K) + k) c + j}, draw k
   * the featurizer's draw {@link #FIRST_DRAW} + k (for tests and for users who want the draws).
   */
  public float[] scores(float[] rows, int n, long firstRowId) {
    long size = (long) Math.max(n, 0) * draws * model.outputs();
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("n * draws * outputs = " + n + " * " + draws + " * "
          + model.outputs() + " exceeds the largest array");
    }
    float[] all = new float[(int) size];
    run(rows, n, firstRowId, null, all);
    return all;
  }

  private void run(float[] rows, int n, long firstRowId, Result result, float[] all) {
    int d = spec.inputDim();
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    if (rows == null || rows.length < (long) n * d) {
      throw new IllegalArgumentException("rows has " + (rows == null ? "no" : rows.length)
          + " floats, expected n * d = " + n + " * " + d + " = " + (long) n * d);
    }
    if (n == 0) {
      return;
    }
    int m = spec.features();
    int c = model.outputs();
    long rowBytes = spec.rowBytes();
    int chunkRows = (int) Math.clamp(BUFFER_BYTES / (draws * rowBytes), 1, MAX_CHUNK_ROWS);
    chunkRows = Math.min(chunkRows, n);
    // Native buffers: the products' vector loads are intrinsified on native segments only.
    Arena arena = Arena.ofAuto();
    MemorySegment packed = arena.allocate((long) draws * chunkRows * rowBytes, 64);
    MemorySegment floats = arena.allocate(4L * chunkRows * m, 64);
    FeaturizerSpec fpSpec = spec.withBits(32);
    float[] chunk = new float[chunkRows * d];
    float[] fpScores = new float[chunkRows * c];
    float[] drawScores = new float[draws * chunkRows * c];
    float[] z = new float[m];
    float[] wT = model.weightsT();
    double[] values = new double[draws];
    double[] probabilities = new double[draws];
    for (int r0 = 0; r0 < n; r0 += chunkRows) {
      int cn = Math.min(chunkRows, n - r0);
      long id0 = firstRowId + r0;
      System.arraycopy(rows, r0 * d, chunk, 0, cn * d);
      long packedBytes = cn * rowBytes;
      for (int k = 0; k < draws; k++) {
        quantized.featurize(chunk, cn, id0, packed, k * packedBytes, FIRST_DRAW + k);
      }
      // One product over the K draws of the chunk: row k cn + r is draw k of row r.
      model.predict(FeatureRows.of(spec, packed, 0, draws * cn), drawScores);
      if (all != null) {
        for (int r = 0; r < cn; r++) {
          for (int k = 0; k < draws; k++) {
            System.arraycopy(drawScores, (k * cn + r) * c, all, ((r0 + r) * draws + k) * c, c);
          }
        }
        continue;
      }
      fullPrecision.featurize(chunk, cn, id0, floats, 0, 0);
      model.predict(FeatureRows.of(fpSpec, floats, 0, cn), fpScores);
      for (int r = 0; r < cn; r++) {
        int row = r0 + r;
        int j = task instanceof Task.Multiclass ? SoftmaxLoss.argmax(fpScores, r * c, c) : 0;
        MemorySegment.copy(floats, LittleEndian.FLOAT, 4L * r * m, z, 0, m);
        exactVariance(z, wT, j * m, result, row);
        for (int k = 0; k < draws; k++) {
          values[k] = drawScores[(k * cn + r) * c + j];
        }
        result.fullPrecision[row] = fpScores[r * c + j];
        summarize(values, result.mean, result.sd, result.lo, result.hi, row);
        if (task != Task.REGRESSION) {
          classify(fpScores, r, c, drawScores, cn, probabilities, result, row);
        }
      }
    }
  }

  /**
   * sum_i w_i^2 (z_i - lo_i)(lo_i + step - z_i) and ||w||^2 step^2 / 4 for the weights from
   * {@code wT[w0]}: the frac of z_i on the grid as the rounding bodies clamp it (the top level's
   * interval for z_i = hi).
   */
  private void exactVariance(float[] z, float[] wT, int w0, Result result, int row) {
    double lo = scale.lo();
    double step = scale.step();
    int top = scale.maxCode();
    double sum = 0;
    double norm = 0;
    for (int i = 0; i < z.length; i++) {
      double f = Math.min(Math.max((z[i] - lo) / step, 0), top);
      double frac = f - Math.min(Math.floor(f), top - 1);
      double w2 = (double) wT[w0 + i] * wT[w0 + i];
      sum += w2 * frac * (1 - frac);
      norm += w2;
    }
    result.variance[row] = sum * step * step;
    result.varianceBound[row] = norm * step * step / 4;
  }

  /** The predicted class, its probability at full precision and over the draws, the agreement. */
  private void classify(float[] fpScores, int r, int c, float[] drawScores, int cn,
      double[] probabilities, Result result, int row) {
    Loss loss = task.loss();
    int predicted = loss.predictedClass(fpScores, r * c);
    int agree = 0;
    for (int k = 0; k < draws; k++) {
      int off = (k * cn + r) * c;
      int drawn = loss.predictedClass(drawScores, off);
      agree += drawn == predicted ? 1 : 0;
      probabilities[k] = probability(drawScores, off, c, predicted);
    }
    result.predictedClass[row] = predicted;
    result.probability[row] = probability(fpScores, r * c, c, predicted);
    result.agreement[row] = (double) agree / draws;
    summarize(probabilities, result.probabilityMean, null, result.probabilityLo,
        result.probabilityHi, row);
  }

  /** The probability of class {@code k} from the scores at {@code off}: logistic or softmax. */
  static double probability(float[] scores, int off, int c, int k) {
    if (c == 1) {
      double p1 = 1 / (1 + Math.exp(-scores[off]));
      return k == 1 ? p1 : 1 - p1;
    }
    double max = Double.NEGATIVE_INFINITY;
    for (int j = 0; j < c; j++) {
      max = Math.max(max, scores[off + j]);
    }
    double sum = 0;
    for (int j = 0; j < c; j++) {
      sum += Math.exp(scores[off + j] - max);
    }
    return Math.exp(scores[off + k] - max) / sum;
  }

  /** Mean, sample sd (if {@code sd} is not null) and the central interval of {@code v} (sorted). */
  private void summarize(
      double[] v, double[] mean, double[] sd, double[] lo, double[] hi, int row) {
    int k = v.length;
    double sum = 0;
    for (double x : v) {
      sum += x;
    }
    double mu = sum / k;
    if (sd != null) {
      double ss = 0;
      for (double x : v) {
        ss += (x - mu) * (x - mu);
      }
      sd[row] = Math.sqrt(ss / (k - 1));
    }
    mean[row] = mu;
    Arrays.sort(v);
    lo[row] = quantile(v, (1 - level) / 2);
    hi[row] = quantile(v, (1 + level) / 2);
  }

  /** The q-quantile of sorted {@code v}: linear between order statistics ((K - 1) q, type 7). */
  static double quantile(double[] v, double q) {
    double h = (v.length - 1) * q;
    int below = (int) Math.floor(h);
    int above = Math.min(below + 1, v.length - 1);
    return v[below] + (h - below) * (v[above] - v[below]);
  }

  /**
   * The spread of n rows; arrays of n, indexed by row, owned by the result (not copied). The
   * classification arrays are null for regression.
   *
   * @param fullPrecision the score of the unrounded features (regression: the prediction;
   *     binary: the logit of class 1; multiclass: the score of {@code predictedClass})
   * @param mean the mean of the K draws' scores
   * @param sd their sample standard deviation (divisor K - 1)
   * @param lo the (1 - level) / 2 quantile of the K scores
   * @param hi the (1 + level) / 2 quantile
   * @param variance the exact variance of the score, sum_i w_i^2 (z_i - lo_i)(lo_i + step - z_i)
   * @param varianceBound its bound ||w||^2 step^2 / 4
   * @param predictedClass the class of the full-precision scores
   * @param probability that class's probability at full precision
   * @param probabilityMean its mean over the draws
   * @param probabilityLo its (1 - level) / 2 quantile over the draws
   * @param probabilityHi its (1 + level) / 2 quantile
   * @param agreement the fraction of draws whose predicted class is {@code predictedClass}
   */
  public record Result(
      int rows, int draws, double level, float[] fullPrecision, double[] mean, double[] sd,
      double[] lo, double[] hi, double[] variance, double[] varianceBound, int[] predictedClass,
      double[] probability, double[] probabilityMean, double[] probabilityLo,
      double[] probabilityHi, double[] agreement) {

    static Result allocate(int n, boolean classification, int draws, double level) {
      int rows = Math.max(n, 0);
      int cn = classification ? rows : -1;
      return new Result(rows, draws, level, new float[rows], new double[rows], new double[rows],
          new double[rows], new double[rows], new double[rows], new double[rows],
          cn < 0 ? null : new int[cn], doubles(cn), doubles(cn), doubles(cn), doubles(cn),
          doubles(cn));
    }

    private static double[] doubles(int n) {
      return n < 0 ? null : new double[n];
    }

    /** Whether the classification arrays are present. */
    public boolean classification() {
      return predictedClass != null;
    }
  }
}
