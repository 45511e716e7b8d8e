package org.lprff.vector.stream;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.NoSuchElementException;
import java.util.function.LongPredicate;

/**
 * The rows of an ordered source that a predicate keeps: a seeded validation split carved from
 * training rows without writing a file. Row i is the i-th row (0-based) the inner source hands
 * out in an epoch, so the inner source must visit its rows in the same order every epoch (a file
 * read in file order, an {@link InMemoryBatches#ordered()} source); {@link #epoch} asks it for
 * epoch 0 whatever the epoch, and hands out the kept rows of each inner batch, in order, their
 * features gathered into one scratch buffer (rows x row bytes) and their labels and ids into
 * arrays. Batches hold at most the inner batch size; a batch whose rows are all dropped is
 * skipped.
 */
public final class RowFilter implements MiniBatchSource {

  private final MiniBatchSource inner;
  private final LongPredicate keep;
  private final long rows;

  private RowFilter(MiniBatchSource inner, LongPredicate keep, long rows) {
    this.inner = inner;
    this.keep = keep;
    this.rows = rows;
  }

  /**
   * The rows of {@code inner} whose index {@code keep} accepts.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static RowFilter of(MiniBatchSource inner, LongPredicate keep) {
    if (inner == null || keep == null) {
      throw new IllegalArgumentException((inner == null ? "inner" : "keep") + " is null");
    }
    long n = -1;
    if (inner.rows() >= 0) {
      n = 0;
      for (long i = 0; i < inner.rows(); i++) {
        if (keep.test(i)) {
          n++;
        }
      }
    }
    return new RowFilter(inner, keep, n);
  }

  /** The kept rows of {@link RowSplit#validation}(seed, i): 10% of the rows. */
  public static RowFilter validation(MiniBatchSource inner, long seed) {
    return of(inner, i -> RowSplit.validation(seed, i));
  }

  /** The rows {@link #validation} drops: the other 90%. */
  public static RowFilter withoutValidation(MiniBatchSource inner, long seed) {
    return of(inner, i -> !RowSplit.validation(seed, i));
  }

  @Override
  public int features() {
    return inner.features();
  }

  @Override
  public int bits() {
    return inner.bits();
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public Batches epoch(int epoch, int batchSize, long seed) {
    MiniBatchSource.checkEpoch(epoch, batchSize);
    Batches from = inner.epoch(0, batchSize, seed);
    Arena arena = Arena.ofShared(); // the products may read the gathered rows on helper threads
    return new Batches() {
      private long index;
      private MiniBatch next;
      private MemorySegment scratch;
      private float[] targets;
      private int[] classes;
      private long[] ids;

      @Override
      public boolean hasNext() {
        while (next == null && from.hasNext()) {
          next = select(from.next());
        }
        return next != null;
      }

      @Override
      public MiniBatch next() {
        if (!hasNext()) {
          throw new NoSuchElementException("epoch " + epoch + " has no more mini-batches");
        }
        MiniBatch batch = next;
        next = null;
        return batch;
      }

      /** The kept rows of {@code batch}, or null when none is kept. */
      private MiniBatch select(MiniBatch batch) {
        FeatureRows z = batch.features();
        int n = batch.rows();
        long rowBytes = z.rowBytes();
        if (scratch == null || scratch.byteSize() < n * rowBytes) {
          scratch = arena.allocate(Math.max(1, n * rowBytes), 64);
          targets = new float[n];
          classes = new int[n];
          ids = new long[n];
        }
        int kept = 0;
        for (int r = 0; r < n; r++, index++) {
          if (!keep.test(index)) {
            continue;
          }
          MemorySegment.copy(z.segment(), z.byteOffset() + r * rowBytes, scratch,
              kept * rowBytes, rowBytes);
          if (batch.targets() != null) {
            targets[kept] = batch.targets()[r];
          }
          if (batch.classes() != null) {
            classes[kept] = batch.classes()[r];
          }
          if (batch.rowIds() != null) {
            ids[kept] = batch.rowIds()[r];
          }
          kept++;
        }
        if (kept == 0) {
          return null;
        }
        return new MiniBatch(z.at(scratch, 0, kept), batch.targets() == null ? null : targets,
            batch.classes() == null ? null : classes, batch.rowIds() == null ? null : ids);
      }

      @Override
      public void close() {
        try {
          from.close();
        } finally {
          arena.close();
        }
      }
    };
  }
}
