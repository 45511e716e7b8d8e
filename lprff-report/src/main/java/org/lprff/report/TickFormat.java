package org.lprff.report;

import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;

/**
 * An axis' tick labels, for {@code NumberAxis.setNumberFormatOverride}: a subclass formats
 * doubles only (longs go through it); JFreeChart formats, never parses.
 */
public abstract class TickFormat extends NumberFormat {

  @Override
  public abstract StringBuffer format(double v, StringBuffer to, FieldPosition pos);

  @Override
  public StringBuffer format(long v, StringBuffer to, FieldPosition pos) {
    return format((double) v, to, pos);
  }

  @Override
  public Number parse(String source, ParsePosition pos) {
    throw new UnsupportedOperationException();
  }
}
