package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.lprff.arrow.LabelType;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * Interoperability with an independent Arrow implementation, apache-arrow for JavaScript (the
 * version pinned in src/test/js/package.json and package-lock.json, installed by {@code npm ci}
 * into target/js once and reused while the lock file is unchanged).
 *
 * <ul>
 *   <li>Java writes, JavaScript reads: node dequantizes every feature from the file's metadata
 *       alone (lprff.bits, lprff.features, lprff.scale.lo, lprff.scale.step, lprff.bit_order) and
 *       its values must equal {@link PackedFeatures#unpack} exactly. Exact equality is possible:
 *       Java computes fma(code, step, lo) rounded once to float; in JavaScript code * step (at most
 *       16 + 24 significant bits) and its sum with lo (both multiples of ulp(step) / 2^16 within
 *       [-2 s, 2 s], about 41 bits) are exact in double, so Math.fround rounds the exact value
 *       once, the same way. The same for every quantizer, against the library's decoding ({@code
 *       FeatureRows.of(spec, ...).decode}): Lloyd-Max's codes through lprff.codebook (exact: table
 *       look-ups), Sigma-Delta's values condensed through lprff.condensation, exact too: node
 *       replays Java's float32 chain sum = fma(u_i, v_i, sum) (fma emulated in double with the
 *       error of the sum, see read-features.mjs), and its values before the condensation.
 *   <li>JavaScript writes, Java reads: tables of Float64 columns and of a FixedSizeList&lt;Float32&gt;
 *       column, with Int32 labels, featurize to the same bytes as the same rows given as CSV.
 * </ul>
 *
 * Without node and npm the test fails (CI has them) unless {@code -Dlprff.interop=skip}.
 */
class InteropTest {

  private static final Path SOURCES = Path.of("src/test/js");
  private static final Path JS = Path.of("target/js");
  private static final Duration NPM_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration NODE_TIMEOUT = Duration.ofMinutes(1);

  @TempDir Path dir;

  @BeforeAll
  static void installApacheArrow() throws IOException, InterruptedException {
    Assumptions.assumeFalse("skip".equals(System.getProperty("lprff.interop")),
        "skipped: -Dlprff.interop=skip");
    for (String tool : List.of("node", "npm")) {
      try {
        run(List.of(tool, "--version"), Path.of("."), NODE_TIMEOUT);
      } catch (IOException e) {
        fail(tool + " is needed by the JavaScript interop test and was not found or failed ("
            + e.getMessage() + "); install Node.js 18+ with npm, or run with"
            + " -Dlprff.interop=skip to skip it");
      }
    }
    Files.createDirectories(JS);
    try (Stream<Path> files = Files.list(SOURCES)) {
      for (Path file : files.toList()) {
        Files.copy(file, JS.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    installOnce(JS.resolve("package-lock.json"),
        JS.resolve("node_modules/.lprff-installed-lock.json"),
        List.of("npm", "ci", "--no-audit", "--no-fund"), JS, NPM_TIMEOUT);
  }

  /**
   * Runs an install {@code command} once per content of {@code lock}: the content installed is
   * remembered in {@code marker} and compared on later runs.
   */
  static void installOnce(Path lock, Path marker, List<String> command, Path directory,
      Duration timeout) throws IOException, InterruptedException {
    byte[] wanted = Files.readAllBytes(lock);
    if (!Files.exists(marker) || !java.util.Arrays.equals(wanted, Files.readAllBytes(marker))) {
      run(command, directory, timeout);
      Files.write(marker, wanted);
    }
  }

  static Stream<Arguments> bitsAndFraming() {
    return IntStream.of(1, 2, 4, 8, 16, 32).boxed()
        .flatMap(b -> Stream.of(Arguments.of(b, "file"), Arguments.of(b, "stream")));
  }

  /**
   * Every quantizer but stochastic (above) at bits it codes: the grid ones, Lloyd-Max (codebook),
   * Sigma-Delta of orders 1 and 2 over blocks of 3 and 8 (condensed), float32 (b = 32) for the
   * two whose b = 32 keys differ; both framings.
   */
  static Stream<Arguments> quantizersBitsAndFraming() {
    Stream<Arguments> cases = Stream.of(
        Arguments.of("nearest", 4), Arguments.of("shared-threshold", 1),
        Arguments.of("shared-threshold", 4), Arguments.of("shared-threshold", 8),
        Arguments.of("lloyd-max", 1), Arguments.of("lloyd-max", 2), Arguments.of("lloyd-max", 4),
        Arguments.of("lloyd-max", 8), Arguments.of("lloyd-max", 32),
        Arguments.of("sigma-delta:2:8", 2), Arguments.of("sigma-delta:2:8", 4),
        Arguments.of("sigma-delta:2:8", 8), Arguments.of("sigma-delta:2:8", 32),
        Arguments.of("sigma-delta:1:3", 1), Arguments.of("sigma-delta:1:3", 4));
    return cases.flatMap(a -> Stream.of("file", "stream")
        .map(ipc -> Arguments.of(a.get()[0], a.get()[1], ipc)));
  }

  /** Java writes, node reads and dequantizes from the metadata: every value equal, exactly. */
  @ParameterizedTest(name = "b={0}, ipc={1}")
  @MethodSource("bitsAndFraming")
  void nodeDequantizesJavasFilesExactly(int bits, String ipc) throws Exception {
    assertNodeReadsWhatJavaWrote(featureFile(dir, dir.resolve("x.arrow"), bits, ipc));
  }

  /**
   * The other quantizers: node decodes from the metadata (codebook, condensation) exactly what
   * the library decodes, condensed and before the condensation.
   */
  @ParameterizedTest(name = "{0}, b={1}, ipc={2}")
  @MethodSource("quantizersBitsAndFraming")
  void nodeDecodesEveryQuantizerExactly(String quantizer, int bits, String ipc)
      throws Exception {
    Path file = featureFile(dir, dir.resolve("x.arrow"), bits, ipc, quantizer);
    assertNodeReadsWhatJavaWrote(file);
    FeaturizerSpec spec = FeatureRows.read(file).schema().spec();
    assertEquals(quantizer.startsWith("sigma-delta"), spec.condensation().isPresent());
    if (spec.condensation().isPresent()) {
      assertNodeReadsWhatJavaWrote(file, false);
    }
  }

  /**
   * The interop tests' feature file: 21 random rows of 5 columns at m = 37 (rows of any byte
   * alignment), record batches of 8.
   */
  static Path featureFile(Path dir, Path out, int bits, String ipc) throws IOException {
    return featureFile(dir, out, bits, ipc, "stochastic");
  }

  /**
   * The interop tests' feature file of a quantizer: m = 37, or for Sigma-Delta the multiple of
   * its block from 37 on (40 for blocks of 8, 39 for 3).
   */
  static Path featureFile(Path dir, Path out, int bits, String ipc, String quantizer)
      throws IOException {
    int block = Quantizer.parse(quantizer) instanceof Quantizer.SigmaDelta sd ? sd.block() : 1;
    int m = (37 + block - 1) / block * block;
    Path csv = Inputs.Table.random(21, 5, 17).writeCsv(dir.resolve("x.csv"));
    Cli.ok("featurize", "-i", csv.toString(), "--standardize", "--sigma", "1.3", "-m",
        Integer.toString(m), "-b", Integer.toString(bits), "--quantizer", quantizer, "--seed", "5",
        "--ipc", ipc, "--batch-size", "8", "-o", out.toString(), "-q");
    return out;
  }

  /**
   * A model trained on 600 rows (4 bits, m = 128), the full-precision twin of 200 heldout rows,
   * and {@code lprff predict}'s output on those rows (header, then one line per row).
   */
  record ScoredModel(Path model, Path twin, List<String> predictions) {}

  static ScoredModel scoredModel(Path dir, boolean classes) throws IOException {
    return scoredModel(dir, classes, "stochastic");
  }

  /**
   * {@link #scoredModel(Path, boolean)} with a quantizer: for a deterministic one the "twin" is
   * the heldout rows featurized like the training rows (its bits, its quantizer), the features
   * {@code lprff predict} scores for it (for Sigma-Delta, m / block condensed ones).
   */
  static ScoredModel scoredModel(Path dir, boolean classes, String quantizer) throws IOException {
    boolean full = Quantizer.parse(quantizer).randomized();
    Path trainCsv = dir.resolve("train.csv");
    Path heldoutCsv = dir.resolve("heldout.csv");
    TrainCommandTest.writeCsv(trainCsv, 600, 1, classes);
    TrainCommandTest.writeCsv(heldoutCsv, 200, 2, classes);
    Path train = dir.resolve("train.arrow");
    Path twin = dir.resolve("heldout32.arrow");
    Path model = dir.resolve("model.lprff");
    Cli.ok("featurize", "--input", trainCsv.toString(), "--label-column", "y", "--label-type",
        classes ? "classes" : "regression", "--standardize", "--sigma", "2", "--features", "128",
        "--bits", "4", "--projection", "circulant", "--seed", "3", "--quantizer", quantizer,
        "--output", train.toString(), "-q");
    Cli.ok("featurize", "--input", heldoutCsv.toString(), "--label-column", "y", "--like",
        train.toString(), "--bits", full ? "32" : "4", "--output", twin.toString(), "-q");
    Cli.ok("train", "--train", train.toString(), "--heldout", twin.toString(), "--task",
        classes ? "classification" : "regression", "--model", model.toString(), "-q");
    Path predictions = dir.resolve("predictions.csv");
    Cli.ok("predict", "--model", model.toString(), "--input", heldoutCsv.toString(),
        "--label-column", "y", "--output", predictions.toString());
    return new ScoredModel(model, twin, Files.readAllLines(predictions));
  }

  /** Int32 class labels and a row_id column beside the features. */
  @Test
  void classLabels() throws Exception {
    Path csv = Inputs.Table.random(30, 5, 17).withClassLabels(7).writeCsv(dir.resolve("x.csv"));
    Path file = dir.resolve("x.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--label-type", "classes", "--row-ids",
        "--sigma", "1", "-m", "300", "-b", "4", "--projection", "orthogonal", "-o",
        file.toString(), "-q");
    assertNodeReadsWhatJavaWrote(file);
  }

  private void assertNodeReadsWhatJavaWrote(Path file) throws Exception {
    assertNodeReadsWhatJavaWrote(file, true);
  }

  /** node's values (condensed or not: Sigma-Delta) are the library's decoded rows, bit for bit. */
  private void assertNodeReadsWhatJavaWrote(Path file, boolean condensed) throws Exception {
    FeatureRows rows = FeatureRows.read(file);
    FeaturizerSpec spec = rows.schema().spec();
    float[][] decoded = rows.decoded(condensed);
    int n = condensed ? spec.modelFeatures() : spec.features();
    List<String> command = new ArrayList<>(
        List.of("node", "read-features.mjs", file.toAbsolutePath().toString()));
    if (!condensed) {
      command.add("--uncondensed");
    }
    List<String> lines = run(command, JS, NODE_TIMEOUT).lines().toList();
    assertEquals(rows.rows() + " " + n + " " + spec.bits(), lines.get(0));
    assertEquals(rows.rows() + 1, lines.size());
    for (int r = 0; r < rows.rows(); r++) {
      float[] expected = decoded[r];
      assertEquals(n, expected.length);
      rows.assertGridRowIs(r, expected); // the grid, unpacked by the codec
      String[] cells = lines.get(r + 1).split(" ");
      assertEquals(n + 1, cells.length, "row " + r);
      float[] actual = new float[n];
      for (int i = 0; i < n; i++) {
        // JavaScript prints the shortest text of a double, which parses back to that double; it
        // must be a float32 value (Math.fround applied), so no rounding happens on this side.
        double printed = Double.parseDouble(cells[i + 1]);
        actual[i] = (float) printed;
        assertEquals(printed, actual[i], "row " + r + " feature " + i + " is not a float32");
      }
      assertArrayEquals(expected, actual, "row " + r); // exact: compares float bits
      assertEquals(rows.labels()[r], Double.parseDouble(cells[0]), "label of row " + r);
    }
  }

  /**
   * node writes Float64 + Int32 and FixedSizeList&lt;Float32&gt; + Int32 tables; featurized by the
   * command line they give the bytes of the same rows as CSV.
   */
  @Test
  void arrowTablesWrittenByNodeFeaturizeLikeCsv() throws Exception {
    run(List.of("node", "write-inputs.mjs", dir.toAbsolutePath().toString()), JS, NODE_TIMEOUT);
    FeatureRows reference = null;
    for (String input : List.of("rows.csv", "numeric.arrow", "list.arrow")) {
      Path out = dir.resolve(input + ".features.arrow");
      Cli.ok("featurize", "-i", dir.resolve(input).toString(), "--label-column", "y",
          "--label-type", "classes", "--standardize", "--sigma", "2", "-m", "64", "-b", "8",
          "--projection", "circulant", "-o", out.toString(), "-q");
      FeatureRows rows = FeatureRows.read(out);
      assertEquals(37, rows.rows(), input);
      assertEquals(5, rows.schema().spec().inputDim(), input);
      assertEquals(LabelType.CLASSES, rows.schema().labelType(), input);
      if (reference == null) {
        reference = rows;
        for (int r = 0; r < 37; r++) {
          assertEquals(r % 3, rows.labels()[r]);
        }
      } else {
        assertArrayEquals(reference.concatenated(), rows.concatenated(), input);
        assertArrayEquals(reference.labels(), rows.labels(), input);
      }
    }
  }

  /**
   * A model file read by node alone scores the full-precision twin of the heldout rows like
   * {@code lprff predict} scores the raw rows: the same features (predict featurizes at b = 32
   * with the model's spec), so only the summation differs, float in Java against double in
   * JavaScript: |difference| <= m 2^-24 sum |w_i z_i| + rounding of the CSV (9 digits), well
   * within 1e-5 of the score's scale here. Regression (one output) and three classes (the argmax
   * of node's scores is predict's class; near-ties, whose margin is under that bound, excepted).
   */
  @ParameterizedTest(name = "classes {0}")
  @ValueSource(booleans = {false, true})
  void nodeScoresWithAModelFile(boolean classes) throws Exception {
    ScoredModel m = scoredModel(dir, classes);
    List<String> expected = m.predictions();
    List<String> scored = run(List.of("node", "score-with-model.mjs",
        m.model().toAbsolutePath().toString(), m.twin().toAbsolutePath().toString()), JS,
        NODE_TIMEOUT).lines().toList();
    assertEquals(200, scored.size());
    assertEquals(201, expected.size());
    int agree = 0;
    for (int r = 0; r < 200; r++) {
      double[] scores = java.util.Arrays.stream(scored.get(r).split(" "))
          .mapToDouble(Double::parseDouble).toArray();
      String want = expected.get(r + 1).split(",")[0];
      if (!classes) {
        assertEquals(1, scores.length);
        assertEquals(Double.parseDouble(want), scores[0], 1e-5, "row " + r);
        agree++;
      } else {
        assertEquals(3, scores.length);
        int argmax = 0;
        for (int j = 1; j < 3; j++) {
          argmax = scores[j] > scores[argmax] ? j : argmax;
        }
        agree += Integer.parseInt(want) == argmax ? 1 : 0;
      }
    }
    assertTrue(agree >= 199, agree + " of 200 rows agree");
  }

  /** info --json is valid JSON to an independent parser, with the documented fields. */
  @Test
  void infoJsonParsesInNode() throws Exception {
    Path csv = Inputs.Table.random(9, 2, 1).writeCsv(dir.resolve("x.csv"));
    Path file = dir.resolve("x.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--standardize", "--sigma", "1", "-m", "16",
        "-b", "4", "-o", file.toString(), "-q");
    Path json = Files.writeString(dir.resolve("info.json"), Cli.ok("info", "--json",
        file.toString()).out());
    String fields = run(List.of("node", "-e", "const o = JSON.parse(require('fs').readFileSync("
        + "process.argv[1], 'utf8')); console.log([o.rows, o.bits, o.features, o.kernel.sigma,"
        + " o.scale.lo, o.label_type, o.standardization.names.join('|'),"
        + " o.metadata['lprff.bit_order']].join(' '))", json.toAbsolutePath().toString()),
        JS, NODE_TIMEOUT).strip();
    assertEquals("9 4 16 1 -0.35355338 regression c0|c1 lsb0", fields);
  }

  /** Runs a command, returns its standard output; a non-zero exit or a timeout is an IOException. */
  static String run(List<String> command, Path directory, Duration timeout)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("lprff-interop", ".out");
    Path err = Files.createTempFile("lprff-interop", ".err");
    try {
      Process process = new ProcessBuilder(new ArrayList<>(command))
          .directory(directory.toFile())
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", command) + " timed out after " + timeout);
      }
      if (process.exitValue() != 0) {
        throw new IOException(String.join(" ", command) + " exited with " + process.exitValue()
            + ":\n" + Files.readString(err));
      }
      return Files.readString(out);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
