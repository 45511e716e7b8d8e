package org.lprff.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Stroke;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.Plot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.TextTitle;

/**
 * The one look of lprff's plots (the experiment's figures, the benchmark report's charts), drawn
 * headless with JFreeChart: matplotlib's tab10 palette, plain sans-serif fonts, 2-pixel lines,
 * white backgrounds with light gray gridlines, PNG bytes.
 *
 * <p>A chart class calls {@link #headless()} first in its static initializer, before any AWT
 * class loads; using this class at all does the same.
 */
public final class ChartStyle {

  static {
    headless();
  }

  /** matplotlib's tab10: blue, orange, green, red, purple, brown, pink, gray, olive, cyan. */
  private static final Color[] PALETTE = {
      new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728),
      new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
      new Color(0xbcbd22), new Color(0x17becf)};

  /** Colours in {@link #color}'s cycle. */
  public static final int PALETTE_SIZE = PALETTE.length;

  /** Behind the chart and inside every plot. */
  public static final Color BACKGROUND = Color.WHITE;

  /** The gridlines of every plot. */
  public static final Color GRIDLINES = Color.LIGHT_GRAY;

  /** A chart's subtitle (the machine, the diverged runs): sans-serif 12. */
  public static final Font SUBTITLE_FONT = font(12);

  /** A series' line: solid, 2 pixels. */
  public static final Stroke LINE = new BasicStroke(2f);

  private ChartStyle() {}

  /** Sets {@code java.awt.headless}: plots are drawn on servers and in CI, without a display. */
  public static void headless() {
    System.setProperty("java.awt.headless", "true");
  }

  /** Colour {@code i} of the palette, cycling: {@code color(PALETTE_SIZE) == color(0)}. */
  public static Color color(int i) {
    return PALETTE[Math.floorMod(i, PALETTE.length)];
  }

  /** The plain sans-serif font of {@code size} points. */
  public static Font font(int size) {
    return new Font(Font.SANS_SERIF, Font.PLAIN, size);
  }

  /** A dashed line of {@code width} pixels: {@code pattern} alternates dash and gap lengths. */
  public static Stroke dashed(float width, float... pattern) {
    return new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1, pattern, 0);
  }

  /** {@code plot} on the background, with gridlines both ways; returns it. */
  public static <P extends XYPlot> P style(P plot) {
    plot.setBackgroundPaint(BACKGROUND);
    plot.setRangeGridlinePaint(GRIDLINES);
    plot.setDomainGridlinePaint(GRIDLINES);
    return plot;
  }

  /** {@code plot} on the background, with gridlines across the value axis; returns it. */
  public static CategoryPlot style(CategoryPlot plot) {
    plot.setBackgroundPaint(BACKGROUND);
    plot.setRangeGridlinePaint(GRIDLINES);
    return plot;
  }

  /** Says {@code message} in {@code plot} when {@code empty}. */
  public static void noData(Plot plot, boolean empty, String message) {
    if (empty) {
      plot.setNoDataMessage(message);
    }
  }

  /**
   * The PNG of {@code chart} at {@code width} x {@code height} pixels, after adding {@code
   * subtitle} (none when null) and the chart's background.
   */
  public static byte[] png(JFreeChart chart, String subtitle, int width, int height)
      throws IOException {
    if (subtitle != null) {
      chart.addSubtitle(new TextTitle(subtitle, SUBTITLE_FONT));
    }
    chart.setBackgroundPaint(BACKGROUND);
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    ChartUtils.writeChartAsPNG(png, chart, width, height);
    return png.toByteArray();
  }
}
