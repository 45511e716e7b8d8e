package org.lprff.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.model.FittedModel;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingReport;
import org.lprff.vector.train.TrainingRequest;
import org.lprff.vector.train.fullbatch.ClosedFormRidge;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.Evaluation;
import org.lprff.vector.train.model.LinearModel;

/**
 * The distributed solvers against the single-machine ones on the same rows: the same packed bytes
 * (the transformer's, checked equal to the local featurizer's by LpRffTransformerTest), the same
 * request, the same seeded split (row ids 0..n-1, as a feature file has).
 */
class DistributedTrainingTest extends SparkTestBase {

  private static final int TRAIN = 12_000;
  private static final int HELDOUT = 4_000;
  private static final int M = 512;
  private static Diamonds.Split data;
  private static FeaturizerSpec spec;
  private static Dataset<Row> train;
  private static Dataset<Row> heldout;
  private static Arena arena;

  @BeforeAll
  static void featurize() {
    data = Diamonds.split(Diamonds.shuffled(3), TRAIN, HELDOUT);
    LpRffTransformer t = new LpRffTransformer().setInputCol("x").setNumFeatures(M).setBits(4)
        .setSigma(2.0).setSeed(11);
    train = t.transform(frame(data.trainX(), Diamonds.D, data.trainY(), 0, 3)).cache();
    heldout = t.transform(frame(data.heldoutX(), Diamonds.D, data.heldoutY(), TRAIN, 2));
    spec = t.spec(Diamonds.D);
    arena = Arena.ofShared();
  }

  /**
   * The same rows as a local source, ordered by id, in native memory: targets y, or with {@code
   * classes} the classes y > 8 (log price above about 3,000 dollars).
   */
  private static MiniBatchSource local(float[] x, double[] y, long firstId, boolean classes) {
    return local(spec, x, y, firstId, classes);
  }

  private static MiniBatchSource local(FeaturizerSpec spec, float[] x, double[] y, long firstId,
      boolean classes) {
    int n = y.length;
    byte[] bytes = Featurizer.of(spec).featurize(x, n, firstId);
    MemorySegment native_ = arena.allocate(bytes.length, 64);
    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, native_, 0, bytes.length);
    FeatureRows z = FeatureRows.of(spec, native_, 0, n);
    return classes ? InMemoryBatches.of(z, binary(y)).ordered()
        : InMemoryBatches.of(z, Diamonds.Split.floats(y)).ordered();
  }

  private static int[] binary(double[] y) {
    int[] c = new int[y.length];
    for (int r = 0; r < y.length; r++) {
      c[r] = y[r] > 8.0 ? 1 : 0; // log(price) above ~3,000 dollars
    }
    return c;
  }

  /** Heldout MSE of a model's prediction column against the label column. */
  private static double mse(Dataset<Row> predictions) {
    List<Row> rows = predictions.select("label", "prediction").collectAsList();
    double sum = 0;
    for (Row r : rows) {
      double e = r.getDouble(1) - r.getDouble(0);
      sum += e * e;
    }
    return sum / rows.size();
  }

  /**
   * Each solver's model against the single-machine solver's on the same rows and request, in
   * heldout predictions (log price; the heldout RMSE is about 0.1):
   *
   * <ul>
   *   <li>the same l2 chosen on the same seeded split, or for cg and lbfgs one whose validation
   *       loss ties the single-machine choice's within 1e-3 (relative): both stop at a tolerance
   *       and add their sums in another order;
   *   <li>the closed form: the same model (within 1e-5; measured 0: the partitions' normal
   *       equations add to the same sums);
   *   <li>cg and lbfgs: within 0.01 of the exact optimum at that l2 (the closed form), as the
   *       single-machine solver is (measured: distributed 0.0020 and 0.0016, single-machine
   *       0.0030 and 0.0028; the sums are added in another order and both stop at a tolerance
   *       of an ill-conditioned system), and within 0.01 of each other (measured 0.0050, 0.0019);
   *   <li>heldout MSE within 1% of the single-machine model's.
   * </ul>
   */
  @Test
  void everyRegressionSolverMatchesTheSingleMachineSolver() {
    MiniBatchSource localTrain = local(data.trainX(), data.trainY(), 0, false);
    MiniBatchSource localHeldout = local(data.heldoutX(), data.heldoutY(), TRAIN, false);
    for (String solver : List.of("closed-form", "cg", "lbfgs")) {
      LpRffRegressionModel model = new LpRffRegressor().setSolver(solver).fit(train);
      TrainingReport local = Trainer.run(TrainingRequest.regression(M)
          .withSolver(Solver.named(solver)), new Trainer.Data("train", "", localTrain), null);
      double l2 = model.l2();
      if (l2 != local.l2()) {
        // An iterative solver stops at a tolerance, and the partitions add their sums in
        // another order: where two l2 values of the path tie within that tolerance on the
        // validation rows, either may be chosen. The closed form's sums are the same.
        Double chosen = local.l2Path().get(local.l2());
        Double other = local.l2Path().get(l2);
        assertTrue(!solver.equals("closed-form") && other != null
            && Math.abs(other - chosen) <= 1e-3 * chosen, solver + ": l2 " + l2 + " chosen, the"
                + " single-machine solver chose " + local.l2() + " (path " + local.l2Path() + ")");
      }
      LinearModel exact = ClosedFormRidge.fit(localTrain, Task.REGRESSION, l2);
      double apart = predictionDifference(local.model(), model.weights(), localHeldout);
      double fromExact = predictionDifference(model.weights(), exact, localHeldout);
      if (solver.equals("closed-form")) {
        assertTrue(apart <= 1e-5, solver + ": predictions " + apart + " apart");
      } else {
        assertTrue(fromExact <= 0.01, solver + ": " + fromExact + " from the exact optimum");
        assertTrue(l2 != local.l2() || apart <= 0.01,
            solver + ": " + apart + " from the single-machine model");
      }
      double localMse = Evaluation.of(local.model(), Task.REGRESSION, localHeldout, 1000).metric();
      double sparkMse = mse(model.transform(heldout));
      assertEquals(localMse, sparkMse, 0.01 * localMse, solver + ": heldout MSE");
    }
  }

  @Test
  void aValidationIndicatorChoosesL2AndTheClassifierMatchesLbfgs(@TempDir Path dir)
      throws Exception {
    Dataset<Row> labelled = train.withColumn("label", org.apache.spark.sql.functions.expr(
        "cast(label > 8.0 as double)")).withColumn("isValidation",
        org.apache.spark.sql.functions.expr("rowId >= 10000"));
    LpRffClassificationModel model = new LpRffClassifier()
        .setValidationIndicatorCol("isValidation").fit(labelled);
    float[] x = data.trainX();
    MiniBatchSource fit = local(java.util.Arrays.copyOf(x, 10_000 * Diamonds.D),
        java.util.Arrays.copyOf(data.trainY(), 10_000), 0, true);
    MiniBatchSource validation = local(
        java.util.Arrays.copyOfRange(x, 10_000 * Diamonds.D, TRAIN * Diamonds.D),
        java.util.Arrays.copyOfRange(data.trainY(), 10_000, TRAIN), 10_000, true);
    TrainingReport local = Trainer.run(TrainingRequest.classification(M),
        new Trainer.Data("train", "", fit), new Trainer.Data("validation", "", validation), null,
        null);
    assertEquals(local.l2(), model.l2());
    assertEquals("validation", local.selectedOn());
    MiniBatchSource heldoutRows = local(data.heldoutX(), data.heldoutY(), TRAIN, true);
    double apart = predictionDifference(local.model(), model.weights(), heldoutRows);
    // L-BFGS stops at a relative change of the objective, reached from sums added in another
    // order: the same optimum to that tolerance, weights apart along its flat directions.
    // Measured 0.0019 on an AVX-512 Xeon, 0.0225-0.0226 on an AVX2 AMD EPYC (before any change
    // of this test's code), 0.061-0.066 there with the byte draws of lprff.rng (other features,
    // other flat directions); bound 0.1. The heldout log-loss, which the objective tracks, agrees far
    // closer: bound 1e-3 relative.
    assertTrue(apart <= 0.1, "logits " + apart + " apart");
    double localLoss = Evaluation.of(local.model(), Task.BINARY, heldoutRows, 1000).meanLoss();
    double sparkLoss = Evaluation.of(model.weights(), Task.BINARY, heldoutRows, 1000).meanLoss();
    assertEquals(localLoss, sparkLoss, 1e-3 * localLoss, "heldout log-loss");
    // A validation DataFrame chooses as the indicator's rows do.
    LpRffClassificationModel byFrame = new LpRffClassifier().fit(
        labelled.filter("not isValidation"), labelled.filter("isValidation"));
    assertEquals(model.l2(), byFrame.l2());
    // The same rows in the same partitions, their sums added in partition order: the same bits.
    // (With treeAggregate's task-completion order they were 0.0 apart on a quiet machine and up
    // to 0.11 beside other work.)
    double frameApart = predictionDifference(model.weights(), byFrame.weights(),
        local(data.heldoutX(), data.heldoutY(), TRAIN, true));
    assertEquals(0.0, frameApart, "logits apart, indicator against frame");
    assertEquals(2, model.numClasses());

    Dataset<Row> scored = model.transform(heldout.withColumn("label",
        org.apache.spark.sql.functions.expr("cast(label > 8.0 as double)")));
    List<Row> rows = scored.select("label", "rawPrediction", "probability", "prediction")
        .collectAsList();
    int errors = 0;
    for (Row r : rows) {
      Vector raw = (Vector) r.get(1);
      Vector p = (Vector) r.get(2);
      assertEquals(-raw.apply(0), raw.apply(1), 0);
      assertEquals(1, p.apply(0) + p.apply(1), 1e-12);
      assertEquals(p.apply(1) > 0.5 ? 1.0 : 0.0, r.getDouble(3));
      errors += r.getDouble(3) != r.getDouble(0) ? 1 : 0;
    }
    double localError = Evaluation.of(local.model(), Task.BINARY,
        local(data.heldoutX(), data.heldoutY(), TRAIN, true), 1000).metric();
    assertEquals(localError, errors / (double) rows.size(), 0.002);

    Path file = dir.resolve("model.lprff");
    model.export(file.toString());
    FittedModel read = FittedModel.load(file);
    assertEquals(Task.BINARY, read.task());
    assertEquals(spec, read.spec());
    assertEquals(model.weights(), read.weights());
    assertEquals(model.weights(), LpRffClassificationModel.fromModelFile(file.toString()).weights());
  }

  /**
   * A pipeline of the transformer and an estimator saves and loads like any Spark ML pipeline,
   * unfitted and fitted, and the loaded model predicts the same.
   */
  /**
   * A Sigma-Delta column (2 bits, order 2, blocks of 8) trains on its condensed features, m / 8
   * of them, in Spark as on one machine: the closed form chooses the same l2 and gives the same
   * predictions (within 1e-5, as for the other columns), and the model's transform scores the
   * heldout rows through the same condensation (MSE within 1%).
   */
  @Test
  void sigmaDeltaColumnsTrainOnTheirCondensedFeatures() {
    LpRffTransformer t = new LpRffTransformer().setInputCol("x").setNumFeatures(M).setBits(2)
        .setSigma(2.0).setSeed(11).setQuantizer("sigma-delta:2:8");
    FeaturizerSpec sd = t.spec(Diamonds.D);
    Dataset<Row> sdTrain = t.transform(frame(data.trainX(), Diamonds.D, data.trainY(), 0, 3));
    Dataset<Row> sdHeldout =
        t.transform(frame(data.heldoutX(), Diamonds.D, data.heldoutY(), TRAIN, 2));
    LpRffRegressionModel model = new LpRffRegressor().setSolver("closed-form").fit(sdTrain);
    assertEquals(M / 8, model.weights().features());
    MiniBatchSource localTrain = local(sd, data.trainX(), data.trainY(), 0, false);
    MiniBatchSource localHeldout = local(sd, data.heldoutX(), data.heldoutY(), TRAIN, false);
    TrainingReport local = Trainer.run(TrainingRequest.regression(M / 8)
        .withSolver(Solver.CLOSED_FORM), new Trainer.Data("train", "", localTrain), null);
    assertEquals(local.l2(), model.l2());
    double apart = predictionDifference(local.model(), model.weights(), localHeldout);
    assertTrue(apart <= 1e-5, "predictions " + apart + " apart");
    double localMse = Evaluation.of(local.model(), Task.REGRESSION, localHeldout, 1000).metric();
    assertEquals(localMse, mse(model.transform(sdHeldout)), 0.01 * localMse);
  }

  @Test
  void pipelinesSaveAndLoad(@TempDir Path dir) throws Exception {
    Dataset<Row> raw = frame(data.trainX(), Diamonds.D, data.trainY(), 0, 2).limit(3000);
    Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
        new LpRffTransformer().setInputCol("x").setNumFeatures(128).setSigma(2.0),
        new LpRffRegressor().setSolver("closed-form").setRegParam(1e-4)});
    String unfitted = dir.resolve("pipeline").toString();
    pipeline.save(unfitted);
    PipelineModel model = Pipeline.load(unfitted).fit(raw);
    String fitted = dir.resolve("model").toString();
    model.save(fitted);
    PipelineModel loaded = PipelineModel.load(fitted);
    List<Row> a = model.transform(raw).select("prediction").collectAsList();
    List<Row> b = loaded.transform(raw).select("prediction").collectAsList();
    assertEquals(a, b);
    LpRffRegressionModel stage = (LpRffRegressionModel) loaded.stages()[1];
    assertEquals(1e-4, stage.l2());
    assertEquals(((LpRffRegressionModel) model.stages()[1]).weights(), stage.weights());
  }

  @Test
  void badParamsAndLabelsAreRefusedNamingTheValue() {
    Dataset<Row> small = train.limit(500);
    LpRffTransformerTest.assertMessage("solver is 'newton', expected auto, lbfgs, cg or"
        + " closed-form", () -> new LpRffRegressor().setSolver("newton").fit(small));
    LpRffTransformerTest.assertMessage("solver sgd reads mini-batches on one machine",
        () -> new LpRffRegressor().setSolver("sgd").fit(small));
    LpRffTransformerTest.assertMessage("column 'features' has no lprff spec",
        () -> new LpRffRegressor().fit(small.withMetadata("features",
            org.apache.spark.sql.types.Metadata.empty())));
    LpRffTransformerTest.assertMessage("no column 'id' (the row ids)",
        () -> new LpRffRegressor().setRowIdCol("id").fit(small));
    Dataset<Row> half = small.withColumn("label",
        org.apache.spark.sql.functions.expr("if(rowId % 10 = 7, 0.5, 1.0)"));
    LpRffTransformerTest.assertMessage("label column 'label' is 0.5 in the row with id ",
        () -> new LpRffClassifier().fit(half));
    LpRffTransformerTest.assertMessage("expected a class index 0, 1, 2, ...",
        () -> new LpRffClassifier().fit(half));
  }

  /** The largest difference of the two models' scores on the rows of {@code source}. */
  static double predictionDifference(LinearModel a, LinearModel b, MiniBatchSource source) {
    double diff = 0;
    try (MiniBatchSource.Batches it = source.epoch(0, 1000, 0)) {
      while (it.hasNext()) {
        FeatureRows z = it.next().features();
        float[] pa = a.predict(z);
        float[] pb = b.predict(z);
        for (int i = 0; i < pa.length; i++) {
          diff = Math.max(diff, Math.abs(pa[i] - pb[i]));
        }
      }
    }
    return diff;
  }
}
