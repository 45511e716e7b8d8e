package org.lprff.vector.metrics;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The diamonds regression data (../shared/data/diamonds.csv: header, 9 numeric features, price
 * last) prepared as the data README says: target log(price), a seeded random split, each feature
 * standardized with the training part's mean and standard deviation.
 *
 * <p>The folder is the system property {@code lprff.data}, by default {@code ../../shared/data}
 * relative to the module directory (the surefire working directory). {@link #load} returns null
 * when the file is absent, so tests can skip with {@link #MISSING}.
 */
final class Diamonds {

  static final int D = 9;

  static final String MISSING =
      "diamonds.csv not found under " + folder().toAbsolutePath()
          + " (set -Dlprff.data=/path/to/shared/data); skipping the real-data test";

  final int trainCount;
  final int heldoutCount;
  final float[] trainX;
  final double[] trainY;
  final float[] heldoutX;
  final double[] heldoutY;

  private Diamonds(
      int trainCount, int heldoutCount, float[] trainX, double[] trainY, float[] heldoutX,
      double[] heldoutY) {
    this.trainCount = trainCount;
    this.heldoutCount = heldoutCount;
    this.trainX = trainX;
    this.trainY = trainY;
    this.heldoutX = heldoutX;
    this.heldoutY = heldoutY;
  }

  static Path folder() {
    return Path.of(System.getProperty("lprff.data", "../../shared/data"));
  }

  /**
   * trainCount and heldoutCount distinct rows drawn by a seeded shuffle (SplittableRandom, so the
   * rows are fixed for a seed), or null if the file is absent.
   */
  static Diamonds load(int trainCount, int heldoutCount, long seed) throws IOException {
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
        double[] row = new double[D + 1];
        for (int j = 0; j <= D; j++) {
          row[j] = Double.parseDouble(parts[j].trim());
        }
        rows.add(row);
      }
    }
    if (trainCount + heldoutCount > rows.size()) {
      throw new IllegalArgumentException("only " + rows.size() + " rows");
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = rows.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      double[] t = rows.get(i);
      rows.set(i, rows.get(j));
      rows.set(j, t);
    }
    double[] mean = new double[D];
    double[] sd = new double[D];
    for (int i = 0; i < trainCount; i++) {
      for (int j = 0; j < D; j++) {
        mean[j] += rows.get(i)[j];
      }
    }
    for (int j = 0; j < D; j++) {
      mean[j] /= trainCount;
    }
    for (int i = 0; i < trainCount; i++) {
      for (int j = 0; j < D; j++) {
        double c = rows.get(i)[j] - mean[j];
        sd[j] += c * c;
      }
    }
    for (int j = 0; j < D; j++) {
      sd[j] = Math.sqrt(sd[j] / (trainCount - 1));
      if (sd[j] == 0) {
        sd[j] = 1;
      }
    }
    float[] trainX = new float[trainCount * D];
    double[] trainY = new double[trainCount];
    float[] heldoutX = new float[heldoutCount * D];
    double[] heldoutY = new double[heldoutCount];
    for (int i = 0; i < trainCount + heldoutCount; i++) {
      double[] row = rows.get(i);
      boolean train = i < trainCount;
      int r = train ? i : i - trainCount;
      for (int j = 0; j < D; j++) {
        float v = (float) ((row[j] - mean[j]) / sd[j]);
        (train ? trainX : heldoutX)[r * D + j] = v;
      }
      (train ? trainY : heldoutY)[r] = Math.log(row[D]);
    }
    return new Diamonds(trainCount, heldoutCount, trainX, trainY, heldoutX, heldoutY);
  }
}
