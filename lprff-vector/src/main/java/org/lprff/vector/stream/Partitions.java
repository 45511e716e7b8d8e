package org.lprff.vector.stream;

import java.io.Serializable;
import java.util.concurrent.Executor;

/**
 * A data set as parts whose partial sums add up: the view of data of the full-batch solvers, whose
 * every pass is a sum over rows. {@link #of} is one local source (one part); lprff-spark's
 * partitions of a cluster are another implementation, so that the same solvers train there, each
 * pass run per partition and the partial sums combined by the cluster.
 *
 * <p>A {@link Pass} is a pure function of one part's rows (epoch 0 of a {@link MiniBatchSource}
 * over them) to partial sums, with an associative {@link Pass#plus}. It is {@link Serializable}
 * so a cluster can ship it to where the rows are; what it captures (weights, the task) is data,
 * never a thread or a file.
 */
public interface Partitions {

  /** One pass's work on one part, and how two parts' sums add. */
  interface Pass<S> extends Serializable {

    /**
     * The partial sums over every row of epoch 0 of {@code part}.
     *
     * @param helpers threads the pass may use beside the calling one (null: the calling thread
     *     alone; a cluster runs its parts in parallel instead)
     */
    S over(MiniBatchSource part, Executor helpers);

    /** The sums over both parts' rows (may reuse either argument). */
    S plus(S a, S b);
  }

  /** Features per row m. */
  int features();

  /** Bits per feature: 1, 2, 4, 8, 16, or 32 for float32. */
  int bits();

  /** Rows of all parts, or -1 if unknown. */
  long rows();

  /**
   * Runs {@code pass} over every part and adds the partial sums.
   *
   * @param helpers threads a local part may use (ignored where parts run in parallel)
   */
  <S> S sum(Pass<S> pass, Executor helpers);

  /** The rows of the seeded validation split ({@link RowSplit#validation}, 10% of the rows). */
  Partitions validationSplit(long seed);

  /** The rows {@link #validationSplit} leaves (the other 90%). */
  Partitions withoutValidationSplit(long seed);

  /**
   * The one local source, for what reads mini-batches rather than passes (SGD); null where the
   * rows are spread over a cluster.
   */
  MiniBatchSource local();

  /** One local source as one part; its splits are {@link RowFilter}s over it. */
  static Partitions of(MiniBatchSource source) {
    if (source == null) {
      throw new IllegalArgumentException("source is null");
    }
    return new Partitions() {
      @Override
      public int features() {
        return source.features();
      }

      @Override
      public int bits() {
        return source.bits();
      }

      @Override
      public long rows() {
        return source.rows();
      }

      @Override
      public <S> S sum(Pass<S> pass, Executor helpers) {
        return pass.over(source, helpers);
      }

      @Override
      public Partitions validationSplit(long seed) {
        return of(RowFilter.validation(source, seed));
      }

      @Override
      public Partitions withoutValidationSplit(long seed) {
        return of(RowFilter.withoutValidation(source, seed));
      }

      @Override
      public MiniBatchSource local() {
        return source;
      }
    };
  }
}
