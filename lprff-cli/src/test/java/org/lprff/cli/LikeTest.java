package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.Standardization;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.random.CounterRng;

/** --like FILE: heldout data featurized exactly like the training data, or a clear refusal. */
class LikeTest {

  @TempDir Path dir;

  private Path train(Inputs.Table table, String ipc, String... extra) throws IOException {
    Path csv = table.writeCsv(dir.resolve("train.csv"));
    Path out = dir.resolve("train-" + ipc + ".arrow");
    List<String> args = new java.util.ArrayList<>(List.of("featurize", "--input", csv.toString(),
        "--label-column", "last", "--standardize", "--kernel", "gaussian", "--sigma", "2.0",
        "--features", "100", "--bits", "4", "--projection", "circulant", "--seed", "1",
        "--ipc", ipc, "--output", out.toString(), "--quiet"));
    args.addAll(List.of(extra));
    Cli.ok(args.toArray(String[]::new));
    return out;
  }

  /** The same input featurized --like the train file gives byte-identical features and metadata. */
  @ParameterizedTest(name = "like an IPC {0}")
  @ValueSource(strings = {"file", "stream"})
  void sameInputGivesIdenticalFeatures(String ipc) throws IOException {
    Inputs.Table table = Inputs.Table.random(50, 9, 4);
    Path train = train(table, ipc);
    Path heldout = dir.resolve("heldout.arrow");
    Cli.ok("featurize", "--input", dir.resolve("train.csv").toString(), "--like",
        train.toString(), "--output", heldout.toString(), "--ipc", ipc, "-q");
    FeatureRows a = FeatureRows.read(train);
    FeatureRows b = FeatureRows.read(heldout);
    assertEquals(a.schema().metadata(), b.schema().metadata());
    assertArrayEquals(a.concatenated(), b.concatenated());
    assertArrayEquals(a.labels(), b.labels());
    if (ipc.equals("file")) {
      assertArrayEquals(Files.readAllBytes(train), Files.readAllBytes(heldout));
    }
  }

  /**
   * A file from before {@code lprff.rng} (resources {@code before-rng/}: rows.csv featurized by
   * lprff at commit 2be5314 with {@code --label-column last --standardize --kernel gaussian --sigma
   * 1.5 --features 64 --bits 4 --projection dense --seed 3}) drew 16 bits per feature: --like
   * reproduces its bytes and says so in {@code lprff.rng}, while a new featurization of the same
   * rows draws bytes and differs.
   */
  @Test
  void aFileFromBeforeTheRngKeyKeepsItsDrawsUnderLike() throws IOException {
    Path csv = resource("rows.csv");
    Path old = resource("half-word-draws.arrow");
    Path again = dir.resolve("again.arrow");
    Cli.ok("featurize", "--input", csv.toString(), "--like", old.toString(), "--output",
        again.toString(), "-q");
    FeatureRows before = FeatureRows.read(old);
    FeatureRows after = FeatureRows.read(again);
    // The old file does not name its generator; read, it means half words, and so does the copy.
    assertFalse(new String(Files.readAllBytes(old), java.nio.charset.StandardCharsets.ISO_8859_1)
        .contains(Quantizer.KEY_RNG));
    assertEquals(Quantizer.STOCHASTIC_HALF_WORDS, before.schema().spec().quantizer());
    assertEquals(CounterRng.HALF_WORDS, after.schema().metadata().get(Quantizer.KEY_RNG));
    assertArrayEquals(before.concatenated(), after.concatenated());
    assertEquals(before.schema().metadata(), after.schema().metadata());

    Path fresh = dir.resolve("fresh.arrow");
    Cli.ok("featurize", "--input", csv.toString(), "--label-column", "last", "--standardize",
        "--kernel", "gaussian", "--sigma", "1.5", "--features", "64", "--bits", "4",
        "--projection", "dense", "--seed", "3", "--output", fresh.toString(), "-q");
    FeatureRows now = FeatureRows.read(fresh);
    assertEquals(CounterRng.BYTES, now.schema().metadata().get(Quantizer.KEY_RNG));
    assertFalse(java.util.Arrays.equals(before.concatenated(), now.concatenated()),
        "byte draws and half-word draws gave the same codes on 12 x 64 features");
  }

  private Path resource(String name) throws IOException {
    try (var in = LikeTest.class.getResourceAsStream("before-rng/" + name)) {
      if (in == null) {
        throw new IOException("test resource before-rng/" + name + " is missing");
      }
      Path copy = dir.resolve(name);
      Files.copy(in, copy);
      return copy;
    }
  }

  /**
   * --like with --bits 32 is the full-precision twin: the file's metadata but lprff.bits (and the
   * scale keys that depend on it), and every float within one rounding step of the 4-bit
   * feature of the same row (stochastic rounding moves a value to a neighbouring grid point), so
   * it is the same map; any other --bits still conflicts.
   */
  @Test
  void bits32LikeAFileIsTheFullPrecisionTwin() throws IOException {
    Inputs.Table table = Inputs.Table.random(30, 9, 4);
    Path train = train(table, "file");
    Path twin = dir.resolve("twin.arrow");
    Cli.ok("featurize", "--input", dir.resolve("train.csv").toString(), "--like",
        train.toString(), "--bits", "32", "--output", twin.toString(), "-q");
    FeatureRows quantized = FeatureRows.read(train);
    FeatureRows full = FeatureRows.read(twin);
    FeaturizerSpec spec = quantized.schema().spec();
    assertEquals(spec.withBits(32), full.schema().spec());
    QuantizationScale scale = spec.scale();
    int m = spec.features();
    float[] q = new float[m];
    for (int r = 0; r < 30; r++) {
      PackedFeatures.unpack(quantized.features()[r], 0, scale, m, q, 0);
      java.nio.ByteBuffer f = java.nio.ByteBuffer.wrap(full.features()[r])
          .order(java.nio.ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < m; i++) {
        float v = f.getFloat();
        assertTrue(Math.abs(v - q[i]) <= scale.step() * (1 + 1e-5),
            "row " + r + " feature " + i + ": " + v + " vs 4-bit " + q[i]);
      }
    }
    assertArrayEquals(quantized.labels(), full.labels());
    Cli.Result other = Cli.run("featurize", "--input", dir.resolve("train.csv").toString(),
        "--like", train.toString(), "--bits", "8", "--output", dir.resolve("x.arrow").toString());
    assertEquals(1, other.exitCode(), other.toString());
    assertTrue(other.err().contains("--bits 8 conflicts with"), other.err());
  }

  /** Other rows --like the train file are standardized with the train file's statistics. */
  @Test
  void otherRowsUseTheTrainStatistics() throws IOException {
    Path train = train(Inputs.Table.random(40, 9, 4), "file");
    Inputs.Table heldoutTable = Inputs.Table.random(17, 9, 99);
    Path csv = heldoutTable.writeCsv(dir.resolve("heldout.csv"));
    Path heldout = dir.resolve("heldout.arrow");
    // Spec options that agree with the file are accepted.
    Cli.ok("featurize", "-i", csv.toString(), "--like", train.toString(), "--bits", "4",
        "--sigma", "2", "--projection", "circulant", "-o", heldout.toString(), "-q");
    FeatureRows trainRows = FeatureRows.read(train);
    FeatureRows rows = FeatureRows.read(heldout);
    Standardization statistics = Standardization.fromMap(trainRows.schema().metadata());
    assertEquals(statistics, Standardization.fromMap(rows.schema().metadata()));
    double[] mean = new double[9];
    double[] std = new double[9];
    for (int c = 0; c < 9; c++) {
      mean[c] = statistics.mean(c);
      std[c] = statistics.std(c);
    }
    byte[] expected = Featurizer.of(trainRows.schema().spec())
        .featurize(heldoutTable.standardized(mean, std), 17, 0);
    assertArrayEquals(expected, rows.concatenated());
  }

  /** The label type follows the --like file: Int32 classes, or no label column at all. */
  @Test
  void labelTypeFollowsTheLikeFile() throws IOException {
    Inputs.Table table = Inputs.Table.random(20, 9, 4).withClassLabels(3);
    Path classes = train(table, "file", "--label-type", "classes");
    Path heldout = dir.resolve("heldout.arrow");
    Cli.ok("featurize", "-i", dir.resolve("train.csv").toString(), "--like", classes.toString(),
        "-o", heldout.toString(), "-q");
    assertEquals(LabelType.CLASSES, FeatureRows.read(heldout).schema().labelType());

    Path unlabelled = dir.resolve("unlabelled.arrow");
    Path unlabelledCsv = dir.resolve("unlabelled.csv");
    Files.write(unlabelledCsv, Files.readAllLines(dir.resolve("train.csv")).stream()
        .map(line -> line.substring(0, line.lastIndexOf(','))).toList());
    Cli.ok("featurize", "-i", unlabelledCsv.toString(), "--label-column", "none",
        "--standardize", "--sigma", "2", "-o", unlabelled.toString(), "-q");
    Path heldout2 = dir.resolve("heldout2.arrow");
    Cli.ok("featurize", "-i", unlabelledCsv.toString(), "--like", unlabelled.toString(),
        "-o", heldout2.toString(), "-q");
    assertEquals(LabelType.NONE, FeatureRows.read(heldout2).schema().labelType());
  }

  /** The example: --bits 8 against a file with lprff.bits=4 names both values. */
  @Test
  void conflictingSpecOptionsNameBothValues() throws IOException {
    Path train = train(Inputs.Table.random(20, 9, 4), "file");
    Path heldout = dir.resolve("heldout.arrow");
    List<String> before = Inputs.list(dir);
    Cli.Result result = Cli.run("featurize", "-i", dir.resolve("train.csv").toString(),
        "--like", train.toString(), "--bits", "8", "--seed", "2", "--kernel", "laplacian",
        "-o", heldout.toString());
    assertEquals(1, result.exitCode(), result.toString());
    assertEquals("lprff: --kernel laplacian conflicts with " + train + ", which has"
        + " lprff.kernel=gaussian; --bits 8 conflicts with " + train + ", which has lprff.bits=4;"
        + " --seed 2 conflicts with " + train + ", which has lprff.seed=1 (drop the option to"
        + " featurize like the file, or drop --like)\n", result.err());
    assertEquals(before, Inputs.list(dir), "nothing written");
  }

  /** Input width must equal the file's lprff.input_dim. */
  @Test
  void inputWidthMustMatch() throws IOException {
    Path train = train(Inputs.Table.random(20, 9, 4), "file");
    Path narrow = Inputs.Table.random(5, 8, 1).writeCsv(dir.resolve("narrow.csv"));
    List<String> before = Inputs.list(dir);
    Cli.Result result = Cli.run("featurize", "-i", narrow.toString(), "--like", train.toString(),
        "-o", dir.resolve("out.arrow").toString());
    assertEquals(1, result.exitCode(), result.toString());
    assertEquals("lprff: input " + narrow + " has 8 feature columns, but " + train
        + " has lprff.input_dim=9\n", result.err());
    assertEquals(before, Inputs.list(dir));
  }

  /** Columns named differently from the train file's standardization are refused. */
  @Test
  void columnNamesMustMatchTheStandardization() throws IOException {
    Path train = train(Inputs.Table.random(20, 9, 4), "file");
    Path renamed = dir.resolve("renamed.csv");
    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(dir.resolve("train.csv")));
    lines.set(0, lines.get(0).replace("c3", "depth"));
    Files.write(renamed, lines);
    Cli.Result result = Cli.run("featurize", "-i", renamed.toString(), "--like", train.toString(),
        "-o", dir.resolve("out.arrow").toString());
    assertEquals(1, result.exitCode());
    assertTrue(result.err().startsWith("lprff: input " + renamed
        + " does not match the standardization of " + train + ": input column 3 is 'depth',"
        + " standardization has 'c3'"), result.err());
    assertFalse(Files.exists(dir.resolve("out.arrow")));
  }

  /** --standardize with a --like file that has no statistics is a usage error. */
  @Test
  void standardizeConflictsWithALikeFileWithoutStatistics() throws IOException {
    Path csv = Inputs.Table.random(10, 3, 1).writeCsv(dir.resolve("x.csv"));
    Path plain = dir.resolve("plain.arrow");
    Cli.ok("featurize", "-i", csv.toString(), "--sigma", "1", "-o", plain.toString(), "-q");
    Cli.Result result = Cli.run("featurize", "-i", csv.toString(), "--like", plain.toString(),
        "--standardize", "-o", dir.resolve("out.arrow").toString());
    assertEquals(2, result.exitCode(), result.toString());
    assertTrue(result.err().startsWith("lprff: --standardize conflicts with --like " + plain
        + ", which has no standardization"), result.err());
    assertFalse(Files.exists(dir.resolve("out.arrow")));
  }
}
