package org.lprff.vector.projection;

import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.InterleavedBody;

/**
 * Shared frame of the structured projections (circulant, Fastfood, orthogonal): argument checks,
 * padding and the block loop. d is zero-padded to p = the next power of two >= max(d, 2); feature
 * f belongs to block f / p, each block an independent p x p matrix acting on the padded row, the
 * last block cut at m.
 *
 * <p>{@link #project} takes whole groups of {@link #GROUP} rows through the interleaved path
 * (where the subclass has one and p <= {@link #MAX_INTERLEAVED}), the rest as follows. It goes
 * through the rows in chunks of up to {@link #CHUNK_FLOATS} / p rows:
 * each row is padded once, then every requested block is applied to the whole chunk (one facade
 * call for all its rows, the block's parameters loaded once) and the requested slice copied out;
 * blocks outside the requested features are skipped. Scratch is per call (the padded chunk, a work
 * chunk and the projection's scratch, allocated once per call), so instances hold no mutable
 * state and are safe for concurrent use.
 */
abstract sealed class StructuredProjection implements Projection
    permits CirculantProjection, FastfoodProjection, OrthogonalProjection {

  /** Largest padded width: the FWHT and circulant plans accept at least 2^26. */
  static final int MAX_PADDED = 1 << 26;

  /** The diagonal products of the interleaved path. */
  static final InterleavedBody INTERLEAVED = VectorizationProvider.get().interleaved();

  /**
   * Rows side by side in the interleaved path: one register of floats with the vector bodies, so
   * each element of the group is one vector and no level of the transforms needs a shuffle.
   */
  static final int GROUP = INTERLEAVED.width();

  /** Largest p for the interleaved path: three buffers of p GROUP floats stay in L2. */
  static final int MAX_INTERLEAVED = 1 << 12;

  /** Rows per chunk times p: two or three buffers of 32 KiB stay in L2. */
  static final int CHUNK_FLOATS = 1 << 13;

  final double sigma;
  final int d;
  final int m;
  final int p;
  final int blocks;

  StructuredProjection(double sigma, int d, int m) {
    if (!(sigma > 0) || !Double.isFinite(sigma)) {
      throw new IllegalArgumentException("sigma is " + sigma + ", expected a finite value > 0");
    }
    if (d < 1 || d > MAX_PADDED) {
      throw new IllegalArgumentException("d is " + d + ", expected in [1, " + MAX_PADDED + "]");
    }
    if (m < 1) {
      throw new IllegalArgumentException("m is " + m + ", expected >= 1");
    }
    this.sigma = sigma;
    this.d = d;
    this.m = m;
    this.p = paddedWidth(d);
    long padded = (m + (long) p - 1) / p * p;
    if (padded > Integer.MAX_VALUE) {
      // Parameters are indexed k p + i in their streams.
      throw new IllegalArgumentException(
          "m is " + m + " with p = " + this.p + ": " + padded + " block entries exceed "
              + Integer.MAX_VALUE);
    }
    this.blocks = (int) (padded / p);
  }

  /** The next power of two >= max(d, 2). */
  static int paddedWidth(int d) {
    return d <= 2 ? 2 : Integer.highestOneBit(d - 1) << 1;
  }

  @Override
  public final int inputDim() {
    return d;
  }

  @Override
  public final int features() {
    return m;
  }

  /** p, the padded width: one block of features per transform. */
  @Override
  public final int preferredBlock() {
    return p;
  }

  /** The kernel bandwidth sigma. */
  public final double sigma() {
    return sigma;
  }

  @Override
  public final void project(
      float[] rows, int rowOffset, int n, int firstFeature, int count, float[] out, int outOffset) {
    checkProject(rows, rowOffset, n, firstFeature, count, out, outOffset);
    if (n == 0 || count == 0) {
      return;
    }
    int interleaved = interleaves() && p <= MAX_INTERLEAVED ? n / GROUP * GROUP : 0;
    if (interleaved > 0) {
      projectInterleaved(rows, rowOffset, interleaved, firstFeature, count, out, outOffset);
    }
    if (interleaved < n) {
      projectRows(
          rows, rowOffset + interleaved * d, n - interleaved, firstFeature, count, out,
          outOffset + interleaved * count);
    }
  }

  /** Rows one after another, a chunk at a time: for single rows and the last n mod GROUP. */
  private void projectRows(
      float[] rows, int rowOffset, int n, int firstFeature, int count, float[] out, int outOffset) {
    int chunk = Math.max(1, Math.min(n, CHUNK_FLOATS / p));
    float[] padded = new float[chunk * p];
    float[] work = new float[chunk * p];
    float[] scratch = new float[scratchLength(chunk)];
    float[] line = new float[p];
    int end = firstFeature + count;
    int firstBlock = firstFeature / p;
    int lastBlock = (end - 1) / p;
    for (int r0 = 0; r0 < n; r0 += chunk) {
      int rowCount = Math.min(chunk, n - r0);
      // Each row padded once; entries d..p-1 of every padded row are never written: zero.
      for (int r = 0; r < rowCount; r++) {
        System.arraycopy(rows, rowOffset + (r0 + r) * d, padded, r * p, d);
      }
      for (int k = firstBlock; k <= lastBlock; k++) {
        applyBlock(k, padded, work, scratch, line, rowCount);
        int from = Math.max(firstFeature, k * p);
        int to = Math.min(end, k * p + p);
        for (int r = 0; r < rowCount; r++) {
          System.arraycopy(
              work, r * p + from - k * p, out, outOffset + (r0 + r) * count + from - firstFeature,
              to - from);
        }
      }
    }
  }

  /**
   * Groups of {@link #GROUP} rows side by side (element i of row c at {@code [i GROUP + c]}), so
   * that every transform level and diagonal is whole-register arithmetic; n is a multiple of
   * GROUP. Bits equal {@link #projectRows}'s: the same operations on every element.
   */
  private void projectInterleaved(
      float[] rows, int rowOffset, int n, int firstFeature, int count, float[] out, int outOffset) {
    float[] padded = new float[p * GROUP];
    float[] work = new float[p * GROUP];
    float[] scratch = new float[p * GROUP];
    int end = firstFeature + count;
    int firstBlock = firstFeature / p;
    int lastBlock = (end - 1) / p;
    for (int r0 = 0; r0 < n; r0 += GROUP) {
      // Entries d..p-1 of every padded row are never written: zero.
      INTERLEAVED.interleave(rows, rowOffset + r0 * d, d, d, padded, GROUP);
      for (int k = firstBlock; k <= lastBlock; k++) {
        applyBlockInterleaved(k, padded, work, scratch);
        int from = Math.max(firstFeature, k * p);
        int to = Math.min(end, k * p + p);
        INTERLEAVED.deinterleave(
            work, from - k * p, to - from, GROUP, out,
            outOffset + r0 * count + from - firstFeature, count);
      }
    }
  }

  /** Whether {@link #applyBlockInterleaved} is implemented. */
  abstract boolean interleaves();

  /**
   * Like {@link #applyBlock} for the {@link #GROUP} interleaved rows of padded (p GROUP floats):
   * work receives block k's p outputs of each row, interleaved; scratch (p GROUP floats) is free.
   */
  void applyBlockInterleaved(int k, float[] padded, float[] work, float[] scratch) {
    throw new UnsupportedOperationException(name() + " has no interleaved path");
  }

  /**
   * For each of rowCount rows r: work[r p, r p + p) = W_k padded[r p, r p + p) (all p entries of
   * block k), padded unchanged; scratch ({@link #scratchLength} floats) and line (p floats) are
   * free to use.
   */
  abstract void applyBlock(
      int k, float[] padded, float[] work, float[] scratch, float[] line, int rowCount);

  /** Scratch floats {@link #applyBlock} needs for a chunk of rowCount rows. */
  abstract int scratchLength(int rowCount);

  private void checkProject(
      float[] rows, int rowOffset, int n, int firstFeature, int count, float[] out, int outOffset) {
    if (rows == null || out == null) {
      throw new IllegalArgumentException(
          "rows and out must not be null (rows is " + (rows == null ? "null" : "non-null")
              + ", out is " + (out == null ? "null" : "non-null") + ")");
    }
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    if (rowOffset < 0 || rowOffset + (long) n * d > rows.length) {
      throw new IllegalArgumentException(
          "rows has length " + rows.length + ", cannot hold " + n + " rows of d = " + d
              + " from offset " + rowOffset);
    }
    if (firstFeature < 0 || count < 0 || (long) firstFeature + count > m) {
      throw new IllegalArgumentException(
          "features [" + firstFeature + ", " + firstFeature + " + " + count
              + ") are not within [0, m = " + m + "]");
    }
    if (outOffset < 0 || outOffset + (long) n * count > out.length) {
      throw new IllegalArgumentException(
          "out has length " + out.length + ", cannot hold " + n + " x " + count
              + " values from offset " + outOffset);
    }
  }

  /** Rademacher signs of block k of a stream as floats: index k p + i. */
  final float[] signs(long seed, int stream, int k) {
    float[] s = new float[p];
    RandomParameters.fillRademacher(seed, stream, k * p, s, 0, p);
    return s;
  }

  /**
   * A chi(p) draw, the norm of a standard normal p-vector: the square root of the sum of p squared
   * normals of {@code stream} at indices 0..p-1, in double; z (p doubles) is scratch.
   */
  final double chiNorm(long seed, int stream, double[] z) {
    RandomParameters.fillNormalDouble(seed, stream, 0, z, 0, p);
    double chiSquared = 0;
    for (int j = 0; j < p; j++) {
      chiSquared += z[j] * z[j];
    }
    return Math.sqrt(chiSquared);
  }

  /** Standard normals of block k of a stream, in double: index k p + i. */
  final double[] normals(long seed, int stream, int k) {
    double[] g = new double[p];
    RandomParameters.fillNormalDouble(seed, stream, k * p, g, 0, p);
    return g;
  }

  @Override
  public String toString() {
    return name() + "(sigma = " + sigma + ", d = " + d + ", m = " + m + ", p = " + p + ")";
  }

  /**
   * {@code dst[r*p + i] = src[r*p + i] * diagonal[i]} for {@code length / p} rows: a diagonal
   * matrix applied to every row of a chunk ({@code dst} may be {@code src}).
   */
  static void multiplyRows(float[] src, float[] diagonal, float[] dst, int length, int p) {
    for (int r = 0; r < length; r += p) {
      for (int i = 0; i < p; i++) {
        dst[r + i] = src[r + i] * diagonal[i];
      }
    }
  }
}
