package org.lprff.arrow;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;

/**
 * An Arrow feature file as the training core's {@link org.lprff.vector.stream.MiniBatchSource}.
 *
 * <p>The file is memory-mapped ({@link MiniBatchSource#mapped}): features stay in native memory
 * (the packed and float32 products are much faster there than on heap arrays). Each epoch visits
 * every row once in the order {@link MiniBatchSource.Order} given at construction (default {@link
 * MiniBatchSource.Order#ROWS}: shuffled record batches, shuffled rows inside them), derived from
 * (seed, epoch) alone, so an (epoch, batchSize, seed) always gives the same batches. The mapping
 * for a given (batchSize, seed) is kept open between epochs; {@link #close()} releases it.
 *
 * <p>Labels: a Float32 label column gives {@link MiniBatch#targets()}; an Int32 column gives
 * {@link MiniBatch#classes()}. With {@code classesFromFloat} a Float32 column is read as class
 * indices, each of which must be an integer (else {@link IllegalArgumentException} naming the row
 * and the value). Row ids are passed on when the file has them.
 *
 * <p>Not thread-safe: one epoch at a time.
 */
public final class ArrowBatches implements org.lprff.vector.stream.MiniBatchSource, AutoCloseable {


  private final Path path;
  private final MiniBatchSource.Order order;
  private final boolean classesFromFloat;
  private final FeatureSchema schema;
  private final long rows;
  private MiniBatchSource open;

  private ArrowBatches(
      Path path, MiniBatchSource.Order order, boolean classesFromFloat, MiniBatchSource first) {
    this.path = path;
    this.order = order;
    this.classesFromFloat = classesFromFloat;
    this.schema = first.schema();
    this.rows = first.rowCount();
    this.open = first;
  }

  /** The file's rows, shuffled per epoch (order ROWS), labels in the column's own type. */
  public static ArrowBatches open(Path file) throws IOException {
    return open(file, MiniBatchSource.Order.ROWS, false);
  }

  /**
   * The file's rows in {@code order}.
   *
   * @param classesFromFloat read a Float32 label column as integer class indices
   * @throws IOException naming the file if it is unreadable or not a mappable feature file
   */
  public static ArrowBatches open(Path file, MiniBatchSource.Order order, boolean classesFromFloat)
      throws IOException {
    MiniBatchSource first =
        MiniBatchSource.mapped(file, org.lprff.vector.train.SgdTrainer.DEFAULT_BATCH_SIZE, order, 0);
    return new ArrowBatches(file, order, classesFromFloat, first);
  }

  public Path path() {
    return path;
  }

  public FeatureSchema schema() {
    return schema;
  }

  public FeaturizerSpec spec() {
    return schema.spec();
  }

  public LabelType labelType() {
    return schema.labelType();
  }

  @Override
  public int features() {
    return schema.spec().features();
  }

  @Override
  public int bits() {
    return schema.spec().bits();
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public Batches epoch(int epoch, int batchSize, long seed) {
    org.lprff.vector.stream.MiniBatchSource.checkEpoch(epoch, batchSize);
    MiniBatchSource source = source(batchSize, seed);
    Iterator<org.lprff.arrow.MiniBatch> it = source.epoch(epoch);
    boolean floatLabels = schema.labelType() == LabelType.REGRESSION;
    boolean intLabels = schema.labelType() == LabelType.CLASSES;
    boolean asClasses = intLabels || (floatLabels && classesFromFloat);
    float[] targets = floatLabels && !asClasses ? new float[batchSize] : null;
    int[] classes = asClasses ? new int[batchSize] : null;
    long[] ids = schema.hasRowIds() ? new long[batchSize] : null;
    FeaturizerSpec spec = schema.spec();
    int m = spec.features();
    return new Batches() {
      /** Rows of the epoch before the current batch: file row numbers in order SEQUENTIAL. */
      private long before;

      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public MiniBatch next() {
        if (!it.hasNext()) {
          throw new NoSuchElementException("epoch " + epoch + " has no more mini-batches");
        }
        org.lprff.arrow.MiniBatch b = it.next();
        int n = b.rows();
        FeatureRows z = spec.isFloat()
            ? FeatureRows.float32(b.features(), 0, n, m)
            : FeatureRows.of(b.packedRows());
        MemorySegment labels = b.labels();
        if (ids != null) {
          MemorySegment.copy(b.rowIds(), LittleEndian.LONG, 0, ids, 0, n);
        }
        if (targets != null) {
          MemorySegment.copy(labels, LittleEndian.FLOAT, 0, targets, 0, n);
        } else if (classes != null && intLabels) {
          MemorySegment.copy(labels, LittleEndian.INT, 0, classes, 0, n);
        } else if (classes != null) {
          for (int i = 0; i < n; i++) {
            float v = labels.get(LittleEndian.FLOAT, 4L * i);
            if (!(v == Math.rint(v)) || Math.abs(v) > (1 << 24)) {
              String row = ids != null ? "id " + ids[i]
                  : order == MiniBatchSource.Order.SEQUENTIAL ? Long.toString(before + i)
                  : b.rowIndex(i) + " of record batch " + b.recordBatch();
              throw new IllegalArgumentException(path + ": label of row " + row + " is " + v
                  + ", expected an integer class index for classification");
            }
            classes[i] = (int) v;
          }
        }
        before += n;
        return new MiniBatch(z, targets, classes, ids);
      }
    };
  }

  private MiniBatchSource source(int batchSize, long seed) {
    if (open != null && open.batchSize() == batchSize && open.seed() == seed) {
      return open;
    }
    try {
      if (open != null) {
        open.close();
        open = null;
      }
      open = MiniBatchSource.mapped(path, batchSize, order, seed);
      return open;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Unmaps the file. */
  @Override
  public void close() throws IOException {
    if (open != null) {
      MiniBatchSource s = open;
      open = null;
      s.close();
    }
  }
}
