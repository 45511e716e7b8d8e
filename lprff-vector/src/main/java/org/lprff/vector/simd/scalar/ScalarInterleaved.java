package org.lprff.vector.simd.scalar;

import org.lprff.vector.simd.spi.CirculantSpectrum;
import org.lprff.vector.simd.spi.FftBody;
import org.lprff.vector.simd.spi.InterleavedBody;

/** Reference {@link InterleavedBody}: plain loops. */
public final class ScalarInterleaved implements InterleavedBody {

  private final FftBody fft;

  /** Circulant products run column by column on {@code fft}. */
  public ScalarInterleaved(FftBody fft) {
    this.fft = fft;
  }

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

  /** Column by column through {@link FftBody#circulant}: the definition. */
  @Override
  public void circulant(float[] x, CirculantSpectrum s, float[] scratch, float[] out, int width) {
    int n = s.n;
    float[] line = new float[n];
    float[] lineScratch = new float[n];
    for (int c = 0; c < width; c++) {
      for (int i = 0; i < n; i++) {
        line[i] = x[i * width + c];
      }
      fft.circulant(line, line, lineScratch, s);
      for (int i = 0; i < n; i++) {
        out[i * width + c] = line[i];
      }
    }
  }
}
