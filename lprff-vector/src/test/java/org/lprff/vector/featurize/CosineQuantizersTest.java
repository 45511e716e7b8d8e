package org.lprff.vector.featurize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.SharedThresholdQuantizer;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.panama.VectorShape;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;
import org.lprff.vector.testing.ProviderTestBase;

/**
 * The fused step's other quantizers ({@link CosineCodesBody#quantizeShared}, {@link
 * CosineCodesBody#quantizeThresholds}, {@link CosineCodesBody#quantizeSigmaDelta}): the vector
 * body writes the scalar body's bytes, over sizes around the lane count, offsets, every b and,
 * for Sigma-Delta, every order and a range of blocks.
 */
class CosineQuantizersTest extends ProviderTestBase {

  private static final int[] BITS = {1, 2, 4, 8};

  private static final int LANES = VectorShape.floatLanes();

  private static final CosineCodesBody SCALAR_BODY = SCALAR.cosineCodes();
  private static final CosineCodesBody VECTOR_BODY = VECTOR.cosineCodes();

  /** 0, 1 .. 17, the lane count +/- 1, 63, 64, 65, 500, 512 and 4099. */
  private static int[] sizes() {
    TreeSet<Integer> sizes = new TreeSet<>();
    for (int n = 0; n <= 17; n++) {
      sizes.add(n);
    }
    for (int n : new int[] {LANES - 1, LANES, LANES + 1, 63, 64, 65, 500, 512, 4099}) {
      sizes.add(n);
    }
    return sizes.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Mostly feature-map arguments, one in 50 beyond the polynomial's limit. */
  private static float[] arguments(int n, SplittableRandom random) {
    float[] t = new float[n];
    for (int i = 0; i < n; i++) {
      t[i] = random.nextInt(50) == 0 ? (float) random.nextDouble(-1e6, 1e6)
          : (float) random.nextDouble(-60, 60);
    }
    return t;
  }

  private static float[] phases(int n, SplittableRandom random) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) random.nextDouble(0, 2 * Math.PI);
    }
    return a;
  }

  /** One call of a body: its bytes (one guard byte before, three after) and its NaN flag. */
  private interface Call {
    boolean run(CosineCodesBody body, MemorySegment out, long byteOffset);
  }

  /** Both bodies' bytes and flags are equal; returns the flag. */
  private static boolean assertSameBytes(int n, int bits, Call call, String what) {
    int bytes = (n * bits + 7) / 8 + 4;
    byte[] expected = new byte[bytes];
    byte[] actual = new byte[bytes];
    boolean nanS = call.run(SCALAR_BODY, MemorySegment.ofArray(expected), 1);
    boolean nanV = call.run(VECTOR_BODY, MemorySegment.ofArray(actual), 1);
    assertArrayEquals(expected, actual, what);
    assertEquals(nanS, nanV, what);
    return nanS;
  }

  // ---- shared threshold

  @Test
  void sharedThresholdVectorBodyWritesTheScalarBodysBytes() {
    SplittableRandom random = new SplittableRandom(17);
    for (int n : sizes()) {
      float[] t = arguments(n + 3, random);
      float[] a = phases(n + 5, random);
      for (int bits : BITS) {
        int intervals = (1 << bits) - 1;
        // The table of n + 9 features, read from feature 0, 9, or mid-feature (drawOff 5).
        int[] draws = SharedThresholdQuantizer.draws(random.nextLong(), n + 9, bits);
        for (int drawOff : new int[] {0, 5, 9 * intervals}) {
          boolean nan = assertSameBytes(n, bits,
              (body, out, o) -> body.quantizeShared(t, 3, a, 5, n, bits, draws, drawOff, out, o),
              "n " + n + " b " + bits + " drawOff " + drawOff);
          assertFalse(nan, "n " + n + " b " + bits);
        }
      }
    }
  }

  /**
   * Shared thresholds at the extremes: draws 0 and 2^16 - 1 only, cosines at +-1 (the last
   * column's 1 exactly: its interval is the last one, not one past, which is beyond the table).
   */
  @Test
  void sharedThresholdExtremeDrawsAndCosines() {
    SplittableRandom random = new SplittableRandom(18);
    int n = 4 * LANES;
    float[] t = new float[n];
    float[] a = new float[n];
    for (int i = 0; i < n - 1; i++) {
      t[i] = (float) (Math.PI * random.nextInt(-40, 40)); // cos = +-1
    }
    for (int bits : BITS) {
      int[] draws = new int[n * ((1 << bits) - 1)];
      for (int k = 0; k < draws.length; k++) {
        draws[k] = random.nextBoolean() ? 0 : 0xFFFF;
      }
      assertSameBytes(n, bits,
          (body, out, o) -> body.quantizeShared(t, 0, a, 0, n, bits, draws, 0, out, o),
          "b " + bits);
    }
  }

  // ---- Lloyd-Max

  @Test
  void thresholdVectorBodyWritesTheScalarBodysBytes() {
    SplittableRandom random = new SplittableRandom(19);
    for (int n : sizes()) {
      float[] t = arguments(n + 3, random);
      float[] a = phases(n + 5, random);
      for (int bits : BITS) {
        float[] thresholds = Quantizer.LloydMax.cosineThresholds(bits);
        boolean nan = assertSameBytes(n, bits,
            (body, out, o) -> body.quantizeThresholds(t, 3, a, 5, n, bits, thresholds, out, o),
            "n " + n + " b " + bits);
        assertFalse(nan, "n " + n + " b " + bits);
      }
    }
  }

  /**
   * Cosines equal to a threshold are not counted (c > threshold is strict), in both bodies:
   * thresholds made of the cosines of some of the arguments themselves (sorted, with repeats),
   * so that many arguments land exactly on one; the codes are checked against a count by hand.
   */
  @Test
  void cosinesOnAThresholdAreNotCounted() {
    SplittableRandom random = new SplittableRandom(20);
    int n = 6 * LANES + 5;
    for (int bits : BITS) {
      int count = (1 << bits) - 1;
      float[] t = arguments(n, random);
      float[] a = new float[n];
      float[] thresholds = new float[count];
      for (int k = 0; k < count; k++) {
        // Every threshold the cosine of one of the arguments; some repeated.
        int at = random.nextInt(n);
        thresholds[k] = k > 0 && random.nextInt(8) == 0 ? thresholds[random.nextInt(k)]
            : CosineCodes.cosine(t[at] + a[at], bits);
      }
      Arrays.sort(thresholds);
      byte[] packed = new byte[(n * bits + 7) / 8 + 4];
      int hits = 0;
      for (VectorizationProvider provider : new VectorizationProvider[] {SCALAR, VECTOR}) {
        assertFalse(provider.cosineCodes().quantizeThresholds(t, 0, a, 0, n, bits, thresholds,
            MemorySegment.ofArray(packed), 0));
        int[] codes = new int[n];
        PackedFeatures.unpackCodes(packed, 0, bits, n, codes, 0);
        hits = 0;
        for (int i = 0; i < n; i++) {
          float c = CosineCodes.cosine(t[i] + a[i], bits);
          int below = 0;
          for (float threshold : thresholds) {
            below += c > threshold ? 1 : 0;
            hits += c == threshold ? 1 : 0;
          }
          assertEquals(below, codes[i], provider.describe() + " b " + bits + " i " + i);
        }
      }
      assertTrue(hits >= Math.min(count, n), "b " + bits + ": only " + hits + " exact hits");
      assertSameBytes(n, bits,
          (body, out, o) -> body.quantizeThresholds(t, 0, a, 0, n, bits, thresholds, out, o),
          "b " + bits);
    }
  }

  /**
   * The codebook's own thresholds hit exactly: for each threshold the floats near acos of it
   * whose cosine equals it, as arguments; at least one in four thresholds has one.
   */
  @Test
  void lloydMaxThresholdsHitExactly() {
    for (int bits : BITS) {
      float[] thresholds = Quantizer.LloydMax.cosineThresholds(bits);
      float[] hits = new float[4 * thresholds.length + 2 * LANES];
      int n = 0;
      for (float threshold : thresholds) {
        float x = (float) Math.acos(threshold);
        for (int step = -256; step <= 256 && n < hits.length; step++) {
          float y = Float.intBitsToFloat(Float.floatToIntBits(x) + step);
          if (CosineCodes.cosine(y, bits) == threshold) {
            hits[n++] = y;
            break;
          }
        }
      }
      assertTrue(n >= thresholds.length / 4, "b " + bits + ": " + n + " thresholds hit");
      int size = n;
      float[] a = new float[size];
      assertSameBytes(size, bits,
          (body, out, o) -> body.quantizeThresholds(hits, 0, a, 0, size, bits, thresholds, out, o),
          "b " + bits);
    }
  }

  // ---- Sigma-Delta

  @Test
  void sigmaDeltaVectorBodyWritesTheScalarBodysBytes() {
    SplittableRandom random = new SplittableRandom(21);
    int[] blocks = {1, 2, 3, 7, 8, 16, 31, 256};
    for (int block : blocks) {
      // Every size of the list that block divides, and block counts around the lane count.
      TreeSet<Integer> counts = new TreeSet<>();
      for (int n : sizes()) {
        if (n % block == 0) {
          counts.add(n);
        }
      }
      for (int k : new int[] {1, 2, LANES - 1, LANES, LANES + 1, 2 * LANES + 3}) {
        if ((long) k * block <= 8192) {
          counts.add(k * block);
        }
      }
      for (int n : counts) {
        float[] t = arguments(n + 3, random);
        float[] a = phases(n + 5, random);
        for (int bits : BITS) {
          for (int order = 1; order <= Math.min(bits, CosineCodes.MAX_ORDER); order++) {
            int r = order;
            boolean nan = assertSameBytes(n, bits,
                (body, out, o) -> body.quantizeSigmaDelta(t, 3, a, 5, n, bits, r, block, out, o),
                "n " + n + " b " + bits + " order " + r + " block " + block);
            assertFalse(nan, "n " + n + " b " + bits);
          }
        }
      }
    }
  }

  /** The vector body's codes are a Sigma-Delta's: the running error stays within D / 2. */
  @Test
  void sigmaDeltaCodesKeepTheStateBounded() {
    SplittableRandom random = new SplittableRandom(22);
    int block = 8;
    int n = 3 * LANES * block;
    float[] t = arguments(n, random);
    float[] a = phases(n, random);
    for (int bits : BITS) {
      for (int order = 1; order <= Math.min(bits, CosineCodes.MAX_ORDER); order++) {
        byte[] packed = new byte[(n * bits + 7) / 8];
        VECTOR_BODY.quantizeSigmaDelta(t, 0, a, 0, n, bits, order, block,
            MemorySegment.ofArray(packed), 0);
        int[] codes = new int[n];
        PackedFeatures.unpackCodes(packed, 0, bits, n, codes, 0);
        double step = CosineCodes.sigmaDeltaStep(bits, order);
        double center = ((1 << bits) - 1) / 2.0;
        for (int b0 = 0; b0 < n; b0 += block) {
          // The r-th order state u with (Delta^r u)_i = y_i - q_i, u = 0 before the block.
          double[] u = new double[order];
          for (int i = b0; i < b0 + block; i++) {
            double e = CosineCodes.cosine(t[i] + a[i], bits) - (codes[i] - center) * step;
            for (int k = 0; k < order; k++) {
              u[k] += e;
              e = u[k];
            }
            assertTrue(Math.abs(u[order - 1]) <= step / 2 + 1e-4,
                "b " + bits + " order " + order + " i " + i + ": state " + u[order - 1]);
          }
        }
      }
    }
  }

  // ---- non-finite arguments

  @Test
  void bothBodiesReportANonFiniteArgument() {
    int n = 48;
    int[] draws = SharedThresholdQuantizer.draws(3, n, 4);
    float[] thresholds = Quantizer.LloydMax.cosineThresholds(4);
    for (int at : new int[] {0, 17, 40, 47}) {
      for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
        float[] t = new float[n];
        float[] a = new float[n];
        t[at] = bad;
        String what = "at " + at + " value " + bad;
        assertTrue(assertSameBytes(n, 4,
            (body, out, o) -> body.quantizeShared(t, 0, a, 0, n, 4, draws, 0, out, o), what));
        assertTrue(assertSameBytes(n, 4,
            (body, out, o) -> body.quantizeThresholds(t, 0, a, 0, n, 4, thresholds, out, o),
            what));
        for (int order = 1; order <= 3; order++) {
          int r = order;
          assertTrue(assertSameBytes(n, 4,
              (body, out, o) -> body.quantizeSigmaDelta(t, 0, a, 0, n, 4, r, 3, out, o),
              what + " order " + r));
        }
      }
    }
  }
}
