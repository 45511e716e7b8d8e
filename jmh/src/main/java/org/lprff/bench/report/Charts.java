package org.lprff.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.lprff.report.ChartStyle;
import org.lprff.report.TickFormat;

/**
 * The four PNG plots of the report (five with {@code --time-to-model}), drawn headless with JFreeChart in {@link ChartStyle}. */
public final class Charts {

  static {
    ChartStyle.headless();
  }

  public static final int WIDTH = 1200;
  public static final int HEIGHT = 750;

  public static final String BITS_PNG = "throughput-vs-bits.png";
  public static final String SKLEARN_PNG = "featurizer-vs-sklearn.png";
  public static final String FRONTIER_PNG = "training-frontier.png";
  public static final String ROOFLINE_PNG = "roofline.png";
  public static final String TIME_TO_MODEL_PNG = "time-to-model.png";

  private static final Font LABEL = ChartStyle.font(11);

  /** Palette indices of the roofline's level lines. */
  private static final int[] LEVEL_COLORS = {0, 1, 2, 4, 5, 6, 8, 9};

  private Charts() {}

  /** Writes the four plots into {@code dir}. */
  public static void writeAll(Figures figures, String subtitle, Path dir) throws IOException {
    save(bits(figures.bitsCurves()), subtitle, dir.resolve(BITS_PNG));
    save(featurizer(figures.featurizerVsSklearn(), figures.sklearn().available()), subtitle,
        dir.resolve(SKLEARN_PNG));
    save(frontier(figures.epochs()), subtitle, dir.resolve(FRONTIER_PNG));
    save(roofline(figures.roofline()), subtitle, dir.resolve(ROOFLINE_PNG));
  }

  private static void save(JFreeChart chart, String subtitle, Path file) throws IOException {
    Files.write(file, ChartStyle.png(chart, subtitle, WIDTH, HEIGHT));
  }

  /** Plot 1: x = bits (log 2), y = M feature values/s (log), float32 marked as the reference. */
  static JFreeChart bits(List<Figures.Curve> curves) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Figures.Curve c : curves) {
      XYSeries s = new XYSeries(c.kernel() + " (" + c.per() + ")");
      c.millionsPerSecond().forEach(s::add);
      data.addSeries(s);
    }
    LogAxis x = new LogAxis("bits per feature (b = 32: float32)");
    x.setBase(2);
    x.setTickUnit(new NumberTickUnit(1, new DecimalFormat("0")));
    x.setNumberFormatOverride(new DecimalFormat("0"));
    x.setRange(0.8, 40);
    LogAxis y = new LogAxis("million feature values per second (median, log)");
    decades(y);
    XYLineAndShapeRenderer r = lines(data.getSeriesCount());
    XYPlot plot = new XYPlot(data, x, y, r);
    ValueMarker reference = new ValueMarker(32, Color.GRAY, ChartStyle.dashed(1.5f, 6, 4));
    reference.setLabel("float32 reference");
    reference.setLabelFont(LABEL);
    reference.setLabelAnchor(RectangleAnchor.TOP_LEFT);
    reference.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
    plot.addDomainMarker(reference);
    ChartStyle.style(plot);
    noData(plot, curves.isEmpty());
    return new JFreeChart("Throughput vs bits per kernel (one thread, vector bodies)",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
  }

  /** Plot 2: M features/s per projection and width, beside scikit-learn, per (d, threads). */
  static JFreeChart featurizer(List<Figures.VsSklearn> rows, boolean sklearnAvailable) {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    Map<String, Double> reference = new LinkedHashMap<>();
    for (Figures.VsSklearn v : rows) {
      String category = "d = " + v.d() + ", " + v.threads() + (v.threads() == 1 ? " thread" : " threads");
      data.addValue(v.ours() / 1e6, v.projection() + (v.bits() == 32 ? " float32" : " " + v.bits() + "-bit"),
          category);
      if (!Double.isNaN(v.sklearn())) {
        reference.put(category, v.sklearn() / 1e6);
      }
    }
    reference.forEach((category, value) -> data.addValue(value, "scikit-learn RBFSampler float32", category));
    NumberAxis y = new NumberAxis("million features per second (median)");
    CategoryAxis x = new CategoryAxis("shape and threads (m = "
        + (rows.isEmpty() ? "?" : rows.getFirst().m()) + ", " + (rows.isEmpty() ? "?" : rows.getFirst().rows())
        + " rows per call)");
    BarRenderer r = new BarRenderer();
    r.setBarPainter(new StandardBarPainter());
    r.setShadowVisible(false);
    r.setItemMargin(0.02);
    for (int i = 0; i < data.getRowCount(); i++) {
      String series = (String) data.getRowKey(i);
      if (series.startsWith("scikit-learn")) {
        r.setSeriesPaint(i, Color.BLACK);
      } else {
        String projection = series.substring(0, series.indexOf(' '));
        Color base = ChartStyle.color(Figures.projectionOrder(projection));
        r.setSeriesPaint(i, series.endsWith("float32") ? base.brighter() : base.darker());
      }
    }
    r.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}", new DecimalFormat("0")));
    r.setDefaultItemLabelsVisible(true);
    r.setDefaultItemLabelFont(ChartStyle.font(9));
    CategoryPlot plot = new CategoryPlot(data, x, y, r);
    x.setCategoryLabelPositions(CategoryLabelPositions.STANDARD);
    ChartStyle.style(plot);
    ChartStyle.noData(plot, rows.isEmpty(), "FeaturizerBenchmark was not run");
    JFreeChart chart = new JFreeChart(
        "Featurizer beside scikit-learn" + (sklearnAvailable ? "" : " (scikit-learn not available)"),
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    return chart;
  }

  /** Plot 3: x = feature bytes an epoch reads (log), y = epoch time; one labelled point per b. */
  static JFreeChart frontier(List<Figures.EpochPoint> points) {
    XYSeriesCollection data = new XYSeriesCollection();
    Map<Integer, XYSeries> byClasses = new LinkedHashMap<>();
    XYPlot plot = new XYPlot();
    for (Figures.EpochPoint p : points) {
      XYSeries s = byClasses.computeIfAbsent(p.classes(),
          c -> new XYSeries("SGD epoch, " + c + (c == 1 ? " output" : " outputs"), false));
      s.add(p.featureBytes(), p.seconds() * 1e3);
      XYTextAnnotation label = new XYTextAnnotation(
          p.bits() == 32 ? "float32" : "b = " + p.bits(), p.featureBytes(), p.seconds() * 1e3);
      label.setFont(LABEL);
      label.setTextAnchor(TextAnchor.BOTTOM_LEFT);
      plot.addAnnotation(label);
    }
    byClasses.values().forEach(data::addSeries);
    LogAxis x = new LogAxis("feature bytes one epoch reads (" + Suite.TRAINING_ROWS
        + " rows x m, log scale)");
    x.setBase(2);
    x.setTickUnit(new NumberTickUnit(1));
    x.setNumberFormatOverride(new HumanBytes());
    NumberAxis y = new NumberAxis("epoch time, ms (median)");
    y.setAutoRangeIncludesZero(true);
    plot.setDataset(data);
    plot.setDomainAxis(x);
    plot.setRangeAxis(y);
    plot.setRenderer(lines(data.getSeriesCount()));
    ChartStyle.style(plot);
    noData(plot, points.isEmpty());
    return new JFreeChart("Memory vs speed: one training epoch per bit width",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
  }

  /**
   * Plot 4: log-log roofline: the FMA peak (all threads, one thread), each measured level's
   * bandwidth line (one thread's where measured: most kernels run on one), memory's on all
   * threads, and each kernel as a labelled point; a point above its own roof is marked.
   */
  static JFreeChart roofline(Figures.Roofline roof) {
    XYSeriesCollection data = new XYSeriesCollection();
    XYPlot plot = new XYPlot();
    double lo = 0.05;
    double hi = 200;
    for (Figures.RoofPoint p : roof.points()) {
      lo = Math.min(lo, p.intensity() / 2);
      hi = Math.max(hi, p.intensity() * 10); // room for the labels right of the points
    }
    boolean ceilings = Double.isFinite(roof.peakFlopsPerSecond())
        && Double.isFinite(roof.bandwidthBytesPerSecond());
    if (ceilings) {
      XYSeries line = new XYSeries(String.format(
          "%d threads: FMA peak %.0f GFLOP/s, memory (DRAM) %.1f GB/s", roof.threads(),
          roof.peakFlopsPerSecond() / 1e9, roof.bandwidthBytesPerSecond() / 1e9), false);
      line.add(lo, roof.bound(lo) / 1e9);
      if (roof.ridge() > lo && roof.ridge() < hi) {
        line.add(roof.ridge(), roof.peakFlopsPerSecond() / 1e9);
      }
      line.add(hi, roof.bound(hi) / 1e9);
      data.addSeries(line);
    }
    double onePeak = roof.peak(1);
    if (roof.threads() > 1 && Double.isFinite(onePeak)) {
      XYSeries one = new XYSeries(String.format("1 thread: FMA peak %.0f GFLOP/s%s",
          onePeak / 1e9, Double.isNaN(roof.oneThreadFmaPeakFlopsPerSecond())
              ? " (derived: peak / " + roof.threads() + ")" : ""), false);
      one.add(lo, onePeak / 1e9);
      one.add(hi, onePeak / 1e9);
      data.addSeries(one);
    }
    int firstLevel = data.getSeriesCount();
    for (Figures.Level l : roof.levels()) {
      if (l.name().equals(Figures.Roofline.MEMORY)) {
        continue;
      }
      boolean single = !Double.isNaN(l.oneThread());
      double bandwidth = single ? l.oneThread() : l.allThreads();
      double peak = single ? onePeak : roof.peakFlopsPerSecond();
      if (!Double.isFinite(bandwidth) || !Double.isFinite(peak)) {
        continue;
      }
      XYSeries level = new XYSeries(String.format("%s (%s buffer), %s: %.0f GB/s", l.name(),
          Report.bytes(l.bytes()), single ? "1 thread" : roof.threads() + " threads",
          bandwidth / 1e9), false);
      double ridge = peak / bandwidth;
      level.add(lo, Math.min(peak, bandwidth * lo) / 1e9);
      if (ridge > lo && ridge < hi) {
        level.add(ridge, peak / 1e9);
      }
      data.addSeries(level);
    }
    int lines = data.getSeriesCount();
    XYSeries kernels = new XYSeries("kernels (1 thread unless marked pool)", false);
    XYSeries above = new XYSeries("above its own roof (a wrong count or ceiling)", false);
    for (Figures.RoofPoint p : roof.points()) {
      kernels.add(p.intensity(), p.flopsPerSecond() / 1e9);
      if (roof.ofRoof(p) > 1) {
        above.add(p.intensity(), p.flopsPerSecond() / 1e9);
      }
      XYTextAnnotation label =
          new XYTextAnnotation(" " + p.label(), p.intensity(), p.flopsPerSecond() / 1e9);
      label.setFont(LABEL);
      label.setTextAnchor(TextAnchor.CENTER_LEFT);
      plot.addAnnotation(label);
    }
    data.addSeries(kernels);
    if (!above.isEmpty()) {
      data.addSeries(above);
    }
    LogAxis x = new LogAxis("arithmetic intensity, flop per byte of compulsory traffic (log)");
    decades(x);
    x.setRange(lo, hi);
    LogAxis y = new LogAxis("achieved GFLOP/s (median, log)");
    decades(y);
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer();
    for (int i = 0; i < lines; i++) {
      r.setSeriesLinesVisible(i, true);
      r.setSeriesShapesVisible(i, false);
      boolean memory = ceilings && i == 0;
      // The levels in the palette's colours but red (the kernels) and gray (one thread's peak).
      r.setSeriesPaint(i, memory ? Color.BLACK : i < firstLevel ? Color.GRAY
          : ChartStyle.color(LEVEL_COLORS[(i - firstLevel) % LEVEL_COLORS.length]));
      r.setSeriesStroke(i, memory ? new BasicStroke(2.5f) : ChartStyle.dashed(1.5f, 6, 4));
    }
    for (int i = lines; i < data.getSeriesCount(); i++) {
      r.setSeriesLinesVisible(i, false);
      r.setSeriesShapesVisible(i, true);
    }
    r.setSeriesPaint(lines, ChartStyle.color(3));
    r.setSeriesShape(lines, new Ellipse2D.Double(-4, -4, 8, 8));
    if (!above.isEmpty()) {
      r.setSeriesPaint(lines + 1, Color.RED);
      r.setSeriesShape(lines + 1, new Rectangle2D.Double(-7, -7, 14, 14));
      r.setSeriesShapesFilled(lines + 1, false);
    }
    plot.setDataset(data);
    plot.setDomainAxis(x);
    plot.setRangeAxis(y);
    plot.setRenderer(r);
    ChartStyle.style(plot);
    noData(plot, roof.points().isEmpty() && !ceilings);
    return new JFreeChart("Roofline: each kernel under the FMA peak and its level's bandwidth",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
  }

  /**
   * Plot 5: per data set, the seconds to a model (features + fit, log) of lprff's defaults,
   * scikit-learn's single fit and scikit-learn's search, each bar labelled with its heldout metric.
   */
  static JFreeChart timeToModel(TimeToModel.Table table) {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    Map<List<String>, String> labels = new LinkedHashMap<>();
    double least = Double.POSITIVE_INFINITY;
    double most = 0;
    for (TimeToModel.DataSet set : table.dataSets()) {
      for (TimeToModel.Row r : table.rows(set)) {
        data.addValue(r.seconds(), r.method().label, set.name());
        labels.put(List.of(r.method().label, set.name()), Report.num(r.seconds()) + " s, "
            + set.metricName() + " " + TimeToModel.metric(r.metric()));
        least = Math.min(least, r.seconds());
        most = Math.max(most, r.seconds());
      }
    }
    LogAxis y = new LogAxis("seconds to a model: features + fit (wall, log)");
    decades(y);
    if (Double.isFinite(least)) {
      // Bars start at the axis' lower bound, so it lies a decade below the fastest model; the
      // upper one leaves room for the labels above the slowest.
      y.setRange(Math.pow(10, Math.floor(Math.log10(least)) - 1),
          Math.pow(10, Math.ceil(Math.log10(most * 3))));
    }
    CategoryAxis x = new CategoryAxis("data set (heldout MSE or error rate above each bar)");
    BarRenderer r = new BarRenderer();
    r.setBarPainter(new StandardBarPainter());
    r.setShadowVisible(false);
    r.setItemMargin(0.04);
    for (TimeToModel.Method m : TimeToModel.Method.values()) {
      int i = data.getRowIndex(m.label);
      if (i >= 0) {
        r.setSeriesPaint(i, m == TimeToModel.Method.LPRFF ? ChartStyle.color(0)
            : m == TimeToModel.Method.SINGLE ? Color.GRAY : Color.BLACK);
      }
    }
    r.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator() {
      @Override
      public String generateLabel(CategoryDataset dataset, int row, int column) {
        return labels.get(List.of((String) dataset.getRowKey(row),
            (String) dataset.getColumnKey(column)));
      }
    });
    r.setDefaultItemLabelsVisible(true);
    r.setDefaultItemLabelFont(ChartStyle.font(10));
    CategoryPlot plot = new CategoryPlot(data, x, y, r);
    ChartStyle.style(plot);
    ChartStyle.noData(plot, table.rows().isEmpty(), "no data set was measured");
    return new JFreeChart("Time to a model: lprff's defaults beside scikit-learn",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
  }

  /** Writes plot 5 into {@code dir}. */
  public static void writeTimeToModel(TimeToModel.Table table, String subtitle, Path dir)
      throws IOException {
    save(timeToModel(table), subtitle, dir.resolve(TIME_TO_MODEL_PNG));
  }

  /** Ticks at the powers of ten only. */
  private static void decades(LogAxis axis) {
    axis.setTickUnit(new NumberTickUnit(1));
    axis.setNumberFormatOverride(new DecimalFormat("#,##0.###"));
  }

  private static XYLineAndShapeRenderer lines(int series) {
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < series; i++) {
      r.setSeriesPaint(i, ChartStyle.color(i));
      r.setSeriesStroke(i, ChartStyle.LINE);
      r.setSeriesShape(i, new Rectangle2D.Double(-4, -4, 8, 8));
    }
    return r;
  }

  private static void noData(XYPlot plot, boolean empty) {
    ChartStyle.noData(plot, empty, "not measured in this run");
  }

  /** Axis ticks as KiB, MiB, GiB. */
  private static final class HumanBytes extends TickFormat {
    @Override
    public StringBuffer format(double v, StringBuffer to, java.text.FieldPosition pos) {
      String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
      int u = 0;
      while (v >= 1024 && u < units.length - 1) {
        v /= 1024;
        u++;
      }
      return to.append(new DecimalFormat("0.#").format(v)).append(' ').append(units[u]);
    }
  }

  /** Labels for tests: the series names of a chart's first dataset. */
  static List<String> seriesNames(JFreeChart chart) {
    List<String> names = new ArrayList<>();
    if (chart.getPlot() instanceof XYPlot xy) {
      for (int i = 0; i < xy.getDataset().getSeriesCount(); i++) {
        names.add(String.valueOf(xy.getDataset().getSeriesKey(i)));
      }
    } else if (chart.getPlot() instanceof CategoryPlot cat) {
      for (Object key : cat.getDataset().getRowKeys()) {
        names.add(String.valueOf(key));
      }
    }
    return names;
  }
}
