package org.lprff.cli.experiment;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.lprff.arrow.io.AtomicWrite;

/**
 * {@code runs.csv}: a header, then one {@link RunRecord} a line, appended as each run finishes so
 * that an interrupted experiment keeps every finished run. Numbers are written as {@link
 * Double#toString} (they parse back to the same double: every figure can be recomputed from the
 * file exactly); NaN marks a diverged run's metric.
 */
public final class RunsCsv {

  /** The columns, in {@link RunRecord}'s order, then the run's total seconds. */
  public static final String HEADER = "method,projection,quantizer,m,bits,seed,metric,"
      + "heldout_metric,delta1,delta2,frobenius_error,spectral_error,memory_bits,"
      + "feature_generation_bits,mini_batch_bits,model_bits,sigma,l2,featurize_seconds,"
      + "kernel_seconds,train_seconds,seconds";

  private static final int COLUMNS = HEADER.split(",").length;

  private RunsCsv() {}

  /** The records of a file and whether its last line was cut short (an interrupted append). */
  public record Contents(List<RunRecord> records, boolean partialLastLine) {}

  /**
   * Reads {@code file}. A last line without its newline or with too few columns is an append the
   * process did not finish: reported, not returned.
   *
   * @throws IllegalArgumentException naming the file and line if the header or another line is
   *     not runs.csv's
   */
  public static Contents read(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    // split keeps a trailing empty string after the final newline: a complete file.
    boolean partial = !lines.getLast().isEmpty();
    lines.removeLast();
    if (lines.isEmpty() && partial) {
      lines.add(text); // the header alone, cut short: refused below unless it is whole
      partial = false;
    }
    if (lines.isEmpty() || !lines.getFirst().equals(HEADER)) {
      throw new IllegalArgumentException(file + ": line 1 is not runs.csv's header (expected '"
          + HEADER + "'); give another --out, or remove the file");
    }
    List<RunRecord> records = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      records.add(parse(lines.get(i), file, i + 1));
    }
    return new Contents(records, partial);
  }

  /** Writes the header alone (a new experiment). */
  public static void create(Path file) throws IOException {
    Files.writeString(file, HEADER + "\n", StandardCharsets.UTF_8);
  }

  /** Rewrites {@code file} with {@code records} only (dropping a cut-short last line). */
  public static void rewrite(Path file, List<RunRecord> records) throws IOException {
    StringBuilder s = new StringBuilder(HEADER).append('\n');
    for (RunRecord r : records) {
      s.append(format(r)).append('\n');
    }
    AtomicWrite.write(file, s.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Appends one record as one line, written in one call. */
  public static void append(Path file, RunRecord r) throws IOException {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8,
        StandardOpenOption.APPEND)) {
      w.write(format(r) + "\n");
    }
  }

  static String format(RunRecord r) {
    return String.join(",", r.method(), r.projection(), r.quantizer(), Integer.toString(r.m()),
        Integer.toString(r.bits()), Long.toString(r.seed()), r.metricName(),
        Double.toString(r.heldoutMetric()), Double.toString(r.delta1()),
        Double.toString(r.delta2()), Double.toString(r.frobeniusError()),
        Double.toString(r.spectralError()), Long.toString(r.memoryBits()),
        Long.toString(r.featureGenerationBits()), Long.toString(r.miniBatchBits()),
        Long.toString(r.modelBits()), Double.toString(r.sigma()), Double.toString(r.l2()),
        Double.toString(r.featurizeSeconds()), Double.toString(r.kernelSeconds()),
        Double.toString(r.trainSeconds()), Double.toString(r.seconds()));
  }

  private static RunRecord parse(String line, Path file, int lineNumber) {
    String[] c = line.split(",", -1);
    if (c.length != COLUMNS) {
      throw new IllegalArgumentException(file + " line " + lineNumber + " has " + c.length
          + " columns, expected " + COLUMNS + " (" + HEADER + ")");
    }
    try {
      return new RunRecord(c[0], c[1], c[2], Integer.parseInt(c[3]), Integer.parseInt(c[4]),
          Long.parseLong(c[5]), c[6], Double.parseDouble(c[7]), Double.parseDouble(c[8]),
          Double.parseDouble(c[9]), Double.parseDouble(c[10]), Double.parseDouble(c[11]),
          Long.parseLong(c[12]), Long.parseLong(c[13]), Long.parseLong(c[14]),
          Long.parseLong(c[15]), Double.parseDouble(c[16]), Double.parseDouble(c[17]),
          Double.parseDouble(c[18]), Double.parseDouble(c[19]), Double.parseDouble(c[20]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(file + " line " + lineNumber + ": " + e.getMessage()
          + " is not a number where runs.csv has one", e);
    }
  }
}
