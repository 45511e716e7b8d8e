package org.lprff.cli.experiment;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Shape;
import java.awt.Stroke;
import java.awt.geom.AffineTransform;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;
import org.lprff.arrow.io.AtomicWrite;
import org.lprff.cli.experiment.RunGroups.Approximation;
import org.lprff.cli.experiment.RunGroups.Configuration;
import org.lprff.cli.experiment.RunGroups.Family;
import org.lprff.cli.experiment.RunGroups.Moments;
import org.lprff.report.ChartStyle;
import org.lprff.report.TickFormat;
import org.lprff.vector.codec.Quantizer;

/**
 * The experiment's three PNG plots, the LP-RFF paper's Figures 3, 4 and 5, drawn headless with
 * JFreeChart in lprff's {@link ChartStyle}, the benchmark report's. Runs whose metric is NaN
 * (training diverged) are left out of every plot.
 */
public final class ExperimentPlots {

  static {
    ChartStyle.headless();
  }

  public static final String FIG4_PNG = "fig4-metric-vs-memory.png";
  public static final String FIG3_PNG = "fig3-delta-vs-m.png";
  public static final String FIG5_PNG = "fig5-metric-vs-approximation.png";

  static final int FIG4_WIDTH = 1000;
  static final int FIG4_HEIGHT = 700;
  static final int FIG3_WIDTH = 1000;
  static final int FIG3_HEIGHT = 800;
  static final int FIG5_WIDTH = 1800;
  static final int FIG5_HEIGHT = 520;

  private static final Font AXIS = ChartStyle.font(13);
  private static final Stroke SOLID = ChartStyle.LINE;
  private static final Stroke DASHED = ChartStyle.dashed(2f, 7, 4);
  private static final Stroke DOTTED = ChartStyle.dashed(2f, 2, 4);
  private static final Stroke DASH_DOT = ChartStyle.dashed(2f, 9, 3, 2, 3);
  private static final Stroke LONG_DASHED = ChartStyle.dashed(2f, 14, 5);

  private ExperimentPlots() {}

  /** Writes Figures 4, 3 and 5 into {@code dir}; returns their paths in that order. */
  public static List<Path> write(List<RunRecord> runs, String dataName, Path dir)
      throws IOException {
    List<RunRecord> finite = runs.stream().filter(r -> !Double.isNaN(r.heldoutMetric())).toList();
    String metric = RunGroups.metricLabel(runs);
    int diverged = runs.size() - finite.size();
    String note = diverged == 0 ? null
        : diverged + (diverged == 1 ? " run" : " runs") + " diverged (NaN metric), not drawn";
    List<Path> files = new ArrayList<>();
    files.add(save(fig4(finite, dataName, metric), note, dir.resolve(FIG4_PNG), FIG4_WIDTH,
        FIG4_HEIGHT));
    files.add(save(fig3(runs, dataName), null, dir.resolve(FIG3_PNG), FIG3_WIDTH,
        FIG3_HEIGHT));
    files.add(save(fig5(finite, dataName, metric), note, dir.resolve(FIG5_PNG), FIG5_WIDTH,
        FIG5_HEIGHT));
    return files;
  }

  private static Path save(JFreeChart chart, String subtitle, Path file, int width, int height)
      throws IOException {
    // Whole or not at all, like every output of lprff: a resumed experiment redraws them.
    AtomicWrite.write(file, ChartStyle.png(chart, subtitle, width, height));
    return file;
  }

  /** Figure 4: mean metric ± sd over seeds vs training memory, one line per series. */
  static JFreeChart fig4(List<RunRecord> runs, String dataName, String metric) {
    YIntervalSeriesCollection data = new YIntervalSeriesCollection();
    List<RunRecord> firsts = new ArrayList<>();
    for (Map.Entry<String, List<RunRecord>> e : RunGroups.bySeries(runs).entrySet()) {
      // no auto-sort: the points join in m order (memory grows with m within a series anyway)
      YIntervalSeries s = new YIntervalSeries(e.getKey(), false, true);
      for (Configuration c : RunGroups.configurations(e.getValue())) {
        Moments y = c.metric();
        s.add(c.memoryBits(), y.mean(), y.mean() - y.sdOrZero(), y.mean() + y.sdOrZero());
      }
      data.addSeries(s);
      firsts.add(e.getValue().getFirst());
    }
    XYErrorRenderer r = new XYErrorRenderer();
    r.setDrawXError(false);
    r.setDrawYError(true);
    r.setDefaultLinesVisible(true);
    r.setDefaultShapesVisible(true);
    r.setCapLength(6);
    r.setErrorStroke(new BasicStroke(1.2f));
    for (int i = 0; i < firsts.size(); i++) {
      style(r, i, firsts.get(i));
    }
    LogAxis x = new LogAxis("training memory, bits (log scale)");
    ticks(x, runs.stream().mapToDouble(RunRecord::memoryBits).toArray(), new SiBits());
    x.setLabelFont(AXIS);
    NumberAxis y = new NumberAxis(metric + " (mean ± sd over seeds)");
    y.setAutoRangeIncludesZero(false);
    y.setLabelFont(AXIS);
    XYPlot plot = plot(data, x, y, r);
    noData(plot, runs.isEmpty());
    int seeds = RunGroups.seeds(runs);
    return new JFreeChart(dataName + ": " + metric + " vs training memory (mean ± sd over "
        + seeds + (seeds == 1 ? " seed)" : " seeds)"), JFreeChart.DEFAULT_TITLE_FONT, plot, true);
  }

  /**
   * Figure 3: Δ1 and Δ2 vs m, stacked over one log m axis, for the circulant stochastic LP-RFF
   * runs (one series per b) and the circulant float32 RFF runs; means over seeds. Δ's do not
   * depend on training, so runs whose training diverged still count.
   */
  static JFreeChart fig3(List<RunRecord> runs, String dataName) {
    List<RunRecord> circulant = runs.stream()
        .filter(r -> r.projection().equals("circulant"))
        .filter(r -> r.method().equals(RunRecord.RFF)
            || Family.of(r) == Family.LP_STOCHASTIC)
        .toList();
    XYSeriesCollection delta1 = new XYSeriesCollection();
    XYSeriesCollection delta2 = new XYSeriesCollection();
    List<RunRecord> firsts = new ArrayList<>();
    boolean positive = true;
    List<Double> d2s = new ArrayList<>();
    for (List<RunRecord> series : RunGroups.bySeries(circulant).values()) {
      RunRecord first = series.getFirst();
      String name = first.method().equals(RunRecord.RFF) ? "fp32" : "b=" + first.bits();
      XYSeries s1 = new XYSeries(name, false);
      XYSeries s2 = new XYSeries(name, false);
      for (Configuration c : RunGroups.configurations(series)) {
        double d1 = Moments.of(c.runs(), RunRecord::delta1).mean();
        double d2 = Moments.of(c.runs(), RunRecord::delta2).mean();
        if (!Double.isNaN(d1)) {
          s1.add(c.m(), d1);
        }
        if (!Double.isNaN(d2)) {
          s2.add(c.m(), d2);
          d2s.add(d2);
          positive &= d2 > 0;
        }
      }
      delta1.addSeries(s1);
      delta2.addSeries(s2);
      firsts.add(first);
    }
    LogAxis m = new LogAxis("m, random features (log scale)");
    ticks(m, circulant.stream().mapToDouble(RunRecord::m).toArray(), new DecimalFormat("0"));
    m.setLabelFont(AXIS);
    NumberAxis y1 = new NumberAxis("Δ1 (mean over seeds)");
    y1.setAutoRangeIncludesZero(false);
    y1.setLabelFont(AXIS);
    ValueAxis y2;
    if (positive) {
      LogAxis log = new LogAxis("Δ2 (mean over seeds, log scale)");
      ticks(log, d2s.stream().mapToDouble(d -> d).toArray(), new Significant());
      y2 = log;
    } else {
      NumberAxis linear = new NumberAxis("Δ2 (mean over seeds)");
      linear.setAutoRangeIncludesZero(false);
      y2 = linear;
    }
    y2.setLabelFont(AXIS);
    XYPlot top = plot(delta1, null, y1, fig3Lines(firsts));
    XYPlot bottom = plot(delta2, null, y2, fig3Lines(firsts));
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(m);
    plot.setGap(12);
    plot.add(top, 1);
    plot.add(bottom, 1);
    plot.setFixedLegendItems(top.getLegendItems()); // one legend, not one per panel
    noData(top, circulant.isEmpty());
    return new JFreeChart(dataName
        + ": Δ1 and Δ2 vs m, circulant LP-RFF (stochastic rounding) and circulant fp32 RFF",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
  }

  /**
   * Figure 5: every run (every seed) as a point, metric vs each approximation quantity, five
   * panels sharing the metric axis; each axis names its Spearman ρ over exactly the points drawn.
   */
  static JFreeChart fig5(List<RunRecord> runs, String dataName, String metric) {
    NumberAxis y = new NumberAxis(metric);
    y.setAutoRangeIncludesZero(false);
    y.setLabelFont(AXIS);
    CombinedRangeXYPlot plot = new CombinedRangeXYPlot(y);
    plot.setGap(14);
    XYPlot first = null;
    for (Approximation a : Approximation.values()) {
      List<RunRecord> used = a.usable(runs);
      Map<Family, XYSeries> byFamily = new TreeMap<>();
      // The paper's families in every legend, the other quantizers' when they ran.
      for (Family f : Family.PAPER) {
        byFamily.put(f, new XYSeries(f.label, false));
      }
      for (RunRecord r : used) {
        byFamily.computeIfAbsent(Family.of(r), f -> new XYSeries(f.label, false))
            .add(a.x.applyAsDouble(r), r.heldoutMetric());
      }
      XYSeriesCollection data = new XYSeriesCollection();
      XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(false, true);
      int i = 0;
      for (Map.Entry<Family, XYSeries> e : byFamily.entrySet()) {
        data.addSeries(e.getValue());
        r.setSeriesPaint(i, familyColor(e.getKey()));
        r.setSeriesShape(i, familyShape(e.getKey()));
        i++;
      }
      double rho = a.rho(runs);
      String rho3 = Double.isNaN(rho) ? "n/a" : String.format(Locale.ROOT, "%.3f", rho);
      LogAxis x = new LogAxis(a.label + "   (ρ = " + rho3 + ", n = " + used.size() + ")");
      x.setLabelFont(AXIS);
      ticks(x, used.stream().mapToDouble(a.x).toArray(), new Significant());
      XYPlot panel = plot(data, x, null, r);
      noData(panel, used.isEmpty());
      plot.add(panel, 1);
      if (first == null) {
        first = panel;
      }
    }
    plot.setFixedLegendItems(first.getLegendItems());
    return new JFreeChart(dataName + ": " + metric
        + " vs kernel approximation quantities, every run (log x; ρ over the runs drawn)",
        JFreeChart.DEFAULT_TITLE_FONT, plot, true);
  }

  private static XYPlot plot(org.jfree.data.xy.XYDataset data, ValueAxis x, ValueAxis y,
      XYLineAndShapeRenderer r) {
    return ChartStyle.style(new XYPlot(data, x, y, r));
  }

  /**
   * The series' usual look, except fp32: a wide pale band under the others, since b = 16 lies on
   * it and would hide a line of the usual width (the last series is drawn first, underneath).
   */
  private static XYLineAndShapeRenderer fig3Lines(List<RunRecord> firsts) {
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < firsts.size(); i++) {
      style(r, i, firsts.get(i));
      if (firsts.get(i).method().equals(RunRecord.RFF)) {
        r.setSeriesPaint(i, new Color(0, 0, 0, 70));
        r.setSeriesStroke(i, new BasicStroke(7f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        r.setSeriesShape(i, new Rectangle2D.Double(-7, -7, 14, 14));
      }
    }
    return r;
  }

  /**
   * One look per series, the same in every figure: LP-RFF colored by b, its quantizer's family
   * told by line and shape (stochastic solid with filled circles, nearest dashed with triangles,
   * shared-threshold dotted with triangles pointing down, lloyd-max dash-dotted with crosses,
   * sigma-delta long-dashed with a polygon of 4 + order corners, any other dashed with
   * triangles), RFF black (dense) or gray (circulant), Nyström red.
   */
  private static void style(XYLineAndShapeRenderer r, int i, RunRecord first) {
    Color color;
    Stroke stroke = SOLID;
    Shape shape = new Ellipse2D.Double(-4, -4, 8, 8);
    switch (first.method()) {
      case RunRecord.RFF -> {
        color = first.projection().equals("dense") ? Color.BLACK : ChartStyle.color(7);
        shape = new Rectangle2D.Double(-4, -4, 8, 8);
      }
      case RunRecord.NYSTROM -> {
        color = ChartStyle.color(3);
        shape = diamond();
      }
      default -> {
        int log2 = 31 - Integer.numberOfLeadingZeros(Math.max(1, first.bits()));
        color = ChartStyle.color(new int[] {0, 1, 2, 4, 9}[Math.min(log2, 4)]);
        Family family = Family.of(first);
        if (family != Family.LP_STOCHASTIC) {
          stroke = switch (family) {
            case LP_SHARED_THRESHOLD -> DOTTED;
            case LP_LLOYD_MAX -> DASH_DOT;
            case LP_SIGMA_DELTA -> LONG_DASHED;
            default -> DASHED;
          };
          shape = familyShape(family);
          // Sigma-Delta's orders at one b: a pentagon, hexagon or heptagon.
          if (family == Family.LP_SIGMA_DELTA) {
            shape = polygon(4 + sigmaDeltaOrder(first.quantizer()), 5, -Math.PI / 2);
          }
        }
      }
    }
    r.setSeriesPaint(i, color);
    r.setSeriesStroke(i, stroke);
    r.setSeriesShape(i, shape);
  }

  /** The order of a Sigma-Delta spelling, 1 to 3 (a hand-edited runs.csv still plots). */
  private static int sigmaDeltaOrder(String spelling) {
    String[] parts = spelling.split(":");
    try {
      int order = parts.length > 1 ? Integer.parseInt(parts[1]) : Quantizer.DEFAULT_ORDER;
      return Math.clamp(order, 1, 3);
    } catch (NumberFormatException e) {
      return Quantizer.DEFAULT_ORDER;
    }
  }

  private static Color familyColor(Family f) {
    return switch (f) {
      case LP_STOCHASTIC -> ChartStyle.color(0);
      case LP_NEAREST -> ChartStyle.color(1);
      case LP_SHARED_THRESHOLD -> ChartStyle.color(2);
      case LP_LLOYD_MAX -> ChartStyle.color(4);
      case LP_SIGMA_DELTA -> ChartStyle.color(6);
      case RFF -> Color.BLACK;
      case NYSTROM -> ChartStyle.color(3);
      case OTHER -> ChartStyle.color(7);
    };
  }

  private static Shape familyShape(Family f) {
    return switch (f) {
      case LP_STOCHASTIC -> new Ellipse2D.Double(-3.5, -3.5, 7, 7);
      case LP_NEAREST, OTHER -> triangle();
      case LP_SHARED_THRESHOLD -> polygon(3, 5, Math.PI / 2); // a triangle pointing down
      case LP_LLOYD_MAX -> cross();
      case LP_SIGMA_DELTA -> polygon(5, 5, -Math.PI / 2);
      case RFF -> new Rectangle2D.Double(-3.5, -3.5, 7, 7);
      case NYSTROM -> diamond();
    };
  }

  /** A regular polygon of {@code corners} around the origin, the first corner at {@code angle}. */
  private static Shape polygon(int corners, double radius, double angle) {
    Path2D.Double p = new Path2D.Double();
    for (int k = 0; k < corners; k++) {
      double a = angle + 2 * Math.PI * k / corners;
      if (k == 0) {
        p.moveTo(radius * Math.cos(a), radius * Math.sin(a));
      } else {
        p.lineTo(radius * Math.cos(a), radius * Math.sin(a));
      }
    }
    p.closePath();
    return p;
  }

  /** A filled diagonal cross, 10 pixels wide. */
  private static Shape cross() {
    Path2D.Double plus = new Path2D.Double();
    double[][] corners = {{-1.5, -5}, {1.5, -5}, {1.5, -1.5}, {5, -1.5}, {5, 1.5}, {1.5, 1.5},
        {1.5, 5}, {-1.5, 5}, {-1.5, 1.5}, {-5, 1.5}, {-5, -1.5}, {-1.5, -1.5}};
    plus.moveTo(corners[0][0], corners[0][1]);
    for (int k = 1; k < corners.length; k++) {
      plus.lineTo(corners[k][0], corners[k][1]);
    }
    plus.closePath();
    plus.transform(AffineTransform.getRotateInstance(Math.PI / 4));
    return plus;
  }

  private static Shape triangle() {
    Path2D.Double t = new Path2D.Double();
    t.moveTo(0, -5);
    t.lineTo(4.5, 4);
    t.lineTo(-4.5, 4);
    t.closePath();
    return t;
  }

  private static Shape diamond() {
    Path2D.Double d = new Path2D.Double();
    d.moveTo(0, -5);
    d.lineTo(5, 0);
    d.lineTo(0, 5);
    d.lineTo(-5, 0);
    d.closePath();
    return d;
  }

  /**
   * Readable ticks for a log axis over {@code values}: powers of ten when they span 1.5 decades
   * or more (every k-th decade, at most about 7 labels), powers of two otherwise, instead of
   * LogAxis's default fractional powers (316.23, 2.512).
   */
  private static void ticks(LogAxis axis, double[] values, NumberFormat format) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    for (double v : values) {
      if (v > 0 && Double.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    axis.setNumberFormatOverride(format);
    axis.setMinorTickMarksVisible(true);
    if (hi == 0) {
      return; // no data: the default ticks
    }
    double decades = Math.log10(hi / lo);
    if (decades >= 1.5) {
      axis.setBase(10);
      axis.setTickUnit(new NumberTickUnit(Math.max(1, Math.ceil(decades / 7))));
    } else {
      axis.setBase(2);
      double octaves = decades / Math.log10(2);
      axis.setTickUnit(new NumberTickUnit(Math.max(1, Math.ceil(octaves / 7))));
    }
    axis.setMinorTickCount(axis.getBase() == 10 ? 9 : 1);
  }

  private static void noData(XYPlot plot, boolean empty) {
    ChartStyle.noData(plot, empty, "no runs");
  }

  /** Axis ticks to 3 significant digits, plain between 1e-4 and 1e6: 0.125, 2, 4096, 1e-05. */
  static final class Significant extends TickFormat {
    @Override
    public StringBuffer format(double v, StringBuffer to, FieldPosition pos) {
      if (v == 0 || !Double.isFinite(v)) {
        return to.append(v == 0 ? "0" : Double.toString(v));
      }
      double a = Math.abs(v);
      if (a < 1e-4 || a >= 1e6) {
        return to.append(String.format(Locale.ROOT, "%.2g", v));
      }
      return to.append(new java.math.BigDecimal(v).round(new java.math.MathContext(3))
          .stripTrailingZeros().toPlainString());
    }
  }

  /** Axis ticks in SI bits: 500 kbit, 2 Mbit, 1.5 Gbit. */
  static final class SiBits extends TickFormat {
    @Override
    public StringBuffer format(double v, StringBuffer to, FieldPosition pos) {
      String[] units = {"bit", "kbit", "Mbit", "Gbit", "Tbit"};
      int u = 0;
      while (Math.abs(v) >= 1000 && u < units.length - 1) {
        v /= 1000;
        u++;
      }
      return to.append(new DecimalFormat("0.##").format(v)).append(' ').append(units[u]);
    }
  }
}
