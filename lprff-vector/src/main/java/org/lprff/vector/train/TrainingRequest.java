package org.lprff.vector.train;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.lprff.vector.train.fullbatch.KitchenSinks;
import org.lprff.vector.train.minibatch.HalpSolver;
import org.lprff.vector.train.minibatch.LearningRateProbe;
import org.lprff.vector.train.minibatch.Schedule;
import org.lprff.vector.train.minibatch.SgdSolver;

/**
 * What to train, for {@link Trainer#run}: the task, the solver and its settings, each with a
 * default that reaches the solver's optimum without tuning. Build one with {@link
 * #regression(int)} or {@link #classification(int)}; every setting is checked when it is set, with
 * a message naming the value.
 *
 * @param classification whether the labels are classes (else float regression targets)
 * @param classes the declared number of classes (>= 2), or null to take 1 + the largest training
 *     label
 * @param features features per row m
 * @param solver the solver, {@link Solver#AUTO} already resolved for the task and m
 * @param l2s the l2 values to try, or null for the default: {@link #DEFAULT_L2} for SGD and HALP, the
 *     automatic path {@link #AUTOMATIC_L2} for the full-batch solvers
 * @param epochs SGD epochs at most
 * @param learningRate SGD's initial rate, or null to find one with {@link LearningRateProbe}
 * @param schedule SGD's schedule
 * @param batchRows SGD's mini-batch rows
 * @param seed seed of the validation split, SGD's shuffling and the probe
 * @param executor helper threads of the full-batch solvers' passes and the closed form's Gram
 * @param alphaBound {@link Solver#RKS}'s C, the bound {@code |alpha_i| <= C / m} of Rahimi and
 *     Recht's kitchen sinks on the weights of {@code cos(w_i.x + b_i)} (on lprff's weights: C /
 *     sqrt(2 m), {@link KitchenSinks#weightBound}); required by rks, refused by the others
 * @param loss the loss, or null for the task's (squared, logistic, softmax); {@link
 *     LossKind#HINGE} with rks only
 * @param modelBits LM-HALP's model bits b, 8 or 16 ({@link HalpSolver#modelBits})
 * @param halpMu LM-HALP's mu of the offset's scale ({@link HalpSolver#mu})
 * @param anchorEpochs LM-HALP's epochs between re-centerings T
 */
public record TrainingRequest(
    boolean classification, Integer classes, int features, Solver solver, List<Double> l2s,
    int epochs, Double learningRate, ScheduleKind schedule, int batchRows, long seed,
    Executor executor, Double alphaBound, LossKind loss, int modelBits, double halpMu,
    int anchorEpochs) {

  /** The l2 of SGD when none is given. */
  public static final double DEFAULT_L2 = 1e-6;

  /**
   * The automatic l2 path of the iterative solvers, coarse to fine: large l2 converge in few
   * passes, and each solve warm-starts the next.
   */
  public static final List<Double> AUTOMATIC_L2 = List.of(1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7);

  /** SGD's default epochs at most. */
  public static final int DEFAULT_EPOCHS = 100;

  /** SGD's learning-rate schedules ({@link Schedule}). */
  public enum ScheduleKind {
    EARLY_STOP("early-stop"), FIXED("fixed"), DECAYING("decaying");

    public final String id;

    ScheduleKind(String id) {
      this.id = id;
    }

    /** The kind named {@code name} (any case), or null. */
    public static ScheduleKind named(String name) {
      for (ScheduleKind k : values()) {
        if (k.id.equalsIgnoreCase(name)) {
          return k;
        }
      }
      return null;
    }

    /** This schedule over {@code epochs} from {@code rate} (decaying: lr / (1 + epoch)). */
    public Schedule create(int epochs, double rate) {
      return switch (this) {
        case EARLY_STOP -> Schedule.earlyStopping(epochs, rate);
        case FIXED -> Schedule.fixed(epochs, rate);
        case DECAYING -> Schedule.decaying(epochs, rate, 1.0);
      };
    }
  }

  public TrainingRequest {
    if (features < 1) {
      throw new IllegalArgumentException("features is " + features + ", expected >= 1");
    }
    if (classes != null && (!classification || classes < 2)) {
      throw new IllegalArgumentException("classes is " + classes
          + (classification ? ", expected >= 2" : ", but the task is regression"));
    }
    if (solver == null || schedule == null) {
      throw new IllegalArgumentException((solver == null ? "solver" : "schedule") + " is null");
    }
    solver = solver.resolve(classification, features);
    if (solver == Solver.CG && classification) {
      throw new IllegalArgumentException("solver cg solves ridge regression; for classification"
          + " use lbfgs (logistic or softmax loss) or closed-form (least squares)");
    }
    if (l2s != null) {
      l2s = List.copyOf(l2s);
      if (l2s.isEmpty()) {
        throw new IllegalArgumentException("l2 needs a value, got an empty list");
      }
      for (double l2 : l2s) {
        if (!(l2 >= 0) || Double.isInfinite(l2)) {
          throw new IllegalArgumentException("l2 is " + l2 + ", expected finite and >= 0");
        }
      }
      if (solver.miniBatch() && l2s.size() > 1) {
        throw new IllegalArgumentException("l2 has " + l2s.size() + " values " + l2s
            + ", but " + solver.name() + " takes one (a list is for lbfgs, cg or closed-form)");
      }
    }
    if (epochs < 1 || batchRows < 1) {
      throw new IllegalArgumentException("epochs " + epochs + ", batch rows " + batchRows
          + ": expected both >= 1");
    }
    if (learningRate != null && (!(learningRate > 0) || Double.isInfinite(learningRate))) {
      throw new IllegalArgumentException(
          "learning rate is " + learningRate + ", expected finite and > 0");
    }
    if (executor == null) {
      throw new IllegalArgumentException("executor is null");
    }
    checkKitchenSinks(classification, solver, l2s, alphaBound, loss);
    HalpSolver.checkModelBits(modelBits);
    HalpSolver.checkMu(halpMu);
    HalpSolver.checkAnchorEpochs(anchorEpochs);
  }

  /** A request with the task's loss, no alpha bound and LM-HALP's defaults (every solver but rks). */
  public TrainingRequest(
      boolean classification, Integer classes, int features, Solver solver, List<Double> l2s,
      int epochs, Double learningRate, ScheduleKind schedule, int batchRows, long seed,
      Executor executor) {
    this(classification, classes, features, solver, l2s, epochs, learningRate, schedule,
        batchRows, seed, executor, null, null, HalpSolver.DEFAULT_MODEL_BITS,
        HalpSolver.DEFAULT_MU, HalpSolver.DEFAULT_ANCHOR_EPOCHS);
  }

  /**
   * Regression with every default: {@link Solver#AUTO} (the closed form up to {@link
   * ClosedFormRidge#PREFERRED_MAX_FEATURES}, conjugate gradients above), l2 automatic.
   */
  public static TrainingRequest regression(int features) {
    return new TrainingRequest(false, null, features, Solver.AUTO, null, DEFAULT_EPOCHS, null,
        ScheduleKind.EARLY_STOP, SgdSolver.DEFAULT_BATCH_SIZE, 1, ForkJoinPool.commonPool());
  }

  /** Classification with every default: {@link Solver#AUTO} (L-BFGS), l2 automatic. */
  public static TrainingRequest classification(int features) {
    return new TrainingRequest(true, null, features, Solver.AUTO, null, DEFAULT_EPOCHS, null,
        ScheduleKind.EARLY_STOP, SgdSolver.DEFAULT_BATCH_SIZE, 1, ForkJoinPool.commonPool());
  }

  public TrainingRequest withSolver(Solver solver) {
    return new TrainingRequest(classification, classes, features, solver, l2s, epochs,
        learningRate, schedule, batchRows, seed, executor, alphaBound, loss, modelBits, halpMu,
        anchorEpochs);
  }

  /** With the l2 values to try; null for the default. */
  public TrainingRequest withL2(List<Double> l2s) {
    return new TrainingRequest(classification, classes, features, solver, l2s, epochs,
        learningRate, schedule, batchRows, seed, executor, alphaBound, loss, modelBits, halpMu,
        anchorEpochs);
  }

  public TrainingRequest withClasses(Integer classes) {
    return new TrainingRequest(classification, classes, features, solver, l2s, epochs,
        learningRate, schedule, batchRows, seed, executor, alphaBound, loss, modelBits, halpMu,
        anchorEpochs);
  }

  /** With SGD's settings; a null rate is found by the probe. */
  public TrainingRequest withSgd(int epochs, Double learningRate, ScheduleKind schedule,
      int batchRows) {
    return new TrainingRequest(classification, classes, features, solver, l2s, epochs,
        learningRate, schedule, batchRows, seed, executor, alphaBound, loss, modelBits, halpMu,
        anchorEpochs);
  }

  public TrainingRequest withSeed(long seed) {
    return new TrainingRequest(classification, classes, features, solver, l2s, epochs,
        learningRate, schedule, batchRows, seed, executor, alphaBound, loss, modelBits, halpMu,
        anchorEpochs);
  }

  public TrainingRequest withExecutor(Executor executor) {
    return new TrainingRequest(classification, classes, features, solver, l2s, epochs,
        learningRate, schedule, batchRows, seed, executor, alphaBound, loss, modelBits, halpMu,
        anchorEpochs);
  }

  /**
   * This request by {@link Solver#RKS} with alpha bound C and {@code loss} (null: the task's); no
   * l2, which rks refuses.
   */
  public TrainingRequest withKitchenSinks(double alphaBound, LossKind loss) {
    return new TrainingRequest(classification, classes, features, Solver.RKS, null, epochs,
        learningRate, schedule, batchRows, seed, executor, alphaBound, loss, modelBits, halpMu,
        anchorEpochs);
  }

  /** With LM-HALP's model bits b (8 or 16), mu and epochs between re-centerings T. */
  public TrainingRequest withHalp(int modelBits, double mu, int anchorEpochs) {
    return new TrainingRequest(classification, classes, features, solver, l2s, epochs,
        learningRate, schedule, batchRows, seed, executor, alphaBound, loss, modelBits, mu,
        anchorEpochs);
  }

  /**
   * The bits of a model weight while training, as Table 1's memory counts it: LM-HALP's model
   * bits, 32 (float) for every other solver.
   */
  public int trainingModelBits() {
    return solver == Solver.HALP ? modelBits : 32;
  }

  /** Whether l2 is chosen on the automatic path (no l2 given to a full-batch solver). */
  public boolean automaticL2() {
    return l2s == null && !solver.miniBatch();
  }

  /** The l2 values to try: the ones given, or the solver's default. */
  public List<Double> l2Path() {
    return l2s != null ? l2s : !solver.miniBatch() ? AUTOMATIC_L2 : List.of(DEFAULT_L2);
  }

  /**
   * The checks of the rks settings, messages naming the values: rks needs an alpha bound and takes
   * no l2 (the bound is its regularization); the other solvers take no alpha bound; the loss must
   * fit the task and solver ({@link LossKind#requireFits}).
   */
  private static void checkKitchenSinks(boolean classification, Solver solver,
      List<Double> l2s, Double alphaBound, LossKind loss) {
    if (solver == Solver.RKS) {
      if (alphaBound == null) {
        throw new IllegalArgumentException("solver rks needs alpha-bound C > 0, the bound"
            + " |alpha_i| <= C / m on the weight of every cos(w_i.x + b_i)");
      }
      if (l2s != null) {
        throw new IllegalArgumentException("l2 is " + l2s + ", but solver rks has no l2 (the"
            + " alpha bound is its regularization)");
      }
    } else if (alphaBound != null) {
      throw new IllegalArgumentException("alpha-bound is " + alphaBound + ", but solver "
          + solver.id + " does not bound the weights (use solver rks)");
    }
    if (alphaBound != null) {
      KitchenSinks.checkAlphaBound(alphaBound);
    }
    if (loss != null) {
      loss.requireFits(classification, solver);
    }
  }
}
