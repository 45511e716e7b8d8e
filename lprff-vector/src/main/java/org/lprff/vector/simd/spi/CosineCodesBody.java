package org.lprff.vector.simd.spi;

import java.lang.foreign.MemorySegment;

/**
 * Body of the fused featurizer's last step for b <= 8: from the projections t and the phases a of
 * a row's block straight to packed b-bit codes of s cos(fl(t + a)), with the cosine at the
 * precision b needs and every quantizer's code rule (stochastic or nearest rounding, shared
 * thresholds, Lloyd-Max thresholds, Sigma-Delta feedback), as {@link CosineCodes} defines (the
 * scale s cancels: codes are computed from cos x on [-1, 1]).
 *
 * <p>Preconditions (asserted; the facade validates): b in {1, 2, 4, 8}, {@code firstColumn} a
 * multiple of 8 (so {@code byteOffset} is where its bits start), ranges in bounds, {@code out}
 * large enough for ceil(count b / 8) bytes.
 */
public interface CosineCodesBody extends Body {

  /**
   * Writes the codes of columns firstColumn .. firstColumn + count - 1 of row {@code row}, whose
   * draws are {@code CounterRng.bits8(seed, row, column, draw)} ({@code drawBits} = {@link
   * CosineCodes#BYTE_DRAWS}) or {@code bits16} ({@link CosineCodes#HALF_WORD_DRAWS}), or none
   * (round to nearest: {@link CosineCodes#NO_DRAWS}).
   *
   * @return {@code true} if some argument fl(t + a) is NaN or infinite (the caller then finds it)
   */
  boolean quantize(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int drawBits,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long byteOffset);

  /**
   * Shared-threshold codes (see {@link CosineCodes#sharedCode}): column i's draws are {@code
   * draws[drawOff + i (2^b - 1) + j]}, j its interval.
   *
   * @return {@code true} if some argument is NaN or infinite
   */
  boolean quantizeShared(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int[] draws, int drawOff,
      MemorySegment out, long byteOffset);

  /**
   * Codes by {@code 2^b - 1} ascending thresholds shared by every column (Lloyd-Max, {@link
   * CosineCodes#thresholdCode}).
   *
   * @return {@code true} if some argument is NaN or infinite
   */
  boolean quantizeThresholds(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, float[] thresholds,
      MemorySegment out, long byteOffset);

  /**
   * Sigma-Delta codes of order r over blocks of {@code block} columns ({@link
   * CosineCodes#sigmaDelta}); count is a multiple of block, the first column starts a block.
   *
   * @return {@code true} if some argument is NaN or infinite
   */
  boolean quantizeSigmaDelta(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int order, int block,
      MemorySegment out, long byteOffset);
}
