package org.lprff.vector.stream;

import java.util.Iterator;

/**
 * The mini-batches of a data set, epoch by epoch. The training core's only view of data: {@link
 * InMemoryBatches} and {@link OnTheFlyBatches} here, Arrow files in lprff-arrow.
 *
 * <p>Contract of {@link #epoch}: every row of the data set appears exactly once per epoch; each
 * batch has between 1 and {@code batchSize} rows (all but the last of an epoch should have
 * exactly {@code batchSize}, but a source may cut a batch short, e.g. at a file's record-batch
 * boundary); the batches' features all have {@link #features()} features and {@link #bits()}
 * bits; a given (epoch, batchSize, seed) gives the same batches in the same order every time.
 * Sources that shuffle derive the order from (seed, epoch) alone; sources with randomness in the
 * features (on-the-fly rounding) use the epoch as the draw. Evaluation on a heldout set always
 * asks for epoch 0.
 *
 * <p>A batch is valid until the iterator advances; the caller closes the iterator (it may hold
 * files or buffers).
 */
public interface MiniBatchSource {

  /** Features per row m. */
  int features();

  /** Bits per feature: 1, 2, 4, 8, 16, or 32 for float32. */
  int bits();

  /** Rows per epoch, or -1 if unknown. */
  long rows();

  /**
   * True if a batch's features stay valid until its epoch's iterator is closed, not only until
   * it advances (its labels, ids and the batch object still do not): views of rows that do not
   * move, e.g. an ordered in-memory source or a mapped file read in order. A full-batch pass then
   * holds the features of several batches at once (copying their labels) and runs them in one
   * fork/join. False by default.
   */
  default boolean featuresOutliveBatch() {
    return false;
  }

  /**
   * The batches of epoch {@code epoch} (>= 0), at most {@code batchSize} (>= 1) rows each,
   * shuffled from {@code seed} if the source shuffles.
   */
  Batches epoch(int epoch, int batchSize, long seed);

  /** An epoch's batches; close it when done. */
  interface Batches extends Iterator<MiniBatch>, AutoCloseable {
    @Override
    default void close() {}
  }

  /** Checks the arguments of {@link #epoch}; for implementations. */
  static void checkEpoch(int epoch, int batchSize) {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch is " + epoch + ", expected >= 0");
    }
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize is " + batchSize + ", expected >= 1");
    }
  }
}
