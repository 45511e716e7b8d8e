package org.lprff.spark;

import java.io.Serializable;
import java.util.function.LongPredicate;

/**
 * Up to a few thousand rows of a partition as the distributed solvers keep them cached: the rows'
 * packed bytes back to back, their labels (float targets or int classes) and their ids.
 */
record PackedBlock(byte[] features, int rows, float[] targets, int[] classes, long[] ids)
    implements Serializable {

  /** The rows whose id {@code keep} accepts, or null when none is kept. */
  PackedBlock filter(LongPredicate keep) {
    int rowBytes = features.length / Math.max(rows, 1);
    int kept = 0;
    for (int r = 0; r < rows; r++) {
      if (keep.test(ids[r])) {
        kept++;
      }
    }
    if (kept == 0) {
      return null;
    }
    byte[] f = new byte[kept * rowBytes];
    float[] t = targets == null ? null : new float[kept];
    int[] c = classes == null ? null : new int[kept];
    long[] i = new long[kept];
    int k = 0;
    for (int r = 0; r < rows; r++) {
      if (keep.test(ids[r])) {
        System.arraycopy(features, r * rowBytes, f, k * rowBytes, rowBytes);
        if (t != null) {
          t[k] = targets[r];
        }
        if (c != null) {
          c[k] = classes[r];
        }
        i[k++] = ids[r];
      }
    }
    return new PackedBlock(f, kept, t, c, i);
  }
}
