package org.lprff.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.lprff.arrow.input.RowTable;
import org.lprff.arrow.model.BandwidthSearch;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.RowSplit;
import org.lprff.vector.train.TrainingRequest;

/** {@link LpRffBandwidth}: σ chosen on Spark as the library chooses it, carried by the stage. */
class LpRffBandwidthTest extends SparkTestBase {

  private static final int N = 2000;
  private static final Diamonds.Split DATA = Diamonds.split(Diamonds.sample(N, 8), N, 0);
  private static final long FIRST_ID = 10;

  private static LpRffTransformer template() {
    return new LpRffTransformer().setInputCol("x").setNumFeatures(256).setBits(4).setSeed(5);
  }

  /** The rows as the stage splits them: row id i is validation iff RowSplit.validation(1, i). */
  private static RowTable[] split() {
    List<Integer> fit = new ArrayList<>();
    List<Integer> validation = new ArrayList<>();
    for (int r = 0; r < N; r++) {
      (RowSplit.validation(1, FIRST_ID + r) ? validation : fit).add(r);
    }
    return new RowTable[] {table(fit), table(validation)};
  }

  private static RowTable table(List<Integer> rows) {
    int d = Diamonds.D;
    float[] x = new float[rows.size() * d];
    float[] y = new float[rows.size()];
    for (int k = 0; k < rows.size(); k++) {
      System.arraycopy(DATA.trainX(), rows.get(k) * d, x, k * d, d);
      y[k] = (float) DATA.trainY()[rows.get(k)];
    }
    List<String> names = new ArrayList<>();
    for (int j = 0; j < d; j++) {
      names.add("x" + j);
    }
    return new RowTable(x, y, rows.size(), d, names);
  }

  /**
   * Unset, σ is the library's search on the same rows (all of them: fewer than the cap), whatever
   * the partitioning; the chosen transformer writes it into its column's metadata.
   */
  @Test
  void anUnsetSigmaIsSearchedAsTheLibrarySearchesIt() {
    RowTable[] parts = split();
    FeaturizerSpec spec = template().spec(Diamonds.D);
    double expected = BandwidthSearch.run(spec, parts[0], parts[1],
        TrainingRequest.regression(spec.modelFeatures()).withSeed(1), null).lengthScale();
    for (int partitions : new int[] {1, 5}) {
      Dataset<Row> df = frame(DATA.trainX(), Diamonds.D, DATA.trainY(), FIRST_ID, partitions);
      List<String> lines = new ArrayList<>();
      LpRffTransformer chosen =
          new LpRffBandwidth(template()).setProgress(lines::add).fit(df).transformer();
      assertTrue(chosen.isSet(chosen.sigma()));
      assertEquals(expected, (Double) chosen.getOrDefault(chosen.sigma()), partitions + " parts");
      assertTrue(lines.get(0).startsWith("choosing sigma: median distance"), lines.get(0));
      assertEquals(256, (Integer) chosen.getOrDefault(chosen.numFeatures()), "the template's m");
      FeaturizerSpec written = FeatureColumn.spec(chosen.transform(df).schema(), "features");
      assertEquals(expected, written.kernel().lengthScale(), "lprff.sigma of the column");
    }
  }

  @Test
  void aGivenSigmaIsKeptAndTheStageFitsInAPipeline() {
    Dataset<Row> df = frame(DATA.trainX(), Diamonds.D, DATA.trainY(), FIRST_ID, 2);
    LpRffBandwidth given = new LpRffBandwidth(template().setSigma(2.5));
    LpRffBandwidth.Fitted fit = given.fit(df);
    assertEquals(2.5, fit.sigma());
    LpRffTransformer kept = fit.transformer();
    assertEquals(2.5, (Double) kept.getOrDefault(kept.sigma()));
    assertFalse(kept == given.template(), "a copy: the template stays the caller's");

    PipelineModel model = new Pipeline().setStages(new PipelineStage[] {
        new LpRffBandwidth(template()), new LpRffRegressor().setSolver("closed-form")}).fit(df);
    LpRffTransformer fitted = ((LpRffBandwidth.Fitted) model.stages()[0]).transformer();
    assertTrue(fitted.isSet(fitted.sigma()));
    assertEquals(N, model.transform(df).count());
  }

  @Test
  void badParamsAreNamed() {
    Dataset<Row> df = frame(DATA.trainX(), Diamonds.D, DATA.trainY(), FIRST_ID, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LpRffBandwidth(template()).setTask("ranking").fit(df));
    assertTrue(e.getMessage().contains("task is 'ranking'"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> new LpRffBandwidth(template()).setLabelCol("price").fit(df));
    assertTrue(e.getMessage().contains("price"), e.getMessage());
  }
}
