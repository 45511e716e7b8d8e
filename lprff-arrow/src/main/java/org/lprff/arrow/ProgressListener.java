package org.lprff.arrow;

/**
 * Told by a {@link FeatureWriter} after each record batch it writes; called on the writing
 * thread. The library prints nothing itself: a command-line tool may print from here.
 */
@FunctionalInterface
public interface ProgressListener {

  /** A listener that ignores every report. */
  ProgressListener NONE = (rowsWritten, totalRows) -> {};

  /**
   * @param rowsWritten rows written to the output so far
   * @param totalRows the total the caller announced, or -1 if unknown
   */
  void rowsWritten(long rowsWritten, long totalRows);
}
