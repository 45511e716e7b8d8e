package org.lprff.arrow;

import java.io.IOException;

/**
 * Supplies raw input rows to a {@link FeatureWriter}, one batch at a time, until it returns null.
 * Decoupled from any input format: an adapter over a CSV, IDX or Arrow reader implements it.
 */
@FunctionalInterface
public interface RawBatchSource {

  /**
   * The next batch, or null when the input is exhausted. The writer is done with a batch's arrays
   * when the next call happens, so an implementation may reuse them.
   *
   * @throws IOException if reading the input fails; the writer then deletes its partial output
   */
  RawBatch next() throws IOException;
}
