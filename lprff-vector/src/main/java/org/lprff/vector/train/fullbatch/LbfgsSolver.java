package org.lprff.vector.train.fullbatch;

import static org.lprff.vector.train.fullbatch.DoubleVectors.axpy;
import static org.lprff.vector.train.fullbatch.DoubleVectors.dot;
import static org.lprff.vector.train.fullbatch.DoubleVectors.maxAbs;
import static org.lprff.vector.train.fullbatch.DoubleVectors.norm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.train.loss.SquaredLoss;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.EpochRecord;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingListener;
import org.lprff.vector.train.model.TrainingResult;

/**
 * Full-batch L-BFGS on this package's objective ({@code J = mean loss + (lambda/2) ||W||^2}, bias
 * not regularized) for the squared, logistic and softmax losses: the optimum, with no learning
 * rate to tune.
 *
 * <p>Every function evaluation is one streaming pass over the training source ({@link
 * FullBatchObjective}: packed features read in place, forward product and transposed accumulate
 * per batch, over cores in fixed chunks whose sums are added in order, so the bits do not
 * depend on the thread count), so memory is O(batch + model + history), never n x m floats. Directions come from
 * the two-loop recursion over the last {@code history} pairs (s, y), scaled by s.y / y.y; steps
 * satisfy the strong Wolfe conditions (c1 = 1e-4, c2 = 0.9; bracketing and zoom with safeguarded
 * cubic interpolation, Nocedal and Wright, Algorithms 3.5 and 3.6), so every accepted pair has
 * positive curvature and J decreases monotonically. The first step is 1 / ||g||.
 *
 * <p><b>Stopping.</b> {@link StopReason#CONVERGED} when an iteration lowers J by less than {@code
 * tolerance} relative to |J|, or when the gradient's largest entry is at most {@code
 * gradientTolerance} times the zero model's (off by default; scikit-learn's lbfgs stops at an
 * absolute 1e-4) (or the gradient is exactly 0, or the line search finds no lower J
 * along a descent direction: the float32 products' rounding then dominates); {@link
 * StopReason#EPOCH_CAP} after {@code maxIterations}; {@link StopReason#CONVERGED} too when the
 * caller's monitor ({@code Builder.monitor}) ends it; {@link StopReason#DIVERGED} when J is not
 * finite at the start. A pass is deterministic, so the result is a pure function of the inputs.
 */
public final class LbfgsSolver {

  public static final int DEFAULT_HISTORY = 10;
  public static final int DEFAULT_MAX_ITERATIONS = 500;
  public static final double DEFAULT_TOLERANCE = 1e-10;
  /** No stop on the gradient's size (the default): only {@link #DEFAULT_TOLERANCE}'s. */
  public static final double NO_GRADIENT_TOLERANCE = 0;
  /** Rows per pass batch: large, since the order does not matter and the kernels like it. */
  public static final int DEFAULT_BATCH_SIZE = 1024;

  private static final double C1 = 1e-4;
  private static final double C2 = 0.9;
  private static final int MAX_LINE_SEARCH = 40;

  /**
   * The curvature the preconditioner assumes for the logistic and softmax losses: the loss's
   * second derivative p (1 - p) averaged over the rows, which falls from 1/4 as a model fits;
   * measured on digits (m = 4096, the whole l2 path and refit): 358 passes at 1/16, 659 at 1/4,
   * 499 at 1/64.
   */
  static final double LOGISTIC_CURVATURE = 1.0 / 16;

  private final Task task;
  private final int features;
  private final double l2;
  private final int history;
  private final int maxIterations;
  private final double tolerance;
  private final double gradientTolerance;
  private final int monitorEvery;
  private final Predicate<LinearModel> monitor;
  private final int batchSize;
  private final TrainingListener listener;
  private final LongSupplier clock;
  private final Executor executor;
  private final SketchPreconditioner preconditioner;
  /** The preconditioner's mu: lambda / curvature + its shift. */
  private final double mu;
  private final double curvature;

  private LbfgsSolver(Builder b) {
    this.task = b.task;
    this.features = b.features;
    this.l2 = b.l2;
    this.history = b.history;
    this.maxIterations = b.maxIterations;
    this.tolerance = b.tolerance;
    this.gradientTolerance = b.gradientTolerance;
    this.monitorEvery = b.monitorEvery;
    this.monitor = b.monitor;
    this.batchSize = b.batchSize;
    this.listener = b.listener;
    this.clock = b.clock;
    this.executor = b.executor;
    this.preconditioner = b.preconditioner;
    this.curvature = b.task.loss() instanceof SquaredLoss ? 1 : LOGISTIC_CURVATURE;
    this.mu = b.preconditioner == null ? Double.NaN : b.preconditioner.mu(b.l2 / curvature);
  }

  /** A builder for a model of {@code task} on {@code features} features. */
  public static Builder builder(Task task, int features) {
    return new Builder(task, features);
  }

  public double l2() {
    return l2;
  }

  /** Trains from zero weights. */
  public TrainingResult train(MiniBatchSource train) {
    return train(train, LinearModel.zeros(features, task.outputs()));
  }

  /**
   * Trains from {@code initial} (a warm start, e.g. the previous lambda's model on a path).
   *
   * @throws IllegalArgumentException if the source or the model does not fit this solver, the
   *     source has no rows, or a label is invalid (naming the row and the value)
   */
  public TrainingResult train(MiniBatchSource train, LinearModel initial) {
    if (train == null) {
      throw new IllegalArgumentException("train source is null");
    }
    return train(Partitions.of(train), initial);
  }

  /**
   * Trains on rows held in parts (one local source, or a cluster's partitions: each evaluation is
   * then a pass per part, the sums added), from {@code initial}.
   *
   * @throws IllegalArgumentException as {@link #train(MiniBatchSource, LinearModel)}
   */
  public TrainingResult train(Partitions train, LinearModel initial) {
    if (train == null) {
      throw new IllegalArgumentException("train source is null");
    }
    if (initial == null) {
      throw new IllegalArgumentException("initial model is null");
    }
    Evaluation.checkFeatures("train source", train.features(), features);
    if (initial.features() != features || initial.outputs() != task.outputs()) {
      throw new IllegalArgumentException(
          "initial model is " + initial.features() + " x " + initial.outputs() + ", expected "
              + features + " features x " + task.outputs() + " outputs");
    }
    return new Run(new FullBatchObjective(train, task, features, l2, batchSize, executor), initial)
        .execute();
  }

  /** One {@link #train} call: the iterate, its value and gradient, and the (s, y) history. */
  private final class Run {
    final FullBatchObjective objective;
    final int n;
    double[] x;
    double[] g;
    double f;
    /** The last point the line search evaluated, with its value and gradient. */
    final double[] trialX;
    double[] trialG;
    double trialF;
    final double[][] s;
    final double[][] y;
    final double[] rho;
    /** y . H0 y of each pair, with the preconditioner. */
    final double[] yHy;
    final double[] scratch;
    int stored;
    int newest = -1;
    final List<EpochRecord> records = new ArrayList<>();

    Run(FullBatchObjective objective, LinearModel initial) {
      this.objective = objective;
      this.n = objective.dimension();
      this.x = new double[n];
      float[] w = initial.weightsT();
      float[] b = initial.bias();
      for (int k = 0; k < w.length; k++) {
        x[k] = w[k];
      }
      for (int j = 0; j < b.length; j++) {
        x[w.length + j] = b[j];
      }
      this.g = new double[n];
      this.trialX = new double[n];
      this.trialG = new double[n];
      this.s = new double[history][n];
      this.y = new double[history][n];
      this.rho = new double[history];
      this.yHy = new double[history];
      this.scratch = preconditioner == null ? null : new double[n];
    }

    TrainingResult execute() {
      f = objective.valueAndGradient(x, g);
      if (!Double.isFinite(f)) {
        return result(initialModel(), StopReason.DIVERGED,
            "the objective is " + f + " at the initial model", 0, Double.NaN);
      }
      double[] p = new double[n];
      double step = Double.NaN;
      // The gradient stop's scale: the gradient at the zero model (one more pass from a warm
      // start), so that the stop means the same whatever the start.
      double reference = 0;
      if (gradientTolerance > 0) {
        double[] g0 = g;
        for (double v : x) {
          if (v != 0) {
            g0 = new double[n];
            objective.valueAndGradient(new double[n], g0);
            break;
          }
        }
        reference = maxAbs(g0);
      }
      for (int iteration = 0; iteration < maxIterations; iteration++) {
        long start = clock.getAsLong();
        if (norm(g) == 0) {
          return result(objective.model(x), StopReason.CONVERGED, "the gradient is 0", iteration,
              step);
        }
        if (gradientTolerance > 0 && maxAbs(g) <= gradientTolerance * reference) {
          return result(objective.model(x), StopReason.CONVERGED, String.format(Locale.ROOT,
              "the gradient's largest entry fell to %.3g, %s of the zero model's, after %d"
              + " iterations", maxAbs(g), gradientTolerance, iteration), iteration, step);
        }
        direction(p);
        double slope = dot(g, p);
        if (!(slope < 0)) {
          // Rounding made the quasi-Newton direction uphill: restart from steepest descent.
          stored = 0;
          newest = -1;
          direction(p);
          slope = dot(g, p);
        }
        // The first step: 1 along a preconditioned direction (P approximates the Hessian), else
        // a unit move along the gradient.
        double initialStep = iteration == 0 && preconditioner == null
            ? 1 / Math.sqrt(dot(g, g)) : 1;
        double previous = f;
        step = lineSearch(p, slope, initialStep);
        if (Double.isNaN(step)) {
          return result(objective.model(x), StopReason.CONVERGED,
              "no lower objective along the search direction after " + iteration
                  + " iterations (the float32 products' rounding dominates)", iteration, step);
        }
        remember(p, step);
        System.arraycopy(trialX, 0, x, 0, n);
        double[] t = g;
        g = trialG;
        trialG = t;
        f = trialF;
        double seconds = (clock.getAsLong() - start) / 1e9;
        EpochRecord record = new EpochRecord(
            iteration, f, Double.NaN, Double.NaN, step, seconds, true, false);
        records.add(record);
        listener.onEpoch(record);
        if (monitor != null && (iteration + 1) % monitorEvery == 0
            && monitor.test(objective.model(x))) {
          return result(objective.model(x), StopReason.CONVERGED,
              "stopped by its monitor after " + (iteration + 1) + " iterations", iteration + 1,
              step);
        }
        if (previous - f <= tolerance * Math.max(Math.abs(f), Math.ulp(1.0))) {
          return result(objective.model(x), StopReason.CONVERGED,
              "the objective changed by less than " + tolerance + " relative after "
                  + (iteration + 1) + " iterations", iteration + 1, step);
        }
      }
      return result(objective.model(x), StopReason.EPOCH_CAP,
          "stopped after " + maxIterations + " iterations", maxIterations, step);
    }

    /** p = -H g by the two-loop recursion over the stored pairs (newest first). */
    void direction(double[] p) {
      for (int k = 0; k < n; k++) {
        p[k] = -g[k];
      }
      double[] alpha = new double[stored];
      for (int i = 0; i < stored; i++) {
        int at = Math.floorMod(newest - i, history);
        alpha[i] = rho[at] * dot(s[at], p);
        axpy(-alpha[i], y[at], p);
      }
      if (preconditioner != null) {
        preconditioner.applyModel(mu, curvature, p, task.outputs(), scratch);
        double gamma = stored > 0 ? 1 / (rho[newest] * yHy[newest]) : 1;
        for (int k = 0; k < n; k++) {
          p[k] = gamma * scratch[k];
        }
      } else if (stored > 0) {
        double yy = dot(y[newest], y[newest]);
        double gamma = 1 / (rho[newest] * yy);
        for (int k = 0; k < n; k++) {
          p[k] *= gamma;
        }
      }
      for (int i = stored - 1; i >= 0; i--) {
        int at = Math.floorMod(newest - i, history);
        double beta = rho[at] * dot(y[at], p);
        axpy(alpha[i] - beta, s[at], p);
      }
    }

    /** Stores s = step p and y = g(trial) - g, when the curvature s.y is positive. */
    void remember(double[] p, double step) {
      int at = (newest + 1) % history;
      double sy = 0;
      for (int k = 0; k < n; k++) {
        s[at][k] = step * p[k];
        y[at][k] = trialG[k] - g[k];
        sy += s[at][k] * y[at][k];
      }
      if (sy > 0) {
        if (preconditioner != null) {
          preconditioner.applyModel(mu, curvature, y[at], task.outputs(), scratch);
          double yhy = dot(y[at], scratch);
          if (!(yhy > 0)) {
            return; // P^-1 as applied in float is not positive on this y: skip the pair
          }
          yHy[at] = yhy;
        }
        rho[at] = 1 / sy;
        newest = at;
        stored = Math.min(stored + 1, history);
      }
    }

    /**
     * A step satisfying the strong Wolfe conditions along p, whose point, value and gradient are
     * left in trialX, trialF, trialG; NaN if none lowers J.
     */
    double lineSearch(double[] p, double slope, double initialStep) {
      double previousStep = 0;
      double previousF = f;
      double previousSlope = slope;
      double a = initialStep;
      for (int i = 0; i < MAX_LINE_SEARCH; i++) {
        double fa = evaluate(p, a);
        if (fa > f + C1 * a * slope || (i > 0 && fa >= previousF)) {
          return zoom(p, slope, previousStep, previousF, previousSlope, a, fa, dot(trialG, p));
        }
        double da = dot(trialG, p);
        if (Math.abs(da) <= -C2 * slope) {
          return a;
        }
        if (da >= 0) {
          return zoom(p, slope, a, fa, da, previousStep, previousF, previousSlope);
        }
        previousStep = a;
        previousF = fa;
        previousSlope = da;
        a *= 2;
      }
      return Double.NaN;
    }

    /** Narrows [lo, hi] (lo the best point so far) to a strong Wolfe step. */
    double zoom(double[] p, double slope, double lo, double fLo, double dLo, double hi,
        double fHi, double dHi) {
      for (int i = 0; i < MAX_LINE_SEARCH; i++) {
        double a = interpolate(lo, fLo, dLo, hi, fHi, dHi);
        double fa = evaluate(p, a);
        if (fa > f + C1 * a * slope || fa >= fLo) {
          hi = a;
          fHi = fa;
          dHi = Double.isFinite(fa) ? dot(trialG, p) : Double.NaN;
        } else {
          double da = dot(trialG, p);
          if (Math.abs(da) <= -C2 * slope) {
            return a;
          }
          if (da * (hi - lo) >= 0) {
            hi = lo;
            fHi = fLo;
            dHi = dLo;
          }
          lo = a;
          fLo = fa;
          dLo = da;
        }
        if (Math.abs(hi - lo) <= 1e-12 * Math.abs(lo)) {
          break;
        }
      }
      if (lo > 0 && fLo < f) {
        // Wolfe's curvature condition not met in the budget, but lo lowers J: take it.
        evaluate(p, lo);
        return lo;
      }
      return Double.NaN;
    }

    /** J at x + a p into trialX, trialF, trialG; a non-finite J counts as +infinity. */
    double evaluate(double[] p, double a) {
      for (int k = 0; k < n; k++) {
        trialX[k] = x[k] + a * p[k];
      }
      double value = objective.valueAndGradient(trialX, trialG);
      trialF = Double.isFinite(value) ? value : Double.POSITIVE_INFINITY;
      return trialF;
    }

    LinearModel initialModel() {
      return objective.model(x);
    }

    TrainingResult result(
        LinearModel model, StopReason reason, String message, int iterations, double step) {
      return new TrainingResult(model, reason, message, iterations, objective.passes(), 0,
          iterations, Double.NaN, step, records);
    }
  }

  /**
   * The minimizer of the cubic through (lo, fLo, dLo) and (hi, fHi, dHi), kept inside the middle
   * 80% of the interval; bisection when the cubic has no usable minimum (or a value is infinite).
   */
  static double interpolate(double lo, double fLo, double dLo, double hi, double fHi, double dHi) {
    double left = Math.min(lo, hi);
    double right = Math.max(lo, hi);
    double width = right - left;
    double mid = 0.5 * (lo + hi);
    if (!Double.isFinite(fHi) || !Double.isFinite(dHi)) {
      return mid;
    }
    double d1 = dLo + dHi - 3 * (fLo - fHi) / (lo - hi);
    double radicand = d1 * d1 - dLo * dHi;
    if (!(radicand >= 0)) {
      return mid;
    }
    double d2 = Math.copySign(Math.sqrt(radicand), hi - lo);
    double a = hi - (hi - lo) * (dHi + d2 - d1) / (dHi - dLo + 2 * d2);
    if (!Double.isFinite(a) || a < left + 0.1 * width || a > right - 0.1 * width) {
      return mid;
    }
    return a;
  }

  /** Settings of an {@link LbfgsSolver}; every one has a default. */
  public static final class Builder {
    private final Task task;
    private final int features;
    private double l2 = 1e-6;
    private int history = DEFAULT_HISTORY;
    private int maxIterations = DEFAULT_MAX_ITERATIONS;
    private double tolerance = DEFAULT_TOLERANCE;
    private double gradientTolerance = NO_GRADIENT_TOLERANCE;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private TrainingListener listener = TrainingListener.NONE;
    private LongSupplier clock = System::nanoTime;
    private Executor executor = ForkJoinPool.commonPool();
    private SketchPreconditioner preconditioner;
    private int monitorEvery;
    private Predicate<LinearModel> monitor;

    private Builder(Task task, int features) {
      if (task == null) {
        throw new IllegalArgumentException("task is null");
      }
      if (features < 1) {
        throw new IllegalArgumentException("features is " + features + ", expected >= 1");
      }
      this.task = task;
      this.features = features;
    }

    /** The l2 penalty lambda >= 0 (default 1e-6). */
    public Builder l2(double l2) {
      NormalEquations.checkLambda(l2);
      this.l2 = l2;
      return this;
    }

    /** Pairs (s, y) kept, >= 1 (default {@value #DEFAULT_HISTORY}). */
    public Builder history(int history) {
      if (history < 1) {
        throw new IllegalArgumentException("history is " + history + ", expected >= 1");
      }
      this.history = history;
      return this;
    }

    /** Iterations at most, >= 1 (default {@value #DEFAULT_MAX_ITERATIONS}). */
    public Builder maxIterations(int maxIterations) {
      if (maxIterations < 1) {
        throw new IllegalArgumentException(
            "maxIterations is " + maxIterations + ", expected >= 1");
      }
      this.maxIterations = maxIterations;
      return this;
    }

    /** Relative decrease of J below which training stops, in [0, 1) (default 1e-10). */
    public Builder tolerance(double tolerance) {
      if (!(tolerance >= 0 && tolerance < 1)) {
        throw new IllegalArgumentException("tolerance is " + tolerance + ", expected in [0, 1)");
      }
      this.tolerance = tolerance;
      return this;
    }

    /**
     * Training stops once the gradient's largest entry (max |dJ/dw|) is at most this fraction of
     * its value at the zero model, in [0, 1) (default {@value #NO_GRADIENT_TOLERANCE}: off). A
     * warm start costs one more pass, for the zero model's gradient.
     */
    public Builder gradientTolerance(double gradientTolerance) {
      if (!(gradientTolerance >= 0 && gradientTolerance < 1)) {
        throw new IllegalArgumentException("gradientTolerance is " + gradientTolerance
            + ", expected in [0, 1)");
      }
      this.gradientTolerance = gradientTolerance;
      return this;
    }

    /** Rows per batch of a pass, >= 1 (default {@value #DEFAULT_BATCH_SIZE}). */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1) {
        throw new IllegalArgumentException("batchSize is " + batchSize + ", expected >= 1");
      }
      this.batchSize = batchSize;
      return this;
    }

    /** Called after every iteration with its objective (as trainLoss) and step. */
    public Builder listener(TrainingListener listener) {
      this.listener = listener == null ? TrainingListener.NONE : listener;
      return this;
    }

    /**
     * Helper threads of each pass's products (default the common pool; null: the calling thread
     * alone). The result does not depend on it.
     */
    public Builder executor(Executor executor) {
      this.executor = executor;
      return this;
    }

    /**
     * The initial inverse Hessian of the two-loop recursion (default: the identity, scaled):
     * {@code preconditioner}'s P^-1 on every output, at lambda / c + its shift for the loss's
     * curvature c (1 for the squared loss, {@link #LOGISTIC_CURVATURE} for the logistic and
     * softmax), scaled by s.y / y.H0 y; null for none (the default; the {@code Trainer} sets it
     * on rows of at least 4 samples: on the 26-class set, m = 4096, 14,366 rows, it cuts the
     * path's and refit's passes 2.7x, 1,563 to 588, and training from 173 s to 103 s).
     *
     * @throws IllegalArgumentException if the preconditioner has other features than the model
     */
    public Builder preconditioner(SketchPreconditioner preconditioner) {
      if (preconditioner != null && preconditioner.features() != features) {
        throw new IllegalArgumentException("the preconditioner has " + preconditioner.features()
            + " features, the model " + features);
      }
      this.preconditioner = preconditioner;
      return this;
    }

    /**
     * Every {@code every} iterations the current model is offered to {@code stop}; true ends
     * training ({@link StopReason#CONVERGED}, the message saying so). The l2 path's way to give up
     * on an l2 whose validation loss is already past its minimum. Null: none (the default).
     */
    public Builder monitor(int every, Predicate<LinearModel> stop) {
      if (stop != null && every < 1) {
        throw new IllegalArgumentException("every is " + every + ", expected >= 1");
      }
      this.monitorEvery = every;
      this.monitor = stop;
      return this;
    }

    /** The clock of the records' seconds (tests). */
    Builder clock(LongSupplier clock) {
      this.clock = clock;
      return this;
    }

    public LbfgsSolver build() {
      return new LbfgsSolver(this);
    }
  }
}
