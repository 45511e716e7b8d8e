package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.vector.metrics.TrainingMemory;
import org.lprff.vector.stream.RowSplit;

/**
 * {@code lprff compare} on the small synthetic regression problem of {@link TrainCommandTest}
 * (x ~ N(0, 1)^4, y = sin(x0) + 0.5 x1^2 - x2 x3 + noise; 300 train and 200 heldout rows).
 * Everything is deterministic (fixed seeds), so the bounds below are not statistical.
 */
class CompareCommandTest {

  @TempDir static Path dir;
  static Path trainCsv;
  static Path heldoutCsv;

  @BeforeAll
  static void data() throws IOException {
    trainCsv = dir.resolve("train.csv");
    heldoutCsv = dir.resolve("heldout.csv");
    TrainCommandTest.writeCsv(trainCsv, 300, 1, false);
    TrainCommandTest.writeCsv(heldoutCsv, 200, 2, false);
  }

  static JsonNode json(Cli.Result result) throws IOException {
    return new ObjectMapper().readTree(TrainCommandTest.lastLine(result.out()));
  }

  static Map<String, JsonNode> byMethod(JsonNode root) {
    Map<String, JsonNode> rows = new HashMap<>();
    for (JsonNode row : root.get("methods")) {
      rows.put(row.get("method").asText() + "@" + row.get("m").asInt(), row);
    }
    return rows;
  }

  /**
   * With the heldout file equal to the training file and m = n landmarks, every subsample row is
   * a landmark, so Nyström's K~ = K(S, L) K_LL^+ K(L, S) equals K up to the dropped eigenvalues
   * (<= m u s_max ~ 1e-11) and the float rounding of the features: Δ1, Δ2 ~ 1e-6 at λ = n l2 =
   * 0.03. Random features at m = 256 are far from exact (Δ1 ~ 0.5), which shows the metric
   * separates them.
   */
  @Test
  void nystromWithEveryTrainingRowIsExact() throws IOException {
    Cli.Result r = Cli.ok("compare", "--train", trainCsv.toString(), "--heldout",
        trainCsv.toString(), "--label-column", "y", "--sigma", "2", "--features", "256",
        "--bits", "32", "--nystrom", "300,50", "--rows", "300", "--l2", "1e-4", "--json",
        "--quiet");
    JsonNode root = json(r);
    assertEquals(300, root.get("kernel_rows").asInt(), r.toString());
    assertEquals(0.03, root.get("lambda").asDouble(), 1e-12);
    Map<String, JsonNode> rows = byMethod(root);
    JsonNode exact = rows.get("nystrom@300");
    assertTrue(exact.get("delta1").asDouble() < 1e-4, exact.toString());
    assertTrue(exact.get("delta2").asDouble() < 1e-4, exact.toString());
    assertTrue(exact.get("frobenius_error").asDouble() < 1e-3, exact.toString());
    JsonNode few = rows.get("nystrom@50");
    assertTrue(few.get("delta1").asDouble() > 100 * exact.get("delta1").asDouble(),
        few.toString());
    JsonNode rff = rows.get("circulant/32@256");
    assertTrue(rff.get("delta1").asDouble() > 0.05, rff.toString());
    assertTrue(rff.get("frobenius_error").asDouble() > 1, rff.toString());
  }

  /**
   * Bits 1, 2, 4, 8, 32 at m = 512: every Δ finite, 0 <= Δ1 <= 1 (K~ = Z Z^T ⪰ 0 gives K~ - K
   * ⪰ -(K + λI) + λI, so M's smallest eigenvalue is > -1), quantization noise raises Δ2 (1 bit far
   * above 8 bits: measured about 70 against 2.5), the memory of every row is TrainingMemory's
   * and the heldout MSE at 8 bits beats that at 1 bit.
   */
  @Test
  void bitsMemoryAndJson() throws IOException {
    Cli.Result r = Cli.ok("compare", "--train", trainCsv.toString(), "--heldout",
        heldoutCsv.toString(), "--label-column", "y", "--sigma", "2", "--features", "512",
        "--bits", "1,2,4,8,32", "--projection", "circulant", "--nystrom", "64", "--rows",
        "150", "--l2", "1e-4", "--batch", "100", "--seed", "3", "--json", "--quiet");
    JsonNode root = json(r);
    assertEquals(6, root.get("methods").size(), r.toString());
    assertEquals(300, root.get("train_rows").asInt());
    assertEquals(200, root.get("heldout_rows").asInt());
    assertEquals(150, root.get("kernel_rows").asInt());
    Map<String, JsonNode> rows = byMethod(root);
    for (int bits : new int[] {1, 2, 4, 8, 32}) {
      JsonNode row = rows.get("circulant/" + bits + "@512");
      double d1 = row.get("delta1").asDouble();
      double d2 = row.get("delta2").asDouble();
      assertTrue(d1 >= 0 && d1 <= 1, row.toString());
      assertTrue(d2 >= 0 && Double.isFinite(d2), row.toString());
      assertEquals(TrainingMemory.forProjection("circulant", 4, 512, bits, 100, 1).totalBits(),
          row.get("training_memory").get("total_bits").asLong(), row.toString());
      assertEquals(bits, row.get("bits").asInt());
    }
    double d2at1 = rows.get("circulant/1@512").get("delta2").asDouble();
    double d2at8 = rows.get("circulant/8@512").get("delta2").asDouble();
    double d2at32 = rows.get("circulant/32@512").get("delta2").asDouble();
    assertTrue(d2at1 > 4 * d2at8, d2at1 + " vs " + d2at8);
    assertTrue(d2at8 <= 1.1 * d2at32 + 1e-9, d2at8 + " vs " + d2at32);
    assertTrue(rows.get("circulant/8@512").get("heldout_metric").asDouble()
        < rows.get("circulant/1@512").get("heldout_metric").asDouble(), r.toString());
    JsonNode nys = rows.get("nystrom@64");
    assertEquals(TrainingMemory.forNystrom(4, 64, 100, 1).totalBits(),
        nys.get("training_memory").get("total_bits").asLong());
    assertTrue(nys.get("features").asInt() <= 64);
  }

  /** The table: a header and one line per method, naming each. */
  @Test
  void tableHasOneRowPerMethod() {
    Cli.Result r = Cli.ok("compare", "--train", trainCsv.toString(), "--heldout",
        heldoutCsv.toString(), "--label-column", "y", "--sigma", "2", "--features", "128",
        "--bits", "4,8", "--projection", "circulant,dense", "--nystrom", "32", "--rows", "100",
        "--solver", "sgd", "--epochs", "3");
    String[] lines = r.out().strip().split("\\R");
    assertEquals(1 + 5 + 1, lines.length, r.toString());
    assertTrue(lines[0].contains("delta1") && lines[0].contains("memory bits"), lines[0]);
    assertTrue(lines[1].startsWith("circulant/4 "), lines[1]);
    assertTrue(lines[3].startsWith("dense/4 "), lines[3]);
    assertTrue(lines[5].startsWith("nystrom "), lines[5]);
    assertTrue(r.err().contains("exact kernel: 100 x 100"), r.err());
  }

  /** --nystrom-match: the largest landmark count within each random-features method's memory. */
  @Test
  void nystromMatchesMemory() throws IOException {
    Cli.Result r = Cli.ok("compare", "--train", trainCsv.toString(), "--heldout",
        heldoutCsv.toString(), "--label-column", "y", "--sigma", "2", "--features", "128",
        "--bits", "1,32", "--nystrom-match", "--rows", "50", "--json", "--quiet");
    JsonNode methods = json(r).get("methods");
    assertEquals(4, methods.size(), r.toString());
    for (int k = 0; k < 2; k++) {
      long budget = methods.get(k).get("training_memory").get("total_bits").asLong();
      JsonNode nys = methods.get(2 + k);
      int m = nys.get("m").asInt();
      assertEquals("nystrom", nys.get("method").asText());
      assertEquals(TrainingMemory.forNystrom(4, m, 250, 1).totalBits(),
          nys.get("training_memory").get("total_bits").asLong());
      assertTrue(TrainingMemory.forNystrom(4, m, 250, 1).totalBits() <= budget, nys.toString());
      assertTrue(TrainingMemory.forNystrom(4, m + 1, 250, 1).totalBits() > budget, nys.toString());
    }
  }

  /** One input: the demo's split rule decides the heldout rows. */
  @Test
  void singleInputIsSplitLikeTheDemo() throws IOException {
    int held = 0;
    for (int i = 0; i < 300; i++) {
      held += RowSplit.heldout(5, i) ? 1 : 0;
    }
    Cli.Result r = Cli.ok("compare", "--train", trainCsv.toString(), "--label-column", "y",
        "--sigma", "2", "--features", "64", "--bits", "8", "--rows", "50", "--seed", "5",
        "--json", "--quiet");
    JsonNode root = json(r);
    assertEquals(held, root.get("heldout_rows").asInt());
    assertEquals(300 - held, root.get("train_rows").asInt());
  }

  @Test
  void errorsNameTheValues() throws IOException {
    String[] base = {"compare", "--train", trainCsv.toString(), "--heldout",
        heldoutCsv.toString(), "--label-column", "y", "--sigma", "2", "--quiet"};
    assertError(2, "--rows is 5000, expected 1 to 4096", base, "--rows", "5000");
    assertError(2, "--bits is 3; expected 1, 2, 4, 8, 16 or 32 (float32)", base, "--bits", "1,3");
    assertError(2, "--bits has 'x', not a number; expected 1, 2, 4, 8, 16 or 32 (float32)", base,
        "--bits", "1,x");
    assertError(2, "--projection is 'spiral'", base, "--projection", "spiral");
    assertError(2, "--solver is 'newton'", base, "--solver", "newton");
    assertError(2, "--nystrom 64 is listed twice", base, "--nystrom", "64,64");
    assertError(2, "no methods", base, "--bits", "");
    assertError(2, "--task is 'ranking'", base, "--task", "ranking");
    assertError(1, "--nystrom 400 exceeds the 300 training rows", base, "--nystrom", "400");
    assertError(2, "--l2 is 0.0", base, "--l2", "0");
    Path renamed = dir.resolve("renamed.csv");
    Files.writeString(renamed, Files.readString(heldoutCsv).replaceFirst("x2", "w2"));
    assertError(1, "has column 2 'w2', but " + trainCsv + " has 'x2'",
        new String[] {"compare", "--train", trainCsv.toString(), "--heldout",
            renamed.toString(), "--label-column", "y", "--sigma", "2", "--quiet"});
    Path negative = dir.resolve("negative.csv");
    Files.writeString(negative, "a,y\n1,2\n2,-1\n3,4\n");
    assertError(1, "the label of train row 1 is -1.0, expected finite and > 0",
        new String[] {"compare", "--train", negative.toString(), "--heldout",
            negative.toString(), "--sigma", "1", "--log-label", "--quiet"});
  }

  private static void assertError(int code, String message, String[] base, String... more) {
    String[] args = new String[base.length + more.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(more, 0, args, base.length, more.length);
    Cli.Result r = Cli.run(args);
    assertEquals(code, r.exitCode(), r.toString());
    assertTrue(r.err().startsWith("lprff: "), r.toString());
    assertTrue(r.err().contains(message), "expected '" + message + "' in\n" + r);
  }
}
