package org.lprff.arrow.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.lprff.arrow.input.RowTable;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.kernel.MedianHeuristic;
import org.lprff.vector.train.TrainingRequest;

class BandwidthSearchTest {

  private static final int D = 2;

  private static FeaturizerSpec spec(int m) {
    return new FeaturizerSpec(new KernelFunction.Gaussian(1.0), D, m, 4, "dense", 3L,
        Quantizer.STOCHASTIC);
  }

  /**
   * Rows of 2 columns with their own offsets and scales; the target sin(4 z0) + 0.1 noise of the
   * standardized first column z0 wiggles on a scale far below the median distance (about 1.7), so
   * σ = the median is a poor choice and the search has something to find.
   */
  private static RowTable table(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n * D];
    float[] y = new float[n];
    for (int i = 0; i < n; i++) {
      double z0 = r.nextGaussian();
      x[i * D] = (float) (5 + 3 * z0);
      x[i * D + 1] = (float) (-2 + 0.5 * r.nextGaussian());
      y[i] = (float) (Math.sin(4 * z0) + 0.1 * r.nextGaussian());
    }
    return new RowTable(x, y, n, D, List.of("a", "b"));
  }

  private static double heldoutMse(FittedModel model, RowTable heldout) {
    float[] p = model.predict(heldout.x(), heldout.n());
    double mse = 0;
    for (int i = 0; i < heldout.n(); i++) {
      double e = p[i] - heldout.y()[i];
      mse += e * e / heldout.n();
    }
    return mse;
  }

  /** The search at m on the split's two parts, its progress lines into {@code lines}. */
  private static BandwidthSearch.Result search(int m, RowTable[] parts, List<String> lines) {
    return BandwidthSearch.run(spec(m), parts[0], parts[1], TrainingRequest.regression(m),
        lines::add);
  }

  @Test
  void coarseThenFineAndTheBestFineTrialIsChosen() {
    RowTable[] parts = FittedModel.validationSplit(table(3000, 1), 1);
    List<String> lines = new ArrayList<>();
    BandwidthSearch.Result r = search(512, parts, lines);
    int m1 = BandwidthSearch.coarseFeatures(512);
    assertEquals(256, m1);
    long coarse = r.trials().stream().filter(t -> t.stage().equals("coarse")).count();
    List<BandwidthSearch.Trial> fine =
        r.trials().stream().filter(t -> t.stage().equals("fine")).toList();
    assertTrue(coarse >= 2 * BandwidthSearch.OCTAVES + 1, "coarse trials " + coarse);
    assertEquals(BandwidthSearch.FINE_STEPS.length, fine.size());
    double[] x = new double[fine.size()];
    double[] metric = new double[fine.size()];
    for (int i = 0; i < fine.size(); i++) {
      assertEquals(512, fine.get(i).features());
      x[i] = Math.log(fine.get(i).factor()) / Math.log(2);
      metric[i] = fine.get(i).metric();
    }
    double exponent = Math.log(r.factor()) / Math.log(2);
    assertEquals(BandwidthSearch.vertex(x, metric, Double.NaN), exponent, 1e-9,
        "the vertex of the fine trials' parabola is the choice");
    assertTrue(exponent >= x[0] && exponent <= x[x.length - 1]);
    assertEquals(r.medianDistance() * r.factor(), r.lengthScale(), 1e-9 * r.lengthScale());
    assertEquals(BandwidthSearch.Edge.NONE, r.edge(), "sin(4 z) has its optimum inside");
    assertTrue(r.factor() < 0.5, "a wiggly target wants a sigma below the median: " + r.factor());
    assertEquals(parts[0].n(), r.fitRows());
    assertEquals(parts[1].n(), r.validationRows());
    assertEquals(r.trials().size() + 2, lines.size(), "a line a trial, one before, one after");
    // The model file's strings give the search back.
    BandwidthSearch.Result back = BandwidthSearch.Result.fromMap(r.toMap());
    assertEquals(r.trials().size(), back.trials().size());
    for (int i = 0; i < r.trials().size(); i++) {
      assertEquals(r.trials().get(i).lengthScale(), back.trials().get(i).lengthScale());
      assertEquals(r.trials().get(i).metric(), back.trials().get(i).metric());
      assertEquals(r.trials().get(i).l2(), back.trials().get(i).l2());
    }
    assertEquals(r.lengthScale(), back.lengthScale(), 1e-12 * r.lengthScale());
    assertEquals(r.edge(), back.edge());
  }

  /**
   * Below the final m, each fine trial also scores its leading half of the features, and the
   * choice is the vertex of the metrics extrapolated to m (a + b / m through the two).
   */
  @Test
  void fineTrialsBelowTheFinalMExtrapolateToIt() {
    RowTable[] parts = FittedModel.validationSplit(table(3000, 1), 1);
    List<String> lines = new ArrayList<>();
    BandwidthSearch.Result r = search(2048, parts, lines);
    List<BandwidthSearch.Trial> fine =
        r.trials().stream().filter(t -> t.stage().equals("fine")).toList();
    assertEquals(2 * BandwidthSearch.FINE_STEPS.length, fine.size());
    double[] x = new double[BandwidthSearch.FINE_STEPS.length];
    double[] extrapolated = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      BandwidthSearch.Trial full = fine.get(2 * i);
      BandwidthSearch.Trial half = fine.get(2 * i + 1);
      assertEquals(512, full.features());
      assertEquals(256, half.features());
      assertEquals(full.lengthScale(), half.lengthScale());
      x[i] = Math.log(full.factor()) / Math.log(2);
      extrapolated[i] = BandwidthSearch.extrapolate(full.metric(), half.metric(), 512, 2048);
    }
    assertEquals(BandwidthSearch.vertex(x, extrapolated,
            BandwidthSearch.argmin(x, extrapolated, Double.NaN)),
        Math.log(r.factor()) / Math.log(2), 1e-9, "the extrapolated metrics' vertex is the choice");
    assertTrue(lines.stream().anyMatch(l -> l.contains("m = 256: validation MSE")
        && l.contains("at m = 2048")), String.join("\n", lines));
  }

  /** a + b / m through (k / 2, k): m = 4k takes the metric 3/4 of the step below k's. */
  @Test
  void extrapolationToTheFinalFeatures() {
    assertEquals(0.0085, BandwidthSearch.extrapolate(0.010, 0.012, 1024, 4096), 1e-15);
    assertEquals(0.010, BandwidthSearch.extrapolate(0.010, 0.012, 4096, 4096), 1e-15);
    // A metric that rose with features (more features fit noise) extrapolates upwards.
    assertEquals(0.0115, BandwidthSearch.extrapolate(0.010, 0.008, 1024, 4096), 1e-15);
    assertTrue(Double.isNaN(BandwidthSearch.extrapolate(0.01, 0.05, 1024, 4096)), "not > 0");
    assertTrue(Double.isNaN(BandwidthSearch.extrapolate(Double.NaN, 0.05, 1024, 4096)));
  }

  /**
   * The searched model against a grid of nine σ (the median distance x 2^k, k = -4..4) at the same
   * m and b, all scored on heldout rows the search never saw. On this small problem (321
   * validation rows, m = 512 at 4 bits) one model's heldout MSE moves by a third between
   * neighbouring σ (0.0102 at 2^-2, 0.0145 at 2^-2.28, 0.0185 at 2^-3), so the grid's best is an
   * optimistic minimum of noisy values: the bound is 1.5x it. What the test refuses is a search
   * that does not search: σ = the median (the unsupervised default) scores 0.455 here, 45x the
   * grid's best, and the wrong octave (2^-1) 0.19.
   */
  @Test
  void searchedSigmaScoresLikeTheBestOfAGrid() {
    RowTable train = table(3000, 1);
    RowTable heldout = table(1000, 2);
    FeaturizerSpec spec = spec(512);
    TrainingRequest request = TrainingRequest.regression(512);
    FittedModel searched = FittedModel.fit(spec, train, null, request, Bandwidth.SEARCH, null);
    double median = Double.parseDouble(searched.training().get("sigma_median_distance"));
    double best = Double.POSITIVE_INFINITY;
    double atMedian = Double.NaN;
    for (int k = -4; k <= 4; k++) {
      FittedModel m = FittedModel.fit(spec.withLengthScale(median * Math.pow(2, k)), train, null,
          request, Bandwidth.GIVEN, null);
      double mse = heldoutMse(m, heldout);
      best = Math.min(best, mse);
      if (k == 0) {
        atMedian = mse;
      }
    }
    double mse = heldoutMse(searched, heldout);
    assertTrue(mse <= 1.5 * best, "searched " + mse + ", best of the grid " + best);
    assertTrue(mse < 0.1 * atMedian, "searched " + mse + ", sigma = median " + atMedian);
    assertEquals("search", searched.training().get("sigma_rule"));
  }

  /**
   * The vertex: exact on a parabola (in the log of the metric), the argmin when the points open
   * downwards or are too few, clamped to the points' range.
   */
  @Test
  void vertexOfTheLogMetricsParabola() {
    double[] x = {-3, -2.5, -2, -1.5, -1};
    double[] metric = new double[5];
    for (int i = 0; i < 5; i++) {
      metric[i] = Math.exp(0.7 * (x[i] + 2.2) * (x[i] + 2.2) - 4);
    }
    assertEquals(-2.2, BandwidthSearch.vertex(x, metric, 99), 1e-9);
    double[] down = new double[5];
    for (int i = 0; i < 5; i++) {
      down[i] = Math.exp(-(x[i] + 2) * (x[i] + 2));
    }
    assertEquals(99, BandwidthSearch.vertex(x, down, 99), "opens downwards: the fallback");
    double[] edge = new double[5];
    for (int i = 0; i < 5; i++) {
      edge[i] = Math.exp((x[i] + 5) * (x[i] + 5)); // vertex at -5, outside the points
    }
    assertEquals(-3, BandwidthSearch.vertex(x, edge, 99), 1e-12, "clamped to the points");
    double[] diverged = {Double.NaN, Double.NaN, Double.NaN, 0.1, 0.2};
    assertEquals(99, BandwidthSearch.vertex(x, diverged, 99), "2 finite points: the fallback");
  }

  @Test
  void medianIsTheHeuristicOfTheStandardizedRows() {
    RowTable train = table(800, 4);
    TrainingRequest request = TrainingRequest.regression(256);
    FittedModel m = FittedModel.fit(spec(256), train, null, request, Bandwidth.MEDIAN, null);
    float[] z = train.x().clone();
    train.standardization().apply(new org.lprff.arrow.input.RowBatch(z, 800, D, null, 0));
    double expected = MedianHeuristic.distance(z, 800, D, request.seed());
    assertEquals(expected, m.spec().kernel().lengthScale());
    assertEquals("median", m.training().get("sigma_rule"));
    assertEquals(Double.toString(expected), m.training().get("sigma_median_distance"));
  }

  @Test
  void aValidationSetChoosesInsteadOfTheSplit() {
    RowTable train = table(1500, 5);
    RowTable validation = table(300, 6);
    List<String> lines = new ArrayList<>();
    FittedModel m = FittedModel.fit(spec(256), train, validation,
        TrainingRequest.regression(256), Bandwidth.SEARCH, lines::add);
    assertEquals("1500+300", m.training().get("sigma_search_rows"));
    assertTrue(lines.get(0).contains("on 1500 of 1500 training rows scored on 300 validation"
        + " rows, fine at m = 256 on 1500 scored on 300"), lines.get(0));
  }

  @Test
  void badInputIsNamed() {
    Consumer<String> quiet = null;
    TrainingRequest request = TrainingRequest.regression(256);
    float[] same = new float[200 * D];
    java.util.Arrays.fill(same, 3f);
    RowTable equal = new RowTable(same, new float[200], 200, D, List.of("a", "b"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FittedModel.fit(spec(256), equal, null, request, Bandwidth.SEARCH, quiet));
    assertTrue(e.getMessage().contains("all equal (median distance 0.0"), e.getMessage());

    RowTable few = table(6, 7);
    e = assertThrows(IllegalArgumentException.class,
        () -> FittedModel.fit(spec(256), few, null, request, Bandwidth.SEARCH, quiet));
    assertTrue(e.getMessage().contains("validation split of 6 training rows left"),
        e.getMessage());

    RowTable oneClass = new RowTable(table(100, 8).x(), new float[100], 100, D,
        List.of("a", "b"));
    e = assertThrows(IllegalArgumentException.class, () -> FittedModel.fit(spec(256), oneClass,
        null, TrainingRequest.classification(256), Bandwidth.SEARCH, quiet));
    assertTrue(e.getMessage().contains("every training label is class 0 (100 rows)"),
        e.getMessage());
  }
}
