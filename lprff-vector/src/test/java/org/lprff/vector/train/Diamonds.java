package org.lprff.vector.train;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.lprff.vector.stream.Shuffle;

/**
 * diamonds.csv for the real-data checks: 9 numeric features, target log(price), a seeded 80/20
 * split, features standardized with the training split's mean and standard deviation (the
 * conventions of shared/data/README.md). A tiny CSV parse: the real readers live in lprff-arrow.
 */
final class Diamonds {

  static final int D = 9;

  final int trainRows;
  final int heldoutRows;
  final float[] trainX;
  final float[] trainY;
  final float[] heldoutX;
  final float[] heldoutY;

  private Diamonds(int trainRows, int heldoutRows, float[] trainX, float[] trainY,
      float[] heldoutX, float[] heldoutY) {
    this.trainRows = trainRows;
    this.heldoutRows = heldoutRows;
    this.trainX = trainX;
    this.trainY = trainY;
    this.heldoutX = heldoutX;
    this.heldoutY = heldoutY;
  }

  /** The data folder: system property {@code lprff.data}, default ../../shared/data. */
  static Path csv() {
    Path dir = Path.of(System.getProperty("lprff.data", "../../shared/data"));
    Path file = dir.resolve("diamonds.csv").toAbsolutePath().normalize();
    Assumptions.assumeTrue(
        Files.isRegularFile(file),
        file + " not found (set -Dlprff.data=<folder of diamonds.csv>): skipping real-data test");
    return file;
  }

  static Diamonds load(long splitSeed) throws IOException {
    List<String> lines = Files.readAllLines(csv());
    int n = lines.size() - 1;
    double[] x = new double[n * D];
    double[] y = new double[n];
    for (int r = 0; r < n; r++) {
      String[] cells = lines.get(r + 1).split(",");
      if (cells.length != D + 1) {
        throw new IOException("line " + (r + 2) + " has " + cells.length + " cells, expected 10");
      }
      for (int j = 0; j < D; j++) {
        x[r * D + j] = Double.parseDouble(cells[j]);
      }
      y[r] = Math.log(Double.parseDouble(cells[D]));
    }
    int[] order = Shuffle.permutation(n, splitSeed, 0, Shuffle.EPOCH_ORDER);
    int trainRows = (int) Math.round(0.8 * n);
    int heldoutRows = n - trainRows;
    double[] mean = new double[D];
    double[] sq = new double[D];
    for (int k = 0; k < trainRows; k++) {
      for (int j = 0; j < D; j++) {
        double v = x[order[k] * D + j];
        mean[j] += v;
        sq[j] += v * v;
      }
    }
    double[] sd = new double[D];
    for (int j = 0; j < D; j++) {
      mean[j] /= trainRows;
      sd[j] = Math.sqrt(Math.max(sq[j] / trainRows - mean[j] * mean[j], 1e-300));
    }
    float[] trainX = new float[trainRows * D];
    float[] trainY = new float[trainRows];
    float[] heldoutX = new float[heldoutRows * D];
    float[] heldoutY = new float[heldoutRows];
    for (int k = 0; k < n; k++) {
      boolean train = k < trainRows;
      int row = train ? k : k - trainRows;
      float[] out = train ? trainX : heldoutX;
      for (int j = 0; j < D; j++) {
        out[row * D + j] = (float) ((x[order[k] * D + j] - mean[j]) / sd[j]);
      }
      (train ? trainY : heldoutY)[row] = (float) y[order[k]];
    }
    return new Diamonds(trainRows, heldoutRows, trainX, trainY, heldoutX, heldoutY);
  }

}
