package org.lprff.cli.output;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.lprff.arrow.ProgressListener;

/**
 * Progress of a long pass on standard error, at most once per interval: rows done, rows per
 * second, and the percentage when the total is known. On a terminal each report overwrites the
 * previous one ({@code \r}); elsewhere (a log file, a test) each is a line.
 */
public final class Progress implements ProgressListener {

  /** Half a second between reports. */
  static final long INTERVAL_NANOS = 500_000_000L;

  private final PrintWriter err;
  private final String task;
  private final boolean terminal;
  private final LongSupplier nanoTime;
  private final long start;
  private long lastReport;
  private int lastWidth;

  /**
   * @param err where reports go
   * @param task what is being done, e.g. "featurizing"
   * @param terminal whether {@code err} is a terminal (overwrite the line)
   * @param nanoTime the clock ({@link System#nanoTime} but in tests)
   */
  public Progress(PrintWriter err, String task, boolean terminal, LongSupplier nanoTime) {
    this.err = err;
    this.task = task;
    this.terminal = terminal;
    this.nanoTime = nanoTime;
    this.start = nanoTime.getAsLong();
    this.lastReport = start;
  }

  /** A listener that reports nothing ({@code --quiet}). */
  public static Progress silent() {
    return new Progress(null, "", false, () -> 0L);
  }

  @Override
  public void rowsWritten(long rows, long totalRows) {
    if (err == null) {
      return;
    }
    long now = nanoTime.getAsLong();
    if (now - lastReport < INTERVAL_NANOS) {
      return;
    }
    lastReport = now;
    double seconds = (now - start) / 1e9;
    StringBuilder line = new StringBuilder(task).append(": ").append(Human.count(rows));
    if (totalRows > 0) {
      line.append(" of ").append(Human.count(totalRows)).append(" rows (")
          .append(String.format(Locale.ROOT, "%.0f%%", 100.0 * rows / totalRows)).append(')');
    } else {
      line.append(" rows");
    }
    line.append(", ").append(Human.count(Math.round(rows / seconds))).append(" rows/s");
    if (terminal) {
      int width = line.length();
      line.append(" ".repeat(Math.max(0, lastWidth - width)));
      lastWidth = width;
      err.print("\r" + line);
    } else {
      err.println(line);
    }
    err.flush();
  }

  /** Clears an overwritten line, so what follows starts at the left margin. */
  public void finish() {
    if (err != null && terminal && lastWidth > 0) {
      err.print("\r" + " ".repeat(lastWidth) + "\r");
      err.flush();
      lastWidth = 0;
    }
  }

  /** True if standard error is a terminal, as far as the JVM can tell. */
  public static boolean stderrIsTerminal() {
    // The launcher knows (test -t 2); the JVM itself only sees whether a console is attached.
    String told = System.getProperty("lprff.stderr.terminal");
    if (told != null) {
      return Boolean.parseBoolean(told);
    }
    java.io.Console console = System.console();
    return console != null && console.isTerminal();
  }
}
