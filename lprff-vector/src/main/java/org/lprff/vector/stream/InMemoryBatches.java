package org.lprff.vector.stream;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.NoSuchElementException;

/**
 * Mini-batches over features held in memory (packed bytes or float32 rows, materialized once, e.g.
 * with {@code Featurizer.featurize} at draw 0) and their labels. For tests and data that fit in
 * memory; files go through the Arrow sources of lprff-arrow.
 *
 * <p><b>Order.</b> Shuffled by default: epoch e visits the rows in the order of a random
 * permutation drawn from (seed, e) by {@link Shuffle} (so both the composition and the order of the batches change
 * from epoch to epoch, deterministically), and each batch's rows are gathered into a native buffer
 * of the iterator. {@link #ordered()} keeps the stored order and hands out views of the stored rows
 * without copying features.
 *
 * <p>The feature bytes are not copied: they must not change while the source is in use. Labels are
 * copied at construction. Performance note: ordered batches are views of the stored rows, and
 * 1, 2, 4-bit or float32 rows held in a {@code byte[]} (heap segment) run the products ~10x slower
 * than in native memory or (float32) a {@code float[]}; store such rows off-heap. Immutable and thread-safe; each iterator has its own buffers.
 */
public final class InMemoryBatches implements MiniBatchSource {

  private final FeatureRows rows;
  private final float[] targets;
  private final int[] classes;
  private final long firstRowId;
  private final boolean shuffle;

  private InMemoryBatches(
      FeatureRows rows, float[] targets, int[] classes, long firstRowId, boolean shuffle) {
    this.rows = rows;
    this.targets = targets;
    this.classes = classes;
    this.firstRowId = firstRowId;
    this.shuffle = shuffle;
  }

  /** Rows with float targets (regression); shuffled; row ids 0..n-1. */
  public static InMemoryBatches of(FeatureRows rows, float[] targets) {
    checkRows(rows);
    if (targets == null) {
      throw new IllegalArgumentException("targets is null");
    }
    checkLabels("targets", targets.length, rows.rows());
    return new InMemoryBatches(rows, targets.clone(), null, 0, true);
  }

  /** Rows with int class labels (classification); shuffled; row ids 0..n-1. */
  public static InMemoryBatches of(FeatureRows rows, int[] classes) {
    checkRows(rows);
    if (classes == null) {
      throw new IllegalArgumentException("classes is null");
    }
    checkLabels("classes", classes.length, rows.rows());
    return new InMemoryBatches(rows, null, classes.clone(), 0, true);
  }

  /** This source without shuffling: batches are consecutive stored rows, every epoch the same. */
  public InMemoryBatches ordered() {
    return new InMemoryBatches(rows, targets, classes, firstRowId, false);
  }

  /** This source with row r having id {@code firstRowId + r} (>= 0). */
  public InMemoryBatches withFirstRowId(long firstRowId) {
    if (firstRowId < 0 || firstRowId > Long.MAX_VALUE - rows.rows()) {
      throw new IllegalArgumentException(
          "firstRowId is " + firstRowId + ", expected in [0, Long.MAX_VALUE - n]");
    }
    return new InMemoryBatches(rows, targets, classes, firstRowId, shuffle);
  }

  public boolean shuffles() {
    return shuffle;
  }

  /** The stored rows. */
  public FeatureRows featureRows() {
    return rows;
  }

  @Override
  public int features() {
    return rows.features();
  }

  @Override
  public int bits() {
    return rows.bits();
  }

  @Override
  public long rows() {
    return rows.rows();
  }

  /** Ordered: the batches' features are views of the stored rows. */
  @Override
  public boolean featuresOutliveBatch() {
    return !shuffle;
  }

  @Override
  public Batches epoch(int epoch, int batchSize, long seed) {
    MiniBatchSource.checkEpoch(epoch, batchSize);
    int n = rows.rows();
    int capacity = Math.max(1, Math.min(batchSize, n));
    return shuffle
        ? new Shuffled(Shuffle.permutation(n, seed, epoch, Shuffle.EPOCH_ORDER), batchSize, capacity)
        : new Ordered(batchSize, capacity);
  }

  /** Labels and ids of a batch, gathered into buffers of the iterator. */
  private abstract class Cursor implements Batches {
    final int batchSize;
    final float[] targetBuffer;
    final int[] classBuffer;
    final long[] idBuffer;
    int position;

    Cursor(int batchSize, int capacity) {
      this.batchSize = batchSize;
      this.targetBuffer = targets == null ? null : new float[capacity];
      this.classBuffer = classes == null ? null : new int[capacity];
      this.idBuffer = new long[capacity];
    }

    @Override
    public boolean hasNext() {
      return position < rows.rows();
    }

    @Override
    public MiniBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException("the epoch has no more batches");
      }
      int count = Math.min(batchSize, rows.rows() - position);
      for (int k = 0; k < count; k++) {
        int row = row(position + k);
        if (targetBuffer != null) {
          targetBuffer[k] = targets[row];
        }
        if (classBuffer != null) {
          classBuffer[k] = classes[row];
        }
        idBuffer[k] = firstRowId + row;
      }
      FeatureRows features = features(position, count);
      position += count;
      return new MiniBatch(features, targetBuffer, classBuffer, idBuffer);
    }

    abstract int row(int index);

    abstract FeatureRows features(int from, int count);
  }

  private final class Ordered extends Cursor {
    Ordered(int batchSize, int capacity) {
      super(batchSize, capacity);
    }

    @Override
    int row(int index) {
      return index;
    }

    @Override
    FeatureRows features(int from, int count) {
      return rows.slice(from, count);
    }
  }

  private final class Shuffled extends Cursor {
    private final int[] perm;
    private final MemorySegment buffer;
    private final long rowBytes;

    Shuffled(int[] perm, int batchSize, int capacity) {
      super(batchSize, capacity);
      this.perm = perm;
      this.rowBytes = rows.rowBytes();
      this.buffer = batchBuffer(rowBytes * capacity);
    }

    @Override
    int row(int index) {
      return perm[index];
    }

    @Override
    FeatureRows features(int from, int count) {
      MemorySegment source = rows.segment();
      long base = rows.byteOffset();
      for (int k = 0; k < count; k++) {
        MemorySegment.copy(source, base + perm[from + k] * rowBytes, buffer, k * rowBytes, rowBytes);
      }
      return rows.at(buffer, 0, count);
    }
  }

  /**
   * A native (off-heap) buffer for gathered batches, freed by the garbage collector. Native, not a
   * byte[]: the products' int and float vector loads from byte[]-backed heap segments are not
   * intrinsified by C2 (they box every vector and run ~10x slower), from native memory they are.
   */
  static MemorySegment batchBuffer(long bytes) {
    return Arena.ofAuto().allocate(Math.max(1, bytes), 64);
  }

  private static void checkRows(FeatureRows rows) {
    if (rows == null) {
      throw new IllegalArgumentException("rows is null");
    }
  }

  private static void checkLabels(String name, int length, int n) {
    if (length != n) {
      throw new IllegalArgumentException(
          name + " has length " + length + ", expected one label per row: " + n);
    }
  }
}
