package org.lprff.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.lprff.cli.Main;
import org.lprff.fixtures.Idx;

/**
 * The seed corpus: small valid inputs per fuzz target, each a few KB, written by the project's own
 * writers ({@code lprff featurize}, {@code lprff train}, Arrow's writers, {@link Idx}).
 *
 * <p>Regenerate the committed seeds (after a format change) from the repository root with
 *
 * <pre>
 * ./mvnw -o verify -pl lprff-test-fixtures,lprff-vector,lprff-arrow,lprff-cli,fuzz \
 *     -Dtest=SeedCorpusTest -Dsurefire.failIfNoSpecifiedTests=false -Dlprff.failIfNoTests=false \
 *     -Dfuzz.skip.ci=true -Dlprff.fuzz.writeSeeds=true
 * </pre>
 *
 * which makes {@link SeedCorpusTest} call {@link #write} on {@code fuzz/src/test/resources}. Jazzer reads a target's seeds from
 * {@code org/lprff/fuzz/<TestClass>Inputs/<method>/} there, and in regression mode (every plain
 * {@code ./mvnw verify}) runs each as a test. {@link SeedCorpusTest} checks every seed is still
 * read as valid.
 */
public final class SeedCorpus {

  private SeedCorpus() {}

  /** Writes every target's seeds under {@code resources} (a test resources root). */
  static void write(Path resources, Path work) throws IOException {
    Path root = resources.resolve("org/lprff/fuzz");
    for (Map.Entry<String, Map<String, byte[]>> target : all(work).entrySet()) {
      Path dir = root.resolve(target.getKey());
      Files.createDirectories(dir);
      for (Map.Entry<String, byte[]> seed : target.getValue().entrySet()) {
        Files.write(dir.resolve("seed-" + seed.getKey()), seed.getValue());
      }
    }
  }

  /** Target directory (TestClassInputs/method) to seeds (name to bytes). */
  static Map<String, Map<String, byte[]>> all(Path work) throws IOException {
    Map<String, Map<String, byte[]>> all = new LinkedHashMap<>();
    Map<String, byte[]> features = featureFiles(work);
    Map<String, byte[]> fileFraming = new LinkedHashMap<>();
    features.forEach((name, bytes) -> {
      if (name.startsWith("file-")) {
        fileFraming.put(name, bytes);
      }
    });
    all.put("FeatureFileFuzzTestInputs/reader", fileFraming);
    all.put("FeatureFileFuzzTestInputs/mapped", fileFraming);
    all.put("FeatureFileFuzzTestInputs/info", features);
    all.put("FeatureFileFuzzTestInputs/arrowRows", arrowTables());
    all.put("ModelFileFuzzTestInputs/read", models(work));
    all.put("TextInputFuzzTestInputs/csv", csv());
    all.put("TextInputFuzzTestInputs/libsvm", libsvm());
    Map<String, byte[]> detect = new LinkedHashMap<>();
    detect.put("csv", csv().get("labelled"));
    detect.put("libsvm", libsvm().get("plain"));
    detect.put("idx", idxImages().get("three"));
    detect.put("arrow", arrowTables().get("file"));
    detect.put("csv.gz", gzip(csv().get("labelled")));
    all.put("TextInputFuzzTestInputs/detect", detect);
    all.put("IdxFuzzTestInputs/images", idxImages());
    all.put("IdxFuzzTestInputs/labels", idxLabels());
    all.put("CliFuzzTestInputs/args", cliArgs());
    return all;
  }

  static final String CSV = "x0,x1,x2,label\n0.5,1,-2,3\n1.5,-0.25,2e-3,1\n2,3,4,0\n"
      + "-1,-2,-3,2\n0,0,0,1\n7,8,9,0\n";

  static Map<String, byte[]> csv() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put("labelled", utf8(CSV));
    seeds.put("quoted", utf8("\"a\",\"b, c\",label\r\n1,2,3\r\n4,5,6\r\n"));
    seeds.put("blank-lines", utf8("# comment\n\nx,y\n1,2\n\n3,4\n"));
    seeds.put("labelled.gz", gzip(utf8(CSV)));
    return seeds;
  }

  static final String LIBSVM = "1.5 1:0.5 3:2\n-2 2:1\n0 1:1 2:1 3:1 4:-1\n";

  static Map<String, byte[]> libsvm() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put("plain", utf8(LIBSVM));
    seeds.put("qid-comments", utf8("1 qid:3 1:1e3 2:-0.5 # note\n+1 4:2\n-1\n"));
    seeds.put("plain.gz", gzip(utf8(LIBSVM)));
    return seeds;
  }

  static Map<String, byte[]> idxImages() {
    byte[] pixels = new byte[5 * 3 * 2];
    for (int i = 0; i < pixels.length; i++) {
      pixels[i] = (byte) (i * 37);
    }
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put("three", Idx.file(Idx.IMAGES, new int[] {3, 2, 2}, new byte[12]));
    seeds.put("five", Idx.file(Idx.IMAGES, new int[] {5, 3, 2}, pixels));
    seeds.put("five.gz", gzip(Idx.file(Idx.IMAGES, new int[] {5, 3, 2}, pixels)));
    return seeds;
  }

  static Map<String, byte[]> idxLabels() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put("three", Idx.file(Idx.LABELS, new int[] {3}, new byte[] {0, 1, 2}));
    seeds.put("three.gz", gzip(Idx.file(Idx.LABELS, new int[] {3}, new byte[] {2, 9, 0})));
    return seeds;
  }

  /** Feature files as featurize writes them: both framings, bits 1/4/32, every label type. */
  static Map<String, byte[]> featureFiles(Path work) throws IOException {
    Path csv = Files.write(work.resolve("seed.csv"), utf8(CSV));
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    for (String ipc : List.of("file", "stream")) {
      seeds.put(ipc + "-b4-regression", featurize(work, csv, ipc, "4", "regression", false));
      seeds.put(ipc + "-b1-classes-rowids", featurize(work, csv, ipc, "1", "classes", true));
      seeds.put(ipc + "-b32-nolabel", featurize(work, csv, ipc, "32", null, false));
    }
    return seeds;
  }

  private static byte[] featurize(
      Path work, Path csv, String ipc, String bits, String labels, boolean rowIds)
      throws IOException {
    Path out = work.resolve("f-" + ipc + "-" + bits + "-" + labels + "-" + rowIds + ".arrow");
    List<String> args = new java.util.ArrayList<>(List.of("featurize", "-i", csv.toString(),
        "--sigma", "1", "-m", "6", "-b", bits, "--ipc", ipc, "--batch-size", "4", "-q",
        "-o", out.toString()));
    if (labels == null) {
      args.addAll(List.of("--label-column", "none"));
    } else {
      args.addAll(List.of("--label-column", "label", "--label-type", labels));
    }
    if (rowIds) {
      args.add("--row-ids");
    }
    cli(args.toArray(String[]::new));
    return Files.readAllBytes(out);
  }

  /** Models {@code train} writes: regression and 4 classes. */
  static Map<String, byte[]> models(Path work) throws IOException {
    StringBuilder rows = new StringBuilder("x0,x1,label\n");
    for (int r = 0; r < 40; r++) {
      rows.append(r % 7 * 0.5).append(',').append(r % 5 - 2).append(',').append(r % 3).append('\n');
    }
    Path csv = Files.write(work.resolve("seed-model.csv"), utf8(rows.toString()));
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    for (String task : List.of("regression", "classification")) {
      Path features = work.resolve("model-" + task + ".arrow");
      cli("featurize", "-i", csv.toString(), "--sigma", "1", "-m", "6", "-b", "4", "-q",
          "--label-column", "label", "--label-type",
          task.equals("regression") ? "regression" : "classes", "-o", features.toString());
      Path model = work.resolve("model-" + task + ".lprff");
      cli("train", "--train", features.toString(), "--heldout", features.toString(), "--task",
          task, "--model", model.toString(), "-q");
      seeds.put(task, Files.readAllBytes(model));
    }
    return seeds;
  }

  /** Plain Arrow tables of Float32 columns (x0, x1, label), as input rows: file and stream. */
  static Map<String, byte[]> arrowTables() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put("file", arrowTable(true));
    seeds.put("stream", arrowTable(false));
    return seeds;
  }

  private static byte[] arrowTable(boolean file) {
    try (BufferAllocator allocator = new RootAllocator();
        Float4Vector x0 = new Float4Vector("x0", allocator);
        Float4Vector x1 = new Float4Vector("x1", allocator);
        Float4Vector label = new Float4Vector("label", allocator)) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      VectorSchemaRoot root = VectorSchemaRoot.of(x0, x1, label);
      try (ArrowWriter writer = file
          ? new ArrowFileWriter(root, null, Channels.newChannel(bytes))
          : new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
        writer.start();
        for (int batch = 0; batch < 2; batch++) {
          int rows = 3 + batch;
          x0.allocateNew(rows);
          x1.allocateNew(rows);
          label.allocateNew(rows);
          for (int r = 0; r < rows; r++) {
            x0.set(r, r + 0.5f);
            x1.set(r, -r);
            label.set(r, r % 2);
          }
          root.setRowCount(rows);
          writer.writeBatch();
        }
        writer.end();
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Command lines, one argument per line; {@link CliFuzzTest} replaces the placeholders
   * (@csv, @features, @model, @out, ...) with paths of valid files and fresh outputs.
   */
  static Map<String, byte[]> cliArgs() {
    Map<String, String> lines = new LinkedHashMap<>();
    lines.put("featurize", "featurize\n-i\n@csv\n--label-column\nlabel\n--sigma\n2\n-m\n16\n-b\n4"
        + "\n--standardize\n-o\n@out\n-q");
    lines.put("featurize-like", "featurize\n--input\n@csv\n--like\n@features\n--output\n@out");
    lines.put("featurize-libsvm", "featurize\n-i\n@libsvm\n--format\nlibsvm\n--kernel\nlaplacian"
        + "\n--sigma\n1\n-m\n8\n--ipc\nstream\n--row-ids\n-o\n@out");
    lines.put("featurize-idx", "featurize\n-i\n@idx\n--idx-labels\n@idxlabels\n--sigma\n3\n-m\n8"
        + "\n--projection\nfastfood\n-o\n@out");
    lines.put("info", "info\n@features");
    lines.put("info-json", "info\n--json\n@stream");
    lines.put("train", "train\n--train\n@features\n--heldout\n@features\n--task\nregression"
        + "\n--l2\n0.1,1\n--model\n@out\n-q");
    lines.put("train-sgd", "train\n--train\n@features\n--heldout\n@features\n--task\nregression"
        + "\n--solver\nsgd\n--epochs\n2\n--lr\n0.1\n--json");
    lines.put("evaluate", "evaluate\n--model\n@model\n--heldout\n@features");
    lines.put("predict", "predict\n--model\n@model\n--input\n@csv\n--label-column\nlabel"
        + "\n--output\n@outcsv");
    lines.put("help", "featurize\n--help");
    lines.put("version", "--version");
    lines.put("unknown", "featurize\n--sigmaa\n2");
    lines.put("demo-parse", "demo\n--features\n64\n--solver\ncg");
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    lines.forEach((name, text) -> seeds.put(name, utf8(text)));
    return seeds;
  }

  /** Runs the command line in-process, requiring success. */
  static void cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    if (code != 0) {
      throw new IllegalStateException("lprff " + String.join(" ", args) + " exited " + code
          + ": " + err);
    }
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
