package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.cli.output.Version;

/**
 * The real {@code ./lprff} launcher and {@code target/lprff.jar}, as a user runs them: from another
 * directory, through a symlink, with nothing on standard error but the tool's own lines (no JVM
 * warnings). Run by Failsafe after {@code package}; skipped when the jar is absent (e.g. a run of
 * {@code test} only), so that the launcher never starts a build from inside a build.
 */
class LauncherIT {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path LAUNCHER = ROOT.resolve("lprff");

  @TempDir Path dir;

  @BeforeAll
  static void requireTheJar() {
    Path jar = ROOT.resolve("lprff-cli/target/lprff.jar");
    Assumptions.assumeTrue(Files.isRegularFile(jar),
        "skipped: " + jar + " is absent (./mvnw -pl lprff-cli -am package builds it)");
  }

  private record Run(int exitCode, String out, String err) {}

  private Run run(Path launcher, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(launcher.toString()));
    command.addAll(List.of(args));
    Path out = dir.resolve("launcher.out");
    Path err = dir.resolve("launcher.err");
    Process process = new ProcessBuilder(command)
        .directory(dir.toFile())
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(command + " timed out");
    }
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  void helpAndVersionFromAnotherDirectory() throws Exception {
    Run help = run(LAUNCHER, "--help");
    assertEquals(0, help.exitCode(), help.err());
    assertTrue(help.out().startsWith("Usage: lprff"), help.out());
    assertEquals("", help.err(), "no JVM warnings on stderr");

    Run version = run(LAUNCHER, "--version");
    assertEquals(0, version.exitCode());
    assertTrue(version.out().startsWith("lprff " + Version.projectVersion()), version.out());
    assertEquals("", version.err());
  }

  @Test
  void featurizeAndInfoThroughASymlink() throws Exception {
    Path link = Files.createSymbolicLink(dir.resolve("lprff-link"), LAUNCHER);
    Inputs.Table.random(50, 4, 1).writeCsv(dir.resolve("train.csv"));
    Run quiet = run(link, "featurize", "--input", "train.csv", "--standardize", "--sigma", "2",
        "--features", "256", "--bits", "4", "--projection", "circulant", "--output",
        "train.arrow", "--quiet");
    assertEquals(0, quiet.exitCode(), quiet.err());
    assertEquals("", quiet.err(), "no JVM or logging warnings");

    Run loud = run(link, "featurize", "--input", "train.csv", "--like", "train.arrow",
        "--output", "heldout.arrow");
    assertEquals(0, loud.exitCode(), loud.err());
    // Progress lines (a slow first batch may get one), then the summary, and nothing else.
    List<String> lines = loud.err().lines().toList();
    assertTrue(lines.getLast().startsWith(
        "wrote heldout.arrow: 50 rows, 4 -> 256 features at 4 bits"), loud.err());
    assertTrue(lines.subList(0, lines.size() - 1).stream()
        .allMatch(line -> line.startsWith("featurizing: ")), loud.err());

    Run info = run(link, "info", "heldout.arrow");
    assertEquals(0, info.exitCode(), info.err());
    assertTrue(info.out().contains("rows             50"), info.out());
    assertEquals("", info.err());
    Files.delete(link); // JUnit warns about symlinks to outside its temporary directory
  }

  @Test
  void failuresAreOneLineWithExitCodes() throws Exception {
    Run missing = run(LAUNCHER, "info", "absent.arrow");
    assertEquals(1, missing.exitCode());
    assertEquals("lprff: no such file: absent.arrow\n", missing.err());

    Run usage = run(LAUNCHER, "featurize", "--input", "x.csv");
    assertEquals(2, usage.exitCode());
    assertTrue(usage.err().startsWith("lprff: Missing required option"), usage.err());
  }
}
