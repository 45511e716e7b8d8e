package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.random.RandomParameters;

class SharedThresholdQuantizerTest {

  private static final int[] BITS = BitPackingTest.BITS;
  private static final long SEED = 0x5EED_7B_2024L;

  private static float[] values(SplittableRandom random, QuantizationScale scale, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = switch (random.nextInt(10)) {
        case 0 -> scale.lo();
        case 1 -> (float) scale.hi();
        case 2 -> scale.value(random.nextInt(scale.levels())); // a level
        default -> (float) (scale.lo() + (scale.hi() - scale.lo()) * random.nextDouble());
      };
    }
    return v;
  }

  /**
   * The definition in exact decimal arithmetic: t = (v - lo) / step to 40 digits, j = clamped
   * floor, up iff t - j > u, u the documented counter draw.
   */
  private static int definition(float v, QuantizationScale scale, long seed, int feature) {
    BigDecimal t =
        new BigDecimal(v).subtract(new BigDecimal(scale.lo()))
            .divide(new BigDecimal(scale.step()), new java.math.MathContext(40));
    int j = Math.clamp(t.setScale(0, java.math.RoundingMode.FLOOR).intValueExact(), 0,
        scale.maxCode() - 1);
    double u = CounterRng.uniformDouble(seed, Long.MIN_VALUE + feature, j, 0);
    return t.subtract(BigDecimal.valueOf(j)).compareTo(new BigDecimal(u)) > 0 ? j + 1 : j;
  }

  @Test
  void codesFollowTheDefinition() {
    SplittableRandom random = new SplittableRandom(1);
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(1000, bits);
      SharedThresholdQuantizer q = new SharedThresholdQuantizer(scale, SEED);
      float[] v = values(random, scale, 2000);
      int first = random.nextInt(1 << 20);
      int[] codes = new int[v.length];
      q.codes(v, 0, v.length, first, codes, 0);
      for (int k = 0; k < v.length; k++) {
        assertEquals(definition(v[k], scale, SEED, first + k), codes[k],
            "bits " + bits + " v " + v[k] + " feature " + (first + k));
        assertEquals(codes[k], q.code(v[k], first + k));
      }
    }
  }

  @Test
  void thresholdIsTheDocumentedCounterDraw() {
    assertEquals(CounterRng.uniformDouble(SEED, Long.MIN_VALUE, 0, 0),
        SharedThresholdQuantizer.threshold(SEED, 0, 0));
    assertEquals(CounterRng.uniformDouble(SEED, Long.MIN_VALUE + 12345, 65534, 0),
        SharedThresholdQuantizer.threshold(SEED, 12345, 65534));
    // Every threshold row is below the parameter streams (>= -2^31) and the data rows (>= 0).
    assertTrue(SharedThresholdQuantizer.FIRST_ROW + Integer.MAX_VALUE
        < RandomParameters.row(Integer.MAX_VALUE));
    // Distinct (feature, interval) give distinct draws (2000 pairs; a 32-bit collision among them
    // has probability below 2000^2 / 2^33 ~ 5e-4, and the values are fixed by the seed).
    double[] u = new double[2000];
    for (int k = 0; k < u.length; k++) {
      u[k] = SharedThresholdQuantizer.threshold(SEED, k / 40, k % 40);
    }
    assertEquals(u.length, Arrays.stream(u).distinct().count());
  }

  @Test
  void levelsAndEndsAreExactWhateverTheSeed() {
    int levelsChecked = 0;
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(77, bits);
      for (long seed = 0; seed < 50; seed++) {
        SharedThresholdQuantizer q = new SharedThresholdQuantizer(scale, seed);
        assertEquals(0, q.code(scale.lo(), 3));
        assertEquals(scale.maxCode(), q.code((float) scale.hi(), 3));
        assertEquals(0, q.code(Math.nextDown(scale.lo()), 5)); // within the slack
        // A level whose t is exactly an integer c (f = 0) never rounds up.
        int c = Math.min(scale.maxCode(), 1 + (int) seed);
        float level = scale.value(c);
        if (((double) level - scale.lo()) / scale.step() == c) {
          assertEquals(c, q.code(level, (int) seed), "bits " + bits + " level " + c);
          levelsChecked++;
        }
      }
    }
    assertTrue(levelsChecked > 100, "only " + levelsChecked + " exact levels met");
  }

  @Test
  void deterministicInTheValueWhateverTheCallAndMonotone() {
    SplittableRandom random = new SplittableRandom(2);
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(300, bits);
      SharedThresholdQuantizer q = new SharedThresholdQuantizer(scale, SEED);
      float[] v = values(random, scale, 300);
      int[] whole = new int[300];
      q.codes(v, 0, 300, 0, whole, 0);
      // Another "row" with the same values in other calls: identical codes.
      int[] pieces = new int[300];
      for (int first = 0; first < 300; first += 37) {
        int count = Math.min(37, 300 - first);
        q.codes(v, first, count, first, pieces, first);
      }
      assertArrayEquals(whole, pieces, "bits " + bits);
      // Monotone per feature: sort values, the codes of one feature are sorted too.
      float[] sorted = v.clone();
      Arrays.sort(sorted);
      int previous = -1;
      for (float x : sorted) {
        int c = q.code(x, 7);
        assertTrue(c >= previous, "bits " + bits + ": not monotone at " + x);
        previous = c;
      }
      // Another seed changes some codes (300 values, each changes with probability ~ f(1 - f)).
      int[] other = new int[300];
      new SharedThresholdQuantizer(scale, SEED + 1).codes(v, 0, 300, 0, other, 0);
      assertNotEquals(Arrays.toString(whole), Arrays.toString(other), "bits " + bits);
    }
  }

  @Test
  void packedRowsHoldTheCodes() {
    SplittableRandom random = new SplittableRandom(3);
    for (int bits : BITS) {
      QuantizationScale scale = QuantizationScale.forFeatures(999, bits);
      SharedThresholdQuantizer q = new SharedThresholdQuantizer(scale, SEED);
      for (int m : new int[] {0, 1, 7, 8, 9, 63, 999}) {
        float[] v = values(random, scale, m);
        int[] codes = new int[m];
        q.codes(v, 0, m, 0, codes, 0);
        byte[] expected = BitPackingTest.referencePack(codes, 0, m, bits);
        byte[] row = new byte[expected.length + 3];
        Arrays.fill(row, BitPackingTest.SENTINEL);
        q.quantize(v, 0, m, 0, row, 3);
        assertArrayEquals(expected, Arrays.copyOfRange(row, 3, row.length), "bits " + bits);
        assertEquals(BitPackingTest.SENTINEL, row[2]);
        // In two calls split on a multiple of 8.
        int cut = Math.min(m, 8 * random.nextInt(1 + m / 8));
        byte[] split = new byte[expected.length];
        q.quantize(v, 0, cut, 0, split, 0);
        q.quantize(v, cut, m - cut, cut, MemorySegment.ofArray(split), 0);
        assertArrayEquals(expected, split, "bits " + bits + " m " + m + " cut " + cut);
      }
    }
  }

  @Test
  void errorPathsNameTheValues() {
    QuantizationScale scale = QuantizationScale.forFeatures(16, 4);
    SharedThresholdQuantizer q = new SharedThresholdQuantizer(scale, 1);
    float[] v = new float[16];
    assertMessage("scale is null", () -> new SharedThresholdQuantizer(null, 1));
    assertMessage("feature is -1", () -> SharedThresholdQuantizer.threshold(1, -1, 0));
    assertMessage("interval is -2", () -> SharedThresholdQuantizer.threshold(1, 0, -2));
    assertMessage("feature is -3", () -> q.code(0f, -3));
    assertMessage("value is NaN", () -> q.code(Float.NaN, 0));
    assertMessage("value is 0.5", () -> q.code(0.5f, 0));
    v[4] = Float.NaN;
    assertMessage("values[4] is NaN", () -> q.codes(v, 0, 16, 0, new int[16], 0));
    v[4] = -1f;
    assertMessage("values[4] is -1.0", () -> q.quantize(v, 0, 16, 0, new byte[8], 0));
    v[4] = 0;
    assertMessage("firstFeature is 4", () -> q.quantize(v, 0, 16, 4, new byte[16], 0));
    assertMessage("firstFeature is -8", () -> q.codes(v, 0, 16, -8, new int[16], 0));
    assertMessage("length 16", () -> q.codes(v, 4, 16, 0, new int[16], 0));
    assertMessage("out has length 10", () -> q.codes(v, 0, 16, 0, new int[10], 0));
    assertMessage("needs bytes [0, 8)", () -> q.quantize(v, 0, 16, 0, new byte[7], 0));
    assertMessage("read-only",
        () -> q.quantize(v, 0, 16, 0, MemorySegment.ofArray(new byte[8]).asReadOnly(), 0));
    assertMessage("count is -1", () -> q.codes(v, 0, -1, 0, new int[16], 0));
  }

}
