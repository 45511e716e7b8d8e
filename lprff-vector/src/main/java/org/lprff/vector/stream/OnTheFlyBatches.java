package org.lprff.vector.stream;

import java.lang.foreign.MemorySegment;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.simd.ParallelTasks;

/**
 * Mini-batches featurized when they are needed, from raw input rows and a {@link Featurizer}, as
 * the reference LP-RFF code trains: nothing of size n x m is ever stored, and epoch e rounds with
 * draw e, so every epoch sees fresh rounding noise while epoch 0 sees exactly the materialized
 * (draw 0) features.
 *
 * <p><b>Bytes.</b> The features of the input row with index r (row id {@code firstRowId + r}) in
 * epoch e are identical, bit for bit, to {@code featurizer.featurize(rows, n, firstRowId, out, 0,
 * e)}'s row r, whatever the batch, shuffle or executor: a batch's rows are gathered and handed to
 * the featurizer with their own row ids ({@link Featurizer#featurize(float[], int, long[],
 * MemorySegment, long, int)}), whose rounding randomness is a pure function of (seed, row id,
 * feature, draw); the fused pass goes straight from projections to packed codes.
 *
 * <p><b>Order.</b> Shuffled by default, as {@link InMemoryBatches}: epoch e visits the rows in the
 * order of a permutation drawn from (seed, e). {@link #ordered()} keeps the input order.
 *
 * <p><b>Threads.</b> With {@link #withExecutor} a batch is split into row ranges of at least 64
 * rows featurized on the executor and the calling thread; the bytes do not change.
 *
 * <p>The input rows are not copied and must not change while the source is in use; labels are
 * copied. Immutable and thread-safe; each iterator has its own buffers (a batch's raw rows and row
 * ids, and its packed bytes in native memory, see {@link InMemoryBatches}).
 */
public final class OnTheFlyBatches implements MiniBatchSource {

  /** Rows per featurization task, at least: smaller tasks cost more than they save. */
  static final int MIN_TASK_ROWS = 64;

  private final Featurizer featurizer;
  private final float[] inputs;
  private final int n;
  private final float[] targets;
  private final int[] classes;
  private final long firstRowId;
  private final boolean shuffle;
  private final Executor executor;

  private OnTheFlyBatches(
      Featurizer featurizer, float[] inputs, int n, float[] targets, int[] classes,
      long firstRowId, boolean shuffle, Executor executor) {
    this.featurizer = featurizer;
    this.inputs = inputs;
    this.n = n;
    this.targets = targets;
    this.classes = classes;
    this.firstRowId = firstRowId;
    this.shuffle = shuffle;
    this.executor = executor;
  }

  /** n input rows ({@code inputs[r*d .. (r+1)*d)}) with float targets; shuffled, row ids 0..n-1. */
  public static OnTheFlyBatches of(Featurizer featurizer, float[] inputs, int n, float[] targets) {
    checkInputs(featurizer, inputs, n);
    if (targets == null) {
      throw new IllegalArgumentException("targets is null");
    }
    checkLabels("targets", targets.length, n);
    return create(featurizer, inputs, n, targets.clone(), null);
  }

  /** n input rows with int class labels; shuffled, row ids 0..n-1. */
  public static OnTheFlyBatches of(Featurizer featurizer, float[] inputs, int n, int[] classes) {
    checkInputs(featurizer, inputs, n);
    if (classes == null) {
      throw new IllegalArgumentException("classes is null");
    }
    checkLabels("classes", classes.length, n);
    return create(featurizer, inputs, n, null, classes.clone());
  }

  private static OnTheFlyBatches create(
      Featurizer featurizer, float[] inputs, int n, float[] targets, int[] classes) {
    return new OnTheFlyBatches(featurizer, inputs, n, targets, classes, 0, true, null);
  }

  /** This source without shuffling: batches are consecutive input rows. */
  public OnTheFlyBatches ordered() {
    return new OnTheFlyBatches(
        featurizer, inputs, n, targets, classes, firstRowId, false, executor);
  }

  /** This source with input row r having row id {@code firstRowId + r} (>= 0). */
  public OnTheFlyBatches withFirstRowId(long firstRowId) {
    if (firstRowId < 0 || firstRowId > Long.MAX_VALUE - n) {
      throw new IllegalArgumentException(
          "firstRowId is " + firstRowId + ", expected in [0, Long.MAX_VALUE - n]");
    }
    return new OnTheFlyBatches(
        featurizer, inputs, n, targets, classes, firstRowId, shuffle, executor);
  }

  /** This source featurizing each batch in parallel on {@code executor} and the calling thread. */
  public OnTheFlyBatches withExecutor(Executor executor) {
    if (executor == null) {
      throw new IllegalArgumentException("executor is null");
    }
    return new OnTheFlyBatches(
        featurizer, inputs, n, targets, classes, firstRowId, shuffle, executor);
  }

  public Featurizer featurizer() {
    return featurizer;
  }

  @Override
  public int features() {
    return featurizer.spec().modelFeatures();
  }

  @Override
  public int bits() {
    return featurizer.spec().bits();
  }

  @Override
  public long rows() {
    return n;
  }

  /** The batches of epoch {@code epoch}, rounded with draw {@code epoch}. */
  @Override
  public Batches epoch(int epoch, int batchSize, long seed) {
    MiniBatchSource.checkEpoch(epoch, batchSize);
    int[] perm = shuffle ? Shuffle.permutation(n, seed, epoch, Shuffle.EPOCH_ORDER) : null;
    return new Cursor(perm, epoch, batchSize);
  }

  private final class Cursor implements Batches {
    private final int[] perm;
    private final int draw;
    private final int batchSize;
    private final int capacity;
    private final int rowsPerTask;
    /** Raw rows of each task: the featurizer reads its input from index 0. */
    private final float[][] raw;
    /** Row ids of each task's rows. */
    private final long[][] ids;
    private final MemorySegment out;
    private final float[] targetBuffer;
    private final int[] classBuffer;
    private final long[] idBuffer;
    private final int rowBytes;
    private int position;

    Cursor(int[] perm, int draw, int batchSize) {
      this.perm = perm;
      this.draw = draw;
      this.batchSize = batchSize;
      this.capacity = Math.max(1, Math.min(batchSize, n));
      int maxTasks = executor == null ? 1 : Math.max(1, capacity / MIN_TASK_ROWS);
      this.rowsPerTask = (capacity + maxTasks - 1) / maxTasks;
      int tasks = (capacity + rowsPerTask - 1) / rowsPerTask;
      int d = featurizer.spec().inputDim();
      int m = featurizer.spec().features();
      this.rowBytes = featurizer.rowBytes();
      if ((long) rowsPerTask * Math.max(d, m) > Integer.MAX_VALUE - 16) {
        throw new IllegalArgumentException(
            "a task of " + rowsPerTask + " rows x " + Math.max(d, m) + " floats exceeds the"
                + " largest array");
      }
      this.raw = new float[tasks][rowsPerTask * d];
      this.ids = new long[tasks][rowsPerTask];
      this.out = InMemoryBatches.batchBuffer((long) rowBytes * capacity); // shared arena: any thread
      this.targetBuffer = targets == null ? null : new float[capacity];
      this.classBuffer = classes == null ? null : new int[capacity];
      this.idBuffer = new long[capacity];
    }

    @Override
    public boolean hasNext() {
      return position < n;
    }

    @Override
    public MiniBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException("the epoch has no more batches");
      }
      int count = Math.min(batchSize, n - position);
      for (int k = 0; k < count; k++) {
        int row = perm == null ? position + k : perm[position + k];
        if (targetBuffer != null) {
          targetBuffer[k] = targets[row];
        }
        if (classBuffer != null) {
          classBuffer[k] = classes[row];
        }
        idBuffer[k] = firstRowId + row;
      }
      featurize(count);
      position += count;
      FeatureRows features = FeatureRows.of(featurizer.spec(), out, 0, count);
      return new MiniBatch(features, targetBuffer, classBuffer, idBuffer);
    }

    private void featurize(int count) {
      int tasks = (count + rowsPerTask - 1) / rowsPerTask;
      if (tasks <= 1) {
        featurizeTask(0, count);
        return;
      }
      ParallelTasks.run(
          tasks,
          executor,
          task -> {
            int from = task * rowsPerTask;
            featurizeTask(task, Math.min(count, from + rowsPerTask) - from);
          });
    }

    /** Rows [task * rowsPerTask, + count) of the batch into {@link #out}. */
    private void featurizeTask(int task, int count) {
      int d = featurizer.spec().inputDim();
      int first = task * rowsPerTask;
      float[] rawRows = raw[task];
      for (int k = 0; k < count; k++) {
        int row = perm == null ? position + first + k : perm[position + first + k];
        System.arraycopy(inputs, row * d, rawRows, k * d, d);
      }
      long[] rowIds = ids[task];
      System.arraycopy(idBuffer, first, rowIds, 0, count);
      featurizer.featurize(rawRows, count, rowIds, out, (long) first * rowBytes, draw);
    }
  }

  private static void checkInputs(Featurizer featurizer, float[] inputs, int n) {
    if (featurizer == null) {
      throw new IllegalArgumentException("featurizer is null");
    }
    if (inputs == null) {
      throw new IllegalArgumentException("inputs is null");
    }
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    int d = featurizer.spec().inputDim();
    long need = (long) n * d;
    if (inputs.length != need) {
      throw new IllegalArgumentException(
          "inputs has " + inputs.length + " floats, expected n * d = " + n + " * " + d + " = "
              + need + " (d is the featurizer's input width)");
    }
    for (int i = 0; i < inputs.length; i++) {
      if (!Float.isFinite(inputs[i])) {
        throw new IllegalArgumentException(
            "inputs[" + i + "] (row " + i / d + ", column " + i % d + ") is " + inputs[i]
                + ", expected finite inputs");
      }
    }
  }

  private static void checkLabels(String name, int length, int n) {
    if (length != n) {
      throw new IllegalArgumentException(
          name + " has length " + length + ", expected one label per row: " + n);
    }
  }
}
