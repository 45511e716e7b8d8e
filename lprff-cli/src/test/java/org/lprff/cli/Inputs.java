package org.lprff.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/** Small input files for the tests, and the rows they hold. */
final class Inputs {

  private Inputs() {}

  /**
   * Rows of {@code columns} floats and a label, seeded; each column has its own mean and scale so
   * that standardization matters.
   */
  record Table(float[] values, int rows, int columns, float[] labels) {

    static Table random(int rows, int columns, long seed) {
      Random random = new Random(seed);
      float[] values = new float[rows * columns];
      float[] labels = new float[rows];
      for (int r = 0; r < rows; r++) {
        for (int c = 0; c < columns; c++) {
          values[r * columns + c] = (float) (random.nextGaussian() * (c + 1) + 3 * c);
        }
        labels[r] = (float) random.nextGaussian();
      }
      return new Table(values, rows, columns, labels);
    }

    /** The same rows with integer class labels 0..classes-1. */
    Table withClassLabels(int classes) {
      float[] classLabels = new float[rows];
      for (int r = 0; r < rows; r++) {
        classLabels[r] = r % classes;
      }
      return new Table(values, rows, columns, classLabels);
    }

    /** Columns {@code c0 .. c<d-1>} and {@code label} last; Float.toString parses back exactly. */
    Path writeCsv(Path path) throws IOException {
      List<String> lines = new ArrayList<>();
      StringBuilder header = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        header.append('c').append(c).append(',');
      }
      lines.add(header.append("label").toString());
      for (int r = 0; r < rows; r++) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < columns; c++) {
          line.append(values[r * columns + c]).append(',');
        }
        lines.add(line.append(labels[r]).toString());
      }
      return Files.write(path, lines);
    }

    /**
     * The rows standardized as the tool must: (float) ((x - mean) / std) in double, with the
     * given statistics.
     */
    float[] standardized(double[] mean, double[] std) {
      float[] out = new float[values.length];
      for (int r = 0; r < rows; r++) {
        for (int c = 0; c < columns; c++) {
          out[r * columns + c] = (float) ((values[r * columns + c] - mean[c]) / std[c]);
        }
      }
      return out;
    }

    /** Column means, computed directly in double. */
    double[] means() {
      double[] mean = new double[columns];
      for (int r = 0; r < rows; r++) {
        for (int c = 0; c < columns; c++) {
          mean[c] += values[r * columns + c];
        }
      }
      for (int c = 0; c < columns; c++) {
        mean[c] /= rows;
      }
      return mean;
    }

    /** Sample standard deviations (n - 1), computed directly in double with two passes. */
    double[] stds() {
      double[] mean = means();
      double[] std = new double[columns];
      for (int r = 0; r < rows; r++) {
        for (int c = 0; c < columns; c++) {
          double d = values[r * columns + c] - mean[c];
          std[c] += d * d;
        }
      }
      for (int c = 0; c < columns; c++) {
        std[c] = Math.sqrt(std[c] / (rows - 1));
      }
      return std;
    }
  }

  /** The names in a directory, sorted (to check that nothing, not even a temporary, is left). */
  static List<String> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
