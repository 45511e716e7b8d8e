package org.lprff.vector.random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.simd.panama.VectorCounterRng;
import org.lprff.vector.simd.spi.CounterRngBody;
import org.lprff.vector.simd.spi.Threefry;
import org.lprff.vector.testing.ChiSquare;
import org.lprff.vector.testing.ProviderTestBase;
import org.lprff.vector.testing.TestSizes;

class CounterRngTest extends ProviderTestBase {

  /**
   * Known-answer vectors of threefry4x32 from Random123's tests/kat_vectors file (D. E. Shaw
   * Research): rounds, counter[4], key[4], expected output[4], all 32-bit words in hex.
   */
  private static final String[] KAT_VECTORS = {
    "13 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"
        + " 531c7e4f 39491ee5 2c855a92 3d6abf9a",
    "13 ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff"
        + " c4189358 1c9cc83a d5881c67 6a0a89e0",
    "13 243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0 082efa98 ec4e6c89"
        + " 4aa71d8f 734738c2 431fc6a8 ae6debf1",
    "20 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"
        + " 9c6ca96a e17eae66 fc10ecd4 5256a7d8",
    "20 ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff"
        + " 2a881696 57012287 f6c7446e a16a6732",
    "20 243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0 082efa98 ec4e6c89"
        + " 59cd1dbb b8879579 86b5d00c ac8b6d84",
    "72 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"
        + " 93171da6 9220326d b392b7b1 ff58a002",
    "72 ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff"
        + " 60743f3d 9961e684 aab21c34 8c65fb7d",
    "72 243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0 082efa98 ec4e6c89"
        + " 09930adf 7f27bd55 9ed68ce1 97f803f6",
  };

  private static final long SEED = 0x5EED_1234_ABCD_0042L;

  @Test
  void threefryMatchesRandom123KnownAnswers() {
    for (String line : KAT_VECTORS) {
      String[] f = line.split(" ");
      int rounds = Integer.parseInt(f[0]);
      int[] w = new int[12];
      for (int i = 0; i < 12; i++) {
        w[i] = Integer.parseUnsignedInt(f[i + 1], 16);
      }
      int[] out = new int[4];
      Threefry.threefry4x32(
          rounds, w[4], w[5], w[6], w[7], w[0], w[1], w[2], w[3], out);
      assertArrayEquals(Arrays.copyOfRange(w, 8, 12), out, line);
    }
  }

  @Test
  void bitsFollowTheDocumentedMapping() {
    assertEquals(13, Threefry.ROUNDS);
    SplittableRandom random = new SplittableRandom(1);
    int[] out = new int[4];
    for (int i = 0; i < 2000; i++) {
      long seed = random.nextLong();
      long row = random.nextLong();
      int column = random.nextInt(Integer.MAX_VALUE);
      int draw = random.nextInt();
      int block = ((column >>> 5) << 3) | (column & 7);
      Threefry.threefry4x32(
          13, (int) seed, (int) (seed >>> 32), 0, 0, block, (int) row, (int) (row >>> 32), draw,
          out);
      int expected = out[(column >>> 3) & 3];
      assertEquals(expected, CounterRng.bits(seed, row, column, draw));
      assertEquals((expected >>> 8) / 16777216.0f, CounterRng.uniform(seed, row, column, draw));
      assertEquals(
          Integer.toUnsignedLong(expected) / 4294967296.0,
          CounterRng.uniformDouble(seed, row, column, draw));
    }
  }

  @Test
  void bits16FollowTheDocumentedHalfWordMapping() {
    checkSliceMapping(3, 1, (seed, row, column, draw, expected) -> {
      assertEquals(expected, CounterRng.bits16(seed, row, column, draw), "column " + column);
      // (h + 1/2) / 2^16 in double is exact and must equal the float.
      assertEquals((expected + 0.5) / 65536.0, CounterRng.uniform16(seed, row, column, draw));
    });
  }

  @Test
  void bits8FollowTheDocumentedByteMapping() {
    checkSliceMapping(4, 2, (seed, row, column, draw, expected) ->
        assertEquals(expected, CounterRng.bits8(seed, row, column, draw), "column " + column));
    // The rounding's fixed point: (d + 1/2) 2^-8 in units of 2^-16.
    assertEquals(0x80, Threefry.fixedPoint8(0));
    assertEquals(0xFF80, Threefry.fixedPoint8(255));
  }

  /** What a column's draw must be: slice {@code expected} of the documented word. */
  private interface SliceCheck {
    void check(long seed, long row, int column, int draw, int expected);
  }

  /**
   * 2000 random (seed, row, column, draw), the 8 columns below 2^31 among them, against the
   * documented mapping of 2^log2 slices a word: block ((column >>> (5 + log2)) << 3) | (column &
   * 7), word (column >>> 3) & 3, slice (column >>> 5) & (2^log2 - 1) of 32 / 2^log2 bits.
   */
  private static void checkSliceMapping(long randomSeed, int log2, SliceCheck check) {
    SplittableRandom random = new SplittableRandom(randomSeed);
    int[] out = new int[4];
    int width = 32 >>> log2;
    for (int i = 0; i < 2000; i++) {
      long seed = random.nextLong();
      long row = random.nextLong();
      int column = i < 8 ? Integer.MAX_VALUE - i : random.nextInt(Integer.MAX_VALUE);
      int draw = random.nextInt();
      int block = ((column >>> (5 + log2)) << 3) | (column & 7);
      Threefry.threefry4x32(
          13, (int) seed, (int) (seed >>> 32), 0, 0, block, (int) row, (int) (row >>> 32), draw,
          out);
      int word = out[(column >>> 3) & 3];
      int slice = (column >>> 5) & ((1 << log2) - 1);
      check.check(seed, row, column, draw, (word >>> (width * slice)) & ((1 << width) - 1));
    }
  }

  @Test
  void theByteMappingUsesEachByteOfItsBlocksOnce() {
    // Columns 0 .. 2^14: (block, word, byte) all distinct, and every byte of blocks 0 .. 1023.
    java.util.Set<Long> seen = new java.util.HashSet<>();
    int columns = 1 << 14;
    for (int column = 0; column < columns; column++) {
      long slot = ((long) Threefry.block8(column) << 4) | (Threefry.word(column) << 2)
          | Threefry.byteOf(column);
      assertTrue(seen.add(slot), "column " + column + " reuses slot " + slot);
      assertTrue(Threefry.block8(column) < columns / 16, "column " + column);
    }
  }

  @Test
  void uniformStaysBelowOne() {
    // The largest possible bits give the largest value; it must still be < 1.
    assertTrue(CounterRng.toUniform(-1) < 1.0f);
    assertTrue(CounterRng.toUniformDouble(-1) < 1.0);
    assertEquals(0.0f, CounterRng.toUniform(0));
    // The half-word uniform lies strictly inside (0, 1), symmetric about 1/2.
    assertEquals(0x1p-17f, CounterRng.toUniform16(0));
    assertEquals(1 - 0x1p-17f, CounterRng.toUniform16(0xFFFF));
    assertEquals(1.0f, CounterRng.toUniform16(0x1234) + CounterRng.toUniform16(0xFFFF - 0x1234));
  }

  @Test
  void vectorAndScalarBodiesGiveIdenticalBits() {
    CounterRngBody scalar = SCALAR.counterRng();
    CounterRngBody vector = VECTOR.counterRng();
    SplittableRandom random = new SplittableRandom(2);
    int[] firstColumns = {0, 1, 5, 7, 8, 9, 24, 31, 32, 33, 40, 63, 64, 65, 100, 4095, 1_000_003};
    int[] counts = java.util.stream.IntStream.concat(
            java.util.stream.IntStream.rangeClosed(0, 200),
            Arrays.stream(TestSizes.general()))
        .distinct().toArray();
    for (int firstColumn : firstColumns) {
      for (int count : counts) {
        long seed = random.nextLong();
        long row = random.nextLong();
        int draw = random.nextInt();
        int off = random.nextInt(5);
        int[] expected = new int[count + 10];
        int[] actual = new int[count + 10];
        Arrays.fill(expected, 0x7777);
        Arrays.fill(actual, 0x7777);
        scalar.fillBits(seed, row, firstColumn, draw, expected, off, count);
        vector.fillBits(seed, row, firstColumn, draw, actual, off, count);
        assertArrayEquals(expected, actual, "firstColumn " + firstColumn + " count " + count);
        // The scalar bulk body against the single-value definition; slots outside untouched.
        for (int i = 0; i < expected.length; i++) {
          int want = i >= off && i < off + count
              ? Threefry.bits(seed, row, firstColumn + i - off, draw)
              : 0x7777;
          assertEquals(want, expected[i]);
        }
        int[] halvesScalar = new int[count + 10];
        int[] halvesVector = new int[count + 10];
        Arrays.fill(halvesScalar, 0x7777_7777);
        Arrays.fill(halvesVector, 0x7777_7777);
        scalar.fillBits16(seed, row, firstColumn, draw, halvesScalar, off, count);
        vector.fillBits16(seed, row, firstColumn, draw, halvesVector, off, count);
        assertArrayEquals(
            halvesScalar, halvesVector, "bits16 firstColumn " + firstColumn + " count " + count);
        for (int i = 0; i < halvesScalar.length; i++) {
          int want = i >= off && i < off + count
              ? Threefry.bits16(seed, row, firstColumn + i - off, draw)
              : 0x7777_7777;
          assertEquals(want, halvesScalar[i]);
        }
        int[] bytesScalar = new int[count + 10];
        int[] bytesVector = new int[count + 10];
        Arrays.fill(bytesScalar, 0x7777_7777);
        Arrays.fill(bytesVector, 0x7777_7777);
        scalar.fillBits8(seed, row, firstColumn, draw, bytesScalar, off, count);
        vector.fillBits8(seed, row, firstColumn, draw, bytesVector, off, count);
        assertArrayEquals(
            bytesScalar, bytesVector, "bits8 firstColumn " + firstColumn + " count " + count);
        for (int i = 0; i < bytesScalar.length; i++) {
          int want = i >= off && i < off + count
              ? Threefry.bits8(seed, row, firstColumn + i - off, draw)
              : 0x7777_7777;
          assertEquals(want, bytesScalar[i]);
        }
        float[] uniformScalar = new float[count + 10];
        float[] uniformVector = new float[count + 10];
        scalar.fillUniform(seed, row, firstColumn, draw, uniformScalar, off, count);
        vector.fillUniform(seed, row, firstColumn, draw, uniformVector, off, count);
        assertArrayEquals(uniformScalar, uniformVector);
        for (int i = 0; i < count; i++) {
          assertEquals(CounterRng.toUniform(expected[off + i]), uniformScalar[off + i]);
        }
      }
    }
  }

  @Test
  void columnsNearTheTopOfTheIntRangeAreSupported() {
    int first = Integer.MAX_VALUE - 70;
    int[] expected = new int[70];
    int[] actual = new int[70];
    SCALAR.counterRng().fillBits(SEED, 3, first, 1, expected, 0, 70);
    VECTOR.counterRng().fillBits(SEED, 3, first, 1, actual, 0, 70);
    assertArrayEquals(expected, actual);
    assertEquals(CounterRng.bits(SEED, 3, first + 69, 1), actual[69]);
    SCALAR.counterRng().fillBits16(SEED, 3, first, 1, expected, 0, 70);
    VECTOR.counterRng().fillBits16(SEED, 3, first, 1, actual, 0, 70);
    assertArrayEquals(expected, actual);
    assertEquals(CounterRng.bits16(SEED, 3, first + 69, 1), actual[69]);
  }

  /**
   * A performance guard, not a correctness test: the Threefry pieces of the vector body must stay
   * larger than C2's FreqInlineSize (325 bytes of bytecode, the x86 default), or C2 inlines them
   * into the caller's loop and the RNG becomes ~6x slower (see VectorCounterRng's class comment).
   */
  @Test
  void vectorThreefryPiecesStayTooLargeToInline() throws java.io.IOException {
    byte[] bytes;
    try (var in = VectorCounterRng.class.getResourceAsStream("VectorCounterRng.class")) {
      bytes = in.readAllBytes();
    }
    var model = java.lang.classfile.ClassFile.of().parse(bytes);
    int pieces = 0;
    for (var method : model.methods()) {
      String name = method.methodName().stringValue();
      if (name.endsWith("Rounds")) {
        int length = method.findAttribute(java.lang.classfile.Attributes.code())
            .orElseThrow().codeLength();
        assertTrue(length > 325, name + " has " + length + " bytes of bytecode, expected > 325");
        pieces++;
      }
    }
    assertEquals(3, pieces);
  }

  // ---- statistics. Every chi-squared test below uses fixed inputs (seed SEED) and the threshold
  // ChiSquare.criticalValue1e6(df): under a good generator it fails with probability <= 1e-6.

  /** Top 8 bits over N = 2^20 samples (256 rows x 4096 columns): 256 bins, df = 255. */
  @Test
  void topEightBitsAreUniform() {
    long[] bins = new long[256];
    int[] bits = new int[4096];
    for (int row = 0; row < 256; row++) {
      CounterRng.fillBits(SEED, row, 0, 0, bits, 0, bits.length);
      for (int b : bits) {
        bins[b >>> 24]++;
      }
    }
    double stat = ChiSquare.uniformStatistic(bins);
    assertTrue(stat < ChiSquare.criticalValue1e6(255), "chi2 " + stat);
  }

  /** Deciles of uniform() over N = 2^20 samples: 10 bins, df = 9. */
  @Test
  void uniformDecilesAreBalanced() {
    long[] bins = new long[10];
    float[] u = new float[4096];
    for (int row = 0; row < 256; row++) {
      CounterRng.fillUniform(SEED, row, 0, 7, u, 0, u.length);
      for (float x : u) {
        assertTrue(x >= 0 && x < 1, "uniform out of [0,1): " + x);
        bins[(int) (x * 10)]++;
      }
    }
    double stat = ChiSquare.uniformStatistic(bins);
    assertTrue(stat < ChiSquare.criticalValue1e6(9), "chi2 " + stat);
  }

  interface Generator {
    int bits(long seed, long row, int column, int draw);
  }

  /**
   * 16x16 contingency table of (top 4 bits of x, top 4 bits of y) over N = 2^20 disjoint pairs;
   * the test of independence has df = 15 x 15 = 225.
   */
  private static double pairStatistic(Generator g, String what) {
    long[][] table = new long[16][16];
    for (int i = 0; i < 1 << 20; i++) {
      int a;
      int b;
      switch (what) {
        case "column" -> {
          int row = i >>> 10;
          int column = 2 * (i & 1023);
          a = g.bits(SEED, row, column, 0);
          b = g.bits(SEED, row, column + 1, 0);
        }
        case "sameBlock" -> { // columns c and c + 8: two words of one Threefry block
          int row = i >>> 10;
          int column = ((i & 1023) >>> 3) * 16 + (i & 7);
          a = g.bits(SEED, row, column, 0);
          b = g.bits(SEED, row, column + 8, 0);
        }
        case "row" -> {
          long row = 2L * (i >>> 10);
          a = g.bits(SEED, row, i & 1023, 0);
          b = g.bits(SEED, row + 1, i & 1023, 0);
        }
        case "draw" -> {
          int draw = 2 * (i >>> 10);
          a = g.bits(SEED, 5, i & 1023, draw);
          b = g.bits(SEED, 5, i & 1023, draw + 1);
        }
        default -> throw new AssertionError(what);
      }
      table[a >>> 28][b >>> 28]++;
    }
    return ChiSquare.independenceStatistic(table);
  }

  @Test
  void neighbouringColumnsRowsAndDrawsAreIndependent() {
    double critical = ChiSquare.criticalValue1e6(225);
    for (String what : new String[] {"column", "sameBlock", "row", "draw"}) {
      double stat = pairStatistic(Threefry::bits, what);
      assertTrue(stat < critical, what + ": chi2 " + stat + " >= " + critical);
    }
  }

  @Test
  void chiSquaredTestsRejectBadGenerators() {
    double critical = ChiSquare.criticalValue1e6(225);
    // A Weyl sequence: perfectly equidistributed, but neighbouring columns are tied.
    Generator weyl = (seed, row, column, draw) -> column * 0x9E3779B9;
    assertTrue(pairStatistic(weyl, "column") > critical);
    // Generators that ignore an input repeat themselves along it.
    Generator ignoresRow = (seed, row, column, draw) -> Threefry.bits(seed, 0, column, draw);
    assertTrue(pairStatistic(ignoresRow, "row") > critical);
    Generator ignoresDraw = (seed, row, column, draw) -> Threefry.bits(seed, row, column, 0);
    assertTrue(pairStatistic(ignoresDraw, "draw") > critical);
    // The uniformity test rejects a skewed generator: the larger of two words (N = 2^20).
    long[] bins = new long[256];
    for (int i = 0; i < 1 << 20; i++) {
      int a = Threefry.bits(SEED, 0, 2 * i, 0);
      int b = Threefry.bits(SEED, 0, 2 * i + 1, 0);
      bins[Integer.compareUnsigned(a, b) >= 0 ? a >>> 24 : b >>> 24]++;
    }
    assertTrue(ChiSquare.uniformStatistic(bins) > ChiSquare.criticalValue1e6(255));
  }

  /** 16-bit draws of columns 0..4095 of one row (seed SEED, draw 0). */
  interface HalfWordRow {
    void fill(long row, int[] out);
  }

  private static final HalfWordRow HALF_WORDS =
      (row, out) -> CounterRng.fillBits16(SEED, row, 0, 0, out, 0, out.length);

  private static final String[] HALF_WORD_STATISTICS = {
    "low halves, top 8 bits", "low halves, bottom 8 bits",
    "high halves, top 8 bits", "high halves, bottom 8 bits",
    "two halves of a word, top 4 bits", "two halves of a word, bottom 4 bits",
  };

  /**
   * Six chi-squared statistics of the half-word draws over 256 rows x 4096 columns = 2^20 draws,
   * 2^19 of each half (column bit 5). Uniformity: 256 bins of the top and of the bottom 8 bits of
   * each half (df 255, 2048 expected per bin). Independence of the two halves of one word
   * (columns c and c + 32): 16x16 tables of their top and of their bottom 4 bits (df 225, 2^19
   * pairs).
   */
  private static double[] halfWordStatistics(HalfWordRow generator) {
    long[][] uniform = new long[4][256];
    long[][] top = new long[16][16];
    long[][] bottom = new long[16][16];
    int[] h = new int[4096];
    for (int row = 0; row < 256; row++) {
      generator.fill(row, h);
      for (int c = 0; c < h.length; c++) {
        int half = (c >>> 5) & 1;
        uniform[2 * half][h[c] >>> 8]++;
        uniform[2 * half + 1][h[c] & 0xFF]++;
        if (half == 0) {
          int high = h[c + 32];
          top[h[c] >>> 12][high >>> 12]++;
          bottom[h[c] & 15][high & 15]++;
        }
      }
    }
    return new double[] {
      ChiSquare.uniformStatistic(uniform[0]), ChiSquare.uniformStatistic(uniform[1]),
      ChiSquare.uniformStatistic(uniform[2]), ChiSquare.uniformStatistic(uniform[3]),
      ChiSquare.independenceStatistic(top), ChiSquare.independenceStatistic(bottom),
    };
  }

  /** Thresholds of the six statistics at 1e-7 each: the test fails falsely with p <= 6e-7. */
  private static double[] halfWordThresholds() {
    double uniform = ChiSquare.criticalValue(255, ChiSquare.Z_1E_7);
    double independence = ChiSquare.criticalValue(225, ChiSquare.Z_1E_7);
    return new double[] {uniform, uniform, uniform, uniform, independence, independence};
  }

  @Test
  void halfWordsAreUniformAndTheTwoHalvesOfAWordIndependent() {
    double[] stat = halfWordStatistics(HALF_WORDS);
    double[] critical = halfWordThresholds();
    for (int k = 0; k < stat.length; k++) {
      assertTrue(stat[k] < critical[k],
          HALF_WORD_STATISTICS[k] + ": chi2 " + stat[k] + " >= " + critical[k]);
    }
  }

  @Test
  void halfWordStatisticsRejectBrokenVariants() {
    double[] critical = halfWordThresholds();
    // The low half used twice (for the high half's columns too): halves perfectly dependent.
    HalfWordRow sameHalfTwice = (row, out) -> {
      HALF_WORDS.fill(row, out);
      for (int c = 0; c < out.length; c++) {
        if ((c & 32) != 0) {
          out[c] = out[c - 32];
        }
      }
    };
    double[] stat = halfWordStatistics(sameHalfTwice);
    assertTrue(stat[4] > critical[4] && stat[5] > critical[5], Arrays.toString(stat));
    // High half = the larger of the two halves: skewed towards large values.
    HalfWordRow larger = (row, out) -> {
      HALF_WORDS.fill(row, out);
      for (int c = 0; c < out.length; c++) {
        if ((c & 32) != 0) {
          out[c] = Math.max(out[c], out[c - 32]);
        }
      }
    };
    stat = halfWordStatistics(larger);
    assertTrue(stat[2] > critical[2], Arrays.toString(stat));
    // A stuck lowest bit in the low half: only the bottom-bits histogram can see it.
    HalfWordRow stuckBit = (row, out) -> {
      HALF_WORDS.fill(row, out);
      for (int c = 0; c < out.length; c++) {
        if ((c & 32) == 0) {
          out[c] |= 1;
        }
      }
    };
    stat = halfWordStatistics(stuckBit);
    assertTrue(stat[1] > critical[1], Arrays.toString(stat));
  }

  private static final HalfWordRow BYTES =
      (row, out) -> CounterRng.fillBits8(SEED, row, 0, 0, out, 0, out.length);

  /**
   * Seven chi-squared statistics of the byte draws over 256 rows x 4096 columns = 2^20 draws,
   * 2^18 of each byte position k = (column >>> 5) & 3. Uniformity: 256 bins of each position (df
   * 255, 1024 expected per bin). Independence of neighbouring bytes of one word (columns c and c +
   * 32, positions k and k + 1): 16x16 tables of their top 4 bits (df 225, 2^18 pairs each).
   */
  private static double[] byteStatistics(HalfWordRow generator) {
    long[][] uniform = new long[4][256];
    long[][][] pairs = new long[3][16][16];
    int[] d = new int[4096];
    for (int row = 0; row < 256; row++) {
      generator.fill(row, d);
      for (int c = 0; c < d.length; c++) {
        int k = (c >>> 5) & 3;
        uniform[k][d[c]]++;
        if (k < 3) {
          pairs[k][d[c] >>> 4][d[c + 32] >>> 4]++;
        }
      }
    }
    double[] stat = new double[7];
    for (int k = 0; k < 4; k++) {
      stat[k] = ChiSquare.uniformStatistic(uniform[k]);
    }
    for (int k = 0; k < 3; k++) {
      stat[4 + k] = ChiSquare.independenceStatistic(pairs[k]);
    }
    return stat;
  }

  /** Thresholds at 1e-7 each: the test fails falsely with p <= 7e-7. */
  private static double[] byteThresholds() {
    double uniform = ChiSquare.criticalValue(255, ChiSquare.Z_1E_7);
    double independence = ChiSquare.criticalValue(225, ChiSquare.Z_1E_7);
    return new double[] {uniform, uniform, uniform, uniform, independence, independence,
        independence};
  }

  @Test
  void byteDrawsAreUniformAndNeighbouringBytesOfAWordIndependent() {
    double[] stat = byteStatistics(BYTES);
    double[] critical = byteThresholds();
    for (int k = 0; k < stat.length; k++) {
      assertTrue(stat[k] < critical[k], "statistic " + k + ": chi2 " + stat[k] + " >= "
          + critical[k] + " " + Arrays.toString(stat));
    }
  }

  @Test
  void byteStatisticsRejectBrokenVariants() {
    double[] critical = byteThresholds();
    // Byte 1 a copy of byte 0 (the word's second byte reused): dependent neighbours.
    HalfWordRow copied = (row, out) -> {
      BYTES.fill(row, out);
      for (int c = 0; c < out.length; c++) {
        if (((c >>> 5) & 3) == 1) {
          out[c] = out[c - 32];
        }
      }
    };
    double[] stat = byteStatistics(copied);
    assertTrue(stat[4] > critical[4], Arrays.toString(stat));
    // A stuck lowest bit in byte 2: its histogram is not uniform.
    HalfWordRow stuck = (row, out) -> {
      BYTES.fill(row, out);
      for (int c = 0; c < out.length; c++) {
        if (((c >>> 5) & 3) == 2) {
          out[c] |= 1;
        }
      }
    };
    stat = byteStatistics(stuck);
    assertTrue(stat[2] > critical[2], Arrays.toString(stat));
  }

  /**
   * Exact upper tail of chi-squared for even df = 2k: P(X > x) = exp(-x/2) sum_{j<k} (x/2)^j / j!
   * (a Poisson sum), evaluated in log space so that large df do not overflow.
   */
  private static double exactTailEvenDf(int df, double x) {
    double half = x / 2;
    double sum = 0;
    double logTerm = -half; // log of exp(-x/2) (x/2)^j / j! for j = 0
    for (int j = 0; j < df / 2; j++) {
      sum += Math.exp(logTerm);
      logTerm += Math.log(half) - Math.log(j + 1);
    }
    return sum;
  }

  @Test
  void wilsonHilfertyQuantileHasTheStatedTailProbability() {
    // At the approximate quantile the exact tail must be at most 1e-6 (so the thresholds are
    // conservative) and not much below it (so they keep their power).
    for (int df : new int[] {10, 226, 256}) {
      double tail = exactTailEvenDf(df, ChiSquare.criticalValue1e6(df));
      assertTrue(tail > 0.5e-6 && tail <= 1e-6, "df " + df + ": tail " + tail);
      tail = exactTailEvenDf(df, ChiSquare.criticalValue(df, ChiSquare.Z_1E_7));
      assertTrue(tail > 0.5e-7 && tail <= 1e-7, "df " + df + ": tail " + tail + " at 1e-7");
    }
  }

  @Test
  void errorPathsNameTheValues() {
    int[] out = new int[10];
    var e = assertThrows(IllegalArgumentException.class, () -> CounterRng.bits(1, 2, -3, 4));
    assertTrue(e.getMessage().contains("-3"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class, () -> CounterRng.fillBits(1, 2, 0, 0, out, 5, 6));
    assertTrue(e.getMessage().contains("length 10") && e.getMessage().contains("6"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class, () -> CounterRng.fillBits(1, 2, 0, 0, out, 0, -1));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class,
        () -> CounterRng.fillBits(1, 2, Integer.MAX_VALUE - 2, 0, out, 0, 5));
    assertTrue(e.getMessage().contains(String.valueOf(Integer.MAX_VALUE - 2)), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class,
        () -> CounterRng.fillUniform(1, 2, -8, 0, new float[4], 0, 4));
    assertTrue(e.getMessage().contains("-8"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> CounterRng.bits16(1, 2, -5, 4));
    assertTrue(e.getMessage().contains("-5"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class, () -> CounterRng.fillBits16(1, 2, 0, 0, out, 3, 8));
    assertTrue(e.getMessage().contains("length 10") && e.getMessage().contains("8"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class, () -> CounterRng.fillBits16(1, 2, -16, 0, out, 0, 2));
    assertTrue(e.getMessage().contains("-16"), e.getMessage());
    e = assertThrows(
        IllegalArgumentException.class, () -> CounterRng.fillBits16(1, 2, 0, 0, null, 0, 2));
    assertTrue(e.getMessage().contains("out is null"), e.getMessage());
  }
}
