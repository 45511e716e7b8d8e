package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
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
  static void requireTheJarAndPrepareTheStartupCache() throws Exception {
    Path jar = ROOT.resolve("lprff-cli/target/lprff.jar");
    Assumptions.assumeTrue(Files.isRegularFile(jar),
        "skipped: " + jar + " is absent (./mvnw -pl lprff-cli -am package builds it)");
    // The first run after a build trains the start-up cache (one line saying so); later runs
    // use it and print nothing of their own.
    Process first = new ProcessBuilder(LAUNCHER.toString(), "--version")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectErrorStream(false)
        .start();
    String err = new String(first.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(first.waitFor(3, TimeUnit.MINUTES));
    assertEquals(0, first.exitValue(), err);
    assertTrue(err.isEmpty() || err.equals("preparing the start-up cache (once per build, ~10 s)…\n"),
        err);
    Path cache = ROOT.resolve("lprff-cli/target/lprff.aot");
    assertTrue(Files.isRegularFile(cache) && Files.getLastModifiedTime(cache).compareTo(
        Files.getLastModifiedTime(jar)) >= 0, "no start-up cache newer than the jar: " + cache);
  }

  private record Run(int exitCode, String out, String err) {}

  private Run run(Path launcher, String... args) throws IOException, InterruptedException {
    return run(true, launcher, args);
  }

  private Run run(boolean startupCache, Path launcher, String... args)
      throws IOException, InterruptedException {
    return run(startupCache, 2, launcher, args);
  }

  private Run run(boolean startupCache, int minutes, Path launcher, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(launcher.toString()));
    command.addAll(List.of(args));
    Path out = dir.resolve("launcher.out");
    Path err = dir.resolve("launcher.err");
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("LPRFF_AOT", startupCache ? "1" : "0");
    Process process = builder
        .directory(dir.toFile())
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
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

  /** The start-up cache changes how fast the JVM starts, never what it writes. */
  @Test
  void theStartupCacheLeavesTheBytesAlone() throws Exception {
    Inputs.Table.random(300, 6, 2).writeCsv(dir.resolve("rows.csv"));
    for (String bits : List.of("4", "32")) {
      byte[][] files = new byte[2][];
      for (int cache = 0; cache < 2; cache++) {
        String name = "f" + bits + "-" + cache + ".arrow";
        Run run = run(cache == 1, LAUNCHER, "featurize", "-i", "rows.csv", "--standardize",
            "--sigma", "2", "-m", "512", "-b", bits, "--projection", "fastfood", "-o", name,
            "-q");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());
        files[cache] = Files.readAllBytes(dir.resolve(name));
      }
      assertArrayEquals(files[0], files[1], "b = " + bits);
    }
  }

  /**
   * The README's experiment on a folder with nothing in it (diamonds ships inside lprff), one seed
   * of the quick plan: every run lands in runs.csv, the three figures decode as images, and the
   * summary has Table 2. (`--quick` with its 3 seeds is this three times over.)
   */
  @Test
  void theQuickExperimentNeedsNoOtherFile() throws Exception {
    Run run = run(true, 8, LAUNCHER, "experiment", "--quick", "--seeds", "1");
    assertEquals(0, run.exitCode(), run.err());
    Path out = dir.resolve("experiment-diamonds-quick");
    assertTrue(run.out().startsWith("experiment: 39 runs in "), run.out());
    assertTrue(run.err().contains("[39/39] Nystrom m = 1,024 seed 1: mse "), run.err());
    assertEquals(1 + 39, Files.readAllLines(out.resolve("runs.csv")).size());
    for (String plot : List.of("fig3-delta-vs-m.png", "fig4-metric-vs-memory.png",
        "fig5-metric-vs-approximation.png")) {
      BufferedImage image = ImageIO.read(out.resolve(plot).toFile());
      assertTrue(image != null && image.getWidth() >= 1000, plot);
    }
    assertTrue(Files.readString(out.resolve("summary.md")).contains("## Table 2"));
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

  /**
   * featurize's JVM killed with SIGKILL (destroyForcibly on Linux) while it writes: nothing
   * appears at the output path; the bytes went to a hidden temporary sibling, which a kill cannot
   * remove (noted in the README). Three kills at different points of the write, then a run to
   * the end writes a file info validates.
   */
  @Test
  void aKilledFeaturizeLeavesNothingAtTheOutputPath() throws Exception {
    Inputs.Table.random(20_000, 16, 3).writeCsv(dir.resolve("big.csv"));
    Path target = dir.resolve("big.arrow");
    int killedWhileWriting = 0;
    for (int kill = 0; kill < 3; kill++) {
      Process process = new ProcessBuilder(LAUNCHER.toString(), "featurize", "--input",
          "big.csv", "--sigma", "2", "--features", "4096", "--bits", "8", "--projection",
          "circulant", "--output", "big.arrow", "--quiet")
          .directory(dir.toFile())
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      // Wait until the temporary sibling is being written, then a little more each time.
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      while (temporaries().isEmpty() && process.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      Thread.sleep(150L * kill);
      boolean wasWriting = process.isAlive() && !temporaries().isEmpty();
      // The launcher runs java as its child: kill the JVM that writes, then the script.
      List<ProcessHandle> jvms = process.descendants().toList();
      jvms.forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      assertTrue(process.waitFor(1, TimeUnit.MINUTES), "the killed launcher ended");
      for (ProcessHandle jvm : jvms) {
        jvm.onExit().get(1, TimeUnit.MINUTES);
      }
      if (wasWriting) {
        killedWhileWriting++;
        assertTrue(Files.notExists(target), "kill " + kill + ": " + target + " exists");
      }
      for (Path temp : temporaries()) {
        Files.delete(temp);
      }
    }
    assertTrue(killedWhileWriting >= 1, "no kill landed while featurize was writing");
    Run whole = run(LAUNCHER, "featurize", "--input", "big.csv", "--sigma", "2", "--features",
        "4096", "--bits", "8", "--projection", "circulant", "--output", "big.arrow", "--quiet");
    assertEquals(0, whole.exitCode(), whole.err());
    Run info = run(LAUNCHER, "info", "big.arrow");
    assertEquals(0, info.exitCode(), info.err());
    assertTrue(info.out().contains("rows             20,000"), info.out());
  }

  /** The hidden temporary siblings of big.arrow in the test directory. */
  private List<Path> temporaries() throws IOException {
    try (var files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith(".big.arrow.tmp-"))
          .toList();
    }
  }
}
