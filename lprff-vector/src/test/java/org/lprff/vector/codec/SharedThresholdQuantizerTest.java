package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.Projections;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.simd.spi.CosineCodes;

class SharedThresholdQuantizerTest {

  private static final int[] BITS = {1, 2, 4, 8};
  private static final long SEED = 0x5EED_7B_2024L;

  /** Cosines in [-1, 1]: the ends, the levels, the midpoints and uniform ones. */
  private static float[] cosines(SplittableRandom random, int bits, int n) {
    int intervals = (1 << bits) - 1;
    float[] c = new float[n];
    for (int i = 0; i < n; i++) {
      c[i] = switch (random.nextInt(10)) {
        case 0 -> -1f;
        case 1 -> 1f;
        case 2 -> (float) (2.0 * random.nextInt(intervals + 1) / intervals - 1); // a level
        case 3 -> (float) (2.0 * (random.nextInt(intervals) + 0.5) / intervals - 1); // a midpoint
        default -> (float) (2 * random.nextDouble() - 1);
      };
    }
    return c;
  }

  /** The interval of c: clamp(T >> 16, 0, 2^b - 2), T as CosineCodes computes it. */
  private static int interval(float c, int bits) {
    float h = CosineCodes.gridScale(bits);
    return Math.clamp((int) Math.fma(c, h, h + 0.5f) >> 16, 0, (1 << bits) - 2);
  }

  @Test
  void codesAreTheFusedDefinition() {
    SplittableRandom random = new SplittableRandom(1);
    for (int bits : BITS) {
      int m = 300;
      int[] table = SharedThresholdQuantizer.draws(SEED, m, bits);
      SharedThresholdQuantizer q = new SharedThresholdQuantizer(bits, SEED);
      float[] c = cosines(random, bits, m);
      int[] codes = new int[m];
      q.codes(c, 0, m, 0, codes, 0);
      int intervals = (1 << bits) - 1;
      for (int i = 0; i < m; i++) {
        String what = "bits " + bits + " c " + c[i] + " feature " + i;
        // The featurizer's table form, and stochastic rounding's rule with the interval's draw.
        assertEquals(CosineCodes.sharedCode(c[i], table, i * intervals, bits), codes[i], what);
        int h = SharedThresholdQuantizer.draw(SEED, i, interval(c[i], bits));
        assertEquals(CosineCodes.code(c[i], h, bits), codes[i], what);
        assertEquals(codes[i], q.code(c[i], i), what);
      }
    }
  }

  @Test
  void drawsAreTheDocumentedCounterDraws() {
    assertEquals(CounterRng.bits16(SEED, Long.MIN_VALUE, 0, 0),
        SharedThresholdQuantizer.draw(SEED, 0, 0));
    assertEquals(CounterRng.bits16(SEED, Long.MIN_VALUE + 12345, 254, 0),
        SharedThresholdQuantizer.draw(SEED, 12345, 254));
    for (int bits : BITS) {
      int intervals = (1 << bits) - 1;
      int[] table = SharedThresholdQuantizer.draws(SEED, 37, bits);
      assertEquals(37 * intervals, table.length);
      for (int k = 0; k < table.length; k++) {
        assertEquals(SharedThresholdQuantizer.draw(SEED, k / intervals, k % intervals), table[k]);
        assertTrue(table[k] >= 0 && table[k] < 1 << 16);
      }
    }
    // Every draw row is below the parameter streams (>= -2^31) and the data rows (>= 0).
    assertTrue(SharedThresholdQuantizer.FIRST_ROW + Integer.MAX_VALUE
        < RandomParameters.row(Integer.MAX_VALUE));
  }

  @Test
  void endsAndLevelsAreExactWhateverTheSeed() {
    int levelsChecked = 0;
    for (int bits : BITS) {
      int intervals = (1 << bits) - 1;
      float h = CosineCodes.gridScale(bits);
      for (long seed = 0; seed < 50; seed++) {
        SharedThresholdQuantizer q = new SharedThresholdQuantizer(bits, seed);
        assertEquals(0, q.code(-1f, 3));
        assertEquals(intervals, q.code(1f, 3));
        assertEquals(0, q.code(Math.nextDown(-1f), 5)); // within the slack
        assertEquals(intervals, q.code(Math.nextUp(1f), 5));
        // A level whose T is a multiple of 2^16 never rounds up.
        int k = Math.min(intervals, 1 + (int) seed);
        float level = (float) (2.0 * k / intervals - 1);
        if (((int) Math.fma(level, h, h + 0.5f) & 0xFFFF) == 0) {
          assertEquals(k, q.code(level, (int) seed), "bits " + bits + " level " + k);
          levelsChecked++;
        }
      }
    }
    assertTrue(levelsChecked > 100, "only " + levelsChecked + " exact levels met");
  }

  @Test
  void deterministicWhateverTheCallAndMonotone() {
    SplittableRandom random = new SplittableRandom(2);
    for (int bits : BITS) {
      SharedThresholdQuantizer q = new SharedThresholdQuantizer(bits, SEED);
      float[] c = cosines(random, bits, 300);
      int[] whole = new int[300];
      q.codes(c, 0, 300, 0, whole, 0);
      int[] pieces = new int[300];
      for (int first = 0; first < 300; first += 37) {
        q.codes(c, first, Math.min(37, 300 - first), first, pieces, first);
      }
      assertArrayEquals(whole, pieces, "bits " + bits);
      // Monotone per feature: sort the cosines, the codes of one feature are sorted too.
      float[] sorted = c.clone();
      Arrays.sort(sorted);
      int previous = -1;
      for (float x : sorted) {
        int code = q.code(x, 7);
        assertTrue(code >= previous, "bits " + bits + ": not monotone at " + x);
        previous = code;
      }
      // Another seed changes some codes (300 cosines, each changes with probability ~ f(1 - f)).
      int[] other = new int[300];
      new SharedThresholdQuantizer(bits, SEED + 1).codes(c, 0, 300, 0, other, 0);
      assertNotEquals(Arrays.toString(whole), Arrays.toString(other), "bits " + bits);
    }
  }

  /**
   * The featurizer's bytes for {@link Quantizer#SHARED_THRESHOLD} are this class's codes of the
   * cosines CosineCodes.cosine(w_i . x + a_i, b), the projection and phases the featurizer's own.
   */
  @Test
  void featurizerWritesTheseCodes() {
    SplittableRandom random = new SplittableRandom(3);
    for (String projection : Projections.NAMES) {
      for (int bits : BITS) {
        for (int m : new int[] {1, 7, 8, 9, 64, 513, 1000}) {
          int d = 1 + random.nextInt(9);
          long seed = random.nextLong();
          FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1.5), d, m, bits,
              projection, seed, Quantizer.SHARED_THRESHOLD);
          Featurizer f = Featurizer.of(spec);
          int n = 5;
          float[] rows = new float[n * d];
          for (int k = 0; k < rows.length; k++) {
            rows[k] = (float) random.nextGaussian();
          }
          byte[] bytes = f.featurize(rows, n, 1 + random.nextInt(1000));
          SharedThresholdQuantizer q = new SharedThresholdQuantizer(bits, seed);
          float[] phases = f.phases();
          float[] t = new float[m];
          float[] c = new float[m];
          int[] expected = new int[m];
          int[] actual = new int[m];
          for (int r = 0; r < n; r++) {
            f.projection().project(rows, r * d, 1, 0, m, t, 0);
            for (int i = 0; i < m; i++) {
              c[i] = CosineCodes.cosine(t[i] + phases[i], bits);
            }
            q.codes(c, 0, m, 0, expected, 0);
            PackedFeatures.unpackCodes(bytes, r * f.rowBytes(), bits, m, actual, 0);
            assertArrayEquals(expected, actual,
                projection + " bits " + bits + " m " + m + " row " + r);
          }
        }
      }
    }
  }

  @Test
  void errorPathsNameTheValues() {
    SharedThresholdQuantizer q = new SharedThresholdQuantizer(4, 1);
    float[] c = new float[16];
    assertMessage("bits is 16", () -> new SharedThresholdQuantizer(16, 1));
    assertMessage("bits is 3", () -> SharedThresholdQuantizer.draws(1, 4, 3));
    assertMessage("features is -1", () -> SharedThresholdQuantizer.draws(1, -1, 4));
    assertMessage("feature is -1", () -> SharedThresholdQuantizer.draw(1, -1, 0));
    assertMessage("interval is -2", () -> SharedThresholdQuantizer.draw(1, 0, -2));
    assertMessage("feature is -3", () -> q.code(0f, -3));
    assertMessage("c is NaN", () -> q.code(Float.NaN, 0));
    assertMessage("c is 1.5", () -> q.code(1.5f, 0));
    c[4] = Float.NaN;
    assertMessage("cosines[4] is NaN", () -> q.codes(c, 0, 16, 0, new int[16], 0));
    c[4] = -1.01f;
    assertMessage("cosines[4] is -1.01", () -> q.codes(c, 0, 16, 0, new int[16], 0));
    c[4] = 0;
    assertMessage("firstFeature is -8", () -> q.codes(c, 0, 16, -8, new int[16], 0));
    assertMessage("length 16", () -> q.codes(c, 4, 16, 0, new int[16], 0));
    assertMessage("out has length 10", () -> q.codes(c, 0, 16, 0, new int[10], 0));
    assertMessage("count is -1", () -> q.codes(c, 0, -1, 0, new int[16], 0));
    assertMessage("cosines is null", () -> q.codes(null, 0, 1, 0, new int[16], 0));
  }
}
