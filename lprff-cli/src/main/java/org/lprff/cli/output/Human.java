package org.lprff.cli.output;

import java.util.Locale;

/** Number formats of the command's human-readable output (fixed, locale-independent). */
public final class Human {

  private Human() {}

  /** 53940 → "53,940". */
  public static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** Bytes in decimal units: "912 B", "4.1 kB", "110.6 MB", "2.30 GB". */
  public static String bytes(long n) {
    if (n < 1000) {
      return n + " B";
    }
    String[] units = {"kB", "MB", "GB", "TB"};
    double value = n;
    int unit = -1;
    while (value >= 1000 && unit < units.length - 1) {
      value /= 1000;
      unit++;
    }
    return String.format(Locale.ROOT, value < 10 ? "%.2f %s" : "%.1f %s", value, units[unit]);
  }

  /** 4 significant digits without trailing zeros: 0.7, 1.671, 1e-05, 2.5e+04. */
  public static String number(double x) {
    return String.format(Locale.ROOT, "%.4g", x).replaceAll("(\\.\\d*?)0+(e|$)", "$1$2")
        .replace(".e", "e").replaceAll("\\.$", "");
  }

  /** Seconds with 2 decimals below 100, else whole seconds. */
  public static String seconds(double s) {
    return String.format(Locale.ROOT, s < 100 ? "%.2f s" : "%.0f s", s);
  }
}
