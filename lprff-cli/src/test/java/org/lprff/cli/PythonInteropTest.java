package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.cli.experiment.SyntheticExperiment;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * The Python package in {@code python/} on files the command line writes, through an
 * independent Arrow implementation (pyarrow; polars and duckdb beside it). A virtual environment
 * in target/python-venv gets {@code python/requirements-test.txt} once (again when that file
 * changes) and the package on every run.
 *
 * <ul>
 *   <li>{@code lprff.read_features} gives exactly the values {@link PackedFeatures#unpack} gives,
 *       float bit for float bit, for every b and both framings (why exact is possible: see {@link
 *       InteropTest}; numpy computes lo + code * step in float64 and casts once), and for every
 *       quantizer the values the library decodes (Lloyd-Max's codebook, Sigma-Delta condensed);
 *   <li>{@code lprff.predict} scores like {@code lprff predict}, a Sigma-Delta model too;
 *   <li>polars and duckdb see the rows, labels and feature bytes pyarrow sees;
 *   <li>the package's own pytest suite (python/tests) passes on these files.
 * </ul>
 *
 * Without python3 (3.9+) and pip the test fails (CI has them) unless {@code -Dlprff.python=skip}.
 */
class PythonInteropTest {

  private static final Path PACKAGE = Path.of("../python").toAbsolutePath().normalize();
  private static final Path VENV = Path.of("target/python-venv").toAbsolutePath();
  private static final Path PYTHON = VENV.resolve("bin/python");
  private static final Duration PIP_TIMEOUT = Duration.ofMinutes(15);
  private static final Duration PYTHON_TIMEOUT = Duration.ofMinutes(2);

  @TempDir Path dir;

  @BeforeAll
  static void installThePackage() throws IOException, InterruptedException {
    Assumptions.assumeFalse("skip".equals(System.getProperty("lprff.python")),
        "skipped: -Dlprff.python=skip");
    try {
      InteropTest.run(List.of("python3", "-c",
          "import sys, venv, ensurepip; assert sys.version_info >= (3, 9)"), Path.of("."),
          PYTHON_TIMEOUT);
    } catch (IOException e) {
      fail("python3 (3.9+, with venv and pip) is needed by the Python interop test and was not"
          + " found or failed (" + e.getMessage() + "); install it (Debian: python3-venv), or"
          + " run with -Dlprff.python=skip to skip it");
    }
    if (!Files.isExecutable(PYTHON)) {
      InteropTest.run(List.of("python3", "-m", "venv", VENV.toString()), Path.of("."),
          PYTHON_TIMEOUT);
    }
    // The test requirements once per content of the file; the package itself on every run.
    Path requirements = PACKAGE.resolve("requirements-test.txt");
    InteropTest.installOnce(requirements, VENV.resolve(".lprff-installed-requirements.txt"),
        List.of(PYTHON.toString(), "-m", "pip", "install", "--quiet", "--retries", "1",
            "--timeout", "60", "-r", requirements.toString()), Path.of("."), PIP_TIMEOUT);
    InteropTest.run(List.of(PYTHON.toString(), "-m", "pip", "install", "--quiet", "--no-deps",
        "--no-build-isolation", "--force-reinstall", PACKAGE.toString()), Path.of("."),
        PIP_TIMEOUT);
  }

  private Path featurize(Path out, int bits, String ipc) throws IOException {
    return InteropTest.featureFile(dir, out, bits, ipc);
  }

  private static String python(String code, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(PYTHON.toString(), "-c", code));
    command.addAll(List.of(args));
    return InteropTest.run(command, Path.of("."), PYTHON_TIMEOUT);
  }

  /** Java writes, Python reads: every value and label equal, exactly. */
  @ParameterizedTest(name = "b={0}, ipc={1}")
  @MethodSource("org.lprff.cli.InteropTest#bitsAndFraming")
  void pythonDequantizesJavasFilesExactly(int bits, String ipc) throws Exception {
    assertPythonReadsWhatJavaWrote(featurize(dir.resolve("x.arrow"), bits, ipc), true);
  }

  /**
   * Every other quantizer (the cases of {@link InteropTest}'s node test): the package decodes
   * exactly what the library decodes ({@code FeatureRows.of(spec, ...).decode}), Lloyd-Max
   * through its codebook, Sigma-Delta condensed (numpy replays Java's float32 fma chain exactly,
   * see {@code lprff._fma32}) and before the condensation ({@code condensed=False}).
   */
  @ParameterizedTest(name = "{0}, b={1}, ipc={2}")
  @MethodSource("org.lprff.cli.InteropTest#quantizersBitsAndFraming")
  void pythonDecodesEveryQuantizerExactly(String quantizer, int bits, String ipc)
      throws Exception {
    Path file = InteropTest.featureFile(dir, dir.resolve("x.arrow"), bits, ipc, quantizer);
    assertPythonReadsWhatJavaWrote(file, true);
    assertPythonReadsWhatJavaWrote(file, false);
  }

  private void assertPythonReadsWhatJavaWrote(Path file, boolean condensed) throws Exception {
    Path values = dir.resolve("values.f32");
    Path labels = dir.resolve("labels.f64");
    python("import sys, numpy as np, lprff\n"
        + "v, l, meta = lprff.read_features(sys.argv[1], condensed=sys.argv[4] == 'true')\n"
        + "v.astype('<f4').tofile(sys.argv[2]); np.asarray(l, '<f8').tofile(sys.argv[3])",
        file.toString(), values.toString(), labels.toString(), Boolean.toString(condensed));
    FeatureRows rows = FeatureRows.read(file);
    FeaturizerSpec spec = rows.schema().spec();
    float[][] decoded = rows.decoded(condensed);
    int n = condensed ? spec.modelFeatures() : spec.features();
    ByteBuffer got = ByteBuffer.wrap(Files.readAllBytes(values)).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer gotLabels =
        ByteBuffer.wrap(Files.readAllBytes(labels)).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals((long) rows.rows() * n * 4, got.capacity(), "values bytes");
    for (int r = 0; r < rows.rows(); r++) {
      float[] expected = decoded[r];
      rows.assertGridRowIs(r, expected); // the grid, unpacked by the codec
      float[] actual = new float[n];
      got.asFloatBuffer().position(r * n).get(actual);
      assertArrayEquals(expected, actual, "row " + r); // exact: compares float bits
      assertEquals(rows.labels()[r], gotLabels.getDouble(8 * r), "label of row " + r);
    }
  }

  static Stream<Arguments> modelCases() {
    return Stream.of(Arguments.of(false, "stochastic"), Arguments.of(true, "stochastic"),
        Arguments.of(false, "sigma-delta:2:8"), Arguments.of(true, "sigma-delta:2:8"));
  }

  /**
   * A model file read by the package scores the full-precision twin of the heldout rows like
   * {@code lprff predict} scores the raw rows (the bound of {@link InteropTest}'s node test:
   * float against double summation); classes are predict's but for near-ties. A Sigma-Delta
   * model (m / block weights) scores the condensed features of the heldout rows at its bits, as
   * predict does, and the same read uncondensed (predict condenses them).
   */
  @ParameterizedTest(name = "classes {0}, {1}")
  @MethodSource("modelCases")
  void pythonScoresWithAModelFile(boolean classes, String quantizer) throws Exception {
    InteropTest.ScoredModel m = InteropTest.scoredModel(dir, classes, quantizer);
    List<String> expected = m.predictions();
    String scoring = "import sys, lprff\n"
        + "model = lprff.read_model(sys.argv[1])\n"
        + "values, _, _ = lprff.read_features(sys.argv[2], condensed=sys.argv[3] == 'true')\n"
        + "out = lprff.predict(model, values) if model.task == 'regression'"
        + " else lprff.predict_classes(model, values)\n"
        + "assert out.shape == (len(values),), out.shape\n" // one output: [rows]
        + "print('\\n'.join(repr(float(x)) for x in out))";
    for (boolean condensed : quantizer.startsWith("sigma-delta") ? new boolean[] {true, false}
        : new boolean[] {true}) {
      List<String> scored = python(scoring, m.model().toString(), m.twin().toString(),
          Boolean.toString(condensed)).lines().toList();
      assertEquals(200, scored.size());
      int agree = 0;
      for (int r = 0; r < 200; r++) {
        double want = Double.parseDouble(expected.get(r + 1).split(",")[0]);
        double got = Double.parseDouble(scored.get(r));
        if (!classes) {
          assertEquals(want, got, 1e-5, "row " + r + ", condensed " + condensed);
          agree++;
        } else {
          agree += want == got ? 1 : 0;
        }
      }
      assertTrue(agree >= 199, agree + " of 200 rows agree, condensed " + condensed);
    }
  }

  /** polars (read_ipc) and duckdb (over the pyarrow table) see pyarrow's rows, labels, bytes. */
  @Test
  void polarsAndDuckdbReadTheSameRows() throws Exception {
    Path file = featurize(dir.resolve("x.arrow"), 4, "file");
    String out = python("import sys, polars as pl, duckdb, pyarrow as pa\n"
        + "arrow_rows = pa.ipc.open_file(sys.argv[1]).read_all()\n"
        + "table = arrow_rows\n"
        + "frame = pl.read_ipc(sys.argv[1], memory_map=False)\n"
        + "assert frame.height == table.num_rows, (frame.height, table.num_rows)\n"
        + "assert frame['label'].to_list() == table.column('label').to_pylist()\n"
        + "assert frame['features'].to_list() == table.column('features').to_pylist()\n"
        + "n, s, w = duckdb.sql('select count(*), sum(label), min(octet_length(features))"
        + " from arrow_rows').fetchone()\n"
        + "assert n == table.num_rows and abs(s - sum(table.column('label').to_pylist())) < 1e-9\n"
        + "meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items()}\n"
        + "print(frame.height, n, w, meta['lprff.bits'], meta['lprff.features'])",
        file.toString());
    assertEquals("21 21 19 4 37", out.strip()); // 19 = ceil(37 x 4 / 8) bytes a row
  }

  /**
   * The pipe: {@code lprff featurize ... --output - | python -c "..."}. The command's
   * standard output goes to Python's standard input (a real OS pipe into the process), where
   * pyarrow's {@code ipc.open_stream(sys.stdin.buffer)} and the package's {@code
   * read_features(sys.stdin.buffer)} read it; both see the rows and the values the feature file
   * of the same command holds.
   */
  @Test
  void featuresPipedIntoPython() throws Exception {
    Path rows = dir.resolve("rows.csv");
    TrainCommandTest.writeCsv(rows, 150, 3, false);
    Cli.Piped piped = Cli.piped(Files.readAllBytes(rows), "featurize", "--input", "-",
        "--label-column", "y", "--standardize", "--sigma", "median", "--features", "40",
        "--bits", "4", "--batch-size", "32", "--output", "-");
    assertEquals(0, piped.exitCode(), piped.toString());
    Path file = dir.resolve("same.arrow");
    Cli.ok("featurize", "--input", rows.toString(), "--label-column", "y", "--standardize",
        "--sigma", "median", "--features", "40", "--bits", "4", "--output", file.toString(), "-q");
    String script = "import sys, numpy as np, pyarrow as pa, lprff\n"
        + "if sys.argv[1] == 'pyarrow':\n"
        + "    t = pa.ipc.open_stream(sys.stdin.buffer).read_all()\n"
        + "    print(t.num_rows, t.schema.metadata[b'lprff.sigma'].decode())\n"
        + "else:\n"
        + "    v, labels, meta = lprff.read_features(sys.stdin.buffer)\n"
        + "    w, _, _ = lprff.read_features(sys.argv[2])\n"
        + "    assert np.array_equal(v, w), 'piped values differ from the file'\n"
        + "    print(v.shape[0], v.shape[1], meta['lprff.sigma'])\n";
    String sigma = FeatureRows.read(file).schema().metadata().get("lprff.sigma");
    for (String reader : List.of("pyarrow", "lprff")) {
      ProcessBuilder pb = new ProcessBuilder(PYTHON.toString(), "-c", script, reader,
          file.toString()).redirectErrorStream(true);
      Process process = pb.start();
      try (var stdin = process.getOutputStream()) {
        stdin.write(piped.out());
      }
      String output = new String(process.getInputStream().readAllBytes());
      assertEquals(0, process.waitFor(), output);
      assertEquals(reader.equals("pyarrow") ? "150 " + sigma : "150 40 " + sigma,
          output.strip(), reader);
    }
  }

  /** The package's own tests (python/tests) on files the command line wrote. */
  @Test
  void thePackagesTestsPass() throws Exception {
    Path files = Files.createDirectories(dir.resolve("files"));
    for (int bits : new int[] {1, 2, 4, 8, 16, 32}) {
      for (String ipc : List.of("file", "stream")) {
        featurize(files.resolve("b" + bits + "-" + ipc + ".arrow"), bits, ipc);
      }
    }
    Path trainCsv = dir.resolve("train.csv");
    TrainCommandTest.writeCsv(trainCsv, 300, 1, false);
    Path train = dir.resolve("train.arrow");
    Cli.ok("featurize", "--input", trainCsv.toString(), "--label-column", "y", "--sigma", "2",
        "--features", "64", "--bits", "4", "--output", train.toString(), "-q");
    Cli.ok("train", "--train", train.toString(), "--heldout", train.toString(), "--task",
        "regression", "--model", files.resolve("model.lprff").toString(), "-q");
    // q-<quantizer>-b<bits>-<ipc>.arrow: the other quantizers' keys (codebook, condensation).
    for (String q : List.of("lloyd-max:2", "lloyd-max:8", "lloyd-max:32", "shared-threshold:4",
        "sigma-delta:2:8:4", "sigma-delta:2:8:32", "sigma-delta:1:3:1")) {
      String quantizer = q.substring(0, q.lastIndexOf(':'));
      int bits = Integer.parseInt(q.substring(q.lastIndexOf(':') + 1));
      for (String ipc : List.of("file", "stream")) {
        InteropTest.featureFile(dir, files.resolve("q-" + quantizer.replace(':', '-') + "-b" + bits
            + "-" + ipc + ".arrow"), bits, ipc, quantizer);
      }
    }
    // A Sigma-Delta model (m / block weights) and rows of its spec.
    Path sigmaDelta = files.resolve("model-sigma-delta.arrow");
    Cli.ok("featurize", "--input", trainCsv.toString(), "--label-column", "y", "--sigma", "2",
        "--features", "64", "--bits", "4", "--quantizer", "sigma-delta:2:8", "--output",
        sigmaDelta.toString(), "-q");
    Cli.ok("train", "--train", sigmaDelta.toString(), "--heldout", sigmaDelta.toString(),
        "--task", "regression", "--model",
        files.resolve("model-sigma-delta.lprff").toString(), "-q");
    ProcessBuilder pytest = new ProcessBuilder(PYTHON.toString(), "-m", "pytest", "-q",
        "-p", "no:cacheprovider", PACKAGE.resolve("tests").toString())
        .redirectErrorStream(true);
    Map<String, String> env = pytest.environment();
    env.put("LPRFF_TEST_FILES", files.toString());
    Process process = pytest.start();
    String output = new String(process.getInputStream().readAllBytes());
    assertEquals(0, process.waitFor(), output);
    assertTrue(output.contains(" passed") && !output.contains("skipped"), output);
  }

  /**
   * An experiment's summary.md follows from its runs.csv by an independent reading: {@code
   * scripts/experiment_check.py} (csv and numpy) recomputes every Spearman ρ of the Figure 5 table
   * and Table 2's choices, rows and ratios, and fails on the first that differs: on a real (small)
   * experiment with every quantizer family, and on synthetic runs where LP-RFF (stochastic,
   * nearest, shared-threshold, Sigma-Delta) and full precision reach the tolerance (Nyström and
   * Lloyd-Max do not), so that ratios and families without one are printed and checked.
   */
  @Test
  void experimentSummaryFollowsFromRunsCsv() throws Exception {
    Path csv = dir.resolve("experiment.csv");
    TrainCommandTest.writeCsv(csv, 500, 4, false);
    Path out = dir.resolve("experiment");
    Cli.ok(ExperimentCommandTest.args(csv, out, "--seeds", "2", "--quantizer",
        "stochastic,nearest,shared-threshold,lloyd-max,sigma-delta:1:4,sigma-delta:2:4"));
    String checked = checkExperiment(out);
    assertTrue(checked.contains("Spearman max(1/(1-Δ1), Δ2)"), checked);

    Path synthetic = dir.resolve("synthetic-experiment");
    SyntheticExperiment.write(synthetic);
    String ratios = checkExperiment(synthetic);
    for (String family : List.of("LP-RFF nearest", "LP-RFF shared-threshold",
        "LP-RFF sigma-delta", "FP RFF")) {
      assertTrue(ratios.contains(family + " / LP-RFF = "), ratios);
    }
    for (String family : List.of("LP-RFF lloyd-max", "Nyström")) {
      assertTrue(ratios.contains(family + ": none within tolerance"), ratios);
    }
  }

  private static String checkExperiment(Path folder) throws Exception {
    String checked = InteropTest.run(List.of(PYTHON.toString(),
        PACKAGE.resolveSibling("scripts").resolve("experiment_check.py").toString(),
        folder.toString()), Path.of("."), PYTHON_TIMEOUT);
    assertTrue(checked.contains("OK: summary.md follows from runs.csv"), checked);
    return checked;
  }
}
