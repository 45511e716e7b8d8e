package org.lprff.vector.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RowSplitTest {

  @Test
  void heldoutIsSplitMix64FinalizerModFive() {
    // mix64(0) = 0 (the finalizer fixes 0), so with seed 0 row 0 is heldout
    assertEquals(0, RowSplit.mix64(0));
    assertTrue(RowSplit.heldout(0, 0));
    // reference value of the finalizer on 1, computed by hand from the definition
    long z = 1;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    z ^= z >>> 31;
    assertEquals(z, RowSplit.mix64(1));
    // about 20% heldout over 53,940 rows: the count is Binomial(53940, 0.2), sd ~93; +-1000 is
    // > 10 sd (false failure probability < 1e-20 for a random hash)
    long heldout = 0;
    for (long i = 0; i < 53_940; i++) {
      heldout += RowSplit.heldout(1, i) ? 1 : 0;
    }
    assertTrue(Math.abs(heldout - 10_788) < 1000, "heldout rows " + heldout);
  }

  @Test
  void validationRowsAreAboutTenPercentAndNeverHeldout() {
    // Binomial(53940, 0.1): sd ~70; +-1000 is > 14 sd (false failure probability < 1e-40 for a
    // random hash). A validation rule that overlapped heldout (e.g. mod 10 == 0) fails the loop.
    long validation = 0;
    for (long i = 0; i < 53_940; i++) {
      if (RowSplit.validation(1, i)) {
        validation++;
        assertFalse(RowSplit.heldout(1, i), "row " + i + " is both validation and heldout");
      }
    }
    assertTrue(Math.abs(validation - 5_394) < 1000, "validation rows " + validation);
  }
}
