package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lprff.arrow.BatchChecksums;
import org.lprff.arrow.FeatureSchema;
import org.lprff.arrow.FeatureWriter;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.Standardization;
import org.lprff.cli.options.JsonOption;
import org.lprff.cli.output.FeatureFileInfo;
import org.lprff.cli.output.Human;
import org.lprff.cli.output.Version;
import org.lprff.report.Json;
import org.lprff.vector.codec.FloatList;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.featurize.FeaturizerSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code lprff info FILE}: what a feature file holds, as text or one JSON object. */
@Command(
    name = "info",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    header = "Show a feature file's spec, labels, rows and layout",
    description = "Show a feature file's spec, labels, row count, layout and standardization."
        + " The file is validated (a truncated or corrupt file is an error).")
final class InfoCommand implements Callable<Integer> {

  @Spec CommandSpec command;

  @Parameters(paramLabel = "FILE", description = "An lprff feature file (Arrow IPC file or stream).")
  Path file;

  @Mixin JsonOption json;

  @Option(names = "--verify",
      description = "Also read every record batch and check it against its CRC32C checksum;"
          + " a damaged batch is an error naming it (exit 1).")
  boolean verify;

  @Override
  public Integer call() throws IOException {
    FeatureFileInfo info;
    try (BufferAllocator allocator = new RootAllocator()) {
      info = FeatureFileInfo.read(file, allocator);
    }
    BatchChecksums.Report checked = verify ? BatchChecksums.verify(file) : null;
    PrintWriter out = command.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> o = toJson(info);
      o.put("checksums", checked == null ? null : checksumsJson(checked));
      out.println(Json.write(o));
    } else {
      out.println(toText(info, checked));
    }
    out.flush();
    return 0;
  }

  /** What {@code --verify} found, for the text form. */
  static String checksumsText(BatchChecksums.Report report) {
    if (report.checked() == 0) {
      return "none stored (written without checksums, e.g. before lprff stored them):"
          + " nothing to verify";
    }
    return "verified: " + Human.count(report.checked()) + " of "
        + Human.count(report.recordBatches()) + " record batches intact (CRC32C of "
        + Human.bytes(report.bytes()) + ")"
        + (report.complete() ? "" : "; the others have no checksum");
  }

  private static Map<String, Object> checksumsJson(BatchChecksums.Report report) {
    Map<String, Object> o = Json.object();
    o.put("algorithm", "crc32c");
    o.put("record_batches", report.recordBatches());
    o.put("verified", report.checked());
    o.put("bytes", report.bytes());
    return o;
  }

  /** The text form: one "name  value" line per property ({@code checked}: --verify's, or null). */
  static String toText(FeatureFileInfo info, BatchChecksums.Report checked) {
    FeatureSchema schema = info.schema();
    FeaturizerSpec spec = schema.spec();
    List<String[]> rows = new ArrayList<>();
    rows.add(row("file", info.path().toString()));
    rows.add(row("ipc", info.ipc() == FeatureWriter.Format.FILE
        ? "file (Arrow IPC random-access file)" : "stream (Arrow IPC stream)"));
    rows.add(row("format version", schema.metadata().get(FeatureSchema.KEY_FORMAT_VERSION)));
    rows.add(row("kernel", kernel(spec)));
    rows.add(row("input dim (d)", Human.count(spec.inputDim())));
    rows.add(row("features (m)", Human.count(spec.features())));
    rows.add(row("bits (b)", spec.isFloat() ? "32 (float32 features)" : Integer.toString(spec.bits())));
    rows.add(row("projection", spec.projection()));
    rows.add(row("seed", Long.toString(spec.seed())));
    rows.add(row("quantizer", spec.isFloat() && spec.condensation().isEmpty()
        ? spec.quantizer().spelling() + " (unused at 32 bits)" : spec.quantizer().spelling()));
    spec.condensation().ifPresent(c -> rows.add(row("condensation", FloatList.format(
        c.weights()) + " (feature k = sum_i u_i z[k " + c.block() + " + i]: "
        + Human.count(spec.modelFeatures()) + " features)")));
    if (spec.isFloat()) {
      rows.add(row("scale", "none (float32 features)"));
    } else {
      if (spec.quantizer().affine()) {
        QuantizationScale scale = spec.scale();
        rows.add(row("scale", "lo " + scale.lo() + ", step " + scale.step()
            + " (value = lo + code * step)"));
      } else {
        rows.add(row("codebook", FloatList.format(spec.levels()) + " (value = codebook[code])"));
      }
      rows.add(row("bit order", FeaturizerSpec.BIT_ORDER + " (feature i in bits [" + spec.bits()
          + "i, " + spec.bits() + "i + " + spec.bits() + ") of its row, least significant first)"));
    }
    rows.add(row("labels", switch (schema.labelType()) {
      case NONE -> "none";
      case REGRESSION -> "Float32 (regression)";
      case CLASSES -> "Int32 (classes)";
    }));
    rows.add(row("row ids", schema.hasRowIds() ? "yes (Int64 column row_id)" : "no"));
    rows.add(row("rows", Human.count(info.rows())));
    rows.add(row("record batches", Human.count(info.recordBatches())));
    rows.add(row("bytes per row", Human.count(info.rowBytes())));
    rows.add(row("file size", Human.bytes(info.fileSize()) + " (" + Human.count(info.fileSize())
        + " bytes)"));
    Standardization s = info.standardization();
    rows.add(row("standardization", s == null
        ? "none"
        : s.size() + " columns: " + String.join(", ", s.columns())));
    if (checked != null) {
      rows.add(row("checksums", checksumsText(checked)));
    }
    int width = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
    StringBuilder text = new StringBuilder();
    for (String[] r : rows) {
      if (!text.isEmpty()) {
        text.append(System.lineSeparator());
      }
      text.append(r[0]).append(" ".repeat(width - r[0].length() + 2)).append(r[1]);
    }
    return text.toString();
  }

  /** The JSON form: typed values, and every metadata string under "metadata". */
  static Map<String, Object> toJson(FeatureFileInfo info) {
    FeatureSchema schema = info.schema();
    FeaturizerSpec spec = schema.spec();
    Map<String, Object> o = Json.object();
    o.put("file", info.path().toString());
    o.put("ipc", info.ipc() == FeatureWriter.Format.FILE ? "file" : "stream");
    o.put("format_version", schema.metadata().get(FeatureSchema.KEY_FORMAT_VERSION));
    Map<String, Object> kernel = Json.object();
    for (Map.Entry<String, String> e : spec.kernel().toMap().entrySet()) {
      kernel.put(e.getKey().equals("kernel") ? "name" : e.getKey(),
          e.getKey().equals("kernel") ? e.getValue() : Double.parseDouble(e.getValue()));
    }
    o.put("kernel", kernel);
    o.put("input_dim", spec.inputDim());
    o.put("features", spec.features());
    o.put("bits", spec.bits());
    o.put("projection", spec.projection());
    o.put("seed", spec.seed());
    o.put("quantizer", spec.quantizer().spelling());
    o.put("model_features", spec.modelFeatures());
    o.put("condensation", spec.condensation().map(c -> floats(c.weights())).orElse(null));
    if (spec.isFloat()) {
      o.put("scale", null);
      o.put("codebook", null);
      o.put("bit_order", null);
    } else {
      if (spec.quantizer().affine()) {
        Map<String, Object> scale = Json.object();
        scale.put("lo", spec.scale().lo());
        scale.put("step", spec.scale().step());
        o.put("scale", scale);
        o.put("codebook", null);
      } else {
        o.put("scale", null);
        o.put("codebook", floats(spec.levels()));
      }
      o.put("bit_order", FeaturizerSpec.BIT_ORDER);
    }
    o.put("label_type", labelTypeName(schema.labelType()));
    o.put("row_ids", schema.hasRowIds());
    o.put("rows", info.rows());
    o.put("record_batches", info.recordBatches());
    o.put("bytes_per_row", info.rowBytes());
    o.put("file_size", info.fileSize());
    Standardization s = info.standardization();
    if (s == null) {
      o.put("standardization", null);
    } else {
      Map<String, Object> standardization = Json.object();
      standardization.put("columns", s.size());
      standardization.put("names", s.columns());
      o.put("standardization", standardization);
    }
    o.put("metadata", schema.metadata());
    return o;
  }

  private static String kernel(FeaturizerSpec spec) {
    List<String> parameters = new ArrayList<>();
    spec.kernel().toMap().forEach((key, value) -> {
      if (!key.equals("kernel")) {
        parameters.add(key + " " + value);
      }
    });
    return spec.kernel().name() + " (" + String.join(", ", parameters) + ")";
  }

  private static String[] row(String name, String value) {
    return new String[] {name, value};
  }

  /** "none", "regression" or "classes". */
  private static String labelTypeName(LabelType type) {
    return type.name().toLowerCase(Locale.ROOT);
  }

  private static List<Object> floats(float[] values) {
    List<Object> list = new ArrayList<>();
    for (float v : values) {
      list.add(v);
    }
    return list;
  }
}
