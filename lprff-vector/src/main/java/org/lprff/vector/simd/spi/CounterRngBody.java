package org.lprff.vector.simd.spi;


/** Bulk bodies of {@code CounterRng}: scalar reference and Vector API. Arguments are validated. */
public interface CounterRngBody extends Body {

  /** out[off + i] = bits(seed, row, firstColumn + i, draw) for i in [0, count). */
  void fillBits(long seed, long row, int firstColumn, int draw, int[] out, int off, int count);

  /** out[off + i] = bits16(seed, row, firstColumn + i, draw) for i in [0, count). */
  void fillBits16(long seed, long row, int firstColumn, int draw, int[] out, int off, int count);

  /** out[off + i] = bits8(seed, row, firstColumn + i, draw) for i in [0, count). */
  void fillBits8(long seed, long row, int firstColumn, int draw, int[] out, int off, int count);

  /** out[off + i] = uniform(seed, row, firstColumn + i, draw) for i in [0, count). */
  void fillUniform(long seed, long row, int firstColumn, int draw, float[] out, int off, int count);
}
