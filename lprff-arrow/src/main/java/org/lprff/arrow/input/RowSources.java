package org.lprff.arrow.input;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Opens the right {@link RowSource} for a file.
 *
 * <p><b>Detection</b> ({@link #detect}), content first, then the name:
 *
 * <ol>
 *   <li>content: {@code ARROW1} or the continuation marker {@code FF FF FF FF} → Arrow; the IDX
 *       images magic {@code 00 00 08 03}, after gunzip when the file starts with 1f 8b → IDX;
 *   <li>extension (case-insensitive, a trailing {@code .gz} looked through): {@code .csv} → CSV;
 *       {@code .libsvm}, {@code .svm}, {@code .txt} → LIBSVM; {@code .idx} or a name containing
 *       {@code -ubyte} → IDX; {@code .arrow}, {@code .arrows}, {@code .feather} → Arrow.
 * </ol>
 *
 * Anything else is an {@link IllegalArgumentException} saying what is recognized; {@link
 * Options#format} skips detection.
 */
public final class RowSources {

  private RowSources() {}

  /** Input formats; {@link #AUTO} detects. */
  public enum Format {
    AUTO,
    CSV,
    LIBSVM,
    IDX,
    ARROW
  }

  /**
   * How to open a source; options a format does not use are ignored.
   *
   * @param format the format, or {@link Format#AUTO} to detect it
   * @param maxBatchRows rows per batch, at most
   * @param label the label column of CSV and Arrow input
   * @param separator the CSV separator
   * @param libsvmDimension the LIBSVM dimension, or 0 to find it in a first pass
   * @param idxLabels the IDX labels file, or null for unlabelled images
   * @param idxScale the factor applied to IDX pixels
   * @param allocator the parent allocator of Arrow input, or null for one owned by the source
   */
  public record Options(
      Format format,
      int maxBatchRows,
      LabelColumn label,
      char separator,
      int libsvmDimension,
      Path idxLabels,
      double idxScale,
      BufferAllocator allocator) {

    /** Rows per batch by default: 4096 rows of 784 floats are 12.25 MiB. */
    public static final int DEFAULT_BATCH_ROWS = 4096;

    public Options {
      if (format == null || label == null) {
        throw new IllegalArgumentException("format and label must not be null");
      }
      if (maxBatchRows < 1) {
        throw new IllegalArgumentException("maxBatchRows is " + maxBatchRows + ", expected >= 1");
      }
      if (libsvmDimension < 0) {
        throw new IllegalArgumentException(
            "libsvmDimension is " + libsvmDimension + ", expected >= 0 (0: find it)");
      }
      if (!(idxScale > 0) || Double.isInfinite(idxScale)) {
        throw new IllegalArgumentException("idxScale is " + idxScale + ", expected finite > 0");
      }
    }

    /** Detect the format, 4096-row batches, no label, {@code ,}, scan LIBSVM, pixels / 255. */
    public static Options defaults() {
      return new Options(
          Format.AUTO,
          DEFAULT_BATCH_ROWS,
          LabelColumn.NONE,
          CsvRowSource.DEFAULT_SEPARATOR,
          0,
          null,
          IdxRowSource.DEFAULT_SCALE,
          null);
    }

    public Options withFormat(Format format) {
      return new Options(
          format, maxBatchRows, label, separator, libsvmDimension, idxLabels, idxScale, allocator);
    }

    public Options withMaxBatchRows(int maxBatchRows) {
      return new Options(
          format, maxBatchRows, label, separator, libsvmDimension, idxLabels, idxScale, allocator);
    }

    public Options withLabel(LabelColumn label) {
      return new Options(
          format, maxBatchRows, label, separator, libsvmDimension, idxLabels, idxScale, allocator);
    }

    /** Same as {@code withLabel(LabelColumn.parse(label))}. */
    public Options withLabel(String label) {
      return withLabel(LabelColumn.parse(label));
    }

    public Options withSeparator(char separator) {
      return new Options(
          format, maxBatchRows, label, separator, libsvmDimension, idxLabels, idxScale, allocator);
    }

    public Options withLibsvmDimension(int libsvmDimension) {
      return new Options(
          format, maxBatchRows, label, separator, libsvmDimension, idxLabels, idxScale, allocator);
    }

    public Options withIdxLabels(Path idxLabels) {
      return new Options(
          format, maxBatchRows, label, separator, libsvmDimension, idxLabels, idxScale, allocator);
    }

    public Options withIdxScale(double idxScale) {
      return new Options(
          format, maxBatchRows, label, separator, libsvmDimension, idxLabels, idxScale, allocator);
    }

    public Options withAllocator(BufferAllocator allocator) {
      return new Options(
          format, maxBatchRows, label, separator, libsvmDimension, idxLabels, idxScale, allocator);
    }
  }

  /** Opens {@code path} with {@link Options#defaults()}. */
  public static RowSource open(Path path) throws IOException {
    return open(path, Options.defaults());
  }

  /** Opens {@code path} as {@code options.format()}, detected when {@link Format#AUTO}. */
  public static RowSource open(Path path, Options options) throws IOException {
    if (path == null || options == null) {
      throw new IllegalArgumentException("path and options must not be null");
    }
    Format format = options.format() == Format.AUTO ? detect(path) : options.format();
    return switch (format) {
      case CSV ->
          CsvRowSource.open(path, options.label(), options.separator(), options.maxBatchRows());
      case LIBSVM -> LibsvmRowSource.open(path, options.libsvmDimension(), options.maxBatchRows());
      case IDX ->
          IdxRowSource.open(path, options.idxLabels(), options.idxScale(), options.maxBatchRows());
      case ARROW ->
          ArrowRowSource.open(path, options.allocator(), options.label(), options.maxBatchRows());
      case AUTO -> throw new AssertionError("detect never answers AUTO");
    };
  }

  /**
   * The format of {@code path}, from its content or else its name (see the class comment).
   *
   * @throws IllegalArgumentException when neither tells, naming the file and what is recognized
   */
  public static Format detect(Path path) throws IOException {
    if (!Files.isRegularFile(path)) {
      throw new IllegalArgumentException(path + " is not a readable file");
    }
    byte[] head = InputFiles.head(path, 8);
    if (startsWith(head, "ARROW1".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
        || startsWith(head, new byte[] {-1, -1, -1, -1})) {
      return Format.ARROW;
    }
    byte[] content = InputFiles.isGzip(head) ? InputFiles.contentHead(path, 4) : head;
    if (startsWith(content, new byte[] {0, 0, 8, 3})) {
      return Format.IDX;
    }
    String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".gz")) {
      name = name.substring(0, name.length() - 3);
    }
    int dot = name.lastIndexOf('.');
    String extension = dot >= 0 ? name.substring(dot + 1) : "";
    return switch (extension) {
      case "csv" -> Format.CSV;
      case "libsvm", "svm", "txt" -> Format.LIBSVM;
      case "idx" -> Format.IDX;
      case "arrow", "arrows", "feather" -> Format.ARROW;
      default -> {
        if (name.contains("-ubyte")) {
          yield Format.IDX;
        }
        throw new IllegalArgumentException(
            "cannot tell the format of "
                + path
                + ": its content is not Arrow or IDX and its name"
                + " ends in none of .csv, .libsvm, .svm, .txt, .idx, -ubyte, .arrow, .arrows,"
                + " .feather (optionally followed by .gz); choose one with Options.withFormat");
      }
    };
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }
}
