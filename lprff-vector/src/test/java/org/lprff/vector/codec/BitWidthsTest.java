package org.lprff.vector.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lprff.fixtures.Messages.assertExactMessage;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one check of bit widths and of quantizer-width pairs, and its one wording. */
class BitWidthsTest {

  private static final String ALL = "1, 2, 4, 8, 16 or 32 (float32)";

  @Test
  void theWidthsAndWhichQuantizerCodesWhich() {
    assertEquals(List.of(1, 2, 4, 8, 16, 32), BitWidths.ALL);
    assertEquals(List.of(1, 2, 4, 8, 16), BitWidths.CODES);
    for (int b = -1; b <= 33; b++) {
      assertEquals(BitWidths.ALL.contains(b), BitWidths.valid(b), "b = " + b);
    }
    assertEquals(BitWidths.ALL, BitWidths.of(Quantizer.STOCHASTIC));
    assertEquals(BitWidths.ALL, BitWidths.of(Quantizer.NEAREST));
    for (Quantizer q : List.of(Quantizer.SHARED_THRESHOLD, Quantizer.LLOYD_MAX,
        Quantizer.sigmaDelta(1, 8))) {
      assertEquals(List.of(1, 2, 4, 8, 32), BitWidths.of(q), q.spelling());
    }
    assertEquals(List.of(2, 4, 8, 32), BitWidths.of(Quantizer.sigmaDelta(2, 8)));
    assertEquals(List.of(4, 8, 32), BitWidths.of(Quantizer.sigmaDelta(3, 8)));
    assertEquals(ALL, BitWidths.describe(BitWidths.ALL));
    assertEquals("1, 2, 4, 8 or 16", BitWidths.describe(BitWidths.CODES));
    assertEquals("8", BitWidths.describe(List.of(8)));
  }

  @Test
  void oneWordingNamesTheValueAndTheAllowedSet() {
    assertEquals(4, BitWidths.check("bits", 4));
    assertEquals(32, BitWidths.check("bits", 32));
    assertExactMessage("bits is 3; expected " + ALL, () -> BitWidths.check("bits", 3));
    assertExactMessage("--bits is 0; expected " + ALL, () -> BitWidths.check("--bits", 0));
    assertExactMessage("bits is 32; expected 1, 2, 4, 8 or 16",
        () -> BitWidths.checkCodes("bits", 32));
    // A width no quantizer has is refused as such, before the quantizer is asked.
    assertExactMessage("bits is 3; expected " + ALL,
        () -> BitWidths.check("bits", 3, Quantizer.LLOYD_MAX));
    assertEquals(16, BitWidths.check("bits", 16, Quantizer.NEAREST));
    assertExactMessage("bits is 16; expected 1, 2, 4, 8 or 32 (float32) for quantizer lloyd-max"
        + " (16 bits: stochastic or nearest)", () -> BitWidths.check("bits", 16,
            Quantizer.LLOYD_MAX));
    assertExactMessage("bits is 1; expected 2, 4, 8 or 32 (float32) for quantizer"
        + " sigma-delta:2:8 (order 2 needs at least 2 bits)",
        () -> BitWidths.check("bits", 1, Quantizer.sigmaDelta(2, 8)));
    assertExactMessage("bits is 32; expected 1, 2, 4 or 8 for quantizer shared-threshold",
        () -> BitWidths.checkCodes("bits", 32, Quantizer.SHARED_THRESHOLD));
    assertExactMessage("bits is 16; expected 1, 2, 4 or 8 for quantizer shared-threshold (16"
        + " bits: stochastic or nearest)",
        () -> BitWidths.checkCodes("bits", 16, Quantizer.SHARED_THRESHOLD));
  }

  /** The codec's callers ask the one check: the same message for the same value. */
  @Test
  void theCodecsCallersShareTheWording() {
    String codes = "bits is 3; expected 1, 2, 4, 8 or 16";
    assertExactMessage(codes, () -> QuantizationScale.of(3, 0f, 1f));
    assertExactMessage(codes, () -> QuantizationScale.forFeatures(8, 3));
    assertExactMessage(codes, () -> PackedFeatures.rowBytes(8, 3));
    assertExactMessage("bits is 32; expected 1, 2, 4, 8 or 16",
        () -> QuantizationScale.of(32, 0f, 1f));
    String lloydMax = "bits is 16; expected 1, 2, 4 or 8 for quantizer lloyd-max (16 bits:"
        + " stochastic or nearest)";
    assertExactMessage(lloydMax, () -> LloydMaxCodebook.forBits(16));
    assertExactMessage(lloydMax, () -> new CodebookRows(null, 0, 0, 1, 16, new float[1 << 16]));
    assertExactMessage("bits is 16; expected 1, 2, 4 or 8 for quantizer shared-threshold (16"
        + " bits: stochastic or nearest)", () -> new SharedThresholdQuantizer(16, 1));
    assertExactMessage("bits is 16; expected 1, 2, 4, 8 or 32 (float32) for quantizer lloyd-max"
        + " (16 bits: stochastic or nearest)", () -> Quantizer.LLOYD_MAX.check(64, 16));
    assertExactMessage("bits is 3; expected " + ALL, () -> Quantizer.STOCHASTIC.check(64, 3));
  }
}
