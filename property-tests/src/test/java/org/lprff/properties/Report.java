package org.lprff.properties;

/** Prints the measured values of the statistical properties when -Dlprff.props.verbose=true. */
final class Report {

  private Report() {}

  static void line(String text) {
    if (Boolean.getBoolean("lprff.props.verbose")) {
      System.out.println(text);
    }
  }
}
