package org.lprff.vector.simd.scalar;

import static org.lprff.vector.simd.spi.Threefry.block;
import static org.lprff.vector.simd.spi.Threefry.halfOf;
import static org.lprff.vector.simd.spi.Threefry.keySchedule;

import org.lprff.vector.simd.spi.CounterRngBody;
import org.lprff.vector.simd.spi.Threefry;

/**
 * Scalar Threefry-4x32 bulk fills: the reference body of the counter-based generator.
 *
 * <p>The bulk fills compute each Threefry block once and hand its four output words (eight half
 * words) to the requested columns that map to it, so the reference does the same number of block
 * evaluations as the vector body.
 */
public final class ScalarCounterRng implements CounterRngBody {

  @Override
  public void fillBits(long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    fill(seed, row, firstColumn, draw, out, off, count, 4);
  }

  @Override
  public void fillBits16(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    fill(seed, row, firstColumn, draw, out, off, count, 8);
  }

  @Override
  public void fillBits8(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    fill(seed, row, firstColumn, draw, out, off, count, 16);
  }

  /**
   * {@link #fillBits8}'s draws d as the rounding's fixed-point draws, {@link
   * Threefry#fixedPoint8}(d) = d 2^8 + 2^7: what the b <= 8 rounding of both bodies adds.
   */
  public void fillFixedPoint8(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count) {
    fillBits8(seed, row, firstColumn, draw, out, off, count);
    for (int i = off; i < off + count; i++) {
      out[i] = Threefry.fixedPoint8(out[i]);
    }
  }

  /**
   * The column layout the fills share: a group of 8 * slots columns takes 8 lanes of one block
   * each, and column {@code groupStart + 8 slot + lane} gets slot {@code slot} of lane {@code
   * lane}'s block: its word (4 slots, 32 bits), its half word (8 slots: slot = 4 half + word) or
   * its byte (16 slots: slot = 4 byte + word).
   */
  private static void fill(
      long seed, long row, int firstColumn, int draw, int[] out, int off, int count, int slots) {
    assert count >= 0 && firstColumn >= 0 && firstColumn + (long) count <= Integer.MAX_VALUE;
    if (count == 0) {
      return;
    }
    int shift = Integer.numberOfTrailingZeros(8 * slots);
    int end = firstColumn + count;
    int[] words = new int[4];
    int[] ks = keySchedule(seed);
    for (int group = firstColumn >>> shift; group <= (end - 1) >>> shift; group++) {
      int groupStart = group << shift;
      for (int lane = 0; lane < 8; lane++) {
        boolean computed = false;
        for (int slot = 0; slot < slots; slot++) {
          int column = groupStart + 8 * slot + lane;
          if (column >= firstColumn && column < end) {
            if (!computed) {
              block(ks, row, (group << 3) | lane, draw, words);
              computed = true;
            }
            out[off + column - firstColumn] = switch (slots) {
              case 4 -> words[slot];
              case 8 -> halfOf(words[slot & 3], slot >>> 2);
              default -> (words[slot & 3] >>> ((slot >>> 2) << 3)) & 0xFF;
            };
          }
        }
      }
    }
  }

  @Override
  public void fillUniform(
      long seed, long row, int firstColumn, int draw, float[] out, int off, int count) {
    int[] bits = new int[Math.min(count, 1024)];
    for (int done = 0; done < count; done += bits.length) {
      int n = Math.min(bits.length, count - done);
      fillBits(seed, row, firstColumn + done, draw, bits, 0, n);
      for (int i = 0; i < n; i++) {
        out[off + done + i] = Threefry.toUniform(bits[i]);
      }
    }
  }
}
