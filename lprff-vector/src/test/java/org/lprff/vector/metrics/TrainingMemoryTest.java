package org.lprff.vector.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import org.junit.jupiter.api.Test;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.Projection;
import org.lprff.vector.projection.Projections;

class TrainingMemoryTest {

  @Test
  void nystromIsThePaperRow() {
    // Table 1: feature generation 32 (m d + m^2), mini-batch 32 m s, model 32 m c.
    int d = 90;
    int m = 2000;
    int s = 250;
    int c = 1;
    TrainingMemory memory = TrainingMemory.forNystrom(d, m, s, c);
    assertEquals(32L * (m * d + (long) m * m), memory.featureGenerationBits());
    assertEquals(32L * m * s, memory.miniBatchBits());
    assertEquals(32L * m * c, memory.modelBits());
    assertEquals(
        memory.featureGenerationBits() + memory.miniBatchBits() + memory.modelBits(),
        memory.totalBits());
    assertEquals(memory.totalBits() / 8.0, memory.totalBytes());
  }

  @Test
  void projectionsCountTheirParametersAndPhases() {
    int d = 9; // p = 16
    int m = 100; // B = 7 blocks, 112 block entries
    int s = 250;
    int c = 10;
    TrainingMemory dense = TrainingMemory.forProjection("dense", d, m, 32, s, c);
    assertEquals(32L * (m * d + m), dense.featureGenerationBits()); // paper: 32 m d, + phases
    assertEquals(32L * m * s, dense.miniBatchBits());
    assertEquals(32L * m * c, dense.modelBits());
    assertEquals(
        32L * (2 * 112 + m), TrainingMemory.forProjection("circulant", d, m, 4, s, c)
            .featureGenerationBits());
    assertEquals(
        32L * (4 * 112 + m), TrainingMemory.forProjection("fastfood", d, m, 4, s, c)
            .featureGenerationBits());
    assertEquals(
        32L * (4 * 112 + m), TrainingMemory.forProjection("orthogonal", d, m, 4, s, c)
            .featureGenerationBits());
    for (int bits : new int[] {1, 2, 4, 8, 16}) {
      TrainingMemory lp = TrainingMemory.forProjection("circulant", d, m, bits, s, c);
      assertEquals((long) bits * m * s, lp.miniBatchBits(), "LP-RFF mini-batch b m s");
      assertEquals(32L * m * c, lp.modelBits());
    }
  }

  @Test
  void paddedWidthIsTheProjectionsBlock() {
    // The structured projections' own block size (p) is the independent reference.
    KernelFunction gaussian = new KernelFunction.Gaussian(1);
    for (int d : new int[] {1, 2, 3, 4, 5, 9, 16, 17, 784, 1024}) {
      for (String name : new String[] {"circulant", "fastfood", "orthogonal"}) {
        Projection projection = Projections.create(name, gaussian, d, 8, 1);
        assertEquals(projection.preferredBlock(), TrainingMemory.paddedWidth(d), name + " d " + d);
      }
    }
  }

  @Test
  void lowPrecisionSavesOnTheMiniBatch() {
    // The paper's setting on e.g. census-like data: d = 119, s = 250; 8x fewer mini-batch bits at
    // b = 4 than float32, and the same features for Nystrom cost m^2 more.
    TrainingMemory fp = TrainingMemory.forProjection("circulant", 119, 10_000, 32, 250, 1);
    TrainingMemory lp = TrainingMemory.forProjection("circulant", 119, 10_000, 4, 250, 1);
    TrainingMemory nystrom = TrainingMemory.forNystrom(119, 10_000, 250, 1);
    assertEquals(8 * lp.miniBatchBits(), fp.miniBatchBits());
    assertEquals(fp.featureGenerationBits(), lp.featureGenerationBits());
    assertEquals(32L * (10_000L * 119 + 100_000_000L), nystrom.featureGenerationBits());
  }

  @Test
  void largestFeaturesFitsTheBudgetAndOneMoreDoesNot() {
    // Fashion-MNIST's setting: d = 784 (p = 1024), batch 250, 10 classes; the budget is
    // full-precision circulant RFFs at m = 2048.
    long budget = TrainingMemory.forProjection("circulant", 784, 2048, 32, 250, 10).totalBits();
    assertEquals(2048, TrainingMemory.largestFeatures("circulant", 784, 32, 250, 10, budget));
    assertEquals(2047, TrainingMemory.largestFeatures("circulant", 784, 32, 250, 10, budget - 1));
    for (String projection : Projections.NAMES) {
      for (int bits : new int[] {1, 2, 4, 8, 16, 32}) {
        int m = TrainingMemory.largestFeatures(projection, 784, bits, 250, 10, budget);
        long fits = TrainingMemory.forProjection(projection, 784, m, bits, 250, 10).totalBits();
        long over = TrainingMemory.forProjection(projection, 784, m + 1, bits, 250, 10).totalBits();
        assertTrue(fits <= budget && over > budget, projection + " b=" + bits + " m=" + m);
      }
    }
    // Circulant at 4 bits: each feature costs 4 * 250 + 32 * 10 + 32 (phase) + 64 (g and signs),
    // 1416 bits, so m is about budget / 1416 (12,176 here; blocks round the parameters up).
    int m4 = TrainingMemory.largestFeatures("circulant", 784, 4, 250, 10, budget);
    assertTrue(Math.abs(m4 - budget / 1416) <= 1024, "m4 = " + m4);
    // Budgets too small for m = 1.
    assertEquals(0, TrainingMemory.largestFeatures("dense", 9, 32, 250, 1, 0));
    assertEquals(0, TrainingMemory.largestFeatures("dense", 9, 32, 250, 1, 32L * 250));
  }

  @Test
  void largestFeaturesRejectsBadArgumentsNamingTheValue() {
    assertMessage("budgetBits is -1",
        () -> TrainingMemory.largestFeatures("circulant", 784, 4, 250, 10, -1));
    assertMessage("bits is 3", () -> TrainingMemory.largestFeatures("dense", 9, 3, 250, 1, 1000));
    assertMessage("projection is 'x'", () -> TrainingMemory.largestFeatures("x", 9, 4, 1, 1, 10));
    assertMessage("classes is 0", () -> TrainingMemory.largestFeatures("dense", 9, 4, 1, 0, 10));
  }

  @Test
  void rejectsBadArgumentsNamingTheValue() {
    assertMessage(
        "projection is 'gaussian', expected one of [dense, circulant, fastfood, orthogonal]",
        () -> TrainingMemory.forProjection("gaussian", 9, 10, 32, 1, 1));
    assertMessage("projection is null", () -> TrainingMemory.forProjection(null, 9, 10, 32, 1, 1));
    assertMessage("bits is 3; expected 1, 2, 4, 8, 16 or 32 (float32)", // the one check's wording
        () -> TrainingMemory.forProjection("dense", 9, 10, 3, 1, 1));
    assertMessage("d is 0", () -> TrainingMemory.forProjection("dense", 0, 10, 32, 1, 1));
    assertMessage("m is -1", () -> TrainingMemory.forNystrom(9, -1, 1, 1));
    assertMessage("batch is 0", () -> TrainingMemory.forNystrom(9, 10, 0, 1));
    assertMessage("classes is 0", () -> TrainingMemory.forNystrom(9, 10, 1, 0));
    assertMessage("bits are -1, 0, 0", () -> new TrainingMemory(-1, 0, 0));
    assertThrows(
        ArithmeticException.class,
        () -> TrainingMemory.forNystrom(Integer.MAX_VALUE, Integer.MAX_VALUE, 1, 1));
  }
}
