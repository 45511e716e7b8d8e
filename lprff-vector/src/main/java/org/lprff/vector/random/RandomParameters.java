package org.lprff.vector.random;

import java.util.Arrays;

/**
 * Deterministic random parameters of a feature map (frequencies, phases, signs, permutations) as
 * pure functions of {@code (seed, stream, index)}, built on {@link CounterRng}.
 *
 * <h2>Where the randomness comes from</h2>
 *
 * Value {@code index} of stream {@code stream} reads {@link CounterRng#bits} at {@code row = -1 -
 * stream}, {@code column = index} and a few {@code draw}s listed per method. Data rows (the
 * stochastic rounding of entry {@code (row_id, i)}) use rows {@code >= 0}, so parameter randomness
 * never shares a Threefry counter with rounding randomness, whatever the seed. Streams are
 * non-negative ints; the ones below are reserved so that two users of one seed never draw the same
 * numbers:
 *
 * <ul>
 *   <li>{@link #STREAM_FREQUENCIES} (0): the entries of W (or the Gaussian diagonals of structured
 *       projections);
 *   <li>{@link #STREAM_PHASES} (1): the phases a_i;
 *   <li>{@link #STREAM_CHI_SQUARED} (2): the per-feature chi-squared scale of Matérn frequencies;
 *   <li>{@link #STREAM_FIRST_STRUCTURED} (3) and above: left for structured projections (Rademacher
 *       diagonals, Fastfood's permutation and scaling), one stream each.
 * </ul>
 *
 * <h2>Draws</h2>
 *
 * <ul>
 *   <li>{@link #uniformOpen}: draws 0 (high 32 bits) and 1 (its top 20 bits), see there;
 *   <li>{@link #normal}: Box–Muller, {@code sqrt(-2 ln u1) cos(2 pi u2)} with u1 from draws 0, 1
 *       and u2 from draws 2, 3;
 *   <li>{@link #cauchy}: {@code tan(pi (u - 1/2))}, u from draws 0, 1;
 *   <li>{@link #rademacher}: the top bit of draw 0;
 *   <li>{@link #chiSquared}: the sum of {@code dof} squared normals, normal j using draws 4j .. 4j+3;
 *   <li>{@link #permutation}: Fisher–Yates, the swap partner of position i from column i, draws
 *       0, 1, ... (a draw is rejected only to keep the integer exactly uniform; rarely needed).
 * </ul>
 *
 * <p>Transcendental functions are {@link StrictMath}'s, so the parameters are bit-identical on
 * every JVM and platform, not just within one run. Parameters are drawn once per feature map, so
 * the code is scalar; the bulk fills read the bits through the vectorised {@link
 * CounterRng#fillBits} and are identical to the single-value methods.
 */
public final class RandomParameters {

  /** Stream of the projection frequencies W. */
  public static final int STREAM_FREQUENCIES = 0;

  /** Stream of the phases a_i. */
  public static final int STREAM_PHASES = 1;

  /** Stream of the per-feature chi-squared scale of Matérn frequencies. */
  public static final int STREAM_CHI_SQUARED = 2;

  /** First stream left for structured projections. */
  public static final int STREAM_FIRST_STRUCTURED = 3;

  private static final double TWO_PI = 2 * Math.PI;

  /** Chunk of the bulk fills: bounds the scratch buffers. */
  private static final int CHUNK = 1024;

  private RandomParameters() {}

  /** The CounterRng row of a parameter stream: {@code -1 - stream}, always negative. */
  public static long row(int stream) {
    checkStream(stream);
    return -1L - stream;
  }

  /**
   * A uniform double in the open interval (0, 1): {@code (2v + 1) * 2^-53} with v the 52-bit
   * integer made of the 32 bits of draw 0 (high) and the top 20 bits of draw 1 (low). The values
   * are the midpoints of the 2^52 cells of width 2^-52: exactly representable, never 0 or 1, and
   * symmetric (u and 1 - u are equally likely), so {@code log u} and {@code tan(pi (u - 1/2))} are
   * always finite. (With 53 bits no such grid exists in double: the midpoint next to 1 would be
   * 1 - 2^-54, which rounds to 1.)
   */
  public static double uniformOpen(long seed, int stream, int index) {
    long row = row(stream);
    checkIndex(index);
    return uniformOpenAt(seed, row, index, 0);
  }

  /** A standard normal: Box–Muller from u1 (draws 0, 1) and u2 (draws 2, 3). */
  public static double normal(long seed, int stream, int index) {
    long row = row(stream);
    checkIndex(index);
    return normalAt(seed, row, index, 0);
  }

  /** A standard Cauchy: {@code tan(pi (u - 1/2))} with u = {@link #uniformOpen} (draws 0, 1). */
  public static double cauchy(long seed, int stream, int index) {
    return cauchyFromUniform(uniformOpen(seed, stream, index));
  }

  /** +1 or -1 with probability 1/2 each: the top bit of draw 0 (set means -1). */
  public static int rademacher(long seed, int stream, int index) {
    long row = row(stream);
    checkIndex(index);
    return CounterRng.bits(seed, row, index, 0) < 0 ? -1 : 1;
  }

  /**
   * Chi-squared with {@code dof} degrees of freedom, dof in {1, 3, 5}: the sum of dof squared
   * normals, normal j from draws 4j .. 4j+3 (so each uses its own Box–Muller pair).
   */
  public static double chiSquared(long seed, int stream, int index, int dof) {
    checkDof(dof);
    long row = row(stream);
    checkIndex(index);
    double sum = 0;
    for (int j = 0; j < dof; j++) {
      double z = normalAt(seed, row, index, 4 * j);
      sum += z * z;
    }
    return sum;
  }

  /** out[off + i] = (float) normal(seed, stream, firstIndex + i) for i in [0, count). */
  public static void fillNormal(
      long seed, int stream, int firstIndex, float[] out, int off, int count) {
    fillFloats(firstIndex, out, off, count, normals(seed, row(stream)));
  }

  /** out[off + i] = (float) cauchy(seed, stream, firstIndex + i) for i in [0, count). */
  public static void fillCauchy(
      long seed, int stream, int firstIndex, float[] out, int off, int count) {
    fillFloats(firstIndex, out, off, count, cauchies(seed, row(stream)));
  }

  /** out[off + i] = rademacher(seed, stream, firstIndex + i) for i in [0, count). */
  public static void fillRademacher(
      long seed, int stream, int firstIndex, float[] out, int off, int count) {
    long row = row(stream);
    fillFloats(firstIndex, out, off, count, (first, buffer, n) -> {
      int[] bits = new int[n];
      CounterRng.fillBits(seed, row, first, 0, bits, 0, n);
      for (int i = 0; i < n; i++) {
        buffer[i] = bits[i] < 0 ? -1 : 1;
      }
    });
  }

  /** out[off + i] = (float) chiSquared(seed, stream, firstIndex + i, dof) for i in [0, count). */
  public static void fillChiSquared(
      long seed, int stream, int firstIndex, int dof, float[] out, int off, int count) {
    checkDof(dof);
    fillFloats(firstIndex, out, off, count, chiSquares(seed, row(stream), dof));
  }

  /**
   * out[off + i] = uniformOpen(seed, stream, firstIndex + i). Into double[] because rounding to
   * float would map values within 2^-25 of 1 to 1.
   */
  public static void fillUniformOpen(
      long seed, int stream, int firstIndex, double[] out, int off, int count) {
    long row = row(stream);
    fillDoubles(firstIndex, out, off, count,
        (first, buffer, n) -> uniformsOpen(seed, row, first, 0, buffer, n));
  }

  /** The normals of {@link #fillNormal} in double, for callers that scale before rounding. */
  public static void fillNormalDouble(
      long seed, int stream, int firstIndex, double[] out, int off, int count) {
    fillDoubles(firstIndex, out, off, count, normals(seed, row(stream)));
  }

  /** The Cauchy values of {@link #fillCauchy} in double. */
  public static void fillCauchyDouble(
      long seed, int stream, int firstIndex, double[] out, int off, int count) {
    fillDoubles(firstIndex, out, off, count, cauchies(seed, row(stream)));
  }

  /** The chi-squared values of {@link #fillChiSquared} in double. */
  public static void fillChiSquaredDouble(
      long seed, int stream, int firstIndex, int dof, double[] out, int off, int count) {
    checkDof(dof);
    fillDoubles(firstIndex, out, off, count, chiSquares(seed, row(stream), dof));
  }

  // ---- bulk draws: one chunked loop for every distribution.

  /** Draws {@code n} values for indices first .. first + n - 1 into {@code buffer[0, n)}. */
  private interface Draws {
    void into(int first, double[] buffer, int n);
  }

  private static Draws normals(long seed, long row) {
    return (first, buffer, n) -> normals(seed, row, first, 0, buffer, n);
  }

  private static Draws cauchies(long seed, long row) {
    return (first, buffer, n) -> {
      uniformsOpen(seed, row, first, 0, buffer, n);
      for (int i = 0; i < n; i++) {
        buffer[i] = cauchyFromUniform(buffer[i]);
      }
    };
  }

  /** Sums of dof squared normals, normal j from draws 4j .. 4j+3, summed in order j = 0, 1, .... */
  private static Draws chiSquares(long seed, long row, int dof) {
    return (first, buffer, n) -> {
      double[] z = new double[n];
      Arrays.fill(buffer, 0, n, 0.0);
      for (int j = 0; j < dof; j++) {
        normals(seed, row, first, 4 * j, z, n);
        for (int i = 0; i < n; i++) {
          buffer[i] += z[i] * z[i];
        }
      }
    };
  }

  /** Bulk draws in chunks of at most CHUNK doubles, each rounded once to float. */
  private static void fillFloats(int firstIndex, float[] out, int off, int count, Draws draws) {
    checkFill(firstIndex, out == null ? -1 : out.length, off, count);
    double[] buffer = new double[Math.min(count, CHUNK)];
    for (int done = 0; done < count; done += buffer.length) {
      int n = Math.min(buffer.length, count - done);
      draws.into(firstIndex + done, buffer, n);
      for (int i = 0; i < n; i++) {
        out[off + done + i] = (float) buffer[i];
      }
    }
  }

  /** Bulk draws in chunks of at most CHUNK doubles. */
  private static void fillDoubles(int firstIndex, double[] out, int off, int count, Draws draws) {
    checkFill(firstIndex, out == null ? -1 : out.length, off, count);
    double[] buffer = new double[Math.min(count, CHUNK)];
    for (int done = 0; done < count; done += buffer.length) {
      int n = Math.min(buffer.length, count - done);
      draws.into(firstIndex + done, buffer, n);
      System.arraycopy(buffer, 0, out, off + done, n);
    }
  }

  /**
   * A uniformly random permutation of 0 .. n-1 (Fisher–Yates): for i = n-1 down to 1, swap
   * position i with a uniform j in [0, i]. j comes from column i, draw 0 by Lemire's
   * multiply-and-reject (bits x, j = floor(x (i+1) / 2^32), rejected when the low half of the
   * product falls in the 2^32 mod (i+1) values that would bias it; then draws 1, 2, ... are used),
   * so every permutation has probability exactly 1/n!.
   */
  public static int[] permutation(long seed, int stream, int n) {
    long row = row(stream);
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i >= 1; i--) {
      int j = uniformInt(seed, row, i, i + 1L);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  // ---- internals: everything below takes an already validated row.

  /** Uniform integer in [0, bound), bound <= 2^31, from column `column`, draws 0, 1, .... */
  private static int uniformInt(long seed, long row, int column, long bound) {
    long threshold = (1L << 32) % bound; // values of the low half that would bias the result
    for (int draw = 0; ; draw++) {
      long x = CounterRng.bits(seed, row, column, draw) & 0xFFFFFFFFL;
      long product = x * bound;
      if ((product & 0xFFFFFFFFL) >= threshold) {
        return (int) (product >>> 32);
      }
    }
  }

  /**
   * A phase in [0, 2 pi) from u in (0, 1): {@code (float) (2 pi u)}, except that a value rounding
   * to {@code (float) 2 pi} (which is above 2 pi) becomes the float just below it.
   */
  public static float phaseFromUniform(double u) {
    float a = (float) (TWO_PI * u);
    return a >= (float) TWO_PI ? Math.nextDown((float) TWO_PI) : a;
  }

  static double uniformFromBits(int high, int low) {
    long v = ((high & 0xFFFFFFFFL) << 20) | (low >>> 12);
    return (2 * v + 1) * 0x1p-53;
  }

  private static double uniformOpenAt(long seed, long row, int column, int firstDraw) {
    return uniformFromBits(
        CounterRng.bits(seed, row, column, firstDraw),
        CounterRng.bits(seed, row, column, firstDraw + 1));
  }

  private static double normalAt(long seed, long row, int column, int firstDraw) {
    return boxMuller(
        uniformOpenAt(seed, row, column, firstDraw), uniformOpenAt(seed, row, column, firstDraw + 2));
  }

  private static double boxMuller(double u1, double u2) {
    return StrictMath.sqrt(-2 * StrictMath.log(u1)) * StrictMath.cos(TWO_PI * u2);
  }

  private static double cauchyFromUniform(double u) {
    return StrictMath.tan(Math.PI * (u - 0.5));
  }

  /** out[i] = uniform from draws firstDraw, firstDraw + 1 at column firstColumn + i, i < n. */
  private static void uniformsOpen(
      long seed, long row, int firstColumn, int firstDraw, double[] out, int n) {
    int[] high = new int[n];
    int[] low = new int[n];
    CounterRng.fillBits(seed, row, firstColumn, firstDraw, high, 0, n);
    CounterRng.fillBits(seed, row, firstColumn, firstDraw + 1, low, 0, n);
    for (int i = 0; i < n; i++) {
      out[i] = uniformFromBits(high[i], low[i]);
    }
  }

  /** out[i] = normal from draws firstDraw .. firstDraw + 3 at column firstColumn + i, i < n. */
  private static void normals(
      long seed, long row, int firstColumn, int firstDraw, double[] out, int n) {
    double[] u2 = new double[n];
    uniformsOpen(seed, row, firstColumn, firstDraw, out, n);
    uniformsOpen(seed, row, firstColumn, firstDraw + 2, u2, n);
    for (int i = 0; i < n; i++) {
      out[i] = boxMuller(out[i], u2[i]);
    }
  }

  private static void checkStream(int stream) {
    if (stream < 0) {
      throw new IllegalArgumentException("stream is " + stream + ", expected >= 0");
    }
  }

  private static void checkIndex(int index) {
    if (index < 0) {
      throw new IllegalArgumentException("index is " + index + ", expected >= 0");
    }
  }

  private static void checkDof(int dof) {
    if (dof != 1 && dof != 3 && dof != 5) {
      throw new IllegalArgumentException(
          "dof is " + dof + ", supported degrees of freedom are 1, 3, 5");
    }
  }

  /** outLength -1 means out is null. */
  private static void checkFill(int firstIndex, int outLength, int off, int count) {
    if (firstIndex < 0) {
      throw new IllegalArgumentException("firstIndex is " + firstIndex + ", expected >= 0");
    }
    if (count < 0) {
      throw new IllegalArgumentException("count is " + count + ", expected >= 0");
    }
    if (firstIndex + (long) count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "firstIndex " + firstIndex + " + count " + count + " exceeds " + Integer.MAX_VALUE);
    }
    if (outLength < 0) {
      throw new IllegalArgumentException("out is null");
    }
    if (off < 0 || off + (long) count > outLength) {
      throw new IllegalArgumentException(
          "out has length " + outLength + ", cannot hold " + count + " values from offset " + off);
    }
  }
}
