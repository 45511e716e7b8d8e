package org.lprff.arrow.input;

import java.io.IOException;

/**
 * Batches of raw input rows, one at a time, until {@link #next()} returns null: what a {@code
 * FeatureWriter} consumes. Every {@link RowSource} is one; a lambda over arrays in memory is
 * another.
 */
@FunctionalInterface
public interface RowBatches {

  /**
   * The next batch, or null when the input is exhausted. The consumer is done with a batch's
   * arrays when the next call happens, so an implementation may reuse them.
   *
   * @throws IOException if reading the input fails (a writer then deletes its partial output)
   */
  RowBatch next() throws IOException;
}
