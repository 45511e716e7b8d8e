package org.lprff.vector.train.fullbatch;

import java.io.Serializable;
import java.util.Arrays;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.stream.FeatureRows;

/**
 * A uniform sample of at most {@code capacity} rows, by bottom-k sampling: the rows with the
 * smallest keys, a hash of (seed, row id). Which rows it keeps is a function of the seed and the
 * row ids alone, not of the order the rows come in or of how they are split into parts, since
 * {@link #addAll} of two samples keeps the smallest keys of both. A max-heap of slots on (key, id)
 * finds the row to replace (equal keys, probability ~k^2 / 2^64, go to the smaller id); a row
 * stays in its slot, so a replacement copies one row. Rows are stored decoded (capacity x m
 * floats).
 */
final class SmallestKeys implements Serializable {

  private final int capacity;
  private final int m;
  private final long[] keys;
  private final long[] ids;
  private final float[] rows;
  /** Slots in max-heap order of (key, id): heap[0] holds the largest kept key. */
  private final int[] heap;
  private int size;
  /**
   * The one grid of every row offered so far (affine packed rows; bits 0: none yet), as
   * primitives: the sample crosses Spark's wire.
   */
  private int gridBits;
  private float gridLo;
  private float gridStep;
  /** True once rows of another kind or grid were offered: {@link #grid()} is then null. */
  private boolean mixed;

  SmallestKeys(int capacity, int m) {
    this.capacity = capacity;
    this.m = m;
    this.keys = new long[capacity];
    this.ids = new long[capacity];
    this.rows = new float[capacity * m];
    this.heap = new int[capacity];
  }

  /** The key of row {@code id}: a 64-bit mix (MurmurHash3's finalizer) of seed and id. */
  static long key(long seed, long id) {
    long h = seed ^ (id * 0x9E3779B97F4A7C15L);
    h = (h ^ (h >>> 33)) * 0xFF51AFD7ED558CCDL;
    h = (h ^ (h >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return h ^ (h >>> 33);
  }

  int size() {
    return size;
  }

  /** True if row {@code id} with this key would be kept (ask before decoding the row). */
  boolean wants(long key, long id) {
    return size < capacity || before(key, id, heap[0]);
  }

  /** Offers row {@code id} (its key from {@link #key}) with values {@code from[offset..+m)}. */
  void offer(long key, long id, float[] from, int offset) {
    if (size < capacity) {
      heap[size] = size;
      store(size, key, id, from, offset);
      siftUp(size++);
    } else if (before(key, id, heap[0])) {
      store(heap[0], key, id, from, offset);
      siftDown(0);
    }
  }

  /** Notes the kind of the rows offered from {@code z}, for {@link #grid()}. */
  void noteRows(FeatureRows z) {
    if (z instanceof FeatureRows.Packed p) {
      noteGrid(p.scale().bits(), p.scale().lo(), p.scale().step());
    } else {
      mixed = true;
    }
  }

  private void noteGrid(int bits, float lo, float step) {
    if (gridBits == 0) {
      gridBits = bits;
      gridLo = lo;
      gridStep = step;
    } else if (bits != gridBits || Float.compare(lo, gridLo) != 0
        || Float.compare(step, gridStep) != 0) {
      mixed = true;
    }
  }

  /**
   * The grid all the offered rows are on, when they were all affine packed rows of one grid
   * (their decoded values then re-encode exactly), else null.
   */
  QuantizationScale grid() {
    return mixed || gridBits == 0 ? null : QuantizationScale.of(gridBits, gridLo, gridStep);
  }

  /** Keeps the smallest keys of this sample and {@code other}. */
  void addAll(SmallestKeys other) {
    if (other.mixed) {
      mixed = true;
    } else if (other.gridBits != 0) {
      noteGrid(other.gridBits, other.gridLo, other.gridStep);
    }
    for (int slot = 0; slot < other.size; slot++) {
      if (wants(other.keys[slot], other.ids[slot])) {
        offer(other.keys[slot], other.ids[slot], other.rows, slot * m);
      }
    }
  }

  /** The kept rows, smallest key first (a fixed order, so the sketch is too), size x m. */
  float[] rowsInKeyOrder() {
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> a.equals(b) ? 0 : before(keys[a], ids[a], b) ? -1 : 1);
    float[] out = new float[size * m];
    for (int i = 0; i < size; i++) {
      System.arraycopy(rows, order[i] * m, out, i * m, m);
    }
    return out;
  }

  /** True if (key, id) comes before the entry of {@code slot}. */
  private boolean before(long key, long id, int slot) {
    int c = Long.compareUnsigned(key, keys[slot]);
    return c < 0 || (c == 0 && id < ids[slot]);
  }

  private void store(int slot, long key, long id, float[] from, int offset) {
    keys[slot] = key;
    ids[slot] = id;
    System.arraycopy(from, offset, rows, slot * m, m);
  }

  /** True if heap position a holds a smaller entry than position b. */
  private boolean below(int a, int b) {
    return before(keys[heap[a]], ids[heap[a]], heap[b]);
  }

  private void siftUp(int i) {
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!below(parent, i)) {
        return;
      }
      swap(i, parent);
      i = parent;
    }
  }

  private void siftDown(int i) {
    while (true) {
      int largest = i;
      for (int child = 2 * i + 1; child <= 2 * i + 2 && child < size; child++) {
        if (below(largest, child)) {
          largest = child;
        }
      }
      if (largest == i) {
        return;
      }
      swap(i, largest);
      i = largest;
    }
  }

  private void swap(int a, int b) {
    int t = heap[a];
    heap[a] = heap[b];
    heap[b] = t;
  }
}
