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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.model.FittedModel;
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
      killWithItsJvm(process);
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
    return temporaries("big.arrow");
  }

  /** The hidden temporary siblings of {@code name} in the test directory. */
  private List<Path> temporaries(String name) throws IOException {
    try (var files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith("." + name + ".tmp-"))
          .toList();
    }
  }

  /**
   * train's and predict's JVMs killed with SIGKILL at seeded random points of a run: the output
   * path then holds what it held before (nothing, or an older complete output, byte for byte) or
   * the whole new output (the kill came after the rename), never part of one. Each command runs
   * once whole (its bytes, the reference: both are deterministic, and its wall time T; an older
   * output is made from it: the model with another l2, the CSV's first 100 rows), then is
   * killed six times, alternately over an absent output and an older one: three times after a
   * delay drawn uniformly from [0, T) from the launcher's start (seed 19), three times once its
   * temporary sibling appears plus a delay drawn from [0, 0.8 (T - t)), t when it appeared. The
   * phase each kill landed in is read from what it left (a temporary sibling: while writing) and
   * printed. predict streams its CSV for most of its run and must have been killed while writing
   * at least once; train writes (and forces) its 4 KB model in the last milliseconds of its run,
   * so its uniform kills land before the output is opened and only those that wait for the
   * temporary sibling may land while it writes.
   */
  @Test
  void killedTrainAndPredictLeaveNothingAndOlderOutputsIntact() throws Exception {
    Inputs.Table.random(10_000, 16, 4).writeCsv(dir.resolve("rows.csv"));
    Run featurize = run(LAUNCHER, "featurize", "--input", "rows.csv", "--label-column", "label",
        "--sigma", "2", "--features", "1024", "--bits", "8", "--projection", "circulant",
        "--output", "train.arrow", "--quiet");
    assertEquals(0, featurize.exitCode(), featurize.err());
    SplittableRandom random = new SplittableRandom(19);
    // The older outputs: complete files of the same kind with other bytes, made without a run.
    Map<String, Integer> trainPhases = killAtRandomPoints(List.of("train", "--train",
        "train.arrow", "--heldout", "train.arrow", "--task", "regression", "--solver", "sgd",
        "--model", "model.lprff", "--quiet"), "model.lprff", model -> {
          FittedModel m = FittedModel.load(model);
          Path other = dir.resolve("older.lprff");
          new FittedModel(m.spec(), m.standardization(), m.task(), 2 * m.l2() + 1e-3,
              m.weights(), m.training()).save(other);
          byte[] bytes = Files.readAllBytes(other);
          Files.delete(other);
          return bytes;
        }, random);
    Map<String, Integer> predictPhases = killAtRandomPoints(List.of("predict", "--model",
        "model.lprff", "--input", "rows.csv", "--label-column", "label", "--output",
        "predictions.csv"), "predictions.csv", csv -> (String.join("\n",
            Files.readAllLines(csv).subList(0, 101)) + "\n").getBytes(StandardCharsets.UTF_8),
        random);
    System.out.println("SIGKILL phases: train " + trainPhases + ", predict " + predictPhases);
    assertTrue(predictPhases.getOrDefault("writing", 0) >= 1,
        "no kill landed while predict was writing: " + predictPhases);
  }

  /**
   * Runs {@code args} whole (the reference bytes and the wall time T), then kills it six times
   * as {@link #killedTrainAndPredictLeaveNothingAndOlderOutputsIntact} says; returns how many
   * kills landed in each phase: before (the output not yet opened), writing, after (the rename).
   */
  private Map<String, Integer> killAtRandomPoints(List<String> args, String name,
      OlderOutput olderOutput, SplittableRandom random) throws Exception {
    Path target = dir.resolve(name);
    long started = System.nanoTime();
    Run whole = run(LAUNCHER, args.toArray(String[]::new));
    long wall = System.nanoTime() - started;
    assertEquals(0, whole.exitCode(), whole.err());
    byte[] reference = Files.readAllBytes(target);
    byte[] older = olderOutput.of(target);
    assertTrue(!Arrays.equals(reference, older), "the older output equals the new one");
    Files.delete(target);
    Map<String, Integer> phases = new TreeMap<>();
    for (int kill = 0; kill < 6; kill++) {
      boolean existing = kill % 2 == 1;
      if (existing) {
        Files.write(target, older);
      }
      List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
      command.addAll(args);
      long start = System.nanoTime();
      Process process = new ProcessBuilder(command)
          .directory(dir.toFile())
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      long delay;
      if (kill < 3) {
        delay = (long) (random.nextDouble() * wall);
      } else {
        while (temporaries(name).isEmpty() && process.isAlive()) {
          Thread.sleep(1);
        }
        long seen = System.nanoTime() - start;
        delay = seen + (long) (random.nextDouble() * 0.8 * Math.max(0, wall - seen));
      }
      long sleep = start + delay - System.nanoTime();
      if (sleep > 0) {
        TimeUnit.NANOSECONDS.sleep(sleep);
      }
      killWithItsJvm(process);
      String where = args.getFirst() + " killed at " + delay / 1_000_000 + " ms of "
          + wall / 1_000_000 + (existing ? ", over an older output" : "");
      List<Path> temps = temporaries(name);
      boolean after = Files.exists(target) && Arrays.equals(Files.readAllBytes(target), reference);
      String phase = !temps.isEmpty() ? "writing" : after ? "after" : "before";
      phases.merge(phase, 1, Integer::sum);
      if (!after) {
        if (existing) {
          assertArrayEquals(older, Files.readAllBytes(target), where + ": the older output");
        } else {
          assertTrue(Files.notExists(target), where + ": " + target + " exists");
        }
      }
      for (Path temp : temps) {
        Files.delete(temp);
      }
      Files.deleteIfExists(target);
    }
    Files.write(target, reference); // for the next command
    return phases;
  }

  /** An older complete output of the kind of {@code whole}, with other bytes. */
  private interface OlderOutput {
    byte[] of(Path whole) throws IOException;
  }

  /**
   * SIGKILLs the launcher's JVM and then the launcher (which runs java as its child: killing the
   * script alone would leave the JVM writing), and waits for both to end.
   */
  private static void killWithItsJvm(Process process) throws Exception {
    List<ProcessHandle> jvms = process.descendants().toList();
    jvms.forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    assertTrue(process.waitFor(1, TimeUnit.MINUTES), "the killed launcher ended");
    for (ProcessHandle jvm : jvms) {
      jvm.onExit().get(1, TimeUnit.MINUTES);
    }
  }
}
