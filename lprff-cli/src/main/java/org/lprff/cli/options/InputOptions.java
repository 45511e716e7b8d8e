package org.lprff.cli.options;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.LabelColumn;
import org.lprff.arrow.input.RowSource;
import org.lprff.arrow.input.RowSources;
import org.lprff.arrow.input.RowSources.Format;
import picocli.CommandLine.Option;

/**
 * The input options of {@code featurize}: the file, its format, where its label is and what kind
 * of label it is. The defaults depend on the format and on the {@code --like} file, so they are
 * resolved here rather than declared.
 */
public final class InputOptions {

  @Option(
      names = {"--input", "-i"},
      required = true,
      paramLabel = "FILE",
      description = "The rows to featurize: CSV with a header, LIBSVM, IDX images (optionally"
          + " gzipped), or an Arrow IPC file or stream; - reads them from standard input.")
  public Path input;

  @Option(
      names = "--format",
      paramLabel = "NAME",
      defaultValue = "auto",
      description = "auto (from the content, then the name), csv, libsvm, idx or arrow"
          + " (default ${DEFAULT-VALUE}).")
  public String format;

  @Option(
      names = "--idx-labels",
      paramLabel = "FILE",
      description = "The IDX labels file that goes with IDX images.")
  public Path idxLabels;

  @Option(
      names = "--label-column",
      paramLabel = "COLUMN",
      description = "The label column of CSV and Arrow input: a name, a 0-based index, first,"
          + " last or none (default last; none when the --like file has no labels). For LIBSVM"
          + " and IDX only none applies (drop the labels).")
  public String labelColumn;

  @Option(
      names = "--label-type",
      paramLabel = "TYPE",
      description = "regression (Float32 labels) or classes (Int32 class indices, checked);"
          + " default: the --like file's, classes for IDX, else regression.")
  String labelType;

  /** The input format, detected from the file when {@code --format auto}. */
  public Format format() throws IOException {
    for (Path path : new Path[] {input, idxLabels}) {
      if (path != null && !Files.exists(path)) {
        throw new NoSuchFileException(path.toString());
      }
    }
    Format chosen = switch (format.toLowerCase(Locale.ROOT)) {
      case "auto" -> Format.AUTO;
      case "csv" -> Format.CSV;
      case "libsvm" -> Format.LIBSVM;
      case "idx" -> Format.IDX;
      case "arrow" -> Format.ARROW;
      default -> throw new UsageException(
          "--format is '" + format + "', expected auto, csv, libsvm, idx or arrow");
    };
    Format resolved = chosen;
    if (chosen == Format.AUTO) {
      try {
        resolved = RowSources.detect(input);
      } catch (IllegalArgumentException e) {
        // The library's advice names its API; on the command line it is an option.
        throw new IllegalArgumentException("cannot tell the format of " + input + ": its content"
            + " is not Arrow or IDX and its name has no known extension (.csv, .libsvm, .svm,"
            + " .txt, .idx, -ubyte, .arrow, .arrows, .feather, optionally .gz); give --format"
            + " csv, libsvm, idx or arrow", e);
      }
    }
    if (idxLabels != null && resolved != Format.IDX) {
      throw new UsageException(
          "--idx-labels applies to IDX input, but " + input + " is " + name(resolved));
    }
    return resolved;
  }

  /**
   * The label column: as given, or the default for the format ({@code last} for CSV and Arrow,
   * {@code none} when the {@code --like} file has no label column).
   *
   * @param like the label type of the {@code --like} file, or null without one
   */
  public LabelColumn labelColumn(Format resolved, LabelType like) {
    if (labelColumn != null) {
      LabelColumn parsed;
      try {
        parsed = LabelColumn.parse(labelColumn);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--label-column: " + e.getMessage());
      }
      if ((resolved == Format.IDX || resolved == Format.LIBSVM) && parsed != LabelColumn.NONE) {
        throw new UsageException(
            "--label-column " + labelColumn + " does not apply to " + name(resolved) + " input ("
                + (resolved == Format.IDX
                    ? "its labels come from --idx-labels"
                    : "each line starts with its label")
                + "); only --label-column none, which drops the labels");
      }
      return parsed;
    }
    if (resolved == Format.IDX || resolved == Format.LIBSVM) {
      return LabelColumn.LAST; // unused by these readers: the labels are kept
    }
    return like == LabelType.NONE ? LabelColumn.NONE : LabelColumn.LAST;
  }

  /** Opens the input with {@code label} (ignored by LIBSVM and IDX) in batches of {@code rows}. */
  public RowSource open(Format resolved, LabelColumn label, int rows, BufferAllocator allocator)
      throws IOException {
    RowSources.Options options = RowSources.Options.defaults()
        .withFormat(resolved)
        .withLabel(resolved == Format.IDX || resolved == Format.LIBSVM ? LabelColumn.NONE : label)
        .withIdxLabels(idxLabels)
        .withMaxBatchRows(rows)
        .withAllocator(allocator);
    return RowSources.open(input, options);
  }

  /**
   * The label column to write.
   *
   * @param hasLabels whether the rows read carry labels that are kept
   * @param like the label type of the {@code --like} file, or null without one
   */
  public LabelType labelType(Format resolved, boolean hasLabels, LabelType like) {
    LabelType given = null;
    if (labelType != null) {
      given = switch (labelType.toLowerCase(Locale.ROOT)) {
        case "regression" -> LabelType.REGRESSION;
        case "classes" -> LabelType.CLASSES;
        default -> throw new UsageException(
            "--label-type is '" + labelType + "', expected regression or classes");
      };
    }
    if (!hasLabels) {
      if (given != null) {
        throw new UsageException(
            "--label-type " + labelType + " needs labels, but the input has none ("
                + (resolved == Format.IDX && idxLabels == null
                    ? "give --idx-labels FILE"
                    : "--label-column is none")
                + ")");
      }
      return LabelType.NONE;
    }
    if (given != null) {
      return given;
    }
    if (like != null && like != LabelType.NONE) {
      return like;
    }
    return resolved == Format.IDX ? LabelType.CLASSES : LabelType.REGRESSION;
  }

  /** Whether the labels of a source are written: not with {@code --label-column none}. */
  public boolean keepLabels() {
    return labelColumn == null || !labelColumn.equals("none");
  }

  private static String name(Format format) {
    return switch (format) {
      case CSV -> "CSV";
      case LIBSVM -> "LIBSVM";
      case IDX -> "IDX";
      case ARROW -> "Arrow";
      case AUTO -> "auto";
    };
  }
}
