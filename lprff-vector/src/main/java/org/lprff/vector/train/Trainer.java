package org.lprff.vector.train;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.MiniBatchSource.Batches;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.stream.RowFilter;
import org.lprff.vector.train.fullbatch.ClosedFormRidge;
import org.lprff.vector.train.fullbatch.ConjugateGradientRidge;
import org.lprff.vector.train.fullbatch.KitchenSinks;
import org.lprff.vector.train.fullbatch.LbfgsSolver;
import org.lprff.vector.train.fullbatch.NormalEquations;
import org.lprff.vector.train.fullbatch.SketchPreconditioner;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.minibatch.HalpSolver;
import org.lprff.vector.train.minibatch.LearningRateProbe;
import org.lprff.vector.train.minibatch.SgdSolver;
import org.lprff.vector.train.model.EpochRecord;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.TrainingResult;

/**
 * The training workflow, request to report, that {@code lprff train}, {@code demo} and the Java
 * API share: counts and checks the classes, runs the request's solver, chooses l2 among the
 * request's values on validation rows, and refits.
 *
 * <p>Validation rows are the given validation source, or, when there is none, a seeded 10% of the
 * training rows ({@link RowFilter#validation}, {@link #VALIDATION_SPLIT}): the full-batch solvers
 * then walk the l2 path on the other 90% and refit the chosen l2 on all training rows (the
 * iterative ones warm-started from the path's model, the closed form by adding the two parts'
 * normal equations); SGD stops early on the split and keeps that model. Never is a heldout set
 * read: whatever rows a caller passes as validation are the rows that choose.
 *
 * <p>A diverged solve (non-finite loss or weights) is returned, not thrown: {@link
 * TrainingReport#diverged()}, with the last good model.
 */
public final class Trainer {

  /** {@link TrainingReport#selectedOn()} of the seeded split of the training rows. */
  public static final String VALIDATION_SPLIT = "validation_split";

  /**
   * CG's relative residual on the l2 path, where a solve only scores its l2 on validation rows
   * (the chosen one is then solved to {@link ConjugateGradientRidge#DEFAULT_TOLERANCE}).
   */
  static final double PATH_TOLERANCE_CG = 1e-4;

  /** L-BFGS's relative change of the objective on the l2 path (its own: 1e-10). */
  static final double PATH_TOLERANCE_LBFGS = 1e-7;

  /**
   * L-BFGS is preconditioned ({@link SketchPreconditioner}, the path's sample shared by the refit)
   * when its rows are at least this many times the sample: an application costs about a tenth of a
   * pass at 2,048 sample rows and 16,000 rows, and on fewer rows that outweighs the iterations it
   * saves (digits, 1,293 rows, m = 4096: 358 passes instead of 487 but 38 s instead of 10). The
   * 26-class set (14,366 path rows, m = 4096, c = 26, AVX2 EPYC), one A/B run: 588 passes and
   * 103 s against 1,563 and 173 s, the same l2 and heldout error.
   */
  static final int SKETCH_MIN_ROWS_PER_SAMPLE = 4;

  /** Iterations between the looks of an L-BFGS path solve's monitor ({@code pastMinimum}). */
  static final int MONITOR_EVERY = 10;

  /** Rows per batch of the evaluations. */
  private static final int EVALUATION_BATCH = 1000;

  /**
   * A source of rows with the names messages use: its role ("train", "validation", "heldout":
   * also the {@link TrainingReport#selectedOn()} of validation rows) and where the rows come from
   * (a file's path, or "" when the role says it all).
   */
  public record Data(String role, String origin, Partitions rows) {
    public Data {
      if (role == null || origin == null || rows == null) {
        throw new IllegalArgumentException(
            (role == null ? "role" : origin == null ? "origin" : "rows") + " is null");
      }
    }

    /** Rows of one local source. */
    public Data(String role, String origin, MiniBatchSource rows) {
      this(role, origin, rows == null ? null : Partitions.of(rows));
    }

    /** The one local source, for SGD; refuses rows spread over a cluster, naming the fix. */
    MiniBatchSource local() {
      MiniBatchSource local = rows.local();
      if (local == null) {
        throw new IllegalArgumentException("the " + role + " rows are spread over partitions;"
            + " sgd reads mini-batches from one machine: use a full-batch solver (lbfgs, cg,"
            + " closed-form)");
      }
      return local;
    }

    /** The role and origin, e.g. "heldout /data/h.arrow". */
    public String describe() {
      return origin.isEmpty() ? role : role + " " + origin;
    }

    /** The origin, or the role without one. */
    String where() {
      return origin.isEmpty() ? role : origin;
    }
  }

  private Trainer() {}

  /** {@link #run(TrainingRequest, Data, Data, Data, Consumer)} without validation or refit rows. */
  public static TrainingReport run(TrainingRequest request, Data train, Consumer<String> progress) {
    return run(request, train, null, null, progress);
  }

  /** {@link #run(TrainingRequest, Data, Data, Data, Data, Consumer)} without scored rows. */
  public static TrainingReport run(TrainingRequest request, Data train, Data validation,
      Data refit, Consumer<String> progress) {
    return run(request, train, validation, refit, null, progress);
  }

  /**
   * Trains {@code request} on {@code train}.
   *
   * @param validation the rows that choose l2 and stop SGD early, or null for a seeded split of the
   *     training rows
   * @param refit rows the closed form adds to the training rows once l2 is chosen (e.g. the
   *     validation rows at the training bits), or null
   * @param scored rows the model will be scored on afterwards (a heldout set), or null: never
   *     read for training, only checked first, so that a label outside the model's classes is
   *     refused before the training rather than after it
   * @param progress a line per step worth telling (null: none)
   * @throws IllegalArgumentException if a source does not fit the request or a label is invalid
   *     (naming the source, row and value)
   */
  public static TrainingReport run(TrainingRequest request, Data train, Data validation,
      Data refit, Data scored, Consumer<String> progress) {
    return start(request, train, validation, refit, scored, progress).execute(refit);
  }

  /** A model's validation result on the leading features of the map ({@link #closedFormLeading}). */
  public record Leading(int features, double l2, Evaluation validation) {}

  /**
   * The closed form's validation result on the leading k features, for each k of {@code
   * features}: one pass makes the normal equations of all m features, and each k solves its
   * leading block along the l2 path (l2 chosen on {@code validation}'s mean loss), so the smaller
   * models cost only their solves. A random subset of random features is itself a feature map,
   * so the results say how the validation metric falls as features grow (the bandwidth search
   * extrapolates with them).
   *
   * @throws IllegalArgumentException as {@link #run}, or if validation is null or a k is not in
   *     [1, m] (naming it)
   */
  public static List<Leading> closedFormLeading(TrainingRequest request, Data train,
      Data validation, int... features) {
    if (validation == null) {
      throw new IllegalArgumentException("closedFormLeading needs validation rows");
    }
    return start(request.withSolver(Solver.CLOSED_FORM), train, validation, null, null, null)
        .leading(features);
  }

  private static Run start(TrainingRequest request, Data train, Data validation, Data refit,
      Data scored, Consumer<String> progress) {
    if (request == null || train == null) {
      throw new IllegalArgumentException((request == null ? "request" : "train") + " is null");
    }
    Consumer<String> say = progress == null ? line -> {} : progress;
    // The validation rows may be the scored ones (SGD stopping on a heldout file): check once.
    List<Data> others = new ArrayList<>();
    for (Data d : new Data[] {validation, refit, scored}) {
      if (d != null && !others.contains(d)) {
        others.add(d);
      }
    }
    for (Data d : others) {
      Evaluation.checkFeatures(d.describe(), d.rows().features(), request.features());
    }
    Evaluation.checkFeatures(train.describe(), train.rows().features(), request.features());
    int classes = classes(request, train, others);
    Task task = request.loss() != null ? request.loss().task(classes)
        : !request.classification() ? Task.REGRESSION
        : classes == 2 ? Task.BINARY : Task.multiclass(classes);
    return new Run(request, task, classes, train, validation, say);
  }

  /**
   * 1 for regression; else the declared classes or 1 + the largest training label, every label of
   * the training and {@code others}' rows checked against them.
   */
  private static int classes(TrainingRequest request, Data train, List<Data> others) {
    if (!request.classification()) {
      return 1;
    }
    int trainClasses = maxClass(train) + 1;
    int classes = request.classes() != null ? request.classes() : Math.max(2, trainClasses);
    requireClasses(train, trainClasses, classes, request.classes() != null, train);
    for (Data d : others) {
      requireClasses(d, maxClass(d) + 1, classes, request.classes() != null, train);
    }
    return classes;
  }

  /**
   * Refuses labels of {@code data} (1 + its largest label: {@code seen}) outside the {@code
   * classes} of a model trained on {@code train}: declared ones, or those the training labels gave.
   */
  private static void requireClasses(Data data, int seen, int classes, boolean declared,
      Data train) {
    if (seen > classes) {
      throw new IllegalArgumentException(declared
          ? "declared classes " + classes + ", but " + data.where() + " has class " + (seen - 1)
              + " (labels must be in [0, " + (classes - 1) + "])"
          : data.describe() + " has class " + (seen - 1) + ", but the training labels of "
              + train.where() + " are in [0, " + (classes - 1) + "]");
    }
  }

  /** The largest class of a source, checking every label is >= 0 (the message names row, value). */
  private static int maxClass(Data data) {
    return data.rows().sum(new MaxClass(data.where()), null);
  }

  /** The pass of {@link #maxClass}: a part's largest class, -1 for none. */
  private record MaxClass(String where) implements Partitions.Pass<Integer> {

    @Override
    public Integer over(MiniBatchSource part, Executor helpers) {
      int max = -1;
      long row = 0;
      try (Batches it = part.epoch(0, EVALUATION_BATCH, 0)) {
        while (it.hasNext()) {
          MiniBatch b = it.next();
          for (int i = 0; i < b.rows(); i++, row++) {
            int c = b.classes()[i];
            if (c < 0) {
              throw new IllegalArgumentException(where + ": label of row "
                  + (b.rowIds() != null ? "id " + b.rowIds()[i] : row) + " is " + c
                  + ", expected a class index >= 0");
            }
            max = Math.max(max, c);
          }
        }
      }
      return max;
    }

    @Override
    public Integer plus(Integer a, Integer b) {
      return Math.max(a, b);
    }
  }

  /**
   * The solver's working memory in bytes, from its formula: L-BFGS keeps 2 h + 4 parameter vectors
   * in double (h the history) and a float copy of the weights (and, when the Trainer
   * preconditions it, {@link #sketchBytes}); CG six double m-vectors and {@link #sketchBytes};
   * the closed form the m x m
   * double Gram matrix and its factor; rks seven double parameter vectors (FISTA's points and
   * gradients; for the squared loss up to {@link ClosedFormRidge#PREFERRED_MAX_FEATURES} features the
   * report counts {@link #kitchenSinksGramBytes} instead); SGD the float weights twice (best and current). Each adds
   * a batch of scores in double. {@code solver} is the one that ran ({@link Solver#AUTO} resolved).
   */
  public static long workingBytes(Solver solver, int features, int outputs, int batchRows) {
    long dim = (long) features * outputs + outputs;
    long batch = 8L * batchRows * outputs;
    return switch (solver) {
      case LBFGS -> 8 * (2L * LbfgsSolver.DEFAULT_HISTORY + 4) * dim + 4 * dim
          + 8L * LbfgsSolver.DEFAULT_BATCH_SIZE * outputs;
      // The sketch preconditioner, six double vectors, a batch.
      case CG -> sketchBytes(features) + 8 * 6L * features + 8L * ConjugateGradientRidge.BATCH;
      case CLOSED_FORM -> 16L * features * features + 8 * dim + batch;
      // The iterate, the point before it, the extrapolated point, the step, and the gradients
      // of three of them, in double; a float copy of the weights; one batch's scores.
      case RKS -> 8 * 7 * dim + 4 * dim + 8L * KitchenSinks.DEFAULT_BATCH_SIZE * outputs;
      case HALP -> halpWorkingBytes(HalpSolver.DEFAULT_MODEL_BITS, features, outputs, batchRows);
      default -> 8 * dim + batch;
    };
  }

  /**
   * The sketch preconditioner's bytes at its peak: the float sample rows as drawn (packed after),
   * its Gram and one Cholesky factor. L-BFGS adds them when it is preconditioned.
   */
  static long sketchBytes(int features) {
    long s = ConjugateGradientRidge.DEFAULT_SKETCH_ROWS;
    return 4 * s * features + 16 * s * s;
  }

  /**
   * rks's working memory for the squared loss on the normal equations: the Gram matrix, its
   * centered copy and the free block's Cholesky factor (8 m^2 bytes each, m x m at most), and
   * a few double m-vectors.
   */
  static long kitchenSinksGramBytes(int features) {
    long m = features;
    return 3 * 8 * m * m + 8 * 8 * (m + 1);
  }

  /**
   * LM-HALP's working memory in bytes at b model bits: the offset (b bits), the anchor and the
   * full gradient (2 b bits each) of m c entries, one 32-bit scale per column each; the float
   * scratch the product kernels read and write (the anchor's decoding, W~ + Z, the product Z^T D
   * and the kept best model: 4 x 32 m c bits) and the full gradient's double accumulator during
   * re-centering (64 m c); a batch of scores, derivatives and draws at the anchor and at W~ + Z
   * (6 x 32 s c bits).
   */
  public static long halpWorkingBytes(int modelBits, int features, int outputs, int batchRows) {
    HalpSolver.checkModelBits(modelBits);
    long mc = (long) features * outputs;
    long lowBits = 5L * modelBits * mc + 3 * 32L * outputs;
    long scratch = (4 * 4 + 8) * mc + 4L * outputs * 3;
    return (lowBits + 7) / 8 + scratch + 6 * 4L * batchRows * outputs;
  }

  /** One epoch's progress line of SGD; {@code stopping} names the rows early stopping reads. */
  public static String epochLine(EpochRecord r, Task task, String stopping) {
    return String.format(Locale.ROOT,
        "epoch %3d  train loss %.6g  %s loss %.6g  %s %s %.6g  lr %.4g  %.2f s%s",
        r.epoch(), r.trainLoss(), stopping, r.heldoutLoss(), stopping,
        task == Task.REGRESSION ? "MSE" : "error", r.heldoutMetric(), r.learningRate(),
        r.seconds(), r.halved() ? "  (halved)" : r.improved() ? "" : "  (reverted)");
  }

  /** One run's state: what every solver's branch needs. */
  private static final class Run {
    private final TrainingRequest request;
    private final Task task;
    private final int classes;
    private final Data train;
    private final Data validation;
    private final Consumer<String> say;
    private final Map<Double, Double> path = new LinkedHashMap<>();
    /** CG's system on the path's rows, once prepared: the refit shares its preconditioner. */
    private ConjugateGradientRidge cg;
    /** L-BFGS's preconditioner, from the first rows it solves on; the refit shares it. */
    private SketchPreconditioner sketch;
    /** The name of the rows that choose l2 or stop SGD early (the report's selectedOn). */
    private final String chooser;
    private final long started = System.nanoTime();
    private long passes;

    Run(TrainingRequest request, Task task, int classes, Data train, Data validation,
        Consumer<String> say) {
      this.request = request;
      this.task = task;
      this.classes = classes;
      this.train = train;
      this.validation = validation;
      this.say = say;
      this.chooser = validation != null ? validation.role() : VALIDATION_SPLIT;
    }

    /** The training rows the seeded split leaves for fitting (90%). */
    private Partitions fitRows() {
      return train.rows().withoutValidationSplit(request.seed());
    }

    /** The training rows of the seeded validation split (10%). */
    private Partitions splitRows() {
      return train.rows().validationSplit(request.seed());
    }

    TrainingReport execute(Data refit) {
      Solver solver = request.solver();
      double rate = Double.NaN;
      boolean probed = false;
      double l2;
      TrainingResult result;
      long rows = train.rows().rows();
      if (solver.miniBatch()) {
        l2 = request.l2Path().get(0);
        MiniBatchSource fit = train.local();
        MiniBatchSource stopping = validation != null ? validation.local() : null;
        boolean early = request.schedule() == TrainingRequest.ScheduleKind.EARLY_STOP;
        if (stopping == null && early) {
          fit = RowFilter.withoutValidation(fit, request.seed());
          stopping = RowFilter.validation(train.local(), request.seed());
          rows = fit.rows();
        }
        probed = request.learningRate() == null;
        rate = probed ? LearningRateProbe.choose(task, request.features(), fit, l2,
            request.batchRows(), request.seed(), say) : request.learningRate();
        if (probed) {
          say.accept(String.format(Locale.ROOT, "%s: initial lr %g (probed)", solver.id, rate));
        }
        result = solver == Solver.HALP ? halp(fit, stopping, l2, rate)
            : SgdSolver.builder(task, request.features())
            .batchSize(request.batchRows())
            .l2(l2)
            .seed(request.seed())
            .schedule(request.schedule().create(request.epochs(), rate))
            .listener(r -> say.accept(epochLine(r, task, chooser)))
            .build()
            .train(fit, stopping);
        passes = result.epochs();
      } else if (solver == Solver.RKS) {
        l2 = 0; // the alpha bound regularizes instead
        result = kitchenSinks();
      } else if (solver == Solver.CLOSED_FORM) {
        ClosedForm chosen = closedForm(refit);
        l2 = chosen.l2();
        rows += chosen.refitRows();
        result = TrainingResult.solved(chosen.model(), Double.NaN);
      } else {
        Choice choice = iterative();
        l2 = choice.l2();
        result = choice.result();
      }
      Evaluation validationEval = validation == null || result.diverged() ? null
          : Evaluation.of(result.model(), task, validation.rows(), EVALUATION_BATCH);
      double seconds = (System.nanoTime() - started) / 1e9;
      return new TrainingReport(task, classes, solver, l2, chooser, path, rate, probed, result,
          validationEval, rows, passes, seconds, solver == Solver.HALP
              ? halpWorkingBytes(request.modelBits(), request.features(), task.outputs(),
                  request.batchRows())
              : solver == Solver.RKS && !task.usesClasses()
                  && request.features() <= ClosedFormRidge.PREFERRED_MAX_FEATURES
                  ? kitchenSinksGramBytes(request.features())
                  : workingBytes(solver, request.features(), task.outputs(), request.batchRows())
                      + (solver == Solver.LBFGS && sketch != null
                          ? sketchBytes(request.features()) : 0));
    }

    /** LM-HALP with the request's bits, mu and T, SGD's schedule and batches. */
    private TrainingResult halp(MiniBatchSource fit, MiniBatchSource stopping, double l2,
        double rate) {
      say.accept(String.format(Locale.ROOT, "halp: %d-bit model, mu %g, re-centering every %d"
          + " epoch(s)", request.modelBits(), request.halpMu(), request.anchorEpochs()));
      return HalpSolver.builder(task, request.features())
          .batchSize(request.batchRows())
          .l2(l2)
          .seed(request.seed())
          .modelBits(request.modelBits())
          .mu(request.halpMu())
          .anchorEpochs(request.anchorEpochs())
          .schedule(request.schedule().create(request.epochs(), rate))
          .listener(r -> say.accept(epochLine(r, task, chooser)))
          .build()
          .train(fit, stopping);
    }

    /**
     * L-BFGS or CG along the l2 path: on the validation source when given, else on 90% of the
     * training rows with the split choosing, then the chosen l2 solved to the solver's own
     * tolerance: refit on every training row (warm-started from the path's model) or, on a
     * validation source, polished from it. The path's solves only score their l2, so they stop at
     * the looser {@link #PATH_TOLERANCE_CG} or {@link #PATH_TOLERANCE_LBFGS}.
     */
    private Choice iterative() {
      String name = request.solver().id;
      LinearModel zeros = LinearModel.zeros(request.features(), task.outputs());
      boolean automatic = request.automaticL2();
      boolean several = request.l2Path().size() > 1;
      if (validation != null || !several) {
        Solve solve = solver(train.rows());
        Choice choice = path(name, zeros, automatic,
            validation == null ? null : validation.rows(), solve);
        if (!several || choice.result().diverged()) {
          return choice;
        }
        say.accept(name + ": l2 " + choice.l2() + " to the solver's tolerance");
        TrainingResult polished = solve.apply(choice.l2(), choice.result().model(), false);
        passes += polished.steps();
        return new Choice(choice.l2(), polished);
      }
      Partitions fit = fitRows();
      Partitions split = splitRows();
      say.accept(name + ": choosing l2 on a seeded split of " + split.rows()
          + " training rows, fitting on the other " + fit.rows());
      Choice choice = path(name, zeros, automatic, split, solver(fit));
      if (choice.result().diverged()) {
        return choice;
      }
      say.accept(name + ": refit on all " + train.rows().rows() + " training rows, l2 "
          + choice.l2());
      // CG's refit shares the path's preconditioner (a sample of 90% of these rows is a sample of
      // them all): one preparing pass, no new sample, Gram or factorization.
      Solve all = cg == null ? solver(train.rows())
          : cgSolve(ConjugateGradientRidge.prepare(train.rows(), cg, request.executor()));
      TrainingResult refit = all.apply(choice.l2(), choice.result().model(), false);
      passes += refit.steps();
      return new Choice(choice.l2(), refit);
    }

    /**
     * Rahimi and Recht's kitchen sinks on every training row: the bound C is the whole
     * regularization, so there is nothing for validation rows to choose.
     */
    private TrainingResult kitchenSinks() {
      KitchenSinks solver = KitchenSinks.builder(task, request.features())
          .alphaBound(request.alphaBound())
          .executor(request.executor())
          .progress(say)
          .build();
      say.accept(String.format(Locale.ROOT, "rks: %s loss, alpha bound C = %s: every weight"
          + " |w| <= C / sqrt(2 m) = %.6g, intercept free", task.loss().name(),
          request.alphaBound(), solver.bound()));
      TrainingResult result = solver.train(train.rows());
      passes += result.steps();
      say.accept("rks: " + result.message());
      return result;
    }

    /**
     * A solve for one l2 from a warm start, to the path's tolerance when {@code scoring}; {@code
     * pastMinimum}, when not null, is offered the model every {@link #MONITOR_EVERY} iterations
     * and ends the solve when it says the l2 is past the path's minimum (L-BFGS; CG ignores it).
     */
    private interface Solve {
      TrainingResult apply(double lambda, LinearModel start, boolean scoring,
          Predicate<LinearModel> pastMinimum);

      default TrainingResult apply(double lambda, LinearModel start, boolean scoring) {
        return apply(lambda, start, scoring, null);
      }
    }

    /** The request's iterative solver on {@code source}. */
    private Solve solver(Partitions source) {
      if (request.solver() == Solver.LBFGS) {
        if (sketch == null && source.rows() >= SKETCH_MIN_ROWS_PER_SAMPLE
            * ConjugateGradientRidge.DEFAULT_SKETCH_ROWS) {
          // One sampling pass; the refit on all rows shares the path's sample, as CG's does.
          sketch = SketchPreconditioner.sample(source, ConjugateGradientRidge.DEFAULT_SKETCH_ROWS,
              0, request.executor());
          passes++;
          say.accept("lbfgs: preconditioner from a " + sketch.rows() + "-row sketch, shifted by "
              + String.format(Locale.ROOT, "%.3g", sketch.shift()));
        }
        SketchPreconditioner preconditioner = sketch;
        return (lambda, start, scoring, pastMinimum) -> LbfgsSolver.builder(task,
                request.features())
            .preconditioner(preconditioner)
            .monitor(MONITOR_EVERY, pastMinimum)
            .l2(lambda)
            .tolerance(scoring ? PATH_TOLERANCE_LBFGS : LbfgsSolver.DEFAULT_TOLERANCE)
            .executor(request.executor())
            .listener(r -> say.accept(String.format(Locale.ROOT,
                "lbfgs: l2 %s, iteration %3d, objective %.10g, step %.3g, %.2f s", lambda,
                r.epoch(), r.trainLoss(), r.learningRate(), r.seconds())))
            .build()
            .train(source, start);
      }
      // One preparing pass (means, Z^T t, the preconditioner's sketch) that every l2 shares.
      cg = ConjugateGradientRidge.prepare(source,
          ConjugateGradientRidge.DEFAULT_SKETCH_ROWS, 0, request.executor());
      say.accept("cg: " + cg.rows() + " rows, preconditioner from a " + cg.sketchRows()
          + "-row sketch, shifted by " + String.format(Locale.ROOT, "%.3g", cg.shift()));
      return cgSolve(cg);
    }

    /** CG on a prepared system; its preparing pass is counted here. */
    private Solve cgSolve(ConjugateGradientRidge system) {
      passes += system.passes();
      return (lambda, start, scoring, pastMinimum) -> system.solve(lambda, start,
          scoring ? PATH_TOLERANCE_CG : ConjugateGradientRidge.DEFAULT_TOLERANCE,
          ConjugateGradientRidge.DEFAULT_MAX_ITERATIONS,
          r -> say.accept(String.format(Locale.ROOT,
              "cg: l2 %s, iteration %3d, relative residual %.3g, %.2f s", lambda, r.epoch(),
              r.trainLoss(), r.seconds())));
    }

    /**
     * A solve for each l2 in order, each started from the previous model (neighbouring l2 have
     * neighbouring optima); with several, the lowest loss on {@code stopping} is kept. A diverged
     * solve ends the path; so does, when {@code stopPastMinimum} (the automatic path, coarse to
     * fine), a loss above the best so far: ridge-like validation losses rise on both sides of one
     * minimum, and the finest l2 are the slowest to solve.
     */
    private Choice path(String name, LinearModel zeros, boolean stopPastMinimum,
        Partitions stopping, Solve solve) {
      List<Double> l2s = request.l2Path();
      Choice best = null;
      LinearModel start = zeros;
      for (double lambda : l2s) {
        TrainingResult result = solve.apply(lambda, start, l2s.size() > 1,
            stopPastMinimum && best != null ? pastMinimum(stopping, path.get(best.l2())) : null);
        passes += result.steps();
        if (result.diverged() || l2s.size() == 1) {
          return new Choice(lambda, result);
        }
        start = result.model();
        double loss = Evaluation.of(result.model(), task, stopping, EVALUATION_BATCH).meanLoss();
        path.put(lambda, loss);
        say.accept(String.format(Locale.ROOT, "%s: l2 %s, %s loss %.6g (%s)", name, lambda,
            chooser, loss, result.message()));
        if (best == null || loss < path.get(best.l2())) {
          best = new Choice(lambda, result);
        } else if (stopPastMinimum) {
          say.accept(name + ": " + chooser + " loss rose past l2 " + best.l2()
              + "; the path stops there");
          break;
        }
      }
      return best;
    }

    /**
     * An L-BFGS path solve's monitor: the l2 is past the path's minimum once its iterate's loss
     * on {@code stopping} is above the best l2's ({@code best}) and did not fall since the last
     * look. Started from the best l2's optimum, a solve for a better l2 takes its loss below the
     * best on its way; one for a worse l2 raises it, and used to run to its cap only to confirm
     * it (Fashion-MNIST, m = 8192: 497 iterations at l2 1e-7 after 266 at the best, 1e-6).
     */
    private Predicate<LinearModel> pastMinimum(Partitions stopping, double best) {
      double[] last = {Double.NaN};
      return model -> {
        double loss = Evaluation.of(model, task, stopping, EVALUATION_BATCH).meanLoss();
        boolean past = loss > best && last[0] > best && !(loss < last[0]);
        last[0] = loss;
        return past;
      };
    }

    /**
     * The closed form: the normal equations of the fitting rows, solved for each l2 (the best on
     * the validation rows kept), then solved again with the rows that only chose l2 added: the
     * split's, or {@code refit}'s.
     */
    private ClosedForm closedForm(Data refit) {
      List<Double> l2s = request.l2Path();
      boolean split = validation == null && l2s.size() > 1;
      NormalEquations sums = gram(split ? fitRows() : train.rows(), split ? "fitting" : "train");
      Partitions stopping = split ? splitRows()
          : validation == null ? null : validation.rows();
      PathChoice chosen = solvePath(sums, stopping, path, say);
      double bestL2 = chosen.l2();
      Partitions more = split ? stopping : refit == null ? null : refit.rows();
      if (more == null) {
        return new ClosedForm(bestL2, chosen.model(), 0);
      }
      // The rows that chose l2 only chose it: the final model learns from them too.
      NormalEquations added = gram(more, split ? "validation split" : refit.describe());
      say.accept("closed form: refit on " + (split ? "all training rows" : "train + " + refit.role())
          + ", l2 " + bestL2);
      return new ClosedForm(bestL2, sums.plus(added).solve(bestL2),
          split ? 0 : refit.rows().rows());
    }

    /**
     * {@code sums} solved for each l2 of the path, each model (over the request's m features,
     * padded with zero weights when {@code sums} holds fewer) scored by its mean loss on {@code
     * stopping} into {@code losses}; the lowest kept, with its score. One l2 is solved without
     * scoring.
     */
    private PathChoice solvePath(NormalEquations sums, Partitions stopping,
        Map<Double, Double> losses, Consumer<String> talk) {
      List<Double> l2s = request.l2Path();
      double bestL2 = l2s.get(0);
      LinearModel best = null;
      Evaluation bestScore = null;
      IllegalArgumentException failure = null;
      for (double lambda : l2s) {
        talk.accept("closed form: Cholesky solve of the " + sums.features() + " x "
            + sums.features() + " system, l2 " + lambda);
        LinearModel model;
        try {
          model = sums.solve(lambda).padded(request.features());
        } catch (IllegalArgumentException e) {
          failure = e;
          talk.accept("closed form: l2 " + lambda + " skipped: " + e.getMessage());
          continue;
        }
        if (l2s.size() == 1) {
          best = model;
          bestL2 = lambda;
          break;
        }
        Evaluation score = Evaluation.of(model, task, stopping, EVALUATION_BATCH);
        double loss = score.meanLoss();
        losses.put(lambda, loss);
        talk.accept(String.format(Locale.ROOT, "closed form: l2 %g, %s loss %.6g", lambda,
            chooser, loss));
        if (best == null || loss < losses.get(bestL2)) {
          best = model;
          bestL2 = lambda;
          bestScore = score;
        }
      }
      if (best == null) {
        throw new IllegalArgumentException("no l2 value gave a solvable system " + l2s
            + "; the last: " + failure.getMessage(), failure);
      }
      return new PathChoice(bestL2, best, bestScore);
    }

    /** {@link #closedFormLeading}'s results, in the order of {@code features}. */
    List<Leading> leading(int[] features) {
      NormalEquations sums = gram(train.rows(), "train");
      List<Leading> out = new ArrayList<>();
      for (int k : features) {
        PathChoice c = solvePath(sums.leading(k), validation.rows(), new LinkedHashMap<>(),
            line -> {});
        // The path scored its choice on the validation rows already, unless it held one l2.
        out.add(new Leading(k, c.l2(), c.scored() != null ? c.scored()
            : Evaluation.of(c.model(), task, validation.rows(), EVALUATION_BATCH)));
      }
      return out;
    }

    private NormalEquations gram(Partitions rows, String name) {
      passes++;
      return ClosedFormRidge.accumulate(rows, task, request.executor(),
          gramProgress(name, rows.rows()));
    }

    /** Progress of the Gram matrix: a line per 10% of the rows. */
    private LongConsumer gramProgress(String rowsName, long rows) {
      long start = System.nanoTime();
      long[] nextTenth = {1};
      return done -> {
        if (rows > 0 && done * 10 >= nextTenth[0] * rows) {
          nextTenth[0] = done * 10 / rows + 1;
          say.accept(String.format(Locale.ROOT, "closed form: Z^T Z over %d of %d %s rows, %.1f s",
              done, rows, rowsName, (System.nanoTime() - start) / 1e9));
        }
      };
    }
  }

  /** The l2 an iterative solver kept and its result. */
  private record Choice(double l2, TrainingResult result) {}

  /** The closed form's l2, model and the rows its refit added. */
  private record ClosedForm(double l2, LinearModel model, long refitRows) {}

  /** The l2 the path kept, its model and its score on the rows that chose it (null: unscored). */
  private record PathChoice(double l2, LinearModel model, Evaluation scored) {}
}
