package org.lprff.cli.experiment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.lprff.cli.experiment.RunGroups.Approximation;
import org.lprff.cli.experiment.RunGroups.Configuration;
import org.lprff.cli.experiment.RunGroups.Family;
import org.lprff.cli.experiment.RunGroups.Moments;

/**
 * The text of an experiment's {@code summary.md}: the paper's Table 2 (the memory each family
 * needs to come within a tolerance of the best full-precision result), the Spearman ρ of Figure 5,
 * and the mean metric per series and m. Every number follows from the runs alone; means and
 * standard deviations are over the seeds whose metric is finite (training did not diverge).
 */
public final class ExperimentSummary {

  /** Regression: within this relative distance of the best full-precision MSE. */
  static final double MSE_RELATIVE_TOLERANCE = 0.02;
  /** Classification: within this absolute distance (0.5 percentage points) of the best. */
  static final double ERROR_RATE_ABSOLUTE_TOLERANCE = 0.005;

  /** The paper's ranges for FP RFF / LP-RFF and Nyström / LP-RFF memory. */
  static final double[] PAPER_RFF_RANGE = {3, 10};
  static final double[] PAPER_NYSTROM_RANGE = {50, 460};

  /**
   * Table 2's families in their order: LP-RFF's quantizers, full-precision RFF, Nyström. The
   * paper's four have a row whether they ran or not; the others only when they ran.
   */
  private static final List<Family> TABLE2_FAMILIES = List.of(Family.LP_STOCHASTIC,
      Family.LP_NEAREST, Family.LP_SHARED_THRESHOLD, Family.LP_LLOYD_MAX, Family.LP_SIGMA_DELTA,
      Family.RFF, Family.NYSTROM);

  private ExperimentSummary() {}

  /** summary.md: {@code preamble} verbatim, then Table 2, the Figure 5 ρ's and the means. */
  public static String markdown(List<RunRecord> runs, String dataName, String preamble) {
    String metric = RunGroups.metricLabel(runs);
    StringBuilder md = new StringBuilder(preamble);
    if (!preamble.isEmpty() && !preamble.endsWith("\n")) {
      md.append('\n');
    }
    md.append('\n');
    List<Configuration> configurations = RunGroups.configurations(runs);
    table2(md, configurations, runs, dataName, metric);
    spearman(md, runs, metric);
    means(md, runs, metric);
    return md.toString();
  }

  /** A family's smallest configuration within tolerance, or (within = false) its best one. */
  record Pick(Configuration configuration, boolean within) {}

  /** The best (lowest mean) full-precision RFF configuration, or null without one. */
  static Configuration bestFullPrecision(List<Configuration> configurations) {
    return configurations.stream()
        .filter(c -> c.family() == Family.RFF && c.metric().n() > 0)
        .min(Comparator.comparingDouble(c -> c.metric().mean()))
        .orElse(null);
  }

  /** The largest mean metric that counts as matching {@code best}. */
  static double threshold(String metricName, double best) {
    return metricName.equals(RunRecord.ERROR_RATE)
        ? best + ERROR_RATE_ABSOLUTE_TOLERANCE
        : best * (1 + MSE_RELATIVE_TOLERANCE);
  }

  /** For each family: its smallest-memory configuration within the threshold, else its best. */
  static Map<Family, Pick> picks(List<Configuration> configurations, double threshold) {
    Map<Family, Pick> picks = new EnumMap<>(Family.class);
    for (Family f : TABLE2_FAMILIES) {
      List<Configuration> ran = configurations.stream()
          .filter(c -> c.family() == f && c.metric().n() > 0)
          .toList();
      if (ran.isEmpty()) {
        continue;
      }
      Configuration within = ran.stream()
          .filter(c -> c.metric().mean() <= threshold)
          .min(Comparator.comparingLong(Configuration::memoryBits)
              .thenComparingDouble(c -> c.metric().mean()))
          .orElse(null);
      picks.put(f, within != null ? new Pick(within, true)
          : new Pick(ran.stream().min(Comparator.comparingDouble(c -> c.metric().mean()))
              .orElseThrow(), false));
    }
    return picks;
  }

  private static void table2(StringBuilder md, List<Configuration> configurations,
      List<RunRecord> runs, String dataName, String metric) {
    md.append("## Table 2: memory to match full precision (").append(dataName).append(")\n\n");
    Configuration best = bestFullPrecision(configurations);
    if (best == null) {
      md.append("No full-precision RFF run has a finite ").append(metric)
          .append(", so there is no target to match.\n\n");
      return;
    }
    String metricName = best.first().metricName();
    double threshold = threshold(metricName, best.metric().mean());
    md.append("The best full-precision result is RFF ").append(best.describe()).append(": ")
        .append(metric).append(' ').append(meanSd(best.metric())).append(" over ")
        .append(best.metric().n()).append(" seeds. ");
    if (metricName.equals(RunRecord.ERROR_RATE)) {
      md.append("A configuration is within tolerance when its mean error rate is at most 0.5 "
          + "percentage points above it (mean ≤ best + 0.005 = ").append(num(threshold))
          .append("). ");
    } else {
      md.append("A configuration is within tolerance when its mean ").append(metric)
          .append(" is within 2% of it (mean ≤ best × 1.02 = ").append(num(threshold))
          .append("). ");
    }
    md.append("Below, each family's configuration with the smallest training memory (Table 1 of "
        + "the paper: feature generation + one mini-batch of features + the model) within that "
        + "tolerance; means and sample standard deviations are over the seeds that did not "
        + "diverge.\n\n");

    Map<Family, Pick> picks = picks(configurations, threshold);
    Pick reference = picks.get(Family.LP_STOCHASTIC);
    boolean hasReference = reference != null && reference.within();
    md.append("| family | configuration | memory (bits) | ").append(metric)
        .append(" (mean ± sd) | seeds | memory vs LP-RFF stochastic |\n");
    md.append("|---|---|---:|---|---:|---|\n");
    for (Family f : TABLE2_FAMILIES) {
      Pick p = picks.get(f);
      if (p == null) {
        boolean ran = configurations.stream().anyMatch(c -> c.family() == f);
        if (ran || Family.PAPER.contains(f)) {
          md.append("| ").append(f.label).append(ran ? " | every run diverged | | | | |\n"
              : " | not run | | | | |\n");
        }
        continue;
      }
      Configuration c = p.configuration();
      md.append("| ").append(f.label).append(" | ")
          .append(p.within() ? c.describe()
              : "none within tolerance (best mean: " + c.describe() + ")")
          .append(" | ").append(bits(c.memoryBits())).append(" | ").append(meanSd(c.metric()))
          .append(" | ").append(seeds(c)).append(" | ");
      if (!p.within()) {
        md.append("—");
      } else if (f == Family.LP_STOCHASTIC) {
        md.append("1.0x (reference)");
      } else if (hasReference) {
        md.append(f.shortName).append(" / LP-RFF = ")
            .append(ratio(c.memoryBits(), reference.configuration().memoryBits()));
      } else {
        md.append("—");
      }
      md.append(" |\n");
    }
    md.append('\n');
    for (Family f : TABLE2_FAMILIES) {
      Pick p = picks.get(f);
      if (p != null && !p.within()) {
        md.append("- ").append(f.label).append(": no configuration within the tolerance; its best "
            + "mean ").append(metric).append(" was ").append(num(p.configuration().metric().mean()))
            .append(" (").append(p.configuration().describe()).append("), taking ")
            .append(bits(p.configuration().memoryBits())).append(" bits.\n");
      }
    }
    if (picks.values().stream().anyMatch(p -> !p.within())) {
      md.append('\n');
    }
    md.append(paperComparison(picks, runs, best)).append("\n\n");
  }

  /** The paragraph that holds our ratios against the paper's 3-10x and 50-460x. */
  private static String paperComparison(Map<Family, Pick> picks, List<RunRecord> runs,
      Configuration best) {
    StringBuilder s = new StringBuilder("The paper reports LP-RFF matching full-precision RFF "
        + "with 3–10x less memory and Nyström with 50–460x less. ");
    Pick reference = picks.get(Family.LP_STOCHASTIC);
    if (reference == null || !reference.within()) {
      s.append("Here LP-RFF with stochastic rounding has no configuration within the tolerance, "
          + "so there is no ratio to compare: on this data and m range our results do not "
          + "reproduce the claim. ");
    } else {
      long lp = reference.configuration().memoryBits();
      s.append(compare(picks.get(Family.RFF), "full-precision RFF", lp, PAPER_RFF_RANGE));
      s.append(compare(picks.get(Family.NYSTROM), "Nyström", lp, PAPER_NYSTROM_RANGE));
    }
    Map<String, Integer> largest = new LinkedHashMap<>();
    for (RunRecord r : runs) {
      largest.merge(Family.of(r) == Family.NYSTROM ? "Nyström landmarks" : "random features",
          r.m(), Math::max);
    }
    int maxM = runs.stream().mapToInt(RunRecord::m).max().orElse(0);
    s.append("Our m range is limited (largest m = ").append(maxM);
    if (largest.size() > 1) {
      List<String> parts = new ArrayList<>();
      largest.forEach((what, m) -> parts.add(what + " " + m));
      s.append(": ").append(String.join(", ", parts));
    }
    s.append("), and a ratio here is between points of our m grid, so it is coarse: a family "
        + "that would need a larger m than we ran shows as none within tolerance.");
    int maxRffM = runs.stream().filter(r -> r.method().equals(RunRecord.RFF))
        .mapToInt(RunRecord::m).max().orElse(0);
    if (best.m() == maxRffM) {
      s.append(" The best full-precision result is at the largest m we ran for RFF, so a larger "
          + "m might lower the target and change which configurations count as matching it.");
    }
    return s.toString();
  }

  private static String compare(Pick pick, String name, long lpBits, double[] range) {
    String paper = fmt("%.0f–%.0fx", range[0], range[1]);
    if (pick == null) {
      return name + " was not run. ";
    }
    if (!pick.within()) {
      return name + " has no configuration within the tolerance in our m range, so its ratio is "
          + "not measured (the paper's is " + paper + "). ";
    }
    double ratio = (double) pick.configuration().memoryBits() / lpBits;
    String where = ratio < range[0] ? "below" : ratio > range[1] ? "above" : "inside";
    return "Here " + name + " needs " + ratio(pick.configuration().memoryBits(), lpBits)
        + " LP-RFF's memory: " + where + " the paper's " + paper + " range. ";
  }

  private static void spearman(StringBuilder md, List<RunRecord> runs, String metric) {
    md.append("## Figure 5: which approximation quantity predicts the ").append(metric)
        .append("\n\n");
    md.append("Spearman rank correlation between each quantity and the ").append(metric)
        .append(" over every run (every seed, every family), using exactly the runs with a finite "
            + "metric and a finite, positive value of the quantity (the points Figure 5 draws); "
            + "tied values get average ranks, then Pearson's correlation of the ranks.\n\n");
    md.append("| quantity | Spearman ρ | runs |\n|---|---:|---:|\n");
    Map<Approximation, Double> rho = new EnumMap<>(Approximation.class);
    for (Approximation a : Approximation.values()) {
      rho.put(a, a.rho(runs));
      md.append("| ").append(a.label).append(" | ").append(rho3(rho.get(a))).append(" | ")
          .append(a.usable(runs).size()).append(" |\n");
    }
    md.append('\n');
    double dMax = rho.get(Approximation.DELTA_MAX);
    double frob = rho.get(Approximation.FROBENIUS);
    double spec = rho.get(Approximation.SPECTRAL);
    md.append("The paper finds that the (Δ1, Δ2) quantities, max(1/(1-Δ1), Δ2) above all, "
        + "rank-correlate with the heldout metric better than the Frobenius and spectral errors "
        + "do. ");
    if (Double.isNaN(dMax) || Double.isNaN(frob) || Double.isNaN(spec)) {
      md.append("Here some ρ is undefined (too few runs, or a constant side), so this cannot be "
          + "judged.\n\n");
      return;
    }
    boolean agree = dMax > frob && dMax > spec;
    md.append("Here ρ = ").append(rho3(dMax)).append(" for max(1/(1-Δ1), Δ2) against ")
        .append(rho3(frob)).append(" (Frobenius) and ").append(rho3(spec)).append(" (spectral): ")
        .append(agree ? "ours agree" : "ours do not agree").append(". ");
    List<String> better = new ArrayList<>();
    for (Approximation a : List.of(Approximation.INVERSE_ONE_MINUS_DELTA1, Approximation.DELTA2,
        Approximation.DELTA_MAX)) {
      if (rho.get(a) > frob && rho.get(a) > spec) {
        better.add(a.label);
      }
    }
    md.append(better.isEmpty()
        ? "None of the three Δ quantities beats both errors."
        : "Above both errors: " + String.join(", ", better) + ".");
    md.append("\n\n");
  }

  private static void means(StringBuilder md, List<RunRecord> runs, String metric) {
    md.append("## Mean ").append(metric).append(" per series and m\n\n");
    TreeSet<Integer> ms = new TreeSet<>();
    runs.forEach(r -> ms.add(r.m()));
    md.append("Mean over seeds that did not diverge; \"diverged\" where every seed did, blank "
        + "where not run.\n\n");
    md.append("| series |");
    ms.forEach(m -> md.append(" m = ").append(m).append(" |"));
    md.append("\n|---|");
    ms.forEach(m -> md.append("---:|"));
    md.append('\n');
    for (Map.Entry<String, List<RunRecord>> e : RunGroups.bySeries(runs).entrySet()) {
      Map<Integer, Configuration> byM = new LinkedHashMap<>();
      RunGroups.configurations(e.getValue()).forEach(c -> byM.put(c.m(), c));
      md.append("| ").append(e.getKey()).append(" |");
      for (int m : ms) {
        Configuration c = byM.get(m);
        md.append(' ').append(c == null ? "" : c.metric().n() == 0 ? "diverged"
            : num(c.metric().mean())).append(" |");
      }
      md.append('\n');
    }
    md.append('\n');
  }

  /** "0.01234 ± 0.00056" (the sd to 2 significant digits), or the mean alone for one seed. */
  static String meanSd(Moments m) {
    if (m.n() == 0) {
      return "diverged";
    }
    return Double.isNaN(m.sd()) ? num(m.mean()) : num(m.mean()) + " ± " + fmt("%.2g", m.sd());
  }

  /** "3" or "2 of 3" when some seeds diverged. */
  private static String seeds(Configuration c) {
    int n = c.metric().n();
    return n == c.runs().size() ? Integer.toString(n) : n + " of " + c.runs().size();
  }

  /** A metric value: 4 significant digits. */
  static String num(double v) {
    return fmt("%.4g", v);
  }

  static String rho3(double rho) {
    return Double.isNaN(rho) ? "n/a" : fmt("%.3f", rho);
  }

  /** "4.0x": a's memory over b's, one decimal. */
  static String ratio(long a, long b) {
    return fmt("%.1fx", (double) a / b);
  }

  static String bits(long bits) {
    return fmt("%,d", bits);
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
