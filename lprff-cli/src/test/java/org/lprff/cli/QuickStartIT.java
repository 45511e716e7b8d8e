package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.input.RowTable;
import org.lprff.arrow.model.FittedModel;

/**
 * {@code docs/examples/QuickStart.java}, run exactly as the README says (Java's single-file source
 * launcher, nothing but {@code lprff-cli/target/lprff.jar} on the class path): it fits diamonds
 * with defaults, saves, loads and prints the heldout MSE, which must be at most 0.0125; then
 * {@code lprff predict} on the same heldout rows gives the same predictions, bit for bit, as the
 * model it saved. Run by Failsafe after {@code package} (the jar must exist).
 */
class QuickStartIT {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path JAR = ROOT.resolve("lprff-cli/target/lprff.jar");
  private static final Pattern MSE = Pattern.compile("heldout MSE ([0-9.]+)");

  @TempDir Path dir;

  @Test
  void quickStartFitsSavesLoadsAndPredictsLikeTheCommandLine() throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(JAR),
        "skipped: " + JAR + " is absent (./mvnw -pl lprff-cli -am package builds it)");
    // The README's command from a folder that looks like the repository (its two folders linked),
    // so that the model the example saves lands in the test's folder, not in the clone.
    Files.createSymbolicLink(dir.resolve("lprff-cli"), ROOT.resolve("lprff-cli"));
    Files.createSymbolicLink(dir.resolve("docs"), ROOT.resolve("docs"));
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(List.of(System.getProperty("lprff.jvm.flags",
        "--add-modules=jdk.incubator.vector --add-opens=java.base/java.nio=ALL-UNNAMED"
            + " --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED")
        .split(" ")));
    command.addAll(List.of("-cp", "lprff-cli/target/lprff.jar", "docs/examples/QuickStart.java"));
    Path out = dir.resolve("out.txt");
    Process process = new ProcessBuilder(command).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertTrue(process.waitFor(5, TimeUnit.MINUTES), "QuickStart timed out");
    String printed = Files.readString(out);
    assertEquals(0, process.exitValue(), printed);
    String[] lines = printed.strip().split("\n");
    Matcher last = MSE.matcher(lines[lines.length - 1]);
    assertTrue(last.matches(), "the last line is the heldout MSE: " + printed);
    double mse = Double.parseDouble(last.group(1));
    assertTrue(mse <= 0.0125, "heldout MSE " + mse + " > 0.0125");

    // The same heldout rows as the example's (the library's seeded split), as a CSV for predict.
    RowTable all = RowTable.readCsv(
        ROOT.resolve("lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv"), "last");
    RowTable heldout = all.logLabels("diamonds").split(1)[1];
    Path csv = dir.resolve("heldout.csv");
    try (BufferedWriter w = Files.newBufferedWriter(csv, StandardCharsets.UTF_8)) {
      w.write(String.join(",", heldout.names()) + ",log_price\n");
      for (int i = 0; i < heldout.n(); i++) {
        StringBuilder line = new StringBuilder();
        for (int j = 0; j < heldout.d(); j++) {
          line.append(heldout.x()[i * heldout.d() + j]).append(',');
        }
        w.write(line.append(heldout.y()[i]).append('\n').toString());
      }
    }
    Path model = dir.resolve("diamonds.lprff");
    Path predictions = dir.resolve("predictions.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", csv.toString(), "--label-column",
        "last", "--output", predictions.toString());
    List<String> rows = Files.readAllLines(predictions);
    assertEquals("prediction", rows.get(0));
    assertEquals(heldout.n() + 1, rows.size());
    float[] library = FittedModel.load(model).predict(heldout.x(), heldout.n());
    double sum = 0;
    for (int i = 0; i < heldout.n(); i++) {
      float p = Float.parseFloat(rows.get(i + 1));
      assertEquals(library[i], p, "row " + i + ": the library and lprff predict differ");
      sum += (p - heldout.y()[i]) * (p - heldout.y()[i]) / heldout.n();
    }
    // The example prints 5 decimals of the same MSE.
    assertEquals(mse, sum, 5e-6, "lprff predict's heldout MSE");
  }
}
