package org.lprff.vector;

/** Reference FWHT: the textbook iterative radix-2 butterflies, one pass over memory per level. */
final class ScalarFwht implements FwhtKernel {

  @Override
  public void transform(float[] x, int offset, int n) {
    assert FwhtKernel.isValidSize(n) && offset >= 0 && offset + n <= x.length;
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
    float scale = FwhtKernel.normalization(n);
    for (int i = offset; i < offset + n; i++) {
      x[i] *= scale;
    }
  }
}
