package org.lprff.vector.train.fullbatch;

import static org.lprff.vector.train.fullbatch.DoubleVectors.norm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.train.loss.HingeLoss;
import org.lprff.vector.train.loss.SquaredLoss;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.EpochRecord;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingResult;

/**
 * Weighted sums of random kitchen sinks (Rahimi and Recht, NIPS 2008): the mean loss minimized
 * over weights bounded in the max norm, {@code min (1/n) sum_r loss(z_r W + b, label_r)} subject
 * to {@code |W_ij| <= B} for every feature i and output j, the intercept b free, no l2.
 *
 * <p><b>The bound.</b> The paper fits {@code f(x) = sum_i alpha_i cos(w_i.x + b_i)} with {@code
 * |alpha_i| <= C / m}; lprff's features are {@code z_i = sqrt(2/m) cos(w_i.x + b_i)}, so a weight
 * W_i of z_i is {@code alpha_i = W_i sqrt(2/m)} and the bound on W_i is {@link #weightBound}
 * {@code B = (C / m) / sqrt(2/m) = C / sqrt(2 m)}, m the model's features (for Sigma-Delta files,
 * the condensed ones the model weighs). Every output of a multiclass model has the bound on every
 * weight. The intercept is not in the paper's class (its f has none) and is left unconstrained:
 * the cosines have mean about 0 over the data, so without a free intercept a small C could not
 * even fit the mean of the targets, and the bound is about the function's shape, not its level.
 *
 * <p><b>Squared loss, m <= {@link ClosedFormRidge#PREFERRED_MAX_FEATURES}</b> ({@link
 * Builder#gramFeatures}): with the intercept free the problem is the box-constrained quadratic
 * {@code min (1/2) w^T (G/n) w - (c/n)^T w} over {@code |w_i| <= B}, G = Zc^T Zc and c = Zc^T tc
 * the centered normal equations, and {@code b = mean(t) - mean(z).w}. One pass accumulates them
 * ({@link ClosedFormRidge#accumulate}, as the closed form: n m^2 / 2 multiply-adds on all cores,
 * deterministic, over {@link Partitions}; 8 m^2 bytes), and {@link BoundedLeastSquares} solves
 * the m x m problem in memory, in double, to its KKT conditions: projected Newton on the free
 * block by Cholesky, the weights the Newton point puts beyond the box clamped and held and the
 * block solved again, the held weights whose gradient turns inward freed; a few iterations of
 * about m^3 / 3 flops each. G is singular without l2 (collinear features, m > n): the Cholesky
 * gets a tiny ridge on the step's direction only (1e-13 m times G/n's largest diagonal entry,
 * tenfold while it fails), never on the objective, and the next steps on the same face refine
 * what it damps. The float32 weights are the solution clamped to the largest float at most B,
 * the intercept recomputed from them; a last pass reports the model's mean loss. FISTA over
 * passes (below) converges slowly here: least squares without l2 is ill-conditioned.
 *
 * <p><b>Smooth losses</b> (logistic, softmax; squared above that m): FISTA (Beck and Teboulle 2009, the
 * accelerated projected gradient, the projection a clamp of every weight) with backtracking and
 * O'Donoghue and Candès' gradient restart (the momentum reset when it points uphill, {@code (y -
 * x_k) . (x_k - x_{k-1}) > 0}: no function values, so rounding cannot trigger it). Between
 * restarts {@code J(x_k) - J* <= 2 L ||x_0 - x*||^2 / (k + 1)^2}; every step is a projected
 * gradient step of a backtracked L, so J falls at least as projected gradient descent's does. L
 * starts at a secant estimate of the gradient's Lipschitz constant (one probing pass) and doubles
 * until {@code J(p) <= J(y) + g.(p - y) + L/2 |p - y|^2 + slack}, the slack what float32 scores
 * leave uncertain (4 u (1 + C + |b|) per score, u = 2^-24); it never decreases. Every point is
 * rounded to float32 before it is evaluated (the model is float32), so the test compares values
 * of the points kept. An
 * iteration is two passes: the gradient at the extrapolated point y, and the value and gradient
 * at the projected step. <b>Stopping</b> ({@link StopReason#CONVERGED}): the gradient mapping
 * {@code L |x - P(x - grad J(x) / L)|}, zero exactly at the constrained optimum (the KKT
 * conditions), falls below {@code tolerance} times its value at the start; or the float32
 * products' rounding dominates: {@value #MAX_DOUBLINGS} doublings of L find no sufficient
 * decrease, or the best J has not fallen by {@value #STALL_FALL} relative over {@value #STALL}
 * iterations (the best point is returned); {@link StopReason#EPOCH_CAP} after {@code
 * maxIterations}. A progress line every 10 iterations.
 *
 * <p><b>Hinge loss</b> (not smooth): the same method on the smoothed hinge {@link
 * HingeLoss#smoothed} h_mu, with continuation mu = 1, 1/4, 1/16, ... warm-started, and a
 * certified duality gap. The problem's dual is {@code max (1/n)(sum_r beta_r - B ||Z^T (beta o
 * y)||_1)} over {@code beta in [0, 1]^n} with {@code sum_r beta_r y_r = 0}; the smoothed loss's
 * slopes give a beta (scaled down on the heavier class so that the classes balance), whose dual
 * value D is a lower bound on the hinge optimum P*. So {@code P(x) - P* <= P(x) - D}, the gap,
 * known whatever the iterations did (up to the float32 products' rounding). The bound is checked
 * every {@value #GAP_EVERY} iterations (one more pass); a stage ends when its smoothed gap (the
 * smoothed primal minus the smoothed dual) is within mu / 2 or the stage's steps stop (as above),
 * and then mu shrinks fourfold, L estimated afresh. Training stops when the hinge gap is within
 * {@code gapTolerance} relative to P(x) (CONVERGED), or when mu would fall below {@value
 * #SMOOTHING_RESOLUTION} (1 + C + |b|), the float32 scores' resolution (CONVERGED, the gap
 * reported); the cap as above. Since {@code h - mu/2 <= h_mu <= h}, the smoothed optimum is within
 * mu / 2 of P*. The certificate can be loose at large C (the dual value weighs the slopes'
 * imbalance Z^T (beta o y) by B): then the primal is nearer the optimum than the gap says.
 *
 * <p>Every pass is a {@link Partitions.Pass} (serializable, a pure function of a part's rows), so
 * the solver runs unchanged over a cluster's partitions; memory is O(batch + model), and O(m^2)
 * on the normal equations.
 */
public final class KitchenSinks {

  public static final int DEFAULT_MAX_ITERATIONS = 1000;
  /** The gradient mapping's fall, relative to the start, at which the smooth losses stop. */
  public static final double DEFAULT_TOLERANCE = 1e-5;
  /** The hinge's certified duality gap, relative to the objective, at which it stops. */
  public static final double DEFAULT_GAP_TOLERANCE = 1e-3;
  public static final int DEFAULT_BATCH_SIZE = 1024;

  /** Relative slack of the objective: what float32 products leave certain. */
  static final double ROUNDING = 2.5e-7;
  /** Iterations over which a relative fall below {@link #STALL_FALL} ends the solve. */
  static final int STALL = 200;
  /** The relative fall of J over {@link #STALL} iterations that ends the solve. */
  static final double STALL_FALL = 1e-10;
  /** Doublings of L within one step after which the step counts as lost in rounding. */
  static final int MAX_DOUBLINGS = 60;
  /** Iterations between two dual bounds of the hinge (each an extra pass). */
  static final int GAP_EVERY = 10;
  /** The narrowest smoothing of the hinge, relative to the scores' size bound 1 + C + |b|. */
  static final double SMOOTHING_RESOLUTION = 1e-6;
  /** The first smoothing of the hinge: the width of the margin. */
  static final double FIRST_SMOOTHING = 1;

  private final Task task;
  private final int features;
  private final double alphaBound;
  private final double bound;
  private final int maxIterations;
  private final double tolerance;
  private final double gapTolerance;
  private final int batchSize;
  private final int gramFeatures;
  private final Executor executor;
  private final Consumer<String> progress;

  private KitchenSinks(Builder b) {
    this.task = b.task;
    this.features = b.features;
    this.alphaBound = b.alphaBound;
    this.bound = floatBelow(weightBound(b.alphaBound, b.features));
    this.maxIterations = b.maxIterations;
    this.tolerance = b.tolerance;
    this.gapTolerance = b.gapTolerance;
    this.batchSize = b.batchSize;
    this.gramFeatures = b.gramFeatures;
    this.executor = b.executor;
    this.progress = b.progress;
  }

  /** A builder for a model of {@code task} on {@code features} features. */
  public static Builder builder(Task task, int features) {
    return new Builder(task, features);
  }

  /**
   * The bound B on every weight of lprff's features {@code sqrt(2/m) cos(.)} that is the paper's
   * {@code |alpha_i| <= C / m} on {@code cos(.)}: {@code C / sqrt(2 m)}.
   */
  public static double weightBound(double alphaBound, int features) {
    return alphaBound / Math.sqrt(2.0 * features);
  }

  /**
   * The bound the weights are clamped to: the largest float32 at most {@link #weightBound}, so
   * that the float32 model keeps it exactly.
   */
  public double bound() {
    return bound;
  }

  /** The largest float at most v (v > 0). */
  static double floatBelow(double v) {
    float f = (float) v;
    return f > v ? Math.nextDown(f) : f;
  }

  /** Trains from zero weights. */
  public TrainingResult train(Partitions train) {
    return train(train, LinearModel.zeros(features, task.outputs()));
  }

  /**
   * A solve's result and, for the hinge, the certificate of its last bound: the model's mean
   * hinge loss P and the dual value D <= P* (so {@code P - P* <= P - D}); NaN for the smooth
   * losses.
   */
  public record Solution(TrainingResult result, double hinge, double dualBound) {

    /** P - D, an upper bound on the model's distance to the hinge optimum; NaN without one. */
    public double gap() {
      return hinge - dualBound;
    }
  }

  /** {@link #train(Partitions, LinearModel)} with the hinge's certificate. */
  public Solution solve(Partitions train, LinearModel initial) {
    check(train, initial);
    Run run = new Run(train, initial);
    TrainingResult result = run.execute();
    return run.dual == null ? new Solution(result, Double.NaN, Double.NaN)
        : new Solution(result, run.dual.primal(), run.dual.dual());
  }

  /**
   * Trains from {@code initial}, clamped into the bound first.
   *
   * @throws IllegalArgumentException if the rows or the model do not fit, the rows are empty,
   *     or a label is invalid (naming the row and value)
   */
  public TrainingResult train(Partitions train, LinearModel initial) {
    check(train, initial);
    return new Run(train, initial).execute();
  }

  private void check(Partitions train, LinearModel initial) {
    if (train == null || initial == null) {
      throw new IllegalArgumentException((train == null ? "train rows" : "initial model")
          + " is null");
    }
    Evaluation.checkFeatures("train source", train.features(), features);
    if (initial.features() != features || initial.outputs() != task.outputs()) {
      throw new IllegalArgumentException("initial model is " + initial.features() + " x "
          + initial.outputs() + ", expected " + features + " features x " + task.outputs()
          + " outputs");
    }
  }

  /** One {@link #train} call: the iterate, the momentum, the step and the hinge's smoothing. */
  private final class Run {
    final Partitions rows;
    final int cm = features * task.outputs();
    final int dim = cm + task.outputs();
    final boolean hinge = task.loss() instanceof HingeLoss;
    final List<EpochRecord> records = new ArrayList<>();
    long passes;
    int iterations;
    /** The hinge's smoothing width (0 for the smooth losses). */
    double mu = hinge ? FIRST_SMOOTHING : 0;
    /** The step is 1 / L; L only grows. */
    double lipschitz;
    /** The best point (monotone), its objective and gradient, and the point before it. */
    double[] x;
    double fx;
    double[] gx;
    double[] previous;
    /** The hinge's last bound: primal, dual, and their smoothed twins. */
    Dual dual;

    Run(Partitions rows, LinearModel initial) {
      this.rows = rows;
      x = new double[dim];
      float[] w = initial.weightsT();
      float[] b = initial.bias();
      for (int k = 0; k < cm; k++) {
        x[k] = w[k];
      }
      for (int j = 0; j < b.length; j++) {
        x[cm + j] = b[j];
      }
      project(x);
    }

    TrainingResult execute() {
      long started = System.nanoTime();
      gx = new double[dim];
      if (task.loss() instanceof SquaredLoss && features <= gramFeatures) {
        return normalEquations(started);
      }
      fx = evaluate(x, gx);
      if (!Double.isFinite(fx)) {
        return result(x, StopReason.DIVERGED, "the objective is " + fx + " at the initial model");
      }
      lipschitz = secant();
      double startMapping = mapping(x, gx);
      say(started, 1, startMapping);
      if (startMapping == 0 && !hinge) {
        return result(x, StopReason.CONVERGED, "the initial model is the constrained optimum"
            + " (zero gradient mapping)");
      }
      startMapping = Math.max(startMapping, Double.MIN_NORMAL);
      previous = x.clone();
      double[] best = x.clone();
      double bestF = fx;
      double[] y = x.clone();
      double fy = fx;
      double[] gy = gx.clone();
      double momentum = 1;
      boolean atX = true; // y is x: its value and gradient are known
      double[] recent = new double[STALL];
      Arrays.fill(recent, Double.POSITIVE_INFINITY);
      while (iterations < maxIterations) {
        // x_prev <- x, x <- P(y - grad(y) / L): the step overwrites the older point.
        double[] older = previous;
        previous = x;
        x = older;
        double fp = step(y, fy, gy, x, gx);
        if (Double.isNaN(fp)) {
          return result(best, StopReason.DIVERGED, "the objective is not finite at the steps"
              + " of iteration " + iterations + " (L " + lipschitz + ")");
        }
        iterations++;
        if (Double.isInfinite(fp)) {
          // No step length gives the sufficient decrease: rounding hides the descent.
          say(started, Double.NaN, startMapping);
          return stopped(best, "no step length satisfies the sufficient decrease");
        }
        fx = fp;
        if (fx < bestF) {
          bestF = fx;
          System.arraycopy(x, 0, best, 0, dim);
        }
        // Restart when the momentum points uphill: (y - x) . (x - x_prev) > 0 (O'Donoghue and
        // Candes' gradient scheme: no function values, so rounding cannot trigger it).
        double uphill = 0;
        for (int k = 0; k < dim; k++) {
          uphill += (y[k] - x[k]) * (x[k] - previous[k]);
        }
        double nextMomentum = (1 + Math.sqrt(1 + 4 * momentum * momentum)) / 2;
        double beta = uphill > 0 ? 0 : (momentum - 1) / nextMomentum;
        momentum = uphill > 0 ? 1 : nextMomentum;
        for (int k = 0; k < dim; k++) {
          y[k] = x[k] + beta * (x[k] - previous[k]);
        }
        atX = beta == 0;
        double relative = mapping(x, gx) / startMapping;
        double fallen = recent[iterations % STALL] - bestF;
        recent[iterations % STALL] = bestF;
        boolean stalled = fallen <= STALL_FALL * Math.abs(bestF);
        boolean stageDone = stalled || relative <= tolerance;
        if (hinge && (stageDone || iterations % GAP_EVERY == 0 || iterations == maxIterations)) {
          dual = bound();
          if (dual.gap() <= gapTolerance * Math.max(dual.primal(), 1e-6)) {
            say(started, relative, startMapping);
            return result(x, StopReason.CONVERGED, String.format(Locale.ROOT,
                "certified duality gap %.3g (hinge %.6g, dual bound %.6g) after %d iterations,"
                    + " smoothing mu %.3g", dual.gap(), dual.primal(), dual.dual(), iterations,
                mu));
          }
          boolean refine = stageDone || dual.smoothedGap() <= mu / 2;
          if (refine && mu / 4 < SMOOTHING_RESOLUTION * (1 + alphaBound + Math.abs(x[cm]))) {
            // Scores are float32 and at most C + |b| in size (|z_i| <= sqrt(2/m)): a narrower
            // smoothing would be below their rounding.
            say(started, relative, startMapping);
            return result(x, StopReason.CONVERGED, String.format(Locale.ROOT,
                "the smoothing reached the float32 scores' resolution (mu %.3g) after %d"
                    + " iterations; certified duality gap %.3g (hinge %.6g, dual bound %.6g)",
                mu, iterations, dual.gap(), dual.primal(), dual.dual()));
          }
          if (refine) {
            // The smoothed problem is solved as far as its smoothing matters: refine, from x.
            mu /= 4;
            fx = evaluate(x, gx);
            // The smoothed hinge's curvature is 1/mu where margins are within mu of 1, which
            // few rows are: estimate L afresh rather than scale it by 4.
            lipschitz = secant();
            bestF = fx;
            System.arraycopy(x, 0, best, 0, dim);
            momentum = 1;
            atX = true;
            Arrays.fill(recent, Double.POSITIVE_INFINITY);
            progress.accept(String.format(Locale.ROOT,
                "rks: hinge gap %.3g (hinge %.6g, dual %.6g): smoothing mu to %.3g",
                dual.gap(), dual.primal(), dual.dual(), mu));
          }
          stageDone = false;
          stalled = false;
        }
        if (relative <= tolerance && !hinge) {
          say(started, relative, startMapping);
          return result(x, StopReason.CONVERGED, String.format(Locale.ROOT, "the gradient"
              + " mapping fell to %.3g of its start after %d iterations", relative,
              iterations));
        }
        if (stalled) {
          say(started, relative, startMapping);
          return stopped(best, String.format(Locale.ROOT, "the objective fell by less than %.3g"
              + " relative over %d iterations (the gradient mapping at %.3g of its start)",
              STALL_FALL, STALL, relative));
        }
        if (iterations % 10 == 0) {
          say(started, relative, startMapping);
        }
        if (atX) {
          System.arraycopy(x, 0, y, 0, dim);
          System.arraycopy(gx, 0, gy, 0, dim);
          fy = fx;
        } else {
          fy = evaluate(y, gy);
        }
      }
      if (hinge) {
        dual = bound();
        return result(x, StopReason.EPOCH_CAP, String.format(Locale.ROOT, "stopped after %d"
            + " iterations, certified duality gap %.3g (hinge %.6g, dual bound %.6g)",
            maxIterations, dual.gap(), dual.primal(), dual.dual()));
      }
      return result(best, StopReason.EPOCH_CAP, "stopped after " + maxIterations
          + " iterations");
    }

    /**
     * The squared loss on the centered normal equations: one pass accumulates Zc^T Zc and Zc^T
     * tc ({@link ClosedFormRidge#accumulate}), {@link BoundedLeastSquares} minimizes the box QP
     * in memory from x's weights, and the intercept is the mean target minus the features' means
     * times the float32 weights (the best intercept for them); one more pass reports the model's
     * mean loss.
     */
    TrainingResult normalEquations(long started) {
      NormalEquations sums = ClosedFormRidge.accumulate(rows, task, executor, done -> {});
      passes++;
      double n = sums.rows();
      double[] a = sums.centeredGram();
      double[] r = sums.centeredCross(0);
      for (int k = 0; k < a.length; k++) {
        a[k] /= n;
      }
      for (int i = 0; i < features; i++) {
        r[i] /= n;
      }
      progress.accept(String.format(Locale.ROOT, "rks: normal equations of %d features over"
          + " %d rows in %.2f s; the box QP in memory", features, sums.rows(),
          (System.nanoTime() - started) / 1e9));
      double[] w = Arrays.copyOf(x, features);
      BoundedLeastSquares.Outcome outcome =
          new BoundedLeastSquares(a, r, features, bound).minimize(w, maxIterations, progress);
      iterations = outcome.iterations();
      double[] mu = sums.featureMeans();
      double intercept = sums.targetMean(0);
      for (int i = 0; i < features; i++) {
        // bound is a float: the rounded weight stays within it.
        x[i] = (float) Math.clamp(w[i], -bound, bound);
        intercept -= mu[i] * x[i];
      }
      x[cm] = intercept;
      lipschitz = Double.NaN; // no step length
      fx = evaluate(x, gx);
      double seconds = (System.nanoTime() - started) / 1e9;
      records.add(new EpochRecord(iterations, fx, Double.NaN, Double.NaN, Double.NaN, seconds,
          true, false));
      progress.accept(String.format(Locale.ROOT, "rks: objective %.10g after %d Newton"
          + " iterations (%d Cholesky factorizations), %d passes, %.2f s", fx, iterations,
          outcome.factorizations(), passes, seconds));
      return result(x, outcome.converged() ? StopReason.CONVERGED : StopReason.EPOCH_CAP,
          outcome.message() + String.format(Locale.ROOT, " after %d Newton iterations on the"
              + " normal equations (%d Cholesky factorizations)", iterations,
              outcome.factorizations()));
    }

    /** The end where rounding hides further descent: the best point, its gap for the hinge. */
    TrainingResult stopped(double[] best, String why) {
      String gap = "";
      if (hinge) {
        x = best;
        dual = bound();
        gap = String.format(Locale.ROOT, "; certified duality gap %.3g (hinge %.6g, dual bound"
            + " %.6g)", dual.gap(), dual.primal(), dual.dual());
      }
      return result(best, StopReason.CONVERGED, why + " after " + iterations + " iterations"
          + " (the float32 products' rounding dominates)" + gap);
    }

    /**
     * The projected step p = P(y - grad / L) into p, its objective returned and gradient into
     * gp, L doubled until the step decreases the quadratic model; +infinity if {@value
     * #MAX_DOUBLINGS} doublings do not (rounding: L restored), NaN if no step has a finite
     * objective.
     */
    double step(double[] y, double fy, double[] gy, double[] p, double[] gp) {
      double before = lipschitz;
      boolean finite = false;
      for (int doubling = 0; doubling <= MAX_DOUBLINGS; doubling++) {
        double model = fy;
        for (int k = 0; k < dim; k++) {
          p[k] = y[k] - gy[k] / lipschitz;
        }
        project(p);
        toFloat(p);
        double squared = 0;
        for (int k = 0; k < dim; k++) {
          double d = p[k] - y[k];
          model += gy[k] * d;
          squared += d * d;
        }
        model += 0.5 * lipschitz * squared;
        double fp = evaluate(p, gp);
        if (fp <= model + slack(fy, y)) {
          return fp;
        }
        finite |= Double.isFinite(fp);
        lipschitz *= 2;
      }
      lipschitz = before;
      return finite ? Double.POSITIVE_INFINITY : Double.NaN;
    }

    /**
     * What rounding leaves uncertain in a value f at v: {@value #ROUNDING} of |f|, and the
     * scores' float32 rounding, 4 u (1 + C + |b|) per score (|z_i| <= sqrt(2/m) and |w_i| <= C /
     * sqrt(2 m) bound a score by C + |b|), times the loss's slope in the score (at most 1 for
     * the classification losses, the rms residual sqrt(2 f) for the squared loss).
     */
    double slack(double f, double[] v) {
      double intercepts = 0;
      for (int j = cm; j < dim; j++) {
        intercepts = Math.max(intercepts, Math.abs(v[j]));
      }
      return ROUNDING * Math.abs(f)
          + 0x1p-22 * (1 + alphaBound + intercepts) * Math.max(1, Math.sqrt(2 * Math.abs(f)));
    }

    /**
     * A secant estimate of the gradient's Lipschitz constant near x, from one probing pass (a
     * lower estimate: the backtracking raises it); 1e-3 when the gradient does not change.
     */
    double secant() {
      double gradient = norm(gx);
      if (gradient == 0) {
        return 1e-3;
      }
      double length = 1e-3 * Math.max(1, norm(x));
      double[] probe = new double[dim];
      for (int k = 0; k < dim; k++) {
        probe[k] = x[k] - length * gx[k] / gradient;
      }
      double[] g = new double[dim];
      evaluate(probe, g); // rounds the probe to float32
      double change = 0;
      double distance = 0;
      for (int k = 0; k < dim; k++) {
        change += (g[k] - gx[k]) * (g[k] - gx[k]);
        distance += (probe[k] - x[k]) * (probe[k] - x[k]);
      }
      double estimate = Math.sqrt(change / distance);
      return estimate > 0 && Double.isFinite(estimate) ? estimate : 1e-3;
    }

    /** The gradient mapping L ||v - P(v - g / L)||, zero exactly at the constrained optimum. */
    double mapping(double[] v, double[] g) {
      double sum = 0;
      for (int k = 0; k < dim; k++) {
        double moved = v[k] - g[k] / lipschitz;
        double projected = k < cm ? Math.clamp(moved, -bound, bound) : moved;
        sum += (v[k] - projected) * (v[k] - projected);
      }
      return lipschitz * Math.sqrt(sum);
    }

    /**
     * The objective at v (the hinge smoothed by mu), its gradient into g: one pass. Rounds v to
     * float32 first, in place: the point evaluated is the point kept, so the sufficient-decrease
     * test compares values of the same points (the model is float32).
     */
    double evaluate(double[] v, double[] g) {
      toFloat(v);
      passes++;
      float[] wT = new float[cm];
      for (int k = 0; k < cm; k++) {
        wT[k] = (float) v[k];
      }
      double[] bias = Arrays.copyOfRange(v, cm, dim);
      FullBatchObjective.Sums sums =
          rows.sum(new FullBatchObjective.LossGradient(
              mu > 0 ? HingeLoss.smoothed(mu) : task.loss(), features, batchSize, wT, bias),
              executor);
      long n = sums.rows();
      if (n == 0) {
        throw new IllegalArgumentException("the training source has no rows");
      }
      for (int k = 0; k < dim; k++) {
        g[k] = sums.gradient()[k] / n;
      }
      return sums.loss() / n;
    }

    /** The hinge's bounds at x: one pass. */
    Dual bound() {
      passes++;
      float[] wT = new float[cm];
      for (int k = 0; k < cm; k++) {
        wT[k] = (float) x[k];
      }
      return rows.sum(new DualPass(features, batchSize, wT, x[cm], mu), executor)
          .bounds((float) bound, mu);
    }

    void say(long started, double relative, double startMapping) {
      double seconds = (System.nanoTime() - started) / 1e9;
      records.add(new EpochRecord(iterations, fx, Double.NaN, Double.NaN, 1 / lipschitz,
          seconds, true, false));
      progress.accept(String.format(Locale.ROOT,
          "rks: iteration %4d, %s %.10g, gradient mapping %.3g of its start (%.3g), step 1/%.4g,"
              + " %d passes, %.2f s", iterations, hinge ? "smoothed hinge (mu " + mu + ")"
              : "objective", fx, relative, relative * startMapping, lipschitz, passes,
          seconds));
    }

    TrainingResult result(double[] v, StopReason reason, String message) {
      float[] w = new float[cm];
      float[] b = new float[task.outputs()];
      for (int k = 0; k < cm; k++) {
        w[k] = (float) v[k];
      }
      for (int j = 0; j < b.length; j++) {
        b[j] = (float) v[cm + j];
      }
      LinearModel model = reason == StopReason.DIVERGED
          ? LinearModel.zeros(features, task.outputs()) : LinearModel.of(features,
              task.outputs(), w, b);
      return new TrainingResult(model, reason, message, iterations, passes, 0, iterations,
          Double.NaN, 1 / lipschitz, records);
    }
  }

  /** Rounds every entry of v to float32 (within the bound, which is a float). */
  private static void toFloat(double[] v) {
    for (int k = 0; k < v.length; k++) {
      v[k] = (float) v[k];
    }
  }

  /** Clamps the weights (not the intercepts) of v into [-B, B]. */
  private void project(double[] v) {
    int cm = features * task.outputs();
    for (int k = 0; k < cm; k++) {
      v[k] = Math.clamp(v[k], -bound, bound);
    }
  }

  /**
   * A part's sums for the hinge's dual bound at (wT, bias): the hinge and smoothed-hinge losses,
   * and per class (label +1, label -1) the sums of the slopes beta_r = -h_mu'(y_r s_r) in [0, 1],
   * of their squares, and Z^T beta.
   */
  record DualSums(double hinge, double smoothed, double[] betas, double[] squares,
      double[] products, long rows) implements java.io.Serializable {

    /** The bounds of the whole set, beta scaled down on the heavier class to balance them. */
    Dual bounds(float bound, double mu) {
      if (rows == 0) {
        throw new IllegalArgumentException("the training source has no rows");
      }
      double positive = betas[0] > betas[1] ? betas[1] / betas[0] : 1;
      double negative = betas[1] > betas[0] ? betas[0] / betas[1] : 1;
      double sum = positive * betas[0] + negative * betas[1];
      double squared = positive * positive * squares[0] + negative * negative * squares[1];
      int m = products.length / 2;
      double l1 = 0;
      for (int i = 0; i < m; i++) {
        l1 += Math.abs(positive * products[i] - negative * products[m + i]);
      }
      double linear = (sum - bound * l1) / rows;
      return new Dual(hinge / rows, smoothed / rows, linear, linear - 0.5 * mu * squared / rows);
    }
  }

  /**
   * The hinge's primal at x, the smoothed primal, and the dual values of the balanced slopes:
   * {@code dual <= P*} and {@code smoothedDual <= P_mu*}.
   */
  record Dual(double primal, double smoothedPrimal, double dual, double smoothedDual) {
    double gap() {
      return primal - dual;
    }

    double smoothedGap() {
      return smoothedPrimal - smoothedDual;
    }
  }

  /** The pass of {@link DualSums}: the forward product, the slopes, Z^T of them per class. */
  record DualPass(int features, int batchSize, float[] wT, double bias, double mu)
      implements Partitions.Pass<DualSums> {

    @Override
    public DualSums over(MiniBatchSource part, Executor helpers) {
      float[] scores = new float[batchSize];
      float[] slopes = new float[2 * batchSize];
      float[] partial = new float[2 * features];
      double[] products = new double[2 * features];
      double[] betas = new double[2];
      double[] squares = new double[2];
      double hinge = 0;
      double smoothed = 0;
      long n = 0;
      try (MiniBatchSource.Batches batches = part.epoch(0, batchSize, 0)) {
        while (batches.hasNext()) {
          MiniBatch batch = batches.next();
          int rows = batch.rows();
          HingeLoss.instance().checkLabels(rows, null, batch.classes(), batch.rowIds());
          FeatureRows z = batch.features();
          z.forward(wT, 1, scores);
          for (int r = 0; r < rows; r++) {
            int positive = batch.classes()[r];
            double margin = 1 - (2 * positive - 1) * (scores[r] + bias);
            double beta = margin <= 0 ? 0 : margin < mu ? margin / mu : 1;
            hinge += Math.max(0, margin);
            smoothed += margin <= 0 ? 0 : margin < mu ? margin * margin / (2 * mu)
                : margin - 0.5 * mu;
            int at = positive == 1 ? 0 : 1;
            betas[at] += beta;
            squares[at] += beta * beta;
            slopes[2 * r + at] = (float) beta;
            slopes[2 * r + 1 - at] = 0;
          }
          Arrays.fill(partial, 0f);
          z.accumulateTransposed(slopes, 2, partial);
          DoubleVectors.addTo(partial, products);
          n += rows;
        }
      }
      return new DualSums(hinge, smoothed, betas, squares, products, n);
    }

    @Override
    public DualSums plus(DualSums a, DualSums b) {
      DoubleVectors.addTo(b.betas(), a.betas());
      DoubleVectors.addTo(b.squares(), a.squares());
      DoubleVectors.addTo(b.products(), a.products());
      return new DualSums(a.hinge() + b.hinge(), a.smoothed() + b.smoothed(), a.betas(),
          a.squares(), a.products(), a.rows() + b.rows());
    }
  }

  /** Settings of {@link KitchenSinks}; every one but the alpha bound has a default. */
  public static final class Builder {
    private final Task task;
    private final int features;
    private double alphaBound = Double.NaN;
    private int maxIterations = DEFAULT_MAX_ITERATIONS;
    private double tolerance = DEFAULT_TOLERANCE;
    private double gapTolerance = DEFAULT_GAP_TOLERANCE;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private int gramFeatures = ClosedFormRidge.PREFERRED_MAX_FEATURES;
    private Executor executor = ForkJoinPool.commonPool();
    private Consumer<String> progress = line -> {};

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

    /** The paper's C: every weight bounded by C / sqrt(2 m) ({@link #weightBound}). */
    public Builder alphaBound(double alphaBound) {
      checkAlphaBound(alphaBound);
      this.alphaBound = alphaBound;
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

    /** The smooth losses' relative fall of the gradient mapping, in [0, 1). */
    public Builder tolerance(double tolerance) {
      if (!(tolerance >= 0 && tolerance < 1)) {
        throw new IllegalArgumentException("tolerance is " + tolerance + ", expected in [0, 1)");
      }
      this.tolerance = tolerance;
      return this;
    }

    /** The hinge's certified duality gap relative to the objective, in (0, 1). */
    public Builder gapTolerance(double gapTolerance) {
      if (!(gapTolerance > 0 && gapTolerance < 1)) {
        throw new IllegalArgumentException(
            "gap tolerance is " + gapTolerance + ", expected in (0, 1)");
      }
      this.gapTolerance = gapTolerance;
      return this;
    }

    /** Rows per batch of a pass, >= 1. */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1) {
        throw new IllegalArgumentException("batchSize is " + batchSize + ", expected >= 1");
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * The most features for which the squared loss is solved on the normal equations in memory
     * (an m x m double Gram matrix, 8 m^2 bytes, and its free block's Cholesky factor), >= 0;
     * above it, and for the other losses, FISTA over streaming passes. Default {@link
     * ClosedFormRidge#PREFERRED_MAX_FEATURES}; 0 streams always.
     */
    public Builder gramFeatures(int gramFeatures) {
      if (gramFeatures < 0 || gramFeatures > ClosedFormRidge.MAX_FEATURES) {
        throw new IllegalArgumentException("gramFeatures is " + gramFeatures + ", expected 0 to "
            + ClosedFormRidge.MAX_FEATURES);
      }
      this.gramFeatures = gramFeatures;
      return this;
    }

    /** Helper threads of each pass (null: the calling thread alone); the result does not depend on it. */
    public Builder executor(Executor executor) {
      this.executor = executor;
      return this;
    }

    /** A line per iteration worth telling (null: none). */
    public Builder progress(Consumer<String> progress) {
      this.progress = progress == null ? line -> {} : progress;
      return this;
    }

    /** @throws IllegalArgumentException if no alpha bound was set */
    public KitchenSinks build() {
      if (Double.isNaN(alphaBound)) {
        throw new IllegalArgumentException("rks needs an alpha bound C (|alpha_i| <= C / m)");
      }
      return new KitchenSinks(this);
    }
  }

  /** Refuses a C that is not finite and > 0, naming it. */
  public static void checkAlphaBound(double alphaBound) {
    if (!(alphaBound > 0) || Double.isInfinite(alphaBound)) {
      throw new IllegalArgumentException(
          "alpha-bound is " + alphaBound + ", expected finite and > 0");
    }
  }
}
