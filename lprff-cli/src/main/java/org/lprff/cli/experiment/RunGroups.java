package org.lprff.cli.experiment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * What the plots and the summary both derive from the runs: configurations (every seed of one
 * setting), families, the Figure 5 quantities and their Spearman ρ. One place, so a figure and the
 * summary's table cannot disagree about which runs count.
 */
final class RunGroups {

  private RunGroups() {}

  /**
   * The four families the paper compares (LP-RFF stochastic and nearest, full-precision RFF,
   * Nyström), one per other quantizer family of the library (every Sigma-Delta order and block in
   * one: {@link Configuration#describe()} tells them apart); OTHER holds any quantizer it does not
   * name.
   */
  enum Family {
    LP_STOCHASTIC("LP-RFF stochastic", "LP-RFF"),
    LP_NEAREST("LP-RFF nearest", "LP-RFF nearest"),
    LP_SHARED_THRESHOLD("LP-RFF shared-threshold", "LP-RFF shared-threshold"),
    LP_LLOYD_MAX("LP-RFF lloyd-max", "LP-RFF lloyd-max"),
    LP_SIGMA_DELTA("LP-RFF sigma-delta", "LP-RFF sigma-delta"),
    RFF("full-precision RFF", "FP RFF"),
    NYSTROM("Nyström", "Nyström"),
    OTHER("other", "other");

    /** The families every summary and legend shows, run or not (the paper's). */
    static final List<Family> PAPER = List.of(LP_STOCHASTIC, LP_NEAREST, RFF, NYSTROM);

    final String label;
    /** The name in a memory ratio, e.g. "FP RFF / LP-RFF = 4.0x". */
    final String shortName;

    Family(String label, String shortName) {
      this.label = label;
      this.shortName = shortName;
    }

    static Family of(RunRecord r) {
      return switch (r.method()) {
        case RunRecord.RFF -> RFF;
        case RunRecord.NYSTROM -> NYSTROM;
        case RunRecord.LP_RFF -> switch (quantizerFamily(r)) {
          case "stochastic" -> LP_STOCHASTIC;
          case "nearest" -> LP_NEAREST;
          case "shared-threshold" -> LP_SHARED_THRESHOLD;
          case "lloyd-max" -> LP_LLOYD_MAX;
          case "sigma-delta" -> LP_SIGMA_DELTA;
          default -> OTHER;
        };
        default -> OTHER;
      };
    }
  }

  /** The family part of a run's quantizer spelling: "sigma-delta" of "sigma-delta:1:4". */
  static String quantizerFamily(RunRecord r) {
    int colon = r.quantizer().indexOf(':');
    return colon < 0 ? r.quantizer() : r.quantizer().substring(0, colon);
  }

  /** The x quantities of Figure 5, in the paper's order. */
  enum Approximation {
    INVERSE_ONE_MINUS_DELTA1("1/(1-Δ1)", RunRecord::inverseOneMinusDelta1),
    DELTA2("Δ2", RunRecord::delta2),
    DELTA_MAX("max(1/(1-Δ1), Δ2)", RunRecord::deltaMax),
    FROBENIUS("‖K - K~‖_F", RunRecord::frobeniusError),
    SPECTRAL("‖K - K~‖_2", RunRecord::spectralError);

    final String label;
    final ToDoubleFunction<RunRecord> x;

    Approximation(String label, ToDoubleFunction<RunRecord> x) {
      this.label = label;
      this.x = x;
    }

    /** The runs this quantity can place on a log axis: finite metric, finite positive x. */
    List<RunRecord> usable(List<RunRecord> runs) {
      List<RunRecord> used = new ArrayList<>();
      for (RunRecord r : runs) {
        double v = x.applyAsDouble(r);
        if (Double.isFinite(r.heldoutMetric()) && Double.isFinite(v) && v > 0) {
          used.add(r);
        }
      }
      return used;
    }

    /** Spearman ρ between this quantity and the heldout metric over {@link #usable} runs. */
    double rho(List<RunRecord> runs) {
      List<RunRecord> used = usable(runs);
      double[] xs = new double[used.size()];
      double[] ys = new double[used.size()];
      for (int i = 0; i < xs.length; i++) {
        xs[i] = x.applyAsDouble(used.get(i));
        ys[i] = used.get(i).heldoutMetric();
      }
      return Spearman.rho(xs, ys);
    }
  }

  /** Mean and sample standard deviation of the finite values; sd NaN below 2 values. */
  record Moments(double mean, double sd, int n) {
    static Moments of(List<RunRecord> runs, ToDoubleFunction<RunRecord> value) {
      double sum = 0;
      int n = 0;
      for (RunRecord r : runs) {
        double v = value.applyAsDouble(r);
        if (Double.isFinite(v)) {
          sum += v;
          n++;
        }
      }
      double mean = n == 0 ? Double.NaN : sum / n;
      double squares = 0;
      for (RunRecord r : runs) {
        double v = value.applyAsDouble(r);
        if (Double.isFinite(v)) {
          squares += (v - mean) * (v - mean);
        }
      }
      return new Moments(mean, n < 2 ? Double.NaN : Math.sqrt(squares / (n - 1)), n);
    }

    /** The sd, or 0 where it is undefined (one seed): an error bar of no height. */
    double sdOrZero() {
      return Double.isNaN(sd) ? 0 : sd;
    }
  }

  /** Every seed of one method, projection, quantizer, m and bits. */
  record Configuration(List<RunRecord> runs) {
    Configuration {
      assert !runs.isEmpty();
    }

    RunRecord first() {
      return runs.getFirst();
    }

    Family family() {
      return Family.of(first());
    }

    int m() {
      return first().m();
    }

    /** The same for every seed (Table 1 depends on m, b, d and the batch, not the seed). */
    long memoryBits() {
      return first().memoryBits();
    }

    Moments metric() {
      return Moments.of(runs, RunRecord::heldoutMetric);
    }

    /**
     * E.g. "circulant, m = 1024, b = 4", "dense, m = 512, fp32", "m = 2048" (Nyström); with the
     * quantizer's parameters where its family does not say them all: "circulant, m = 1024, b = 4,
     * sigma-delta:1:4".
     */
    String describe() {
      RunRecord r = first();
      StringBuilder s = new StringBuilder();
      if (!r.projection().isEmpty()) {
        s.append(r.projection()).append(", ");
      }
      s.append("m = ").append(r.m());
      if (!r.method().equals(RunRecord.NYSTROM)) {
        s.append(r.bits() == 32 ? ", fp32" : ", b = " + r.bits());
      }
      if (r.method().equals(RunRecord.LP_RFF) && !r.quantizer().equals(quantizerFamily(r))) {
        s.append(", ").append(r.quantizer());
      }
      return s.toString();
    }
  }

  /** The order of series in legends and tables: LP-RFF, RFF, Nyström; then projection, etc. */
  static final Comparator<RunRecord> SERIES_ORDER = Comparator
      .comparingInt((RunRecord r) -> switch (r.method()) {
        case RunRecord.LP_RFF -> 0;
        case RunRecord.RFF -> 1;
        case RunRecord.NYSTROM -> 2;
        default -> 3;
      })
      .thenComparing(RunRecord::projection)
      .thenComparing(Family::of) // stochastic, nearest, then the other quantizers' families
      .thenComparing(RunRecord::quantizer, RunGroups::compareSpellings)
      .thenComparingInt(RunRecord::bits);

  /**
   * Quantizer spellings in order of their parameters, as numbers: sigma-delta:1:4 before
   * sigma-delta:1:16.
   */
  static int compareSpellings(String a, String b) {
    String[] x = a.split(":");
    String[] y = b.split(":");
    int c = x[0].compareTo(y[0]);
    for (int i = 1; c == 0 && i < Math.min(x.length, y.length); i++) {
      c = x[i].matches("\\d{1,9}") && y[i].matches("\\d{1,9}")
          ? Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i])) : x[i].compareTo(y[i]);
    }
    return c != 0 ? c : Integer.compare(x.length, y.length);
  }

  /** The runs grouped by series ({@link RunRecord#series()}), in {@link #SERIES_ORDER}. */
  static Map<String, List<RunRecord>> bySeries(List<RunRecord> runs) {
    List<RunRecord> sorted = new ArrayList<>(runs);
    sorted.sort(SERIES_ORDER.thenComparingInt(RunRecord::m).thenComparingLong(RunRecord::seed));
    Map<String, List<RunRecord>> series = new LinkedHashMap<>();
    for (RunRecord r : sorted) {
      series.computeIfAbsent(r.series(), k -> new ArrayList<>()).add(r);
    }
    return series;
  }

  /** The configurations of some runs, by series then m. */
  static List<Configuration> configurations(List<RunRecord> runs) {
    List<Configuration> all = new ArrayList<>();
    for (List<RunRecord> series : bySeries(runs).values()) {
      Map<Integer, List<RunRecord>> byM = new LinkedHashMap<>();
      for (RunRecord r : series) {
        byM.computeIfAbsent(r.m(), k -> new ArrayList<>()).add(r);
      }
      byM.values().forEach(c -> all.add(new Configuration(List.copyOf(c))));
    }
    return all;
  }

  /** "heldout MSE", "heldout error rate"; the runs must share one metric. */
  static String metricLabel(List<RunRecord> runs) {
    TreeSet<String> names = new TreeSet<>();
    runs.forEach(r -> names.add(r.metricName()));
    if (names.size() > 1) {
      throw new IllegalArgumentException("the runs mix metrics " + names);
    }
    if (names.isEmpty()) {
      return "heldout metric";
    }
    return switch (names.first()) {
      case RunRecord.MSE -> "heldout MSE";
      case RunRecord.ERROR_RATE -> "heldout error rate";
      default -> "heldout " + names.first();
    };
  }

  /** The number of distinct seeds. */
  static int seeds(List<RunRecord> runs) {
    return (int) runs.stream().mapToLong(RunRecord::seed).distinct().count();
  }
}
