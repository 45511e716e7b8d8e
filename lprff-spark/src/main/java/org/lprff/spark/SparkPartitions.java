package org.lprff.spark;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.storage.StorageLevel;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.MiniBatch;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.stream.RowSplit;
import scala.Tuple2;

/**
 * The rows of a DataFrame's packed feature column as the library's {@link Partitions}: cached
 * {@link PackedBlock}s, one pass of a solver per Spark partition (the library's {@code Pass}
 * shipped to the executors, which run it over their blocks with the packed products, each block
 * copied into native memory where the kernels read it fastest), the partial sums combined with
 * in partition order ({@link #sum}), whatever order the tasks finish in. The seeded
 * validation split keeps a row by {@link RowSplit#validation}(seed, row id), so with ids 0..n-1
 * it is the split a feature file of the same rows gets from {@code lprff train}.
 *
 * <p>A sum is the same bits on every run of the same partitions.
 */
final class SparkPartitions implements Partitions {

  private final JavaRDD<PackedBlock> blocks;
  /** The spec's metadata (serializable, for the executors), its model features and bits. */
  private final HashMap<String, String> spec;
  private final int features;
  private final int bits;
  private final long rows;
  /** Every RDD this data set and its splits cached, to release at the end of a fit. */
  private final List<JavaRDD<?>> cached;

  private SparkPartitions(JavaRDD<PackedBlock> blocks, FeaturizerSpec spec,
      List<JavaRDD<?>> cached) {
    this.blocks = blocks.persist(StorageLevel.MEMORY_AND_DISK());
    cached.add(this.blocks);
    this.spec = new HashMap<>(spec.toMap());
    this.features = spec.modelFeatures();
    this.bits = spec.bits();
    this.cached = cached;
    this.rows = this.blocks.map(b -> (long) b.rows()).fold(0L, Long::sum);
  }

  /** Caches {@code blocks} (counting their rows: one job); {@code cached} collects the RDDs. */
  static SparkPartitions of(JavaRDD<PackedBlock> blocks, FeaturizerSpec spec,
      List<JavaRDD<?>> cached) {
    return new SparkPartitions(blocks, spec, cached);
  }

  @Override
  public int features() {
    return features;
  }

  @Override
  public int bits() {
    return bits;
  }

  @Override
  public long rows() {
    return rows;
  }

  /**
   * The pass over every partition, its partial sums added in partition order: partitions are
   * grouped (about sqrt(P) to a group, by index), each group's partials added in index order on
   * an executor, the groups' sums in group order on the driver. treeAggregate added them in the
   * order the tasks finished, so two fits of the same rows could differ in the last bits of a sum
   * and, after many L-BFGS iterations, in their logits by 0.1 (DistributedTrainingTest, under
   * load); now they are the same bits every run, with as little on the driver as before.
   */
  @Override
  public <S> S sum(Pass<S> pass, Executor helpers) {
    HashMap<String, String> map = spec;
    int partitions = blocks.getNumPartitions();
    int fan = Math.max(2, (int) Math.ceil(Math.sqrt(partitions)));
    int groups = (partitions + fan - 1) / fan;
    List<Tuple2<Integer, S>> sums = blocks
        .mapPartitionsWithIndex((index, it) -> List.of(new Tuple2<>(index,
            pass.over(new BlockSource(list(it), map), null))).iterator(), false)
        .mapToPair(t -> new Tuple2<>(t._1() / fan, t))
        .groupByKey(Math.max(1, groups))
        .map(group -> new Tuple2<>(group._1(), inOrder(group._2(), pass)))
        .collect();
    return inOrder(sums, pass);
  }

  /** The partials added in the order of their keys. */
  private static <S> S inOrder(Iterable<Tuple2<Integer, S>> partials, Pass<S> pass) {
    List<Tuple2<Integer, S>> list = new ArrayList<>();
    partials.forEach(list::add);
    list.sort(Comparator.comparingInt(Tuple2::_1));
    S total = null;
    for (Tuple2<Integer, S> t : list) {
      S s = t._2();
      total = total == null ? s : s == null ? total : pass.plus(total, s);
    }
    return total;
  }

  private static List<PackedBlock> list(Iterator<PackedBlock> it) {
    List<PackedBlock> list = new ArrayList<>();
    it.forEachRemaining(list::add);
    return list;
  }

  @Override
  public Partitions validationSplit(long seed) {
    return split(seed, true);
  }

  @Override
  public Partitions withoutValidationSplit(long seed) {
    return split(seed, false);
  }

  private Partitions split(long seed, boolean validation) {
    JavaRDD<PackedBlock> kept = blocks
        .map(block -> block.filter(id -> RowSplit.validation(seed, id) == validation))
        .filter(block -> block != null);
    return new SparkPartitions(kept, FeaturizerSpec.fromMap(spec), cached);
  }

  @Override
  public MiniBatchSource local() {
    return null;
  }

  /** A partition's blocks as a source: each block copied to native memory, cut into batches. */
  private record BlockSource(List<PackedBlock> blocks, FeaturizerSpec spec)
      implements MiniBatchSource {

    BlockSource(List<PackedBlock> blocks, Map<String, String> spec) {
      this(blocks, FeaturizerSpec.fromMap(spec));
    }

    @Override
    public int features() {
      return spec.modelFeatures();
    }

    @Override
    public int bits() {
      return spec.bits();
    }

    @Override
    public long rows() {
      long n = 0;
      for (PackedBlock b : blocks) {
        n += b.rows();
      }
      return n;
    }

    @Override
    public Batches epoch(int epoch, int batchSize, long seed) {
      MiniBatchSource.checkEpoch(epoch, batchSize);
      Arena arena = Arena.ofShared();
      int largest = 1;
      for (PackedBlock b : blocks) {
        largest = Math.max(largest, b.features().length);
      }
      MemorySegment scratch = arena.allocate(largest, 64);
      return new Batches() {
        private int block = -1;
        private int from;
        private FeatureRows rows;

        @Override
        public boolean hasNext() {
          while (block < blocks.size() && (block < 0 || from >= blocks.get(block).rows())) {
            if (++block < blocks.size()) {
              PackedBlock b = blocks.get(block);
              MemorySegment.copy(MemorySegment.ofArray(b.features()), 0, scratch, 0,
                  b.features().length);
              rows = FeatureRows.of(spec, scratch, 0, b.rows());
              from = 0;
            }
          }
          return block < blocks.size();
        }

        @Override
        public MiniBatch next() {
          if (!hasNext()) {
            throw new NoSuchElementException("epoch " + epoch + " has no more mini-batches");
          }
          PackedBlock b = blocks.get(block);
          int n = Math.min(batchSize, b.rows() - from);
          int to = from + n;
          MiniBatch batch = new MiniBatch(rows.slice(from, n),
              b.targets() == null ? null : Arrays.copyOfRange(b.targets(), from, to),
              b.classes() == null ? null : Arrays.copyOfRange(b.classes(), from, to),
              Arrays.copyOfRange(b.ids(), from, to));
          from = to;
          return batch;
        }

        @Override
        public void close() {
          arena.close();
        }
      };
    }
  }
}
