package org.lprff.bench.report;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The time-to-model table of {@code lprff bench --time-to-model} (issue 31): per data set, lprff's
 * defaults (l2 chosen by the library) beside scikit-learn's single fit at the l2 lprff chose and
 * scikit-learn's own search over the same l2 grid, each with its heldout metric and seconds.
 * {@link TimeToModelRun} measures it; this class holds, prints and serializes it.
 */
public final class TimeToModel {

  /** Who made the model, in the order of the table and the plot. */
  public enum Method {
    LPRFF("lprff defaults"),
    SINGLE("scikit-learn single fit"),
    SEARCH("scikit-learn search");

    public final String label;

    Method(String label) {
      this.label = label;
    }
  }

  /**
   * One data set of the table.
   *
   * @param name the name in the table, the plot and {@code --only} (TimeToModel.name)
   * @param classification 10-class softmax (heldout error rate), else ridge (heldout MSE)
   * @param standardize standardize the features with the training rows (both sides)
   */
  public record DataSet(String name, boolean classification, double sigma, int m, int bits,
      boolean standardize, String rows) {

    /** The pseudo-benchmark name {@code --only} and {@code --list} see. */
    public String id() {
      return "TimeToModel." + name;
    }

    public String metricName() {
      return classification ? "error rate" : "MSE";
    }
  }

  public static final DataSet DIAMONDS = new DataSet("diamonds", false, 2, 4096, 4, true,
      "lprff-cli's diamonds.csv, target log(price), seed-7 80/20 split");
  public static final DataSet DIGITS = new DataSet("digits", true, 4, 4096, 4, true,
      "scikit-learn's digits, seed-7 80/20 split");
  public static final DataSet FASHION_MNIST = new DataSet("fashion-mnist", true, 5, 8192, 4,
      false, "the official 60,000 training and 10,000 test images, pixels / 255");

  /** The l2 grid of lprff's automatic path (TrainingRequest.AUTOMATIC_L2), scikit-learn's too. */
  public static final List<Double> L2_GRID = List.of(1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7);

  /** Folds of LogisticRegressionCV (RidgeCV uses leave-one-out). */
  public static final int FOLDS = 5;

  /**
   * One model: its heldout metric and seconds, {@code prepareSeconds} to features (lprff:
   * featurize of both files; scikit-learn: RBFSampler fit and transform of both) and {@code
   * fitSeconds} to the model (lprff: the train command, heldout scoring included; scikit-learn:
   * fit). {@code note} says how l2 was chosen and anything worth a footnote.
   */
  public record Row(String dataSet, Method method, double l2, double metric,
      double prepareSeconds, double fitSeconds, String note) {
    public double seconds() {
      return prepareSeconds + fitSeconds;
    }
  }

  /**
   * A measured table, or why a data set was not measured ({@code messages}, one per failure).
   *
   * @param lprff how the lprff side was run (the commands, timed as wall seconds)
   * @param reference scikit-learn's versions and the BLAS kernel it ran (threadpoolctl's
   *     threadpool_info), empty when the reference did not run
   */
  public record Table(List<DataSet> dataSets, List<Row> rows, List<String> messages,
      String lprff, Map<String, Object> reference, double seconds) {
    public Table {
      dataSets = List.copyOf(dataSets);
      rows = List.copyOf(rows);
      messages = List.copyOf(messages);
      reference = Map.copyOf(reference);
    }

    public List<Row> rows(DataSet set) {
      return rows.stream().filter(r -> r.dataSet().equals(set.name())).toList();
    }
  }

  private TimeToModel() {}

  /** The report's section: the table, then how it was measured. */
  static String markdown(Table table, String plot) {
    StringBuilder md = new StringBuilder("\n## 5. Time to a model\n\n![time to model](")
        .append(plot).append(")\n\n");
    md.append("lprff's defaults (`lprff featurize`, then `lprff train` with only the files and"
        + " the task: l2 chosen by the library on a seeded 10% of the training rows over ")
        .append(grid()).append(", refit on all) beside scikit-learn's RBFSampler features"
            + " (float32, the same m and sigma) fitted once at the l2 lprff chose (`Ridge(alpha"
            + " = l2 n)`, `LogisticRegression(C = 1 / (l2 n))`) and searched over the same grid"
            + " (`RidgeCV`, leave-one-out; `LogisticRegressionCV`, ").append(FOLDS)
        .append("-fold). Features: lprff's featurize of the training and heldout files (heldout"
            + " at full precision); scikit-learn's RBFSampler fit and transform of both. Fit:"
            + " lprff's train command (heldout scoring included); scikit-learn's fit.\n\n");
    for (String m : table.messages()) {
      md.append("**Not measured**: ").append(m).append("\n\n");
    }
    if (table.rows().isEmpty()) {
      return md.append("_No data set was measured._\n").toString();
    }
    md.append("| data set | model | l2 | heldout | features s | fit s | total s | note |\n"
        + "|---|---|---:|---:|---:|---:|---:|---|\n");
    for (DataSet set : table.dataSets()) {
      for (Row r : table.rows(set)) {
        md.append("| ").append(set.name()).append(" | ").append(r.method().label).append(" | ")
            .append(String.format(Locale.ROOT, "%.0e", r.l2())).append(" | ")
            .append(set.metricName()).append(' ').append(metric(r.metric())).append(" | ")
            .append(Report.num(r.prepareSeconds())).append(" | ")
            .append(Report.num(r.fitSeconds())).append(" | ")
            .append(Report.num(r.seconds())).append(" | ").append(r.note()).append(" |\n");
      }
    }
    md.append("\nData: ");
    for (int i = 0; i < table.dataSets().size(); i++) {
      DataSet s = table.dataSets().get(i);
      md.append(i == 0 ? "" : "; ").append(s.name()).append(": ").append(s.rows())
          .append(String.format(Locale.ROOT, ", sigma %s, m = %d, %d-bit circulant%s",
              TimeToModelRun.fmt(s.sigma()), s.m(), s.bits(),
              s.standardize() ? ", standardized" : ""));
    }
    md.append(".\n\nlprff: ").append(table.lprff()).append(".\n\nscikit-learn: ")
        .append(reference(table.reference())).append(String.format(Locale.ROOT,
            ".\n\nThe table took %s.\n", Report.human(
                Duration.ofMillis(Math.round(table.seconds() * 1e3)))));
    return md.toString();
  }

  /** results.json's {@code timeToModel}. */
  static Map<String, Object> json(Table table) {
    Map<String, Object> root = new LinkedHashMap<>();
    List<Object> sets = new ArrayList<>();
    for (DataSet s : table.dataSets()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("name", s.name());
      e.put("task", s.classification() ? "classification" : "regression");
      e.put("metric", s.classification() ? "heldoutErrorRate" : "heldoutMse");
      e.put("sigma", s.sigma());
      e.put("m", s.m());
      e.put("bits", s.bits());
      e.put("standardized", s.standardize());
      e.put("rows", s.rows());
      sets.add(e);
    }
    root.put("dataSets", sets);
    root.put("l2Grid", L2_GRID);
    List<Object> rows = new ArrayList<>();
    for (Row r : table.rows()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("dataSet", r.dataSet());
      e.put("model", r.method().label);
      e.put("l2", r.l2());
      e.put("heldout", r.metric());
      e.put("featuresSeconds", r.prepareSeconds());
      e.put("fitSeconds", r.fitSeconds());
      e.put("seconds", r.seconds());
      e.put("note", r.note());
      rows.add(e);
    }
    root.put("rows", rows);
    root.put("messages", table.messages());
    root.put("lprff", table.lprff());
    root.put("reference", table.reference());
    root.put("seconds", table.seconds());
    return root;
  }

  /** The heldout metric as the table and the plot print it. */
  static String metric(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.4f", v) : "n/a";
  }

  private static String grid() {
    StringBuilder s = new StringBuilder();
    for (double l2 : L2_GRID) {
      s.append(s.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%.0e", l2));
    }
    return s.toString();
  }

  /** scikit-learn's versions and the BLAS it ran: "openblas 0.3.30 Haswell, 2 threads". */
  static String reference(Map<String, Object> ref) {
    if (ref.isEmpty()) {
      return "not run";
    }
    List<String> libs = new ArrayList<>();
    if (ref.get("blas") instanceof List<?> list) {
      for (Object o : list) {
        if (o instanceof Map<?, ?> lib && "blas".equals(lib.get("user_api"))) {
          libs.add(lib.get("internal_api") + " " + lib.get("version")
              + (lib.get("architecture") == null ? "" : " kernel " + lib.get("architecture"))
              + ", " + lib.get("num_threads") + " threads");
        }
      }
    }
    return "scikit-learn " + ref.get("sklearn") + ", numpy " + ref.get("numpy") + ", Python "
        + ref.get("python_version") + " (" + ref.get("python") + "); BLAS (threadpoolctl): "
        + (libs.isEmpty() ? "unknown" : String.join("; ", libs)) + "; run without "
        + String.join(" and ", SklearnReference.PINNED_BLAS) + " ("
        + ref.getOrDefault("scrubbed", "none set") + " in this run's environment)";
  }
}
