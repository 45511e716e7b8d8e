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
