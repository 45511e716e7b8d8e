package org.lprff.cli.workflow;

import java.io.IOException;
import java.io.InputStream;

/** The data shipped inside lprff: diamonds (ggplot2's, MIT), read by demo and experiment. */
public final class ShippedData {

  /** Where diamonds.csv is among the resources. */
  static final String DIAMONDS = "/org/lprff/cli/diamonds.csv";

  private ShippedData() {}

  /** diamonds.csv: 53,940 rows, 9 numeric features, price last, a header row. */
  public static InputStream diamonds() throws IOException {
    InputStream in = ShippedData.class.getResourceAsStream(DIAMONDS);
    if (in == null) {
      throw new IOException("diamonds.csv is missing from lprff's jar (" + DIAMONDS
          + "): rebuild it with ./mvnw package");
    }
    return in;
  }
}
