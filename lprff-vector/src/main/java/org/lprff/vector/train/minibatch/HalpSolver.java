package org.lprff.vector.train.minibatch;

import java.util.Arrays;
import java.util.function.LongSupplier;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.loss.Loss;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.TrainingListener;
import org.lprff.vector.train.model.TrainingResult;

/**
 * LM-HALP: low-precision SVRG with bit centering (De Sa, Leszczynski, Zhang, Marzoev, Aberger,
 * Olukotun, Ré, "High-Accuracy Low-Precision Training", 2018; for linear models over LP-RFFs as in
 * Zhang, May, Dao, Ré, AISTATS 2019), on the objective of this package ({@code J = mean loss +
 * (lambda/2) ||W||^2}, bias not regularized).
 *
 * <p><b>Outer loop</b>, every {@code T} epochs ({@link Builder#anchorEpochs}): re-center the anchor
 * {@code W~ <- W~ + Z} (rounded to nearest onto a {@link Builder#anchorBits}-bit grid, one scale
 * per output column, max |W~_j| / (2^(a-1) - 1)); one pass over every training row for the full
 * gradient {@code G~ = grad J(W~)} (l2 term included), stored at 2b bits (stochastic rounding, one
 * scale per column); Z <- 0 on a grid of step {@code s_j = ||G~_j|| (lr / lr_0) / (mu_j (2^(b-1)
 * - 1))} per column. HALP's reason: for a mu-strongly convex J the optimum lies within ||G~|| / mu
 * of the anchor, so the grid covers it and refines as G~ shrinks. Two departures from the
 * reference code's fixed mu, both measured (diamonds m = 4096 and Fashion-MNIST m = 4096, 4-bit
 * features, 8-bit model; see the README): the grid shrinks with the rate (lr_0 the schedule's
 * first; early stopping's halvings shorten the epoch's travel, so a fixed grid would leave the
 * last epochs' steps to rounding noise), and each column's mu adapts at each re-centering ({@link
 * Builder#adaptiveMu}): divided by 4 when that column's offset saturated in the period (the
 * travel outran the grid), doubled when it ended within a quarter of its range. mu_j starts at
 * {@link Builder#mu}. A re-centering also follows every halving.
 *
 * <p><b>Inner step</b> on a mini-batch X (the packed low-precision features): the loss derivatives
 * {@code D = dL/dY} at {@code W~ + Z} and {@code D~} at W~ (two {@link FeatureRows#forward}); their
 * difference rounded stochastically to b bits (one scale per column, max |D - D~| / (2^(b-1) -
 * 1)); {@code Z <- Q_b,s(Z - lr (X^T (D - D~) + G~ + lambda Z))} ({@link
 * FeatureRows#accumulateTransposed}), stochastically rounded and saturating on Z's grid; the
 * bias (c floats, like the paper's model count excludes it) takes the same variance-reduced step
 * in float. The rounding draws come from {@link CounterRng} keyed by (seed, step, entry, purpose),
 * so the model is a pure function of (sources, seed, settings), bit for bit.
 *
 * <p><b>Stored at low precision:</b> Z at b bits, the anchor at a bits (default 2b), G~ at 2b
 * bits ({@link LowPrecisionVector}), the gradient differences at b bits. The product kernels read float
 * weights, so two float decodings are kept as working scratch (the anchor's and W~ + Z's, the
 * latter updated in the same loop that writes Z, never a separate pass); see {@code
 * Trainer.workingBytes}.
 *
 * <p>Epochs, early stopping, divergence and the result are SGD's ({@link SgdSolver}); an epoch
 * whose heldout loss is worse reverts to the best model and re-centers on it.
 */
public final class HalpSolver {

  /** The model bits b the paper uses. */
  public static final int DEFAULT_MODEL_BITS = 8;
  /**
   * The initial mu of the offset's scale. The LP-RFF reference code's default is 10 ({@code
   * --opt_mu}); on diamonds (m = 4096, 4-bit features, 8-bit model, early stopping, the final
   * rule) mu 1 gave heldout MSE 0.02381 and mu 10 0.02467 (SGD: 0.02337).
   */
  public static final double DEFAULT_MU = 1;
  /** Epochs between re-centerings, T: one epoch, as the reference. */
  public static final int DEFAULT_ANCHOR_EPOCHS = 1;

  /** Draw streams of the rounding: the offset, the gradient differences, the full gradient. */
  private static final int DRAW_OFFSET = 0;
  private static final int DRAW_DIFFERENCE = 1;
  private static final int DRAW_FULL = 2;
  /** Mixed into the seed so the draws share nothing with the sources' shuffling. */
  private static final long STREAM = 0x4a1f_b17c_0ffe_7e11L;

  private final Task task;
  private final Loss loss;
  private final int features;
  private final int outputs;
  private final int batchSize;
  private final double l2;
  private final long seed;
  private final Schedule schedule;
  private final int modelBits;
  private final int anchorBits;
  private final double mu;
  private final boolean adaptive;
  private final int anchorEpochs;
  private final TrainingListener listener;
  private final LongSupplier clock;
  private final Observer observer;

  /** Sees the low-precision state after each epoch's steps (tests). */
  interface Observer {
    void afterEpoch(int epoch, LowPrecisionVector anchor, LowPrecisionVector offset,
        LowPrecisionVector fullGradient, float[] weightsT);
  }

  private HalpSolver(Builder b) {
    this.task = b.task;
    this.loss = b.task.loss();
    this.features = b.features;
    this.outputs = b.task.outputs();
    this.batchSize = b.batchSize;
    this.l2 = b.l2;
    this.seed = b.seed;
    this.schedule = b.schedule;
    this.modelBits = b.modelBits;
    this.anchorBits = b.anchorBits == 0 ? 2 * b.modelBits : b.anchorBits;
    this.observer = b.observer;
    this.mu = b.mu;
    this.adaptive = b.adaptive;
    this.anchorEpochs = b.anchorEpochs;
    this.listener = b.listener;
    this.clock = b.clock;
    b.batchFloats(); // the run's batch arrays must fit
  }

  public static Builder builder(Task task, int features) {
    return new Builder(task, features);
  }

  public int modelBits() {
    return modelBits;
  }

  public int anchorBits() {
    return anchorBits;
  }

  public double mu() {
    return mu;
  }

  public int anchorEpochs() {
    return anchorEpochs;
  }

  /** Trains from zero weights; {@code heldout} may be null unless the schedule stops early. */
  public synchronized TrainingResult train(MiniBatchSource train, MiniBatchSource heldout) {
    if (train == null) {
      throw new IllegalArgumentException("train source is null");
    }
    Evaluation.checkFeatures("train source", train.features(), features);
    if (heldout != null) {
      Evaluation.checkFeatures("heldout source", heldout.features(), features);
    }
    if (schedule instanceof Schedule.EarlyStopping && heldout == null) {
      throw new IllegalArgumentException("early stopping needs a heldout source, got null");
    }
    return new Run(train, heldout).execute();
  }

  /** The state of one {@link #train} call. */
  private final class Run extends ScheduledEpochs {
    final MiniBatchSource train;
    final int m = features;
    final int c = outputs;
    final long drawSeed = seed ^ STREAM;

    /** The anchor W~ (a bits) and its float decoding, the products' weights. */
    final LowPrecisionVector anchor = new LowPrecisionVector(anchorBits, outputs, features);
    final float[] anchorF = new float[features * outputs];
    final float[] anchorBias = new float[outputs];
    /** The offset Z (b bits) and W~ + Z in float, rewritten where Z is. */
    final LowPrecisionVector offset = new LowPrecisionVector(modelBits, outputs, features);
    /** The full gradient G~ at 2b bits, its bias part in double. */
    final LowPrecisionVector full = new LowPrecisionVector(2 * modelBits, outputs, features);
    final double[] fullBias = new double[outputs];

    final float[] scoresAnchor = new float[batchSize * outputs];
    final float[] dAnchor = new float[batchSize * outputs];
    final float[] difference = new float[batchSize * outputs];
    final float[] gT = new float[features * outputs];
    /** 16-bit draws: a batch's differences, or a chunk of Z's entries. */
    final int[] draws = new int[Math.max(1024, batchSize * outputs)];

    /** Each column's mu, and whether its offset saturated since the last re-centering. */
    final double[] columnMu = new double[outputs];
    final boolean[] saturated = new boolean[outputs];

    long recenterings;
    boolean recenterNext = true;

    Run(MiniBatchSource train, MiniBatchSource heldout) {
      super(HalpSolver.this.schedule, HalpSolver.this.loss, HalpSolver.this.features,
          HalpSolver.this.batchSize, heldout, HalpSolver.this.listener, HalpSolver.this.clock,
          LinearModel.zeros(HalpSolver.this.features, outputs),
          new float[HalpSolver.this.batchSize * outputs]);
      this.train = train;
      Arrays.fill(columnMu, mu);
    }

    @Override
    String beforeEpoch(int epoch) {
      if (recenterNext || epoch % anchorEpochs == 0) {
        recenterNext = false;
        return recenter();
      }
      return null;
    }

    @Override
    void afterEpoch(int epoch) {
      if (observer != null) {
        observer.afterEpoch(epoch, anchor, offset, full, model.weightsT());
      }
    }

    @Override
    void reverted() {
      recenterNext = true; // the anchor onto the best weights
    }

    @Override
    void halved() {
      recenterNext = true; // a finer grid for the shorter steps
    }

    @Override
    String summary() {
      return "; " + recenterings + " re-centerings";
    }

    /** The rate over the schedule's first: the epoch's travel, and the grid, shrink with it. */
    double rateShare() {
      return rate / schedule.learningRate();
    }

    /**
     * Column j's mu for the next period: a quarter when its offset saturated (the travel outran
     * the grid), doubled when the offset ended within a quarter of its range (bits to spare).
     */
    void adapt(int j) {
      long used = 0;
      for (int k = j * m; k < (j + 1) * m; k++) {
        used = Math.max(used, Math.abs((long) offset.code(k)));
      }
      if (saturated[j]) {
        columnMu[j] /= 4;
      } else if (used < offset.maxCode() / 4) {
        columnMu[j] *= 2;
      }
    }

    /**
     * W~ <- round(W~ + Z) at a bits, the full gradient at it (one pass), Z's new scales, Z <- 0.
     * Null, or what went non-finite.
     */
    String recenter() {
      float[] w = model.weightsT();
      if (!model.isFinite()) {
        return "a weight or bias became non-finite";
      }
      anchor.fitScales(w);
      anchor.roundNearest(w);
      anchor.decode(anchorF);
      System.arraycopy(model.bias(), 0, anchorBias, 0, c);
      // The full gradient of the mean loss: per-batch gradients (1/n each) weighted by n.
      double[] sum = new double[m * c];
      Arrays.fill(fullBias, 0);
      long rows = 0;
      try (MiniBatchSource.Batches batches = train.epoch(0, batchSize, seed)) {
        while (batches.hasNext()) {
          MiniBatch batch = batches.next();
          int n = batch.rows();
          if (n == 0) {
            continue;
          }
          batch.checkFits(m, batchSize, "train");
          loss.checkLabels(n, batch.targets(), batch.classes(), batch.rowIds());
          FeatureRows z = batch.features();
          z.forward(anchorF, c, scoresAnchor);
          LinearModel.addBias(anchorBias, n, c, scoresAnchor);
          double batchLoss =
              loss.compute(scoresAnchor, n, batch.targets(), batch.classes(), dAnchor);
          if (!Double.isFinite(batchLoss)) {
            return "the loss at the anchor is " + batchLoss;
          }
          Arrays.fill(gT, 0f);
          z.accumulateTransposed(dAnchor, c, gT);
          for (int k = 0; k < gT.length; k++) {
            sum[k] += (double) n * gT[k];
          }
          for (int r = 0; r < n; r++) {
            for (int j = 0; j < c; j++) {
              fullBias[j] += (double) n * dAnchor[r * c + j];
            }
          }
          rows += n;
        }
      }
      if (rows == 0) {
        throw new IllegalArgumentException("the train source has no rows");
      }
      float[] g = gT; // reused as the float full gradient before its rounding
      for (int k = 0; k < g.length; k++) {
        g[k] = (float) (sum[k] / rows + l2 * anchorF[k]);
      }
      for (int j = 0; j < c; j++) {
        fullBias[j] /= rows;
      }
      full.fitScales(g);
      full.roundStochastic(g, drawSeed, recenterings, DRAW_FULL);
      double levels = offset.maxCode();
      for (int j = 0; j < c; j++) {
        if (adaptive && recenterings > 0) {
          adapt(j);
        }
        double norm = 0;
        for (int k = j * m; k < (j + 1) * m; k++) {
          norm += (double) g[k] * g[k];
        }
        offset.setScale(j, (float) (Math.sqrt(norm) * rateShare() / (columnMu[j] * levels)));
      }
      Arrays.fill(saturated, false);
      offset.clear();
      System.arraycopy(anchorF, 0, w, 0, w.length);
      recenterings++;
      return null;
    }

    /** One pass over the training batches; null, or what went non-finite. */
    @Override
    String runEpoch(int epoch) {
      epochLoss = 0;
      epochRows = 0;
      epochSteps = 0;
      float[] w = model.weightsT();
      float[] bias = model.bias();
      float step = (float) rate;
      float decay = (float) l2;
      double levels = offset.maxCode();
      try (MiniBatchSource.Batches batches = train.epoch(epoch, batchSize, seed)) {
        while (batches.hasNext()) {
          MiniBatch batch = batches.next();
          int n = batch.rows();
          if (n == 0) {
            continue;
          }
          batch.checkFits(m, batchSize, "train");
          try {
            loss.checkLabels(n, batch.targets(), batch.classes(), batch.rowIds());
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                "epoch " + epoch + " (0-based), step " + epochSteps + ": " + e.getMessage(), e);
          }
          FeatureRows z = batch.features();
          z.forward(w, c, scores);
          LinearModel.addBias(bias, n, c, scores);
          double batchLoss = loss.compute(scores, n, batch.targets(), batch.classes(), difference);
          lastStep = epochSteps;
          if (!Double.isFinite(batchLoss)) {
            return "the mini-batch's mean loss is " + batchLoss;
          }
          z.forward(anchorF, c, scoresAnchor);
          LinearModel.addBias(anchorBias, n, c, scoresAnchor);
          loss.compute(scoresAnchor, n, batch.targets(), batch.classes(), dAnchor);
          int nc = n * c;
          for (int i = 0; i < nc; i++) {
            difference[i] -= dAnchor[i];
          }
          roundDifference(nc, levels);
          Arrays.fill(gT, 0f);
          z.accumulateTransposed(difference, c, gT);
          for (int j = 0; j < c; j++) {
            float s = offset.scale(j);
            double inv = s == 0 ? 0 : 1.0 / s;
            double sum = 0;
            for (int r = 0; r < n; r++) {
              sum += difference[r * c + j];
            }
            bias[j] -= step * (float) (sum + fullBias[j]);
            // One loop: Z's new codes and W~ + Z, the next step's float weights.
            boolean clipped = false;
            for (int start = j * m, end = start + m; start < end; start += 1024) {
              int count = Math.min(1024, end - start);
              CounterRng.fillBits16(drawSeed, steps, start, DRAW_OFFSET, draws, 0, count);
              for (int i = 0; i < count; i++) {
                int k = start + i;
                float zk = offset.value(k, j);
                float v = zk - step * (gT[k] + full.value(k, j) + decay * zk);
                long raw = s == 0 ? 0 : LowPrecisionVector.roundOnce(v * inv, draws[i]);
                long code = Math.max(offset.minCode(), Math.min(offset.maxCode(), raw));
                clipped |= code != raw;
                offset.setCode(k, code);
                w[k] = anchorF[k] + (float) (code * (double) s);
              }
            }
            saturated[j] |= clipped;
          }
          epochLoss += batchLoss * n;
          epochRows += n;
          epochSteps++;
          steps++;
        }
      }
      if (epochRows == 0) {
        throw new IllegalArgumentException("the train source has no rows in epoch " + epoch);
      }
      if (!model.isFinite()) {
        return "a weight or bias became non-finite";
      }
      return null;
    }

    /**
     * The gradient differences of the batch (n x c, row-major) rounded stochastically onto a
     * b-bit grid per column, max |d_j| / (2^(b-1) - 1): the values the product then reads.
     */
    void roundDifference(int nc, double levels) {
      CounterRng.fillBits16(drawSeed, steps, 0, DRAW_DIFFERENCE, draws, 0, nc);
      for (int j = 0; j < c; j++) {
        double max = 0;
        for (int i = j; i < nc; i += c) {
          max = Math.max(max, Math.abs(difference[i]));
        }
        double s = max / levels;
        double inv = s == 0 ? 0 : 1 / s;
        for (int i = j; i < nc; i += c) {
          // |t| <= 2^(b-1) - 1 by the scale, so the rounded code stays in range.
          long code = LowPrecisionVector.roundOnce(difference[i] * inv, draws[i]);
          difference[i] = (float) (code * s);
        }
      }
    }
  }

  /** Settings of a solver; every setter validates its value. */
  public static final class Builder extends MiniBatchSettings<Builder> {
    private int modelBits = DEFAULT_MODEL_BITS;
    private int anchorBits;
    private double mu = DEFAULT_MU;
    private boolean adaptive = true;
    private int anchorEpochs = DEFAULT_ANCHOR_EPOCHS;
    private Observer observer;

    private Builder(Task task, int features) {
      super(task, features);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Bits b of the model offset and gradient differences, 8 or 16 (default 8). */
    public Builder modelBits(int bits) {
      checkModelBits(bits);
      this.modelBits = bits;
      return this;
    }

    /**
     * Bits of the anchor: 8, 16 or 32 (default 2 b: on diamonds, m = 4096, an 8-bit anchor under
     * an 8-bit offset gave heldout MSE 0.0577 against 0.0371 with a 16-bit or float anchor).
     */
    public Builder anchorBits(int bits) {
      if (!LowPrecisionVector.supportedBits(bits)) {
        throw new IllegalArgumentException("anchor bits is " + bits + ", expected 8, 16 or 32");
      }
      this.anchorBits = bits;
      return this;
    }

    /** mu of the offset's scale ||G~|| / (mu (2^(b-1) - 1)), finite and > 0 (default 1). */
    public Builder mu(double mu) {
      checkMu(mu);
      this.mu = mu;
      return this;
    }

    /**
     * Whether each column's mu adapts at every re-centering (default true): divided by 4 when
     * the offset saturated, doubled when it ended within a quarter of its range. False keeps mu
     * fixed, as the reference code does.
     */
    public Builder adaptiveMu(boolean adaptive) {
      this.adaptive = adaptive;
      return this;
    }

    /** Epochs between re-centerings T, >= 1 (default 1). */
    public Builder anchorEpochs(int epochs) {
      checkAnchorEpochs(epochs);
      this.anchorEpochs = epochs;
      return this;
    }

    Builder observer(Observer observer) {
      this.observer = observer;
      return this;
    }

    public HalpSolver build() {
      requireSchedule();
      return new HalpSolver(this);
    }
  }

  /** Refuses model bits other than 8 and 16, naming them. */
  public static void checkModelBits(int bits) {
    if (bits != 8 && bits != 16) {
      throw new IllegalArgumentException("model bits is " + bits + ", expected 8 or 16");
    }
  }

  /** Refuses a mu that is not finite and > 0, naming it. */
  public static void checkMu(double mu) {
    if (!(mu > 0) || Double.isInfinite(mu)) {
      throw new IllegalArgumentException("mu is " + mu + ", expected finite and > 0");
    }
  }

  /** Refuses epochs between re-centerings below 1, naming them. */
  public static void checkAnchorEpochs(int epochs) {
    if (epochs < 1) {
      throw new IllegalArgumentException(
          "epochs between re-centerings (T) is " + epochs + ", expected >= 1");
    }
  }
}
