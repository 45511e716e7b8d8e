package org.lprff.vector.simd.scalar;

import org.lprff.vector.simd.spi.FwhtBody;

/** Reference FWHT: the textbook iterative radix-2 butterflies, one pass over memory per level. */
public final class ScalarFwht implements FwhtBody {

  @Override
  public void transform(float[] x, int offset, int n) {
    assert FwhtBody.isValidSize(n) && offset >= 0 && offset + n <= x.length;
    int end = offset + n;
    for (int h = 1; h < n; h <<= 1) {
      for (int i = offset; i < end; i += 2 * h) {
        for (int j = i; j < i + h; j++) {
          float a = x[j];
          float b = x[j + h];
          x[j] = a + b;
          x[j + h] = a - b;
        }
      }
    }
  }

  @Override
  public void transformNormalized(float[] x, int offset, int n) {
    transform(x, offset, n);
    float scale = FwhtBody.normalization(n);
    for (int i = offset; i < offset + n; i++) {
      x[i] *= scale;
    }
  }

  @Override
  public void transformInterleaved(
      float[] x, int offset, int n, int width, boolean normalized) {
    transformColumns(x, offset, n, width, 0, width, normalized);
  }

  /**
   * The textbook butterflies on the interleaved vectors c in [from, to) of a layout of the given
   * width: element i of vector c at {@code x[offset + i * width + c]}.
   */
  public static void transformColumns(
      float[] x, int offset, int n, int width, int from, int to, boolean normalized) {
    assert FwhtBody.isValidSize(n) && width >= 1 && 0 <= from && from <= to && to <= width;
    if (from == to) {
      return; // the vector body's usual call: no columns left over
    }
    for (int h = 1; h < n; h <<= 1) {
      for (int i = 0; i < n; i += 2 * h) {
        for (int j = i; j < i + h; j++) {
          int low = offset + j * width;
          int high = low + h * width;
          for (int c = from; c < to; c++) {
            float a = x[low + c];
            float b = x[high + c];
            x[low + c] = a + b;
            x[high + c] = a - b;
          }
        }
      }
    }
    if (normalized) {
      float scale = FwhtBody.normalization(n);
      for (int i = 0; i < n; i++) {
        for (int c = from; c < to; c++) {
          x[offset + i * width + c] *= scale;
        }
      }
    }
  }
}
