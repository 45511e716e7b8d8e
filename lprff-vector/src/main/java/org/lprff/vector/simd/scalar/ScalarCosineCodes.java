package org.lprff.vector.simd.scalar;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;

/** The reference body: {@link CosineCodes} element by element, then {@link ScalarRounding}'s packing. */
public final class ScalarCosineCodes implements CosineCodesBody {

  /** Columns per batch of draws and codes (a multiple of 8, so batches start on a byte). */
  private static final int BATCH = 512;

  private final ScalarRounding packing = new ScalarRounding();

  @Override
  public boolean quantize(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int drawBits,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long byteOffset) {
    assert bits >= 1 && bits <= CosineCodes.MAX_BITS && count >= 0;
    assert count == 0 || firstColumn % 8 == 0;
    int[] draws = new int[Math.min(BATCH, count)];
    int[] codes = new int[draws.length];
    boolean sawNaN = false;
    ScalarCounterRng rng = new ScalarCounterRng();
    for (int done = 0; done < count; done += BATCH) {
      int n = Math.min(BATCH, count - done);
      switch (drawBits) {
        case CosineCodes.HALF_WORD_DRAWS -> rng.fillBits16(seed, row, firstColumn + done, draw,
            draws, 0, n);
        case CosineCodes.BYTE_DRAWS -> rng.fillFixedPoint8(seed, row, firstColumn + done, draw,
            draws, 0, n);
        default -> Arrays.fill(draws, 0, n, CosineCodes.NEAREST_DRAW);
      }
      for (int i = 0; i < n; i++) {
        float c = CosineCodes.cosine(t[tOff + done + i] + a[aOff + done + i], bits);
        sawNaN |= Float.isNaN(c);
        codes[i] = CosineCodes.code(c, draws[i], bits);
      }
      packing.packCodes(codes, 0, n, bits, out, byteOffset + (long) done / 8 * bits);
    }
    return sawNaN;
  }

  @Override
  public boolean quantizeShared(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int[] draws, int drawOff,
      MemorySegment out, long byteOffset) {
    int intervals = (1 << bits) - 1;
    return codes(t, tOff, a, aOff, count, bits, out, byteOffset,
        (c, i) -> CosineCodes.sharedCode(c, draws, drawOff + i * intervals, bits));
  }

  @Override
  public boolean quantizeThresholds(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, float[] thresholds,
      MemorySegment out, long byteOffset) {
    return codes(t, tOff, a, aOff, count, bits, out, byteOffset,
        (c, i) -> CosineCodes.thresholdCode(c, thresholds, bits));
  }

  /** The code of cosine c in column i of the call. */
  private interface CodeRule {
    int code(float c, int i);
  }

  /** Cosine by cosine, each coded by {@code rule}, packed batch by batch. */
  private boolean codes(float[] t, int tOff, float[] a, int aOff, int count, int bits,
      MemorySegment out, long byteOffset, CodeRule rule) {
    assert bits >= 1 && bits <= CosineCodes.MAX_BITS && count >= 0;
    int[] codes = new int[Math.min(BATCH, count)];
    boolean sawNaN = false;
    for (int done = 0; done < count; done += BATCH) {
      int n = Math.min(BATCH, count - done);
      for (int i = 0; i < n; i++) {
        float c = CosineCodes.cosine(t[tOff + done + i] + a[aOff + done + i], bits);
        sawNaN |= Float.isNaN(c);
        codes[i] = rule.code(c, done + i);
      }
      packing.packCodes(codes, 0, n, bits, out, byteOffset + (long) done / 8 * bits);
    }
    return sawNaN;
  }

  @Override
  public boolean quantizeSigmaDelta(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int order, int block,
      MemorySegment out, long byteOffset) {
    assert bits >= order && order >= 1 && order <= CosineCodes.MAX_ORDER && count % block == 0;
    float[] c = new float[count];
    boolean sawNaN = false;
    for (int i = 0; i < count; i++) {
      c[i] = CosineCodes.cosine(t[tOff + i] + a[aOff + i], bits);
      sawNaN |= Float.isNaN(c[i]);
    }
    int[] codes = new int[count];
    CosineCodes.sigmaDelta(c, 0, count, bits, order, block, codes, 0);
    packing.packCodes(codes, 0, count, bits, out, byteOffset);
    return sawNaN;
  }
}
