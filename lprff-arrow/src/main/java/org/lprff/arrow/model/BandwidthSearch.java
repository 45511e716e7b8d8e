package org.lprff.arrow.model;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.lprff.arrow.input.RowTable;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.RowSplit;
import org.lprff.vector.train.Solver;
import org.lprff.vector.train.Trainer;
import org.lprff.vector.train.TrainingRequest;

/**
 * Chooses the kernel's length scale (σ) on validation rows, coarse to fine, cheaply: the cost is
 * kept below the final fit's by training on few features and a subsample of the rows.
 *
 * <ol>
 *   <li>The median heuristic d_med over the training rows ({@link org.lprff.vector.kernel.MedianHeuristic}).
 *   <li>Coarse: σ = d_med 2^k, k = -4..4, each trained at {@link #coarseFeatures} m_1 = m / 8
 *       (clamped to [256, 1024], at most m) on at most {@value #COARSE_ROWS} training rows and
 *       scored on at most {@value #COARSE_VALIDATION_ROWS} validation rows (seeded subsamples).
 *       When the best k is at an end of the range, the range grows by an octave that way, at
 *       most {@value #EXTRA_OCTAVES} times.
 *   <li>Fine: k* - 1, k* - 1/2, ..., k* + 1 at m_2 = 2 m_1 (at most m) on at most {@value
 *       #SEARCH_ROWS} training and {@value #SEARCH_VALIDATION_ROWS} validation rows. Below the
 *       final m, each fine trial also scores the model of its first m_2 / 2 features (the same
 *       Gram's leading block: no other pass) and its metric is extrapolated to m ({@link
 *       #extrapolate}): the best σ shrinks as features grow, so trials at m / 4 alone chose
 *       σ too large (diamonds, m = 4096: 0.64 x the median where the heldout optimum is near
 *       0.5 x). The choice is the vertex of the least-squares parabola through the five (log)
 *       metrics ({@link #vertex}), within [k* - 1, k* + 1]: it moves less with the validation
 *       rows' noise than the best of the five.
 * </ol>
 *
 * <p>Every trial uses the caller's spec (kernel, bits, projection, quantizer, seed) at its m and
 * σ, and the closed form (least squares on the classes' indicators for classification: a
 * fraction of L-BFGS's time, and on digits the same choice), l2 chosen along the library's
 * automatic path on the trial's validation rows. The validation metric is the task's (MSE, error
 * rate); a diverged trial counts as no result. {@link Result#edge} says when the choice sits at the
 * end of everything tried: the true optimum may lie beyond.
 */
public final class BandwidthSearch {

  /** Octaves either side of the median in the coarse grid. */
  public static final int OCTAVES = 4;

  /** Octaves the coarse grid may grow by on the side its best sits at. */
  public static final int EXTRA_OCTAVES = 2;

  /** Training rows a coarse trial reads at most: it only has to find the octave. */
  public static final int COARSE_ROWS = 8192;

  /** Validation rows a coarse trial is scored on at most. */
  public static final int COARSE_VALIDATION_ROWS = 4096;

  /**
   * Training rows a fine trial reads at most. The best σ shrinks as rows (and features) grow: on
   * diamonds at m = 1024 the validation optimum sat at 0.94 x the median distance on 8,192 rows
   * and 0.64 x on all 38,802, where the heldout optimum at m = 4096 is near 0.5 x.
   */
  public static final int SEARCH_ROWS = 65536;

  /** Validation rows a fine trial is scored on at most. */
  public static final int SEARCH_VALIDATION_ROWS = 16384;

  /** The generator stream of the subsamples (distinct from the split's). */
  static final long SUBSAMPLE_STREAM = 0x7375627361L;

  /** Where the choice sits among the σ tried. */
  public enum Edge {
    /** Inside: a smaller and a larger σ were both worse. */
    NONE,
    /** The smallest σ tried: a smaller one might be better still. */
    LOW,
    /** The largest σ tried. */
    HIGH
  }

  /**
   * One σ tried.
   *
   * @param stage "coarse" or "fine"
   * @param factor σ / d_med
   * @param lengthScale σ
   * @param features m of the trial
   * @param l2 the l2 its validation rows chose
   * @param metric its validation metric (MSE or error rate); NaN if training diverged
   * @param seconds featurizing and training time
   */
  public record Trial(String stage, double factor, double lengthScale, int features, double l2,
      double metric, double seconds) {}

  /**
   * What the search found.
   *
   * @param medianDistance d_med of the training rows
   * @param lengthScale the chosen σ
   * @param factor the chosen σ / d_med
   * @param trials every σ tried, in order
   * @param edge where the choice sits among them
   * @param fitRows training rows each fine trial read
   * @param validationRows validation rows each fine trial was scored on
   * @param seconds the whole search's time
   */
  public record Result(double medianDistance, double lengthScale, double factor,
      List<Trial> trials, Edge edge, int fitRows, int validationRows, double seconds) {

    public Result {
      trials = List.copyOf(trials);
    }

    /**
     * The search as a model file's training strings ({@code lprff.train.} + key): {@code
     * sigma_search} lists every trial as {@code stage:m:sigma:l2=metric}, separated by ';'.
     */
    public Map<String, String> toMap() {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("sigma_rule", "search");
      m.put("sigma_median_distance", Double.toString(medianDistance));
      m.put("sigma_factor", Double.toString(factor));
      m.put("sigma_edge", edge.name().toLowerCase(Locale.ROOT));
      StringBuilder s = new StringBuilder();
      for (Trial t : trials) {
        s.append(s.isEmpty() ? "" : ";").append(t.stage()).append(':').append(t.features())
            .append(':').append(t.lengthScale()).append(':').append(t.l2()).append('=')
            .append(t.metric());
      }
      m.put("sigma_search", s.toString());
      m.put("sigma_search_rows", fitRows + "+" + validationRows);
      m.put("sigma_search_seconds", Double.toString(seconds));
      return m;
    }

    /**
     * The search a model's training strings record ({@link #toMap}; the trials' times are not
     * kept), or null if σ was not searched.
     *
     * @throws IllegalArgumentException if the strings are malformed (naming the value)
     */
    public static Result fromMap(Map<String, String> training) {
      String search = training.get("sigma_search");
      if (search == null) {
        return null;
      }
      try {
        double median = Double.parseDouble(training.get("sigma_median_distance"));
        List<Trial> trials = new ArrayList<>();
        for (String trial : search.split(";")) {
          String[] p = trial.split("[:=]");
          if (p.length != 5) {
            throw new IllegalArgumentException("trial '" + trial + "' is not stage:m:sigma:l2=metric");
          }
          double sigma = Double.parseDouble(p[2]);
          trials.add(new Trial(p[0], sigma / median, sigma, Integer.parseInt(p[1]),
              Double.parseDouble(p[3]), Double.parseDouble(p[4]), Double.NaN));
        }
        String[] rows = training.get("sigma_search_rows").split("\\+");
        double factor = Double.parseDouble(training.get("sigma_factor"));
        return new Result(median, median * factor, factor, trials,
            Edge.valueOf(training.get("sigma_edge").toUpperCase(Locale.ROOT)),
            Integer.parseInt(rows[0]), Integer.parseInt(rows[1]),
            Double.parseDouble(training.get("sigma_search_seconds")));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("the model's sigma_search strings are malformed ("
            + e.getMessage() + "): " + search, e);
      }
    }
  }

  private BandwidthSearch() {}

  /** m_1: m / 8 clamped to [256, 1024], at most m. */
  public static int coarseFeatures(int m) {
    return Math.min(m, Math.max(256, Math.min(1024, m / 8)));
  }

  /**
   * Searches σ for {@code spec} (its length scale ignored) on standardized rows.
   *
   * @param fit the training rows the trials train on (a subsample of them)
   * @param validation the rows the trials are scored on
   * @param request the final fit's request: its task, classes, seed and executor
   * @param progress a line per trial, or null
   * @throws IllegalArgumentException if the training rows are all equal (no σ tells them apart),
   *     or either set is too small
   * @throws IllegalStateException if every trial diverged
   */
  public static Result run(FeaturizerSpec spec, RowTable fit, RowTable validation,
      TrainingRequest request, Consumer<String> progress) {
    long started = System.nanoTime();
    Consumer<String> say = progress == null ? line -> {} : progress;
    if (fit.n() < 2 || validation.n() < 1) {
      throw new IllegalArgumentException("the bandwidth search needs at least 2 training rows"
          + " and 1 validation row; got " + fit.n() + " and " + validation.n()
          + ": give more rows, or a --sigma");
    }
    double median = Bandwidth.median(fit, request.seed());
    Integer classes = request.classification() ? classes(request, fit, validation) : null;
    RowTable searchFit = subsample(fit, SEARCH_ROWS, request.seed());
    RowTable searchValidation = subsample(validation, SEARCH_VALIDATION_ROWS, request.seed() + 1);
    RowTable coarseFit = subsample(searchFit, COARSE_ROWS, request.seed() + 2);
    RowTable coarseValidation =
        subsample(searchValidation, COARSE_VALIDATION_ROWS, request.seed() + 3);
    int m1 = coarseFeatures(spec.features());
    int m2 = Math.min(spec.features(), 2 * m1);
    say.accept(String.format(Locale.ROOT, "choosing sigma: median distance %.4g; coarse trials"
        + " at m = %d on %d of %d training rows scored on %d validation rows, fine at m = %d on"
        + " %d scored on %d", median, m1, coarseFit.n(), fit.n(), coarseValidation.n(), m2,
        searchFit.n(), searchValidation.n()));
    List<Trial> all = new ArrayList<>();
    Trials coarse =
        new Trials(spec, coarseFit, coarseValidation, request, classes, median, say, all);
    Trials fine = new Trials(spec, searchFit, searchValidation, request, classes, median, say, all);
    int low = -OCTAVES;
    int high = OCTAVES;
    for (int k = low; k <= high; k++) {
      coarse.run("coarse", k, m1, false);
    }
    int best = (int) Math.round(coarse.best().exponent);
    for (int extra = 0; extra < EXTRA_OCTAVES && (best == low || best == high); extra++) {
      int k = best == low ? --low : ++high;
      coarse.run("coarse", k, m1, false);
      best = (int) Math.round(coarse.best().exponent);
    }
    // Each fine trial also scores its first m_2 / 2 features (free: the same Gram), and its
    // metric is extrapolated to the final m, as the best sigma shrinks while features grow.
    int m = spec.features();
    double[] exponents = new double[FINE_STEPS.length];
    double[] metrics = new double[FINE_STEPS.length];
    for (int i = 0; i < exponents.length; i++) {
      exponents[i] = best + FINE_STEPS[i];
      List<Trial> t = fine.run("fine", exponents[i], m2, m2 < m);
      metrics[i] = t.size() == 1 ? t.get(0).metric()
          : extrapolate(t.get(0).metric(), t.get(1).metric(), m2, m);
    }
    double exponent = vertex(exponents, metrics, argmin(exponents, metrics, fine.best().exponent));
    Edge edge = exponent <= low ? Edge.LOW : exponent >= high ? Edge.HIGH : Edge.NONE;
    double factor = Math.pow(2, exponent);
    say.accept(String.format(Locale.ROOT, "chosen: sigma %.4g (2^%.2f x median)%s",
        median * factor, exponent, switch (edge) {
          case NONE -> "";
          case LOW -> "; the smallest sigma tried: a smaller one may be better (give --sigma)";
          case HIGH -> "; the largest sigma tried: a larger one may be better (give --sigma)";
        }));
    return new Result(median, median * factor, factor, all, edge, searchFit.n(),
        searchValidation.n(), (System.nanoTime() - started) / 1e9);
  }

  /**
   * The validation metric at m features from those at k and k / 2 (the leading half of the same
   * features), taking it to fall as a + b / m: the random-features approximation's share of the
   * risk shrinks as 1 / m (Rahimi and Recht; Rudi and Rosasco), and more so for small σ, whose
   * kernels the features approximate worst. NaN when either is not finite or the extrapolation is
   * not positive.
   */
  static double extrapolate(double atK, double atHalf, int k, int m) {
    double x = atK - (atHalf - atK) * (1 - (double) k / m);
    return Double.isFinite(atK) && Double.isFinite(atHalf) && x > 0 ? x : Double.NaN;
  }

  /** The x of the lowest finite metric, else {@code fallback}. */
  static double argmin(double[] x, double[] metric, double fallback) {
    double best = fallback;
    double lowest = Double.POSITIVE_INFINITY;
    for (int i = 0; i < x.length; i++) {
      if (metric[i] < lowest) {
        lowest = metric[i];
        best = x[i];
      }
    }
    return best;
  }

  /** The fine stage's exponents around the coarse best, in octaves. */
  static final double[] FINE_STEPS = {-1, -0.5, 0, 0.5, 1};

  /**
   * The exponent at the vertex of the least-squares parabola through (x_i, ln metric_i), clamped
   * to [min x, max x]: the validation metric of one σ is noisy (a few hundred rows, random
   * features), its logarithm near the optimum is close to a parabola in log σ, and the vertex of
   * five points moves less with the noise than their argmin. {@code fallback} (the argmin) when
   * fewer than 3 metrics are finite or the parabola opens downwards.
   */
  static double vertex(double[] x, double[] metric, double fallback) {
    // Normal equations of y = a x^2 + b x + c over the finite points.
    double[][] a = new double[3][4];
    int used = 0;
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < x.length; i++) {
      if (!(metric[i] > 0) || Double.isInfinite(metric[i])) {
        continue;
      }
      double[] row = {x[i] * x[i], x[i], 1};
      double y = Math.log(metric[i]);
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          a[r][c] += row[r] * row[c];
        }
        a[r][3] += row[r] * y;
      }
      used++;
      lo = Math.min(lo, x[i]);
      hi = Math.max(hi, x[i]);
    }
    if (used < 3) {
      return fallback;
    }
    for (int p = 0; p < 3; p++) { // Gauss-Jordan; the 3 x 3 system is well conditioned here
      int pivot = p;
      for (int r = p + 1; r < 3; r++) {
        if (Math.abs(a[r][p]) > Math.abs(a[pivot][p])) {
          pivot = r;
        }
      }
      double[] t = a[p];
      a[p] = a[pivot];
      a[pivot] = t;
      if (a[p][p] == 0) {
        return fallback;
      }
      for (int r = 0; r < 3; r++) {
        if (r != p) {
          double f = a[r][p] / a[p][p];
          for (int c = p; c < 4; c++) {
            a[r][c] -= f * a[p][c];
          }
        }
      }
    }
    double quadratic = a[0][3] / a[0][0];
    double linear = a[1][3] / a[1][1];
    if (!(quadratic > 0)) {
      return fallback;
    }
    return Math.max(lo, Math.min(hi, -linear / (2 * quadratic)));
  }

  /** "2^-1.5", "1". */
  static String factorText(double exponent) {
    if (exponent == 0) {
      return "1";
    }
    return exponent == Math.rint(exponent) ? "2^" + (int) exponent : "2^" + exponent;
  }

  /**
   * The classes of the final fit: the request's, else 1 + the largest label of either set (a
   * subsample may miss a rare class that the validation rows hold).
   */
  private static int classes(TrainingRequest request, RowTable fit, RowTable validation) {
    if (request.classes() != null) {
      return request.classes();
    }
    int max = 1;
    for (RowTable t : new RowTable[] {fit, validation}) {
      for (int c : t.classes()) {
        max = Math.max(max, c);
      }
    }
    return max + 1;
  }

  /** At most {@code cap} rows of {@code rows}, kept in order: row i iff its hash falls low. */
  static RowTable subsample(RowTable rows, int cap, long seed) {
    if (rows.n() <= cap) {
      return rows;
    }
    int n = rows.n();
    long key = RowSplit.mix64(seed ^ SUBSAMPLE_STREAM);
    int[][] parts = RowTable.partition(n,
        i -> Long.remainderUnsigned(RowSplit.mix64(key + i), n) >= cap);
    return rows.select(parts[0]);
  }

  private record Scored(double exponent, Trial trial) {}

  /** One stage's rows and trials, and how to run one (each also added to the search's list). */
  private static final class Trials {
    final FeaturizerSpec spec;
    final RowTable fit;
    final RowTable validation;
    final TrainingRequest request;
    final Integer classes;
    final double median;
    final Consumer<String> say;
    final List<Trial> all;
    final List<Scored> scored = new ArrayList<>();

    Trials(FeaturizerSpec spec, RowTable fit, RowTable validation, TrainingRequest request,
        Integer classes, double median, Consumer<String> say, List<Trial> all) {
      this.spec = spec;
      this.fit = fit;
      this.validation = validation;
      this.request = request;
      this.classes = classes;
      this.median = median;
      this.say = say;
      this.all = all;
    }

    /**
     * Trains at σ = median 2^exponent on m features and scores the model on the validation rows,
     * and with {@code half} the model of their leading half too (from the same Gram): a trial
     * each, in that order.
     */
    List<Trial> run(String stage, double exponent, int m, boolean half) {
      long started = System.nanoTime();
      double sigma = median * Math.pow(2, exponent);
      FeaturizerSpec at = spec.withFeatures(m).withLengthScale(sigma);
      int model = at.modelFeatures();
      TrainingRequest r = (classes != null
          ? TrainingRequest.classification(model).withClasses(classes)
          : TrainingRequest.regression(model))
          .withSolver(Solver.CLOSED_FORM).withSeed(request.seed())
          .withExecutor(request.executor());
      Featurizer featurizer = Featurizer.of(at);
      List<Trainer.Leading> results;
      try (Arena arena = Arena.ofShared()) {
        InMemoryBatches train = FittedModel.batches(at, featurizer, fit, r, arena);
        InMemoryBatches scored = FittedModel.batches(at, featurizer, validation, r, arena);
        results = Trainer.closedFormLeading(r, new Trainer.Data("train", "", train.ordered()),
            new Trainer.Data("validation", "", scored.ordered()),
            half ? new int[] {model, model / 2} : new int[] {model});
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      List<Trial> trials = new ArrayList<>();
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %s: sigma %.4g (%s x"
          + " median)", stage, sigma, factorText(exponent)));
      for (Trainer.Leading result : results) {
        double metric = result.validation().metric();
        int features = trials.isEmpty() ? m : m / 2;
        Trial t = new Trial(stage, Math.pow(2, exponent), sigma, features, result.l2(), metric,
            trials.isEmpty() ? seconds : 0);
        trials.add(t);
        all.add(t);
        line.append(String.format(Locale.ROOT, "%s m = %d: validation %s %.5g (l2 %s)",
            trials.size() == 1 ? "," : ";", features, classes == null ? "MSE" : "error", metric,
            result.l2()));
      }
      if (trials.size() == 2) {
        line.append(String.format(Locale.ROOT, "; at m = %d, %.5g", spec.features(),
            extrapolate(trials.get(0).metric(), trials.get(1).metric(), trials.get(0).features(),
                spec.features())));
      }
      scored.add(new Scored(exponent, trials.get(0)));
      say.accept(line.append(String.format(Locale.ROOT, ", %.1f s", seconds)).toString());
      return trials;
    }

    /** The trial of this stage with the lowest metric (the earliest on a tie). */
    Scored best() {
      Scored best = null;
      for (Scored s : scored) {
        if (!Double.isNaN(s.trial.metric())
            && (best == null || s.trial.metric() < best.trial.metric())) {
          best = s;
        }
      }
      if (best == null) {
        throw new IllegalStateException("every sigma tried diverged in training (" + all.size()
            + " trials from " + all.get(0).lengthScale() + " to "
            + all.get(all.size() - 1).lengthScale() + "); check the labels, or give --sigma");
      }
      return best;
    }
  }
}
