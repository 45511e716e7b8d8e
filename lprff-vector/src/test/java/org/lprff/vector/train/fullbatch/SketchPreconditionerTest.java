package org.lprff.vector.train.fullbatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.stream.FeatureRows;

/**
 * The preconditioner of a sample of affine packed rows keeps it packed (its products on the
 * packed kernels, its Gram from the codes): the same operator as the one built from the decoded
 * floats, up to the float products' rounding.
 */
class SketchPreconditionerTest {

  private static final int S = 300;
  private static final int M = 260; // not a multiple of any group or tile
  private static final QuantizationScale GRID = QuantizationScale.forFeatures(M, 4);

  /** S rows of random 4-bit codes, decoded; and a center near their mean. */
  private static float[] decodedSample(SplittableRandom random) {
    float[] rows = new float[S * M];
    for (int k = 0; k < rows.length; k++) {
      rows[k] = GRID.value(random.nextInt(GRID.levels()));
    }
    return rows;
  }

  private static double[] center(float[] rows, SplittableRandom random) {
    double[] c = new double[M];
    for (int i = 0; i < M; i++) {
      for (int r = 0; r < S; r++) {
        c[i] += rows[r * M + i];
      }
      c[i] = c[i] / S + random.nextDouble(-1e-3, 1e-3);
    }
    return c;
  }

  /**
   * P^-1 r and the model form for c = 3 outputs from the packed sample against the float one, at
   * a mu where the Woodbury term is most of the result (so an error in the Gram or the products
   * shows): within 1e-4 relative. Measured by breaking each part on purpose: one off-diagonal pair
   * of the code Gram off by 0.05 (7% of a diagonal entry, 0.76) moves apply by 1.6e-3; the
   * products' partials of one task dropped, by 0.49; the centering term with the wrong sign moves
   * the shift 11x.
   */
  @Test
  void aPackedSampleIsTheSameOperatorAsItsFloats() {
    SplittableRandom random = new SplittableRandom(5);
    float[] rows = decodedSample(random);
    double[] center = center(rows, random);
    SketchPreconditioner floats = new SketchPreconditioner(rows.clone(), S, M, center, null,
        SketchPreconditioner.SHIFT_DIVISOR, null);
    SketchPreconditioner packed = new SketchPreconditioner(rows.clone(), S, M, center, GRID,
        SketchPreconditioner.SHIFT_DIVISOR, null);
    // The float rows are the codes decoded and rounded to float: 1e-8 apart.
    assertEquals(floats.shift(), packed.shift(), 1e-6 * floats.shift());
    double mu = 1e-3;
    double[] r = new double[M];
    for (int i = 0; i < M; i++) {
      r[i] = random.nextGaussian();
    }
    double[] a = new double[M];
    double[] b = new double[M];
    floats.apply(mu, r, a);
    packed.apply(mu, r, b);
    assertClose(a, b, 1e-4, "apply");
    int c = 3;
    double[] g = new double[c * M + c];
    for (int k = 0; k < g.length; k++) {
      g[k] = random.nextGaussian();
    }
    double[] ga = new double[g.length];
    double[] gb = new double[g.length];
    floats.applyModel(mu, 0.25, g, c, ga);
    packed.applyModel(mu, 0.25, g, c, gb);
    assertClose(ga, gb, 1e-4, "applyModel");
  }

  /** The packed sample's products split rows over threads; the bits do not depend on how many. */
  @Test
  void aPackedApplicationIsIdenticalForAnyThreadCount() {
    SplittableRandom random = new SplittableRandom(6);
    float[] rows = decodedSample(random);
    double[] center = center(rows, random);
    double[] r = new double[M];
    for (int i = 0; i < M; i++) {
      r[i] = random.nextGaussian();
    }
    double[] serial = new double[M];
    double[] parallel = new double[M];
    new SketchPreconditioner(rows.clone(), S, M, center, GRID, SketchPreconditioner.SHIFT_DIVISOR,
        null).apply(1e-4, r, serial);
    new SketchPreconditioner(rows.clone(), S, M, center, GRID, SketchPreconditioner.SHIFT_DIVISOR,
        ForkJoinPool.commonPool()).apply(1e-4, r, parallel);
    assertArrayEquals(serial, parallel);
  }

  /**
   * Every l2 below shift / 16 gets one mu (so one factorization serves them, and the same
   * preconditioner, bit for bit); above it mu is l2 + shift, and without a shift (FALKON's P) l2
   * itself.
   */
  @Test
  void smallL2ValuesShareOneMu() {
    SplittableRandom random = new SplittableRandom(7);
    float[] rows = decodedSample(random);
    double[] center = center(rows, random);
    SketchPreconditioner p = new SketchPreconditioner(rows.clone(), S, M, center, GRID,
        SketchPreconditioner.SHIFT_DIVISOR, null);
    double shift = p.shift();
    double floor = shift / SketchPreconditioner.SHARED_BELOW;
    assertEquals(floor + shift, p.mu(0));
    assertEquals(p.mu(floor / 1000), p.mu(floor / 2));
    assertEquals(3 * floor + shift, p.mu(3 * floor));
    assertEquals(1e-2 + shift, p.mu(1e-2));
    double[] r = new double[M];
    for (int i = 0; i < M; i++) {
      r[i] = random.nextGaussian();
    }
    double[] a = new double[M];
    double[] b = new double[M];
    p.apply(p.mu(floor / 1000), r, a);
    p.apply(p.mu(floor / 2), r, b);
    assertArrayEquals(a, b);
    SketchPreconditioner falkon = new SketchPreconditioner(rows.clone(), S, M, center, GRID,
        Double.POSITIVE_INFINITY, null);
    assertEquals(0, falkon.shift());
    assertEquals(1e-9, falkon.mu(1e-9));
  }

  /** The sample knows its grid only while every row offered came from one grid. */
  @Test
  void theSampleKnowsItsGridOnlyForOneGridOfPackedRows() {
    byte[] bytes = new byte[4 * GRID.rowBytes(M)];
    FeatureRows a = FeatureRows.of(PackedRows.of(bytes, 0, 4, M, GRID));
    QuantizationScale other = QuantizationScale.of(4, GRID.lo(), GRID.step() * 2);
    FeatureRows b = FeatureRows.of(PackedRows.of(bytes, 0, 4, M, other));
    FeatureRows f = FeatureRows.float32(new float[4 * M], 0, 4, M);
    SmallestKeys one = new SmallestKeys(2, M);
    assertNull(one.grid(), "no rows yet");
    one.noteRows(a);
    one.noteRows(a);
    assertEquals(GRID, one.grid());
    SmallestKeys merged = new SmallestKeys(2, M);
    merged.noteRows(a);
    merged.addAll(one);
    assertNotNull(merged.grid());
    SmallestKeys mixed = new SmallestKeys(2, M);
    mixed.noteRows(a);
    mixed.noteRows(b);
    assertNull(mixed.grid(), "two grids");
    SmallestKeys withFloats = new SmallestKeys(2, M);
    withFloats.noteRows(f);
    withFloats.addAll(one);
    assertNull(withFloats.grid(), "float rows");
    one.addAll(mixed);
    assertNull(one.grid(), "merged with a mixed sample");
  }

  private static void assertClose(double[] expected, double[] actual, double relative,
      String what) {
    double norm = 0;
    double diff = 0;
    for (int i = 0; i < expected.length; i++) {
      norm = Math.max(norm, Math.abs(expected[i]));
      diff = Math.max(diff, Math.abs(expected[i] - actual[i]));
    }
    assertTrue(diff <= relative * norm, what + ": max difference " + diff + " against max "
        + norm);
  }
}
