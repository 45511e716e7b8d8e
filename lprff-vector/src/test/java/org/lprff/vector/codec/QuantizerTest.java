package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuantizerTest {

  @Test
  void spellingsParseBackToTheSameQuantizer() {
    List<Quantizer> all = List.of(Quantizer.STOCHASTIC, Quantizer.NEAREST,
        Quantizer.SHARED_THRESHOLD, Quantizer.LLOYD_MAX, Quantizer.sigmaDelta(1, 8),
        Quantizer.sigmaDelta(3, 256));
    for (Quantizer q : all) {
      assertEquals(q, Quantizer.parse(q.spelling()), q.spelling());
    }
    assertSame(Quantizer.LLOYD_MAX, Quantizer.parse("lloyd-max"));
    assertEquals(Quantizer.sigmaDelta(Quantizer.DEFAULT_ORDER, Quantizer.DEFAULT_BLOCK),
        Quantizer.parse("sigma-delta"));
    assertEquals(Quantizer.sigmaDelta(2, Quantizer.DEFAULT_BLOCK), Quantizer.parse("sigma-delta:2"));
    assertEquals("sigma-delta:2:16", Quantizer.parse("sigma-delta:2:16").spelling());
    assertTrue(Quantizer.STOCHASTIC.randomized());
    assertFalse(Quantizer.SHARED_THRESHOLD.randomized());
    assertFalse(Quantizer.LLOYD_MAX.affine());
  }

  @Test
  void badSpellingsNameTheTextAndTheChoices() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Quantizer.parse("lloyd"))
        .getMessage().contains("'lloyd', expected one of stochastic, nearest"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Quantizer.parse("sigma-delta:x")).getMessage().contains("ORDER is 'x'"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Quantizer.parse("sigma-delta:4:8")).getMessage().contains("order is 4"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Quantizer.parse("sigma-delta:1:0")).getMessage().contains("block is 0"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Quantizer.parse("nearest:2")).getMessage().contains("takes no parameters"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Quantizer.fromMap(Map.of(Quantizer.KEY, "sigma-delta", Quantizer.KEY_ORDER, "1")))
        .getMessage().contains(Quantizer.KEY_BLOCK));
  }

  @Test
  void bitsAndFeaturesEachQuantizerCodes() {
    Quantizer.STOCHASTIC.check(64, 16);
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Quantizer.LLOYD_MAX.check(64, 16)).getMessage().contains("bits is 16"));
    Quantizer.LLOYD_MAX.check(64, 32);
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Quantizer.sigmaDelta(2, 8).check(64, 1)).getMessage().contains("at least 2 bits"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Quantizer.sigmaDelta(1, 3).check(64, 2)).getMessage().contains("multiple"));
    assertEquals(16, Quantizer.sigmaDelta(1, 4).modelFeatures(64, 2));
    assertEquals(64, Quantizer.LLOYD_MAX.modelFeatures(64, 2));
  }

  @Test
  void sigmaDeltaWeightsAreBoxConvolutionsOfTheBlockLength() {
    assertArrayEquals(new long[] {1, 1, 1, 1}, Quantizer.sigmaDelta(1, 4).weights());
    // Boxes of 4 and 5: lengths (4 - 1) + (5 - 1) + 1 = 8.
    assertArrayEquals(new long[] {1, 2, 3, 4, 4, 3, 2, 1}, Quantizer.sigmaDelta(2, 8).weights());
    for (int order = 1; order <= 3; order++) {
      for (int block : new int[] {1, 2, 3, 7, 8, 64}) {
        Quantizer.SigmaDelta q = Quantizer.sigmaDelta(order, block);
        long[] v = q.weights();
        assertEquals(block, v.length);
        // The r-th difference of v (zero-padded) has l1 norm 2^r once every box is longer than 1.
        if (block - 1 >= order) {
          long[] diff = new long[block + order];
          System.arraycopy(v, 0, diff, 0, block);
          for (int k = 0; k < order; k++) {
            for (int i = diff.length - 1; i > 0; i--) {
              diff[i] -= diff[i - 1];
            }
          }
          long l1 = 0;
          for (long x : diff) {
            l1 += Math.abs(x);
          }
          assertEquals(1L << order, l1, q.spelling());
        }
        // u = sqrt(λ) v / |v|_2: sum of squares λ, so condensed features estimate the kernel.
        double squares = 0;
        for (float u : q.condensation()) {
          squares += (double) u * u;
        }
        assertEquals(block, squares, 1e-5 * block, q.spelling());
      }
    }
  }

  @Test
  void stochasticRoundingRecordsItsDrawsAndOldFilesKeepTheirMeaning() {
    // New featurizers draw bytes and say so; a file without lprff.rng drew half words.
    assertEquals(8, Quantizer.STOCHASTIC.drawBits());
    assertSame(Quantizer.STOCHASTIC, Quantizer.parse("stochastic"));
    Map<String, String> written = new java.util.HashMap<>(Quantizer.STOCHASTIC.metadata(128, 4));
    assertEquals("threefry4x32-13:8", written.get(Quantizer.KEY_RNG));
    written.put(Quantizer.KEY, "stochastic");
    assertSame(Quantizer.STOCHASTIC, Quantizer.fromMap(written));
    assertSame(Quantizer.STOCHASTIC_HALF_WORDS,
        Quantizer.fromMap(Map.of(Quantizer.KEY, "stochastic")));
    assertEquals(Quantizer.STOCHASTIC_HALF_WORDS, Quantizer.fromMap(
        Map.of(Quantizer.KEY, "stochastic", Quantizer.KEY_RNG, "threefry4x32-13:16")));
    assertEquals(16, Quantizer.STOCHASTIC_HALF_WORDS.drawBits());
    // An unknown generator, or one on a quantizer that draws nothing, is named.
    String unknown = assertThrows(IllegalArgumentException.class, () -> Quantizer.fromMap(
        Map.of(Quantizer.KEY, "stochastic", Quantizer.KEY_RNG, "philox4x32-10:8"))).getMessage();
    assertTrue(unknown.contains("'philox4x32-10:8'") && unknown.contains("threefry4x32-13:8"),
        unknown);
    String misplaced = assertThrows(IllegalArgumentException.class, () -> Quantizer.fromMap(
        Map.of(Quantizer.KEY, "nearest", Quantizer.KEY_RNG, "threefry4x32-13:8"))).getMessage();
    assertTrue(misplaced.contains("nearest") && misplaced.contains(Quantizer.KEY_RNG), misplaced);
    assertThrows(IllegalArgumentException.class, () -> new Quantizer.Stochastic(12));
  }

  @Test
  void metadataSaysHowToDecode() {
    float[] levels = Quantizer.LLOYD_MAX.levels(128, 2);
    double s = Math.sqrt(2.0 / 128);
    double[] unit = LloydMaxCodebook.forBits(2).levels();
    for (int k = 0; k < 4; k++) {
      assertEquals((float) (s * unit[k]), levels[k]);
    }
    assertArrayEquals(levels, FloatList.parse("codebook",
        Quantizer.LLOYD_MAX.metadata(128, 2).get(Quantizer.KEY_CODEBOOK), 4));
    Map<String, String> sd = Quantizer.sigmaDelta(2, 8).metadata(128, 4);
    assertEquals("2", sd.get(Quantizer.KEY_ORDER));
    assertEquals("8", sd.get(Quantizer.KEY_BLOCK));
    assertArrayEquals(Quantizer.sigmaDelta(2, 8).condensation(),
        FloatList.parse("c", sd.get(Quantizer.KEY_CONDENSATION), 8));
    // Sigma-Delta's grid: levels (k - C) D s with D = 2 / (2^b - 2^r + 1), here 2/13 at 4 bits.
    QuantizationScale grid = Quantizer.sigmaDelta(2, 8).scale(128, 4);
    assertEquals(s * 2.0 / 13, grid.step(), 1e-7);
    assertEquals(-s * 7.5 * 2.0 / 13, grid.lo(), 1e-7);
    assertThrows(IllegalStateException.class, () -> Quantizer.LLOYD_MAX.scale(128, 2));
  }

  @Test
  void condensationExpandsWeightsAndCondensesGradientsAsTransposes() {
    Condensation c = new Condensation(new float[] {0.5f, 1f, 2f});
    float[] full = {1, 2, 3, 4, 5, 6};
    float[] out = new float[2];
    c.condense(full, 0, 6, out, 0);
    assertArrayEquals(new float[] {0.5f + 2 + 6, 2 + 5 + 12}, out);
    float[] wT = {1, -1, 2, 3}; // 2 outputs x 2 condensed features
    float[] expanded = c.expand(wT, 2, 6);
    assertArrayEquals(new float[] {0.5f, 1, 2, -0.5f, -1, -2, 1, 2, 4, 1.5f, 3, 6}, expanded);
    float[] g = new float[4];
    c.addCondensed(expanded, 2, 6, g);
    // <expand(w), expand(w)> per output: the condensation of expand(w) is w |u|^2.
    assertArrayEquals(new float[] {5.25f, -5.25f, 10.5f, 15.75f}, g);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> c.condensedFeatures(7))
        .getMessage().contains("features is 7"));
  }
}
