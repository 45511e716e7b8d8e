package org.lprff.vector.transform;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.simd.panama.VectorShape;
import org.lprff.vector.simd.spi.InterleavedBody;
import org.lprff.vector.testing.ProviderTestBase;

/**
 * The interleaved-layout operations of the structured projections. All are exact (moves and one
 * multiply per element), so both bodies must equal the definition bit for bit, for the lane-wide
 * width the projections use and for other widths (the vector body's general and scalar paths).
 */
class InterleavedBodyTest extends ProviderTestBase {

  private static final int LANES = VectorShape.FLOAT.length();
  private static final int[] WIDTHS = {1, 3, LANES - 1, LANES, LANES + 1, 2 * LANES};
  private static final int[] LENGTHS = {1, 2, 7, 8, 9, 16, 17, 64, 100};

  private final InterleavedBody scalar = SCALAR.interleaved();
  private final InterleavedBody vector = VECTOR.interleaved();
  private final SplittableRandom random = new SplittableRandom(23);

  @Test
  void scaleAndPermuteScaleMatchTheDefinition() {
    for (int width : WIDTHS) {
      for (int n : LENGTHS) {
        float[] src = randomFloats(n * width);
        float[] diagonal = randomFloats(n);
        int[] permutation = RandomParameters.permutation(5, 7, n);
        float[] scaled = new float[n * width];
        float[] permuted = new float[n * width];
        for (int i = 0; i < n; i++) {
          for (int c = 0; c < width; c++) {
            scaled[i * width + c] = src[i * width + c] * diagonal[i];
            permuted[i * width + c] = diagonal[i] * src[permutation[i] * width + c];
          }
        }
        String where = "width " + width + ", n " + n;
        for (InterleavedBody body : new InterleavedBody[] {scalar, vector}) {
          String name = body.getClass().getSimpleName() + ", " + where;
          float[] out = new float[n * width];
          body.scale(src, diagonal, out, n, width);
          assertArrayEquals(scaled, out, name);
          float[] inPlace = src.clone();
          body.scale(inPlace, diagonal, inPlace, n, width);
          assertArrayEquals(scaled, inPlace, "in place, " + name);
          float[] moved = new float[n * width];
          body.permuteScale(src, permutation, diagonal, moved, n, width);
          assertArrayEquals(permuted, moved, name);
        }
      }
    }
  }

  /**
   * Into the layout and out again: counts around whole 8 x 8 tiles (the vector transpose) and
   * windows that start inside the layout, written at an offset with a row stride.
   */
  @Test
  void interleaveAndDeinterleaveMatchTheDefinition() {
    for (int width : WIDTHS) {
      for (int length : LENGTHS) {
        int rowStride = length + 3;
        float[] rows = randomFloats(2 + width * rowStride);
        float[] expected = new float[(length + 5) * width];
        for (int c = 0; c < width; c++) {
          for (int i = 0; i < length; i++) {
            expected[i * width + c] = rows[2 + c * rowStride + i];
          }
        }
        for (InterleavedBody body : new InterleavedBody[] {scalar, vector}) {
          String name = body.getClass().getSimpleName() + ", width " + width + ", length " + length;
          float[] layout = new float[(length + 5) * width];
          body.interleave(rows, 2, rowStride, length, layout, width);
          assertArrayEquals(expected, layout, name);

          for (int first : new int[] {0, 1, length / 2}) {
            int count = length - first;
            int outStride = count + 2;
            float[] out = randomFloats(3 + width * outStride);
            float[] wanted = out.clone();
            for (int c = 0; c < width; c++) {
              for (int e = 0; e < count; e++) {
                wanted[3 + c * outStride + e] = layout[(first + e) * width + c];
              }
            }
            body.deinterleave(layout, first, count, width, out, 3, outStride);
            assertArrayEquals(wanted, out, name + ", first " + first);
          }
        }
      }
    }
  }

  /**
   * The lane-parallel circulant product equals {@link CirculantPlan#multiply} of each column bit
   * for bit (same operations per lane), for every n from 1 to 2^12 (the vector body goes
   * depth-first from 2^10 at 16 lanes, 2^11 at 8) and widths around the lanes.
   */
  @Test
  void circulantMatchesThePlanColumnByColumn() {
    for (int e = 0; e <= 12; e++) {
      int n = 1 << e;
      CirculantPlan plan = new CirculantPlan(randomFloats(n));
      for (int width : WIDTHS) {
        float[] x = randomFloats(n * width);
        float[] expected = new float[n * width];
        float[] line = new float[n];
        for (int c = 0; c < width; c++) {
          for (int i = 0; i < n; i++) {
            line[i] = x[i * width + c];
          }
          plan.multiply(line, line);
          for (int i = 0; i < n; i++) {
            expected[i * width + c] = line[i];
          }
        }
        for (InterleavedBody body : new InterleavedBody[] {scalar, vector}) {
          float[] out = new float[n * width];
          body.circulant(x, plan.spectrum(), new float[n * width], out, width);
          assertArrayEquals(expected, out, body.getClass().getSimpleName() + ", n " + n
              + ", width " + width);
          float[] inPlace = x.clone();
          body.circulant(inPlace, plan.spectrum(), new float[n * width], inPlace, width);
          assertArrayEquals(expected, inPlace, "in place, n " + n + ", width " + width);
        }
      }
    }
  }

  private float[] randomFloats(int n) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) (random.nextDouble() * 4 - 2);
    }
    return x;
  }
}
