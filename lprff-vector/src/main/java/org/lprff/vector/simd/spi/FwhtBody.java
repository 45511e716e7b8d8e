package org.lprff.vector.simd.spi;


/**
 * In-place fast Walsh–Hadamard transform of {@code x[offset, offset + n)} in natural (Sylvester)
 * order: {@code (Hx)_i = sum_j (-1)^popcount(i & j) x_j}.
 *
 * <p>Every implementation computes each output with the same butterfly tree as the scalar
 * reference (level h combines {@code a = x[j]}, {@code b = x[j + h]} into {@code a + b} and {@code
 * a - b}), so implementations agree bit for bit. Arguments are validated by {@code Fwht}; kernels
 * only assert.
 */
public interface FwhtBody extends Body {

  /** Unnormalized transform {@code H x}; {@code n} is a power of two, at least 2. */
  void transform(float[] x, int offset, int n);

  /**
   * Orthonormal transform {@code H x / sqrt(n)}: the unnormalized result of every entry multiplied
   * by {@link #normalization(int)} (one rounding after the butterflies).
   */
  void transformNormalized(float[] x, int offset, int n);

  /**
   * Transforms {@code width} interleaved vectors of length {@code n}: element i of vector c is
   * {@code x[offset + i * width + c]}, c in [0, width). Each vector gets exactly the bits {@link
   * #transform} gives it in contiguous layout, and the outputs are multiplied by {@code scale}
   * when {@code normalized} (as in {@link #transformNormalized}).
   *
   * <p>Why a second layout: with vectors side by side every level is an add and a subtract of
   * whole registers, also the levels shorter than a register that cost shuffles in contiguous
   * layout, so a batch of short transforms (p = 16..4096 in the structured projections) runs
   * several times faster.
   */
  void transformInterleaved(float[] x, int offset, int n, int width, boolean normalized);

  /** The float factor {@code 1 / sqrt(n)} that every implementation multiplies by. */
  static float normalization(int n) {
    return Normalization.BY_LOG_N[Integer.numberOfTrailingZeros(n)];
  }

  static boolean isValidSize(int n) {
    return n >= 2 && Integer.bitCount(n) == 1;
  }

  /**
   * 1/sqrt(2^k) computed in double and rounded once to float, k = 0..30. A table because a
   * square root and a division cost as much as a whole transform of 2^3 floats.
   */
  final class Normalization {
    static final float[] BY_LOG_N = new float[31];

    static {
      for (int k = 0; k < BY_LOG_N.length; k++) {
        BY_LOG_N[k] = (float) (1.0 / Math.sqrt(Math.scalb(1.0, k)));
      }
    }

    private Normalization() {}
  }
}
