package org.lprff.vector;

/** Reference {@link InterleavedKernel}: plain loops. */
final class ScalarInterleaved implements InterleavedKernel {

  @Override
  public void scale(float[] src, float[] diagonal, float[] dst, int n, int width) {
    assert src.length >= n * width && dst.length >= n * width && diagonal.length >= n;
    for (int i = 0; i < n; i++) {
      float d = diagonal[i];
      for (int c = i * width, end = c + width; c < end; c++) {
        dst[c] = src[c] * d;
      }
    }
  }

  @Override
  public void permuteScale(
      float[] src, int[] permutation, float[] diagonal, float[] dst, int n, int width) {
    assert src != dst && src.length >= n * width && dst.length >= n * width;
    for (int i = 0; i < n; i++) {
      float d = diagonal[i];
      int from = permutation[i] * width;
      for (int c = 0; c < width; c++) {
        dst[i * width + c] = d * src[from + c];
      }
    }
  }

  @Override
  public void interleave(
      float[] rows, int rowOffset, int rowStride, int length, float[] dst, int width) {
    for (int c = 0; c < width; c++) {
      int row = rowOffset + c * rowStride;
      for (int i = 0; i < length; i++) {
        dst[i * width + c] = rows[row + i];
      }
    }
  }

  @Override
  public void deinterleave(
      float[] src, int first, int count, int width, float[] out, int outOffset, int outStride) {
    for (int c = 0; c < width; c++) {
      int target = outOffset + c * outStride;
      for (int e = 0; e < count; e++) {
        out[target + e] = src[(first + e) * width + c];
      }
    }
  }

  /** Column by column through {@link CirculantPlan#multiply}: the definition. */
  @Override
  public void circulant(float[] x, CirculantPlan plan, float[] scratch, float[] out, int width) {
    int n = plan.size();
    float[] line = new float[n];
    float[] lineScratch = new float[plan.scratchLength()];
    for (int c = 0; c < width; c++) {
      for (int i = 0; i < n; i++) {
        line[i] = x[i * width + c];
      }
      plan.multiply(line, line, lineScratch);
      for (int i = 0; i < n; i++) {
        out[i * width + c] = line[i];
      }
    }
  }
}
