package org.lprff.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.text.FieldPosition;
import java.text.ParsePosition;
import java.util.HashSet;
import java.util.Set;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.junit.jupiter.api.Test;

class ChartStyleTest {

  @Test
  void paletteIsTab10AndCycles() {
    int[] tab10 = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2,
        0x7f7f7f, 0xbcbd22, 0x17becf};
    assertEquals(tab10.length, ChartStyle.PALETTE_SIZE);
    for (int i = 0; i < tab10.length; i++) {
      assertEquals(new Color(tab10[i]), ChartStyle.color(i), "colour " + i);
      assertEquals(ChartStyle.color(i), ChartStyle.color(i + ChartStyle.PALETTE_SIZE));
    }
    assertEquals(ChartStyle.color(9), ChartStyle.color(-1));
  }

  @Test
  void usingTheStyleMakesAwtHeadless() {
    ChartStyle.color(0);
    assertEquals("true", System.getProperty("java.awt.headless"));
  }

  @Test
  void fontsAndStrokes() {
    Font f = ChartStyle.font(13);
    assertEquals(Font.SANS_SERIF, f.getName());
    assertEquals(Font.PLAIN, f.getStyle());
    assertEquals(13, f.getSize());
    assertEquals(ChartStyle.font(12), ChartStyle.SUBTITLE_FONT);
    assertEquals(new BasicStroke(2f), ChartStyle.LINE);
    BasicStroke dashed = (BasicStroke) ChartStyle.dashed(1.5f, 6, 4);
    assertEquals(1.5f, dashed.getLineWidth());
    assertArrayEquals(new float[] {6, 4}, dashed.getDashArray());
    assertEquals(BasicStroke.CAP_BUTT, dashed.getEndCap());
    assertEquals(BasicStroke.JOIN_MITER, dashed.getLineJoin());
    assertEquals(0f, dashed.getDashPhase());
  }

  @Test
  void stylesPlots() {
    XYPlot xy = new XYPlot();
    assertSame(xy, ChartStyle.style(xy));
    assertEquals(Color.WHITE, xy.getBackgroundPaint());
    assertEquals(Color.LIGHT_GRAY, xy.getRangeGridlinePaint());
    assertEquals(Color.LIGHT_GRAY, xy.getDomainGridlinePaint());
    CategoryPlot category = new CategoryPlot();
    assertSame(category, ChartStyle.style(category));
    assertEquals(Color.WHITE, category.getBackgroundPaint());
    assertEquals(Color.LIGHT_GRAY, category.getRangeGridlinePaint());
  }

  @Test
  void noDataSaysItsMessageOnlyWhenEmpty() {
    XYPlot full = new XYPlot();
    ChartStyle.noData(full, false, "no runs");
    assertNull(full.getNoDataMessage());
    XYPlot empty = new XYPlot();
    ChartStyle.noData(empty, true, "no runs");
    assertEquals("no runs", empty.getNoDataMessage());
  }

  @Test
  void pngHasTheSizeTheSubtitleAndTheBackground() throws IOException {
    XYSeries s = new XYSeries("line");
    s.add(1, 1);
    s.add(2, 4);
    s.add(3, 9);
    XYPlot plot = ChartStyle.style(new XYPlot(new XYSeriesCollection(s), new NumberAxis("x"),
        new NumberAxis("y"), new XYLineAndShapeRenderer()));
    JFreeChart chart = new JFreeChart("title", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    int subtitles = chart.getSubtitleCount();
    byte[] png = ChartStyle.png(chart, "the machine", 400, 300);
    assertEquals(subtitles + 1, chart.getSubtitleCount());
    TextTitle subtitle = (TextTitle) chart.getSubtitle(subtitles);
    assertEquals("the machine", subtitle.getText());
    assertEquals(ChartStyle.SUBTITLE_FONT, subtitle.getFont());
    BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
    assertEquals(400, image.getWidth());
    assertEquals(300, image.getHeight());
    assertEquals(Color.WHITE.getRGB(), image.getRGB(0, 0));
    assertTrue(distinctColours(image) > 4, "looks blank");

    DefaultCategoryDataset bars = new DefaultCategoryDataset();
    bars.addValue(1, "a", "x");
    JFreeChart untitled = new JFreeChart(ChartStyle.style(new CategoryPlot(bars,
        new CategoryAxis(), new NumberAxis(), new BarRenderer())));
    int before = untitled.getSubtitleCount();
    ChartStyle.png(untitled, null, 200, 100);
    assertEquals(before, untitled.getSubtitleCount(), "no subtitle when null");
    assertEquals(Color.WHITE, untitled.getBackgroundPaint());
  }

  @Test
  void tickFormatFormatsLongsAsDoublesAndNeverParses() {
    TickFormat halves = new TickFormat() {
      @Override
      public StringBuffer format(double v, StringBuffer to, FieldPosition pos) {
        return to.append(v / 2);
      }
    };
    assertEquals("1.5", halves.format(3L));
    assertEquals("0.25", halves.format(0.5));
    assertThrows(UnsupportedOperationException.class,
        () -> halves.parse("1", new ParsePosition(0)));
  }

  private static int distinctColours(BufferedImage image) {
    Set<Integer> colours = new HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 3) {
      for (int x = 0; x < image.getWidth(); x += 3) {
        colours.add(image.getRGB(x, y));
      }
    }
    return colours.size();
  }
}
