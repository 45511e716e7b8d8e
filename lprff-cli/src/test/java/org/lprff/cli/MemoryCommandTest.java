package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.lprff.vector.metrics.TrainingMemory;

/** {@code lprff memory}: Table 1 training memory for m, or the largest m within a budget. */
class MemoryCommandTest {

  @Test
  void memoryOfMAndTheLargestMWithinABudget() {
    long budget = TrainingMemory.forProjection("circulant", 784, 2048, 32, 250, 10).totalBits();
    String js = TrainCommandTest.lastLine(Cli.ok("memory", "--projection", "circulant",
        "--input-dim", "784", "--features", "2048", "--classes", "10", "--json").out());
    assertEquals(budget, (long) TrainCommandTest.jsonNumber(js, "total_bits"), js);
    assertEquals(32L * 2048 * 250, (long) TrainCommandTest.jsonNumber(js, "mini_batch_bits"));

    js = TrainCommandTest.lastLine(Cli.ok("memory", "--projection", "circulant", "--input-dim",
        "784", "--budget", Long.toString(budget), "--bits", "4", "--classes", "10", "--json")
        .out());
    int m = TrainingMemory.largestFeatures("circulant", 784, 4, 250, 10, budget);
    assertEquals(m, (int) TrainCommandTest.jsonNumber(js, "features"), js);
    assertTrue(TrainCommandTest.jsonNumber(js, "total_bits") <= budget, js);
    assertTrue(m > 4 * 2048 && m < 8 * 2048, "m = " + m); // 4 bits: ~6x the features

    String text = Cli.ok("memory", "--input-dim", "9", "--features", "10", "--batch", "1").out();
    // dense: 32 (m d + m) + 32 m s + 32 m c = 3200 + 320 + 320 bits
    assertTrue(text.contains("= 3840 bits"), text);
  }

  /**
   * --model-bits 8: Table 1 with LM-HALP's 8-bit model, a quarter of the float model's bits; the
   * other parts unchanged.
   */
  @Test
  void modelBitsCountTheLowPrecisionModel() {
    String[] base = {"memory", "--projection", "circulant", "--input-dim", "784", "--features",
        "4096", "--bits", "4", "--classes", "10", "--json"};
    String full = TrainCommandTest.lastLine(Cli.ok(base).out());
    String[] eight = java.util.Arrays.copyOf(base, base.length + 2);
    eight[base.length] = "--model-bits";
    eight[base.length + 1] = "8";
    String low = TrainCommandTest.lastLine(Cli.ok(eight).out());
    assertEquals(32L * 4096 * 10, (long) TrainCommandTest.jsonNumber(full, "model_bits"), full);
    assertEquals(8L * 4096 * 10, (long) TrainCommandTest.jsonNumber(low, "model_bits"), low);
    assertEquals(TrainCommandTest.jsonNumber(full, "total_bits") - 24L * 4096 * 10,
        TrainCommandTest.jsonNumber(low, "total_bits"), low);
    TrainingMemory m = TrainingMemory.forProjection("circulant", 784, 4096, 4, 250, 10);
    assertEquals(m.modelBits() / 4, m.withModelBits(8).modelBits());
    assertEquals(m.miniBatchBits(), m.withModelBits(8).miniBatchBits());
    long budget = m.totalBits();
    int wider = TrainingMemory.largestFeatures("circulant", 784, 4, 250, 10, budget, 8);
    assertTrue(wider > 4096 && TrainingMemory.forProjection("circulant", 784, wider, 4, 250, 10)
        .withModelBits(8).totalBits() <= budget, "m = " + wider);
    eight[base.length + 1] = "4";
    Cli.Result r = Cli.run(eight);
    assertEquals(2, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--model-bits is 4, expected 8, 16 or 32"), r.err());
  }

  @Test
  void badArgumentsAreUsageErrors() {
    Cli.Result r = Cli.run("memory", "--input-dim", "784");
    assertEquals(2, r.exitCode(), r.toString());
    r = Cli.run("memory", "--input-dim", "784", "--features", "10", "--budget", "100");
    assertEquals(2, r.exitCode(), r.toString());
    r = Cli.run("memory", "--input-dim", "784", "--features", "10", "--bits", "3");
    assertEquals(2, r.exitCode(), r.toString());
    assertTrue(r.err().contains("bits is 3"), r.err());
    r = Cli.run("memory", "--input-dim", "9", "--budget", "-5");
    assertEquals(2, r.exitCode(), r.toString());
    assertTrue(r.err().contains("budgetBits is -5"), r.err());
    r = Cli.run("memory", "--input-dim", "9", "--budget", "100");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--budget 100 bits is less than the training memory of m = 1"),
        r.err());
  }
}
