package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.fixtures.Diamonds;

class StandardizationTest {

  @TempDir Path dir;

  /**
   * Rows whose columns have means far from 0 relative to their spread (up to |mean| / std = 1e3),
   * where a one-pass sum of squares would lose digits.
   */
  private static float[] data(int rows, int d, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] centre = {0, 5, -300, 1e4, 2.5};
    double[] spread = {1, 0.01, 50, 10, 1e-3};
    float[] x = new float[rows * d];
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < d; c++) {
        x[r * d + c] = (float) (centre[c % 5] + spread[c % 5] * random.nextGaussian());
      }
    }
    return x;
  }

  /**
   * The definition, directly: mean = sum / n, std = sqrt(sum (x - mean)^2 / (n - 1)), in double.
   */
  private static double[][] twoPass(float[] x, int rows, int d) {
    double[] mean = new double[d];
    double[] std = new double[d];
    for (int c = 0; c < d; c++) {
      double sum = 0;
      for (int r = 0; r < rows; r++) {
        sum += x[r * d + c];
      }
      mean[c] = sum / rows;
      double squares = 0;
      for (int r = 0; r < rows; r++) {
        double deviation = x[r * d + c] - mean[c];
        squares += deviation * deviation;
      }
      std[c] = Math.sqrt(squares / (rows - 1));
    }
    return new double[][] {mean, std};
  }

  private static Standardization fitInBatches(float[] x, int rows, int d, int batch) {
    Standardization.Accumulator accumulator = new Standardization.Accumulator(d);
    for (int start = 0; start < rows; start += batch) {
      int n = Math.min(batch, rows - start);
      float[] values = java.util.Arrays.copyOfRange(x, start * d, (start + n) * d);
      accumulator.add(new RowBatch(values, n, d, null, start));
    }
    assertEquals(rows, accumulator.count());
    return accumulator.finish(names(d));
  }

  private static List<String> names(int d) {
    return java.util.stream.IntStream.range(0, d).mapToObj(c -> "c" + c).toList();
  }

  /**
   * Tolerance. Both sides sum n = 2000 values in double: each mean is off by at most about gamma_n
   * * max|x| (gamma_n = n u / (1 - n u) ~ 2.2e-13 with u = 2^-53), so |mean error| <= 2.2e-13 *
   * (|mean| + 5 std) < 1e-11 (|mean| + std) here. The sums of squared deviations are computed about
   * means that differ by that much, and Chan's merge adds delta^2 n_a n_b / n terms whose rounding
   * is relative to the same squares, so std agrees to a relative gamma_n-sized error amplified by
   * |mean| / std <= 1e3 (the deviations subtract numbers of magnitude |mean|): about 2.2e-10; we
   * allow 1e-9.
   */
  private static void assertClose(double[][] expected, Standardization actual, String what) {
    for (int c = 0; c < actual.size(); c++) {
      double mean = expected[0][c];
      double std = expected[1][c];
      assertEquals(mean, actual.mean(c), 1e-11 * (Math.abs(mean) + std), what + " mean " + c);
      assertEquals(std, actual.std(c), 1e-9 * std, what + " std " + c);
    }
  }

  @Test
  void statisticsMatchTheTwoPassDefinitionForEveryBatchSize() {
    int rows = 2000;
    int d = 5;
    float[] x = data(rows, d, 42L);
    double[][] expected = twoPass(x, rows, d);
    for (int batch : new int[] {1, 7, 100, 999, rows}) {
      assertClose(expected, fitInBatches(x, rows, d, batch), "batch " + batch);
    }
  }

  @Test
  void constantColumnsAndSingleRowsPassThrough() {
    float[] x = {3.25f, 1, 3.25f, 2, 3.25f, 4};
    Standardization s = fitInBatches(x, 3, 2, 2);
    assertEquals(3.25, s.mean(0), 0.0, "the mean of equal values is exact");
    assertEquals(1.0, s.std(0), 0.0, "a constant column gets std 1");
    assertEquals(7.0 / 3, s.mean(1), 1e-15);
    assertEquals(
        Math.sqrt((sq(1 - 7.0 / 3) + sq(2 - 7.0 / 3) + sq(4 - 7.0 / 3)) / 2), s.std(1), 1e-15);
    Standardization one = fitInBatches(new float[] {5, -2}, 1, 2, 1);
    assertEquals(1.0, one.std(0), 0.0);
    assertEquals(1.0, one.std(1), 0.0);
    assertEquals(-2.0, one.mean(1), 0.0);
  }

  private static double sq(double v) {
    return v * v;
  }

  @Test
  void applyCentresAndScales() throws IOException {
    int rows = 2000;
    int d = 5;
    float[] x = data(rows, d, 5L);
    Standardization s = fitInBatches(x, rows, d, 64);
    float[] copy = x.clone();
    RowBatch batch = new RowBatch(copy, rows, d, null, 0);
    s.apply(batch);
    for (int i = 0; i < x.length; i++) {
      int c = i % d;
      assertEquals((float) ((x[i] - s.mean(c)) / s.std(c)), copy[i], "value " + i);
    }
    // Standardized again: mean ~0 and std ~1, up to the float rounding of the standardized
    // values (relative 2^-24 each, so at most ~6e-8 * max|z| ~ 4e-7 on the mean and std).
    Standardization after = fitInBatches(copy, rows, d, rows);
    for (int c = 0; c < d; c++) {
      assertEquals(0.0, after.mean(c), 1e-6, "mean of column " + c);
      assertEquals(1.0, after.std(c), 1e-6, "std of column " + c);
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> s.apply(new RowBatch(new float[4], 1, 4, null, 0)));
    assertTrue(e.getMessage().contains("batch has 4 columns, standardization has 5"));
  }

  @Test
  void mapRoundTripIsExact() {
    float[] x = data(500, 5, 9L);
    Standardization s = fitInBatches(x, 500, 5, 33);
    List<String> awkward = List.of("a,b", "100%", "%2C", "", "carat");
    double[] mean = new double[5];
    double[] std = new double[5];
    for (int c = 0; c < 5; c++) {
      mean[c] = s.mean(c);
      std[c] = s.std(c);
    }
    mean[3] = Double.MIN_VALUE;
    std[4] = Double.MAX_VALUE;
    Standardization original = Standardization.of(awkward, mean, std);
    Map<String, String> map = original.toMap();
    assertEquals(
        List.of(Standardization.KEY_MEAN, Standardization.KEY_STD, Standardization.KEY_COLUMNS),
        List.copyOf(map.keySet()));
    Map<String, String> withOthers = new HashMap<>(map);
    withOthers.put("lprff.kernel", "gaussian");
    Standardization back = Standardization.fromMap(withOthers);
    assertEquals(original, back);
    assertNotSame(original, back);
    assertEquals(awkward, back.columns());
    for (int c = 0; c < 5; c++) {
      assertEquals(Double.doubleToLongBits(mean[c]), Double.doubleToLongBits(back.mean(c)));
      assertEquals(Double.doubleToLongBits(std[c]), Double.doubleToLongBits(back.std(c)));
    }
  }

  @Test
  void fromMapRejectsBadStatistics() {
    Map<String, String> good =
        Map.of(
            Standardization.KEY_MEAN, "1.5,2.0",
            Standardization.KEY_STD, "0.5,3.0",
            Standardization.KEY_COLUMNS, "x,y");
    assertEquals(2, Standardization.fromMap(good).size());
    String[][] cases = {
      {Standardization.KEY_MEAN, "1.5", "2 columns, 1 means and 2 standard deviations"},
      {Standardization.KEY_STD, "0.5,3.0,1", "2 columns, 2 means and 3 standard deviations"},
      {Standardization.KEY_COLUMNS, "x", "1 columns, 2 means"},
      {Standardization.KEY_MEAN, "1.5,NaN", "mean of column 'y' (index 1) is NaN"},
      {Standardization.KEY_MEAN, "Infinity,1", "mean of column 'x' (index 0) is Infinity"},
      {Standardization.KEY_STD, "0.5,0", "std of column 'y' (index 1) is 0.0"},
      {Standardization.KEY_STD, "-1,1", "std of column 'x' (index 0) is -1.0"},
      {Standardization.KEY_STD, "0.5,abc", "lprff.standardize.std value 1 'abc' is not a number"},
    };
    for (String[] c : cases) {
      Map<String, String> map = new HashMap<>(good);
      map.put(c[0], c[1]);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Standardization.fromMap(map));
      assertTrue(e.getMessage().contains(c[2]), e.getMessage());
    }
    Map<String, String> missing = new HashMap<>(good);
    missing.remove(Standardization.KEY_STD);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Standardization.fromMap(missing));
    assertTrue(e.getMessage().contains("metadata has no lprff.standardize.std"), e.getMessage());
  }

  @Test
  void rowFilterFitsOnlyTheChosenRows() {
    int rows = 301;
    int d = 5;
    float[] x = data(rows, d, 77L);
    Standardization.Accumulator even = new Standardization.Accumulator(d);
    for (int start = 0; start < rows; start += 17) {
      int n = Math.min(17, rows - start);
      float[] values = java.util.Arrays.copyOfRange(x, start * d, (start + n) * d);
      even.add(new RowBatch(values, n, d, null, start), id -> id % 2 == 0);
    }
    int kept = (rows + 1) / 2;
    float[] evenRows = new float[kept * d];
    for (int r = 0; r < kept; r++) {
      System.arraycopy(x, 2 * r * d, evenRows, r * d, d);
    }
    assertEquals(kept, even.count());
    assertClose(twoPass(evenRows, kept, d), even.finish(names(d)), "even rows");
  }

  @Test
  void fitReadsASourceAndColumnsAreChecked() throws IOException {
    Path csv = dir.resolve("s.csv");
    Files.writeString(csv, "a,b,y\n1,10,0\n2,10,1\n3,10,0\n");
    Standardization s;
    try (CsvRowSource source = CsvRowSource.open(csv, LabelColumn.LAST, 2)) {
      s = Standardization.fit(source);
    }
    assertEquals(List.of("a", "b"), s.columns());
    assertEquals(2.0, s.mean(0), 0.0);
    assertEquals(1.0, s.std(0), 0.0);
    assertEquals(10.0, s.mean(1), 0.0);
    assertEquals(1.0, s.std(1), 0.0);
    s.requireColumns(List.of("a", "b"));
    IllegalArgumentException renamed =
        assertThrows(IllegalArgumentException.class, () -> s.requireColumns(List.of("a", "c")));
    assertTrue(renamed.getMessage().contains("input column 1 is 'c', standardization has 'b'"));
    assertThrows(IllegalArgumentException.class, () -> s.requireColumns(List.of("a")));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Standardization.Accumulator(2).finish(List.of("a", "b")));
  }

  /** Diamonds: known statistics (python statistics.mean / stdev), and standardized ~N(0, 1). */
  @Test
  void diamondsStatistics() throws IOException {
    Path path = Diamonds.copyTo(dir);
    Standardization s;
    try (RowSource source = CsvRowSource.open(path, LabelColumn.LAST, 4096)) {
      s = Standardization.fit(source);
    }
    // Reference from Python on the decimal text; the reader sees floats, which differ from the
    // decimals by up to 2^-24 relative (~6e-8), so the statistics agree to ~1e-7 relative.
    assertEquals(0.7979397478680015, s.mean(0), 1e-7 * 0.8);
    assertEquals(0.4740112444054184, s.std(0), 1e-7 * 0.8);
    assertEquals(3.904097144975899, s.mean(1), 1e-12, "cut: integer codes are exact");
    assertEquals(1.1165999071874644, s.std(1), 1e-12);
    Standardization.Accumulator after = new Standardization.Accumulator(9);
    try (RowSource source = CsvRowSource.open(path, LabelColumn.LAST, 1000)) {
      for (RowBatch b = source.next(); b != null; b = source.next()) {
        s.apply(b);
        after.add(b);
      }
    }
    Standardization standardized = after.finish(s.columns());
    for (int c = 0; c < 9; c++) {
      assertEquals(0.0, standardized.mean(c), 1e-6, "mean of " + s.columns().get(c));
      assertEquals(1.0, standardized.std(c), 1e-6, "std of " + s.columns().get(c));
    }
    assertEquals(s, Standardization.fromMap(s.toMap()));
  }
}
