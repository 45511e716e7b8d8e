package org.lprff.cli.workflow;

import org.lprff.arrow.input.RowTable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;
import org.ejml.data.DMatrixRMaj;
import org.lprff.cli.output.Human;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.metrics.KernelMatrix;
import org.lprff.vector.metrics.NystromFeatures;
import org.lprff.vector.metrics.SpectralApproximation;
import org.lprff.vector.metrics.TrainingMemory;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.train.LossKind;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.vector.train.TrainingRequest.ScheduleKind;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.minibatch.HalpSolver;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingResult;

/**
 * One feature method measured on raw rows held in memory, the work of {@code lprff compare} and
 * {@code lprff experiment}: random features (projection, quantizer, b, m) or Nyström with m
 * landmarks, featurized with the project's featurizer (Nyström's map from the metrics layer),
 * the kernel approximation (Δ1, Δ2, ||K - K~||_F, ||K - K~||_2) on a fixed heldout subsample,
 * trained through the library's {@link Trainer}, and scored on every heldout row featurized at
 * full precision with the method's map, as {@code predict} does by default.
 */
public final class MethodRuns {

  /** The subsample's stream of {@link RandomParameters#permutation} (next to Nyström's). */
  public static final int STREAM_SUBSAMPLE = NystromFeatures.STREAM_LANDMARKS - 1;

  /** One method: random features (projection, quantizer, bits, m) or Nyström with m landmarks. */
  public record Method(String projection, Quantizer quantizer, int bits, int m) {
    public static final String NYSTROM = "nystrom";

    /** Nyström with {@code m} landmarks. */
    public static Method nystrom(int m) {
      return new Method(NYSTROM, Quantizer.STOCHASTIC, 32, m);
    }

    public boolean nystrom() {
      return projection.equals(NYSTROM);
    }

    /**
     * "nystrom", "circulant/4", or "circulant/4/lloyd-max" for a quantizer other than stochastic
     * (its spelling: "circulant/2/sigma-delta:2:8"; at 32 bits only Sigma-Delta's condensed map
     * is named).
     */
    public String label() {
      boolean named = quantizer instanceof Quantizer.SigmaDelta
          || bits < 32 && quantizer != Quantizer.STOCHASTIC;
      return nystrom() ? NYSTROM
          : projection + "/" + bits + (named ? "/" + quantizer.spelling() : "");
    }
  }

  /** A method's measurements; {@code metric} is NaN if training diverged. */
  public record Result(
      Method method, int featureCount, TrainingMemory memory, SpectralApproximation delta,
      double metric, String stop, int epochs, double featurizeSeconds, double deltaSeconds,
      double trainSeconds) {}

  /**
   * How each method trains: the solver, one l2, SGD's settings (early stopping on the heldout
   * rows, as the LP-RFF paper does), the mini-batch rows of the training memory, and the seed of
   * the feature map, the Nyström landmarks and the training.
   */
  public record Protocol(
      Solver solver, double l2, int epochs, Double learningRate, int batchRows, long seed,
      Double alphaBound, LossKind loss, int modelBits, double halpMu) {

    /** A protocol with the task's loss, no alpha bound and LM-HALP's defaults. */
    public Protocol(Solver solver, double l2, int epochs, Double learningRate, int batchRows,
        long seed) {
      this(solver, l2, epochs, learningRate, batchRows, seed, null, null,
          HalpSolver.DEFAULT_MODEL_BITS, HalpSolver.DEFAULT_MU);
    }
  }

  private final KernelFunction kernel;
  private final RowTable train;
  private final RowTable heldout;
  private final int[] subsample;
  private final SpectralApproximation.Reference reference;
  private final Task task;
  private final int classes;
  private final ExecutorService pool;
  private final Consumer<String> progress;

  private MethodRuns(KernelFunction kernel, RowTable train, RowTable heldout,
      int[] subsample, SpectralApproximation.Reference reference, Task task, int classes,
      ExecutorService pool, Consumer<String> progress) {
    this.kernel = kernel;
    this.train = train;
    this.heldout = heldout;
    this.subsample = subsample;
    this.reference = reference;
    this.task = task;
    this.classes = classes;
    this.pool = pool;
    this.progress = progress;
  }

  /**
   * The exact kernel matrix of a seeded subsample of {@code kernelRows} heldout rows (all if
   * fewer), factored with λ = n x l2 (n the subsample's rows: the solvers' l2 relative to a kernel
   * matrix of n rows), ready to measure methods against.
   *
   * @param subsampleSeed the seed of the subsample
   * @param pool helper threads (null: the calling thread alone)
   * @param progress a line per step worth telling
   */
  public static MethodRuns prepare(KernelFunction kernel, RowTable train,
      RowTable heldout, int kernelRows, long subsampleSeed, double l2, Task task,
      int classes, ExecutorService pool, Consumer<String> progress) {
    int n = Math.min(kernelRows, heldout.n());
    int[] subsample = Arrays.copyOf(
        RandomParameters.permutation(subsampleSeed, STREAM_SUBSAMPLE, heldout.n()), n);
    Arrays.sort(subsample);
    long t0 = System.nanoTime();
    DMatrixRMaj exact =
        KernelMatrix.exact(kernel, heldout.select(subsample).x(), n, heldout.d(), pool);
    SpectralApproximation.Reference reference =
        SpectralApproximation.reference(exact, n * l2, pool);
    progress.accept(String.format(Locale.ROOT, "exact kernel: %s x %s, K + lambda I factored"
        + " in %s", Human.count(n), Human.count(n), Human.seconds(seconds(t0))));
    return new MethodRuns(kernel, train, heldout, subsample, reference, task, classes, pool,
        progress);
  }

  /** The kernel subsample's rows n. */
  public int kernelRows() {
    return subsample.length;
  }

  /** λ of the Δ's: n x l2. */
  public double lambda() {
    return reference.lambda();
  }

  /** The featurizer spec of a random-features method at {@code seed}. */
  public FeaturizerSpec spec(Method method, long seed) {
    return new FeaturizerSpec(kernel, train.d(), method.m(), method.bits(), method.projection(),
        seed, method.quantizer());
  }

  /** Measures {@code method} trained by {@code protocol}. */
  public Result run(Method method, Protocol protocol) {
    return method.nystrom() ? runNystrom(method, protocol) : runFeatures(method, protocol);
  }

  private Result runFeatures(Method method, Protocol protocol) {
    FeaturizerSpec spec = spec(method, protocol.seed());
    Featurizer featurizer = Featurizer.of(spec);
    progress.accept(method.label() + ", m = " + Human.count(method.m()) + ": featurizing");
    try (Arena arena = Arena.ofShared()) {
      long t0 = System.nanoTime();
      FeatureRows trainZ = featurize(featurizer, spec, train, arena, pool);
      FeatureRows heldoutZ = featurize(featurizer, spec, heldout, arena, pool);
      double featurizeSeconds = seconds(t0);
      long t1 = System.nanoTime();
      long rowBytes = featurizer.rowBytes();
      byte[] sample = new byte[Math.toIntExact(rowBytes * subsample.length)];
      for (int k = 0; k < subsample.length; k++) {
        MemorySegment.copy(heldoutZ.segment(), heldoutZ.byteOffset() + subsample[k] * rowBytes,
            MemorySegment.ofArray(sample), k * rowBytes, rowBytes);
      }
      DMatrixRMaj approx = KernelMatrix.gram(sample, subsample.length, spec, pool);
      SpectralApproximation delta = reference.compare(approx);
      double deltaSeconds = seconds(t1);
      TrainingMemory memory =
          TrainingMemory.forSpec(spec, protocol.batchRows(), task.outputs());
      // The heldout metric scores rows of the spec predict scores by default: full precision
      // for stochastic rounding (quantized test rows would add |w|^2 times the rounding
      // variance to the error), the quantized map itself for a deterministic quantizer.
      FeaturizerSpec scoring = spec.scoringSpec();
      FeatureRows scored = scoring.equals(spec) ? heldoutZ
          : featurize(Featurizer.of(scoring), scoring, heldout, arena, pool);
      return trainAndEvaluate(method, protocol, spec.modelFeatures(), memory, delta, trainZ,
          scored, featurizeSeconds, deltaSeconds);
    }
  }

  private Result runNystrom(Method method, Protocol protocol) {
    progress.accept("nystrom, m = " + Human.count(method.m()) + ": landmarks and features");
    long t0 = System.nanoTime();
    NystromFeatures map;
    try {
      map = NystromFeatures.fit(kernel, train.x(), train.n(), train.d(), method.m(),
          protocol.seed(), pool);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("nystrom, m = " + method.m() + ": " + e.getMessage()
          + " (the landmarks' kernel matrix; try fewer landmarks)", e);
    }
    int f = map.features();
    float[] trainZ = new float[Math.multiplyExact(train.n(), f)];
    map.featurize(train.x(), train.n(), trainZ, pool);
    float[] heldoutZ = new float[Math.multiplyExact(heldout.n(), f)];
    map.featurize(heldout.x(), heldout.n(), heldoutZ, pool);
    double featurizeSeconds = seconds(t0);
    long t1 = System.nanoTime();
    int n = subsample.length;
    float[] sample = new float[n * f];
    for (int k = 0; k < n; k++) {
      System.arraycopy(heldoutZ, subsample[k] * f, sample, k * f, f);
    }
    SpectralApproximation delta = reference.compare(KernelMatrix.gram(sample, n, f, pool));
    double deltaSeconds = seconds(t1);
    TrainingMemory memory =
        TrainingMemory.forNystrom(train.d(), method.m(), protocol.batchRows(), task.outputs());
    return trainAndEvaluate(method, protocol, f, memory, delta,
        FeatureRows.float32(trainZ, 0, train.n(), f),
        FeatureRows.float32(heldoutZ, 0, heldout.n(), f), featurizeSeconds, deltaSeconds);
  }

  private Result trainAndEvaluate(Method method, Protocol protocol, int featureCount,
      TrainingMemory memory, SpectralApproximation delta, FeatureRows trainZ,
      FeatureRows heldoutZ, double featurizeSeconds, double deltaSeconds) {
    InMemoryBatches trainSource = batches(trainZ, train, task);
    InMemoryBatches heldoutSource = batches(heldoutZ, heldout, task).ordered();
    long t0 = System.nanoTime();
    // One l2, SGD early-stopping on the heldout rows (as the LP-RFF paper does), the full-batch
    // solvers reading the rows in order.
    boolean classification = task != Task.REGRESSION;
    // rks takes no l2: its bound regularizes (the l2 still sets the kernel metrics' lambda).
    boolean rks = protocol.solver() == Solver.RKS;
    TrainingRequest request = new TrainingRequest(classification,
        classification ? classes : null, featureCount, protocol.solver(),
        rks ? null : List.of(protocol.l2()), protocol.epochs(), protocol.learningRate(),
        ScheduleKind.EARLY_STOP, protocol.batchRows(), protocol.seed(),
        ForkJoinPool.commonPool(), protocol.alphaBound(), protocol.loss(), protocol.modelBits(),
        protocol.halpMu(), HalpSolver.DEFAULT_ANCHOR_EPOCHS);
    memory = memory.withModelBits(request.trainingModelBits()); // halp's model in b bits
    boolean sgd = request.solver().miniBatch();
    TrainingReport report = Trainer.run(request,
        new Trainer.Data("train", "", sgd ? trainSource : trainSource.ordered()),
        sgd ? new Trainer.Data("heldout", "", heldoutSource) : null, null, null);
    TrainingResult result = report.result();
    String stop = result.stopReason() == StopReason.SOLVED ? "closed_form"
        : result.stopReason().name().toLowerCase(Locale.ROOT);
    if (result.diverged()) {
      return new Result(method, featureCount, memory, delta, Double.NaN, stop, result.epochs(),
          featurizeSeconds, deltaSeconds, seconds(t0));
    }
    LinearModel model = report.model();
    double trainSeconds = seconds(t0);
    // The report's task: a hinge model reads its class from the sign of the score.
    Evaluation eval = Evaluation.of(model, report.task(), heldoutSource, 1000);
    return new Result(method, featureCount, memory, delta, eval.metric(), stop, result.epochs(),
        featurizeSeconds, deltaSeconds, trainSeconds);
  }

  /** Rows' features with their targets (regression) or classes, in a shuffled-order source. */
  public static InMemoryBatches batches(FeatureRows z, RowTable rows, Task task) {
    return task == Task.REGRESSION
        ? InMemoryBatches.of(z, rows.y())
        : InMemoryBatches.of(z, rows.classes());
  }

  /**
   * All rows featurized (row ids 0..n-1, draw 0, as featurize writes a file) into native memory
   * of {@code arena}.
   */
  public static FeatureRows featurize(Featurizer featurizer, FeaturizerSpec spec,
      RowTable rows, Arena arena, ExecutorService pool) {
    long rowBytes = featurizer.rowBytes();
    // Native memory: the product kernels run ~10x slower on byte[]-backed segments.
    MemorySegment out = arena.allocate(Math.max(1, rowBytes * rows.n()), 64);
    if (pool == null) {
      featurizer.featurize(rows.x(), rows.n(), 0, out, 0, 0);
    } else {
      featurizer.featurize(rows.x(), rows.n(), 0, out, 0, 0, pool);
    }
    return FeatureRows.of(spec, out, 0, rows.n());
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
