package org.lprff.properties;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded random subsample of the diamonds data (diamonds.csv of the shared data folder: a
 * header, 9 numeric features, the price last), each feature standardized with the subsample's
 * mean and standard deviation. The folder is the system property {@code lprff.data}, by default
 * {@code ../../shared/data} relative to the module directory (Surefire's working directory), as
 * in lprff-vector's metrics tests; {@link #load} returns null when the file is absent.
 */
final class DiamondsSample {

  static final int D = 9;

  private DiamondsSample() {}

  static Path folder() {
    return Path.of(System.getProperty("lprff.data", "../../shared/data"));
  }

  static String missing() {
    return "diamonds.csv not found under " + folder().toAbsolutePath()
        + " (set -Dlprff.data=/path/to/shared/data); skipping the real-data property";
  }

  /** n standardized rows (n x 9, row-major), or null if the file is absent. */
  static float[] load(int n, long seed) throws IOException {
    Path file = folder().resolve("diamonds.csv");
    if (!Files.isRegularFile(file)) {
      return null;
    }
    List<double[]> rows = new ArrayList<>();
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = reader.readLine();
      if (header == null || header.split(",").length != D + 1) {
        throw new IOException("unexpected header in " + file + ": " + header);
      }
      for (String line; (line = reader.readLine()) != null; ) {
        if (line.isBlank()) {
          continue;
        }
        String[] parts = line.split(",");
        if (parts.length != D + 1) {
          throw new IOException("line " + (rows.size() + 2) + " has " + parts.length + " fields");
        }
        double[] row = new double[D];
        for (int j = 0; j < D; j++) {
          row[j] = Double.parseDouble(parts[j].trim());
        }
        rows.add(row);
      }
    }
    if (n > rows.size()) {
      throw new IllegalArgumentException("n is " + n + ", the file has " + rows.size() + " rows");
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = rows.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      double[] t = rows.get(i);
      rows.set(i, rows.get(j));
      rows.set(j, t);
    }
    float[] x = new float[n * D];
    for (int j = 0; j < D; j++) {
      double mean = 0;
      for (int i = 0; i < n; i++) {
        mean += rows.get(i)[j];
      }
      mean /= n;
      double sd = 0;
      for (int i = 0; i < n; i++) {
        double c = rows.get(i)[j] - mean;
        sd += c * c;
      }
      sd = Math.sqrt(sd / (n - 1));
      for (int i = 0; i < n; i++) {
        x[i * D + j] = (float) ((rows.get(i)[j] - mean) / (sd == 0 ? 1 : sd));
      }
    }
    return x;
  }
}
