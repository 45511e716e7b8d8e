package org.lprff.vector.train.minibatch;

import org.lprff.vector.random.CounterRng;

/**
 * A class-major weight-shaped tensor (c columns of m entries, entry {@code j*m + k}) stored as
 * b-bit signed integer codes with one float scale per column: entry = code * scale[j], codes in
 * [-2^(b-1), 2^(b-1) - 1]. The storage is b bits an entry ({@code byte[]} for b = 8, {@code
 * short[]} for 16, {@code int[]} for 32) plus 32 bits a column, so {@link #bits()} of it is what
 * {@link HalpSolver} keeps of the model offset, the anchor and the full gradient.
 *
 * <p>Rounding onto the grid is stochastic ({@link #roundStochastic}: floor(v / s + u) with u from
 * {@link CounterRng#uniform16}'s grid, keyed by (seed, row, entry, draw): unbiased up to 2^-17 of a
 * step inside the range, saturating outside it) or to nearest ({@link #roundNearest}, ties away from
 * zero). Not thread-safe.
 */
public final class LowPrecisionVector {

  /** The code widths this type stores. */
  public static boolean supportedBits(int bits) {
    return bits == 8 || bits == 16 || bits == 32;
  }

  private final int bits;
  private final int columns;
  private final int length;
  private final float[] scales;
  private final byte[] codes8;
  private final short[] codes16;
  private final int[] codes32;
  private final long minCode;
  private final long maxCode;
  /** Scratch of 16-bit random draws, one chunk at a time. */
  private final int[] draws = new int[CHUNK];

  private static final int CHUNK = 1024;

  /** A zero tensor of {@code columns} x {@code length} entries at {@code bits} (8, 16 or 32). */
  public LowPrecisionVector(int bits, int columns, int length) {
    if (!supportedBits(bits)) {
      throw new IllegalArgumentException("bits is " + bits + ", expected 8, 16 or 32");
    }
    if (columns < 1 || length < 1 || (long) columns * length > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          "columns x length is " + columns + " x " + length + ", expected >= 1 each and an array");
    }
    this.bits = bits;
    this.columns = columns;
    this.length = length;
    this.scales = new float[columns];
    int size = columns * length;
    this.codes8 = bits == 8 ? new byte[size] : null;
    this.codes16 = bits == 16 ? new short[size] : null;
    this.codes32 = bits == 32 ? new int[size] : null;
    this.minCode = -(1L << (bits - 1));
    this.maxCode = (1L << (bits - 1)) - 1;
  }

  public int bits() {
    return bits;
  }

  public int columns() {
    return columns;
  }

  public int length() {
    return length;
  }

  /** Entries, columns * length. */
  public int size() {
    return columns * length;
  }

  /** The largest code, 2^(b-1) - 1. */
  public long maxCode() {
    return maxCode;
  }

  /** The smallest code, -2^(b-1). */
  public long minCode() {
    return minCode;
  }

  public float scale(int column) {
    return scales[column];
  }

  /** Sets column {@code column}'s step; a finite value >= 0 (0: the column is all zero). */
  public void setScale(int column, float scale) {
    assert scale >= 0 && Float.isFinite(scale) : scale;
    scales[column] = scale;
  }

  /** The code of entry {@code i}. */
  public int code(int i) {
    return switch (bits) {
      case 8 -> codes8[i];
      case 16 -> codes16[i];
      default -> codes32[i];
    };
  }

  /** Entry {@code i}'s value, code * scale of its column. */
  public float value(int i) {
    return (float) ((double) code(i) * scales[i / length]);
  }

  /** Entry {@code i} of column {@code column}: code * scale, with the column known. */
  float value(int i, int column) {
    return (float) ((double) code(i) * scales[column]);
  }

  /** Sets entry {@code i}'s code, in [minCode, maxCode]. */
  void setCode(int i, long code) {
    assert code >= minCode && code <= maxCode : code;
    switch (bits) {
      case 8 -> codes8[i] = (byte) code;
      case 16 -> codes16[i] = (short) code;
      default -> codes32[i] = (int) code;
    }
  }

  /** Every code to zero (scales kept). */
  public void clear() {
    switch (bits) {
      case 8 -> java.util.Arrays.fill(codes8, (byte) 0);
      case 16 -> java.util.Arrays.fill(codes16, (short) 0);
      default -> java.util.Arrays.fill(codes32, 0);
    }
  }

  /** Writes every entry's value into {@code out} (size() floats). */
  public void decode(float[] out) {
    for (int j = 0; j < columns; j++) {
      double s = scales[j];
      for (int k = j * length, end = k + length; k < end; k++) {
        out[k] = (float) (code(k) * s);
      }
    }
  }

  /**
   * Sets each column's scale to max |v| / (2^(b-1) - 1) (0 for an all-zero column): the grid that
   * holds the column without saturating.
   */
  public void fitScales(float[] values) {
    for (int j = 0; j < columns; j++) {
      double max = 0;
      for (int k = j * length, end = k + length; k < end; k++) {
        max = Math.max(max, Math.abs(values[k]));
      }
      scales[j] = (float) (max / maxCode);
    }
  }

  /** Entry i = values[i] rounded to the nearest level of its column (saturating). */
  public void roundNearest(float[] values) {
    for (int j = 0; j < columns; j++) {
      double inv = scales[j] == 0 ? 0 : 1.0 / scales[j];
      for (int k = j * length, end = k + length; k < end; k++) {
        setCode(k, clamp(Math.round(values[k] * inv)));
      }
    }
  }

  /**
   * Entry i = values[i] rounded stochastically onto its column's grid (saturating), u the 16-bit
   * uniform of (seed, row, i, draw): the same codes whatever else ran before.
   */
  public void roundStochastic(float[] values, long seed, long row, int draw) {
    int size = size();
    for (int start = 0; start < size; start += CHUNK) {
      int count = Math.min(CHUNK, size - start);
      CounterRng.fillBits16(seed, row, start, draw, draws, 0, count);
      for (int i = 0; i < count; i++) {
        int k = start + i;
        float s = scales[k / length];
        setCode(k, s == 0 ? 0 : clamp(roundOnce(values[k] / (double) s, draws[i])));
      }
    }
  }

  /** floor(t + u), u = (h + 1/2) 2^-16: up with probability frac(t), to 2^-17. */
  static long roundOnce(double t, int h) {
    return (long) Math.floor(t + (h + 0.5) * 0x1p-16);
  }

  private long clamp(long code) {
    return Math.max(minCode, Math.min(maxCode, code));
  }

  /** Bits of the stored tensor: codes and one 32-bit scale per column. */
  public long storedBits() {
    return (long) bits * size() + 32L * columns;
  }
}
