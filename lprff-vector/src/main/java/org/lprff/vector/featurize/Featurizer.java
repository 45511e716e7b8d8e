package org.lprff.vector.featurize;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.SharedThresholdQuantizer;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.projection.Projection;
import org.lprff.vector.projection.Projections;
import org.lprff.vector.random.CounterRng;
import org.lprff.vector.simd.ParallelTasks;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.CosineBody;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;
import org.lprff.vector.simd.spi.RoundingBody;

/**
 * The LP-RFF feature map of a {@link FeaturizerSpec}: rows x (d floats) to rows of m features,
 * {@code z_i(x) = s cos(w_i . x + a_i)} with s = sqrt(2/m), then for b < 32 quantized to b-bit
 * codes packed as in DESIGN.md section 3, for b = 32 written as little-endian float32.
 *
 * <p><b>One fused pass.</b> The batch is processed in chunks of rows (the projection's {@link
 * Projection#preferredRows()}: 32, or 128 for the dense projection) and blocks
 * of features (a multiple of the projection's preferred block and of 8): the projection of the
 * chunk onto the block goes into a thread-confined scratch array, then each row's block is turned
 * into cosines and quantized straight into its packed bytes. The n x m float matrix of the batch
 * never exists. For b <= 8 the cosine, the rounding and the packing are one kernel ({@code
 * CosineCodesBody}, {@link CosineFeatures#quantize}), with the cosine computed at the precision b
 * needs (an error below 2^-13 of a rounding step); b = 16 and 32 use the full-precision cosine.
 *
 * <p><b>Reproducibility.</b> The projection and phases derive from the seed alone; the stochastic
 * rounding of feature i of the row with id r uses {@link CounterRng}(seed, r, i, draw). Every byte
 * therefore depends only on (spec, row values, row id, draw): identical for any batch split,
 * thread count or executor. (Scalar and vector kernels, {@code lprff.vectorization}, give the same
 * bytes for b <= 8; for b = 16 and 32 they may differ in the last bits of a cosine and so in rare
 * rounding decisions.)
 *
 * <p><b>Row ids</b> must be >= 0 (negative counter rows are the parameter streams of {@link
 * RandomParameters}); row r of a call has id {@code firstRowId + r}.
 *
 * <p>Immutable and thread-safe; each call allocates its own scratch (at most a few hundred KiB).
 */
public final class Featurizer {

  private static final CosineBody COSINE = VectorizationProvider.get().cosine();
  private static final RoundingBody ROUNDING = VectorizationProvider.get().rounding();
  private static final CosineCodesBody CODES = VectorizationProvider.get().cosineCodes();

  /** Rows per chunk, at most, whatever the projection prefers: bounds the scratch array. */
  static final int MAX_CHUNK = 1024;

  /**
   * Target features per block: 32 rows x 512 floats = 64 KiB of scratch (256 KiB with the dense
   * projection's 128 rows).
   */
  static final int TARGET_BLOCK = 512;

  /** Rows per task of the parallel call, at least: smaller tasks cost more than they save. */
  static final int MIN_TASK_ROWS = 64;

  /** Tasks per parallel call, at most. */
  static final int MAX_TASKS = 64;

  private final FeaturizerSpec spec;
  private final Projection projection;
  private final float[] phases;
  private final float s;
  /** The grid of b = 16's rounding; null for b = 32 and for a codebook (Lloyd-Max). */
  private final QuantizationScale scale;
  private final int rowBytes;
  private final int block;
  /** Rows per chunk: the projection's preferred rows (the scratch is chunk x block floats). */
  private final int chunkRows;
  /** Shared-threshold: the draws of every feature and grid interval; else null. */
  private final int[] sharedDraws;
  /** Lloyd-Max: the thresholds on the cosine; else null. */
  private final float[] thresholds;

  private Featurizer(FeaturizerSpec spec) {
    this.spec = spec;
    int m = spec.features();
    this.projection =
        Projections.create(spec.projection(), spec.kernel(), spec.inputDim(), m, spec.seed());
    this.phases = new float[m];
    spec.kernel().samplePhases(spec.seed(), m, phases);
    this.s = (float) Math.sqrt(2.0 / m);
    this.scale = spec.isFloat() || !spec.quantizer().affine() ? null : spec.scale();
    this.rowBytes = spec.rowBytes();
    // A Sigma-Delta block never straddles two blocks of the pass.
    int unit = spec.quantizer() instanceof Quantizer.SigmaDelta sd && !spec.isFloat()
        ? lcm(projection.preferredBlock(), sd.block())
        : projection.preferredBlock();
    this.block = blockSize(unit, m);
    this.chunkRows = Math.clamp(projection.preferredRows(), 1, MAX_CHUNK);
    boolean coded = !spec.isFloat();
    this.sharedDraws = coded && spec.quantizer() instanceof Quantizer.SharedThreshold
        ? SharedThresholdQuantizer.draws(spec.seed(), m, spec.bits())
        : null;
    this.thresholds = coded && spec.quantizer() instanceof Quantizer.LloydMax
        ? Quantizer.LloydMax.cosineThresholds(spec.bits())
        : null;
  }

  /** The featurizer of {@code spec} (draws the projection and phases from its seed). */
  public static Featurizer of(FeaturizerSpec spec) {
    if (spec == null) {
      throw new IllegalArgumentException("spec is null");
    }
    return new Featurizer(spec);
  }

  /**
   * Features per block: a multiple of lcm(preferred, 8) (8 so that every block starts on a byte
   * of the packed row) near {@link #TARGET_BLOCK}, but never more than m rounded up.
   */
  static int blockSize(int preferred, int m) {
    int unit = lcm(Math.max(1, preferred), 8);
    int blocks = Math.max(1, TARGET_BLOCK / unit);
    long size = (long) blocks * unit;
    long mUp = ((long) m + unit - 1) / unit * unit;
    return (int) Math.min(size, mUp);
  }

  private static int lcm(int a, int b) {
    int x = a;
    int y = b;
    while (y != 0) {
      int t = x % y;
      x = y;
      y = t;
    }
    return a / x * b;
  }

  public FeaturizerSpec spec() {
    return spec;
  }

  public Projection projection() {
    return projection;
  }

  /** A copy of the phases a_i. */
  public float[] phases() {
    return phases.clone();
  }

  /** s = (float) sqrt(2/m), the scale of the cosines. */
  public float featureScale() {
    return s;
  }

  /**
   * The quantization grid; absent (IllegalStateException) for b = 32 and for a codebook quantizer
   * (Lloyd-Max: {@link FeaturizerSpec#levels()}).
   */
  public QuantizationScale scale() {
    return spec.scale();
  }

  /** Bytes per output row: ceil(m b / 8), or 4 m for b = 32. */
  public int rowBytes() {
    return rowBytes;
  }

  /** Features per block of the fused pass (for tests and benchmarks). */
  int blockSize() {
    return block;
  }

  // ---- sequential

  /** {@link #featurize(float[], int, long, MemorySegment, long, int)} with draw 0. */
  public void featurize(float[] rows, int n, long firstRowId, MemorySegment out, long outOffset) {
    featurize(rows, n, firstRowId, out, outOffset, 0);
  }

  /**
   * Featurizes rows {@code rows[r*d .. (r+1)*d)}, r in [0, n), with ids {@code firstRowId + r},
   * writing row r's {@link #rowBytes()} bytes at {@code outOffset + r * rowBytes}; {@code draw}
   * selects independent rounding randomness (fresh draws per epoch), unused by nearest rounding
   * and b = 32.
   *
   * @throws IllegalArgumentException naming the values if n < 0, rows is null or shorter than
   *     n d, an input is NaN or infinite (row, row id, column, value), a projection overflows,
   *     firstRowId is negative, draw is negative, or out is null, read-only or too small
   */
  public void featurize(
      float[] rows, int n, long firstRowId, MemorySegment out, long outOffset, int draw) {
    validate(rows, n, firstRowId, null, out, outOffset, draw);
    run(rows, 0, n, firstRowId, null, out, outOffset, draw);
  }

  /**
   * Featurizes rows {@code rows[r*d .. (r+1)*d)}, r in [0, n), with ids {@code rowIds[r]} in any
   * order (a shuffled partition's), draw 0: row r's bytes are those of a call with {@code
   * firstRowId = rowIds[r]}, at {@code outOffset + r * rowBytes}.
   *
   * @throws IllegalArgumentException as {@link #featurize(float[], int, long, MemorySegment, long,
   *     int)}, and if rowIds has fewer than n ids or a negative one (naming its index)
   */
  public void featurize(float[] rows, int n, long[] rowIds, MemorySegment out, long outOffset) {
    featurize(rows, n, rowIds, out, outOffset, 0);
  }

  /**
   * As {@link #featurize(float[], int, long[], MemorySegment, long)} with rounding draw {@code
   * draw} (fresh draws per epoch for rows in a shuffled order).
   */
  public void featurize(
      float[] rows, int n, long[] rowIds, MemorySegment out, long outOffset, int draw) {
    if (rowIds == null || rowIds.length < Math.max(n, 0)) {
      throw new IllegalArgumentException("rowIds has " + (rowIds == null ? "no" : rowIds.length)
          + " ids, expected n = " + n);
    }
    for (int r = 0; r < n; r++) {
      if (rowIds[r] < 0) {
        throw new IllegalArgumentException("rowIds[" + r + "] is " + rowIds[r] + ", expected >= 0");
      }
    }
    validate(rows, n, 0, rowIds, out, outOffset, draw);
    run(rows, 0, n, 0, rowIds, out, outOffset, draw);
  }

  /** {@link #featurize(float[], int, long, MemorySegment, long, int)} into a heap array. */
  public void featurize(float[] rows, int n, long firstRowId, byte[] out, int outOffset, int draw) {
    featurize(rows, n, firstRowId, PackedFeatures.ofArray(out, "out"), outOffset, draw);
  }

  /** {@link #featurize(float[], int, long, byte[], int, int)} with draw 0. */
  public void featurize(float[] rows, int n, long firstRowId, byte[] out, int outOffset) {
    featurize(rows, n, firstRowId, PackedFeatures.ofArray(out, "out"), outOffset, 0);
  }

  /** A new array of n rows of {@link #rowBytes()} bytes, draw 0. */
  public byte[] featurize(float[] rows, int n, long firstRowId) {
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    long size = (long) n * rowBytes;
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          "n * rowBytes = " + n + " * " + rowBytes + " = " + size + " exceeds the largest array");
    }
    byte[] out = new byte[(int) size];
    featurize(rows, n, firstRowId, out, 0, 0);
    return out;
  }

  // ---- parallel

  /**
   * As {@link #featurize(float[], int, long, MemorySegment, long, int)}, split into row ranges
   * run on {@code executor} and on the calling thread; returns when all are done, with bytes identical to the sequential
   * call. {@code out} must be accessible from the executor's threads (a heap array, or a segment
   * of a global, automatic or shared arena). Validation happens once, before any task starts.
   */
  public void featurize(
      float[] rows, int n, long firstRowId, MemorySegment out, long outOffset, int draw,
      Executor executor) {
    if (executor == null) {
      throw new IllegalArgumentException("executor is null");
    }
    validate(rows, n, firstRowId, null, out, outOffset, draw);
    int tasks = (int) Math.min(MAX_TASKS, Math.max(1, n / MIN_TASK_ROWS));
    if (tasks <= 1) {
      run(rows, 0, n, firstRowId, null, out, outOffset, draw);
      return;
    }
    // Task boundaries on multiples of the chunk keep the chunks of a task full.
    int perTask = (n + tasks - 1) / tasks;
    int rowsPerTask = (perTask + chunkRows - 1) / chunkRows * chunkRows;
    int taskCount = (n + rowsPerTask - 1) / rowsPerTask;
    ParallelTasks.run(
        taskCount,
        executor,
        task -> {
          int from = task * rowsPerTask;
          run(rows, from, Math.min(n, from + rowsPerTask), firstRowId, null, out, outOffset,
              draw);
        });
  }

  /** The parallel call into a heap array. */
  public void featurize(
      float[] rows, int n, long firstRowId, byte[] out, int outOffset, int draw,
      Executor executor) {
    featurize(
        rows, n, firstRowId, PackedFeatures.ofArray(out, "out"), outOffset, draw, executor);
  }

  /** The parallel call on {@link ForkJoinPool#commonPool()}. */
  public void featurizeParallel(
      float[] rows, int n, long firstRowId, MemorySegment out, long outOffset, int draw) {
    featurize(rows, n, firstRowId, out, outOffset, draw, ForkJoinPool.commonPool());
  }

  /** The parallel call on {@link ForkJoinPool#commonPool()} into a heap array. */
  public void featurizeParallel(
      float[] rows, int n, long firstRowId, byte[] out, int outOffset, int draw) {
    featurize(
        rows, n, firstRowId, PackedFeatures.ofArray(out, "out"), outOffset, draw,
        ForkJoinPool.commonPool());
  }

  // ---- the fused pass

  /** Rows [from, to) of a validated call; row r's id is ids[r], or firstRowId + r without ids. */
  private void run(
      float[] rows, int from, int to, long firstRowId, long[] ids, MemorySegment out,
      long outOffset, int draw) {
    int d = spec.inputDim();
    int m = spec.features();
    int bits = spec.bits();
    long seed = spec.seed();
    Quantizer quantizer = spec.quantizer();
    boolean stochastic = quantizer.randomized();
    if (from >= to) {
      return;
    }
    // Scratch sized for this call: a one-row call (streaming) needs one row of a block.
    float[] t = new float[Math.min(chunkRows, to - from) * block];
    // The cosines of a row's block, for b = 16 and 32 (b <= 8 goes from t to codes directly).
    float[] values = bits <= CosineCodes.MAX_BITS ? null : new float[block];
    for (int r0 = from; r0 < to; r0 += chunkRows) {
      int chunk = Math.min(chunkRows, to - r0);
      for (int f0 = 0; f0 < m; f0 += block) {
        int count = Math.min(block, m - f0);
        projection.project(rows, r0 * d, chunk, f0, count, t, 0);
        for (int r = 0; r < chunk; r++) {
          long rowId = ids != null ? ids[r0 + r] : firstRowId + r0 + r;
          long rowStart = outOffset + (long) (r0 + r) * rowBytes;
          // f0 is a multiple of 8, so feature f0 of b < 32 starts on byte f0 * bits / 8.
          long at = rowStart + (bits == 32 ? 4L * f0 : (long) f0 / 8 * bits);
          if (bits <= CosineCodes.MAX_BITS) {
            // Cosine (at b's precision), rounding and packing in one pass.
            int tOff = r * count;
            boolean nonFinite = switch (quantizer) {
              // The draws of feature f0 on: 2^b - 1 grid intervals per feature.
              case Quantizer.SharedThreshold q -> CODES.quantizeShared(t, tOff, phases, f0, count,
                  bits, sharedDraws, f0 * ((1 << bits) - 1), out, at);
              case Quantizer.LloydMax q -> CODES.quantizeThresholds(t, tOff, phases, f0, count,
                  bits, thresholds, out, at);
              case Quantizer.SigmaDelta q -> CODES.quantizeSigmaDelta(t, tOff, phases, f0, count,
                  bits, q.order(), q.block(), out, at);
              case Quantizer.Stochastic q -> CODES.quantize(t, tOff, phases, f0, count, bits,
                  q.drawBits(), seed, rowId, f0, draw, out, at);
              case Quantizer.Nearest q -> CODES.quantize(t, tOff, phases, f0, count, bits,
                  CosineCodes.NO_DRAWS, seed, rowId, f0, draw, out, at);
            };
            if (nonFinite) {
              throw overflow(t, tOff, f0, count, r0 + r, rowId);
            }
          } else if (COSINE.map(t, r * count, phases, f0, s, values, 0, count)) {
            throw overflow(t, r * count, f0, count, r0 + r, rowId);
          } else if (bits == 32) {
            MemorySegment.copy(values, 0, out, LittleEndian.FLOAT, at, count);
          } else if (stochastic) {
            ROUNDING.quantizeStochastic(values, 0, count, bits, scale.lo(), scale.step(), seed,
                rowId, f0, draw, out, at);
          } else {
            ROUNDING.quantizeNearest(values, 0, count, bits, scale.lo(), scale.step(), out, at);
          }
        }
      }
    }
  }

  /** A finite input whose projection w_i . x + a_i overflowed float (inputs near 1e38). */
  private IllegalArgumentException overflow(
      float[] t, int off, int f0, int count, int row, long rowId) {
    for (int k = 0; k < count; k++) {
      float arg = t[off + k] + phases[f0 + k];
      if (!Float.isFinite(arg)) {
        return new IllegalArgumentException(
            "row " + row + " (row id " + rowId + "): projection w_" + (f0 + k) + " . x + a = "
                + arg + " is not finite; inputs are too large");
      }
    }
    return new IllegalArgumentException(
        "row " + row + " (row id " + rowId + "): a cosine argument is not finite");
  }

  private void validate(float[] rows, int n, long firstRowId, long[] ids, MemorySegment out,
      long outOffset, int draw) {
    int d = spec.inputDim();
    if (n < 0) {
      throw new IllegalArgumentException("n is " + n + ", expected >= 0");
    }
    if (rows == null) {
      throw new IllegalArgumentException("rows is null");
    }
    long need = (long) n * d;
    if (rows.length < need) {
      throw new IllegalArgumentException(
          "rows has " + rows.length + " floats, expected n * d = " + n + " * " + d + " = " + need
              + " (d is the featurizer's input width)");
    }
    if (firstRowId < 0 || firstRowId > Long.MAX_VALUE - n) {
      throw new IllegalArgumentException(
          "firstRowId is " + firstRowId + ", expected in [0, Long.MAX_VALUE - n] for n = " + n);
    }
    if (draw < 0) {
      throw new IllegalArgumentException("draw is " + draw + ", expected >= 0");
    }
    if (out == null) {
      throw new IllegalArgumentException("out is null");
    }
    if (out.isReadOnly()) {
      throw new IllegalArgumentException("out is a read-only segment");
    }
    long bytes = (long) n * rowBytes;
    if (outOffset < 0 || outOffset > out.byteSize() - bytes) {
      throw new IllegalArgumentException(
          "out has " + out.byteSize() + " bytes, needs outOffset + n * rowBytes = " + outOffset
              + " + " + n + " * " + rowBytes + " = " + (outOffset + bytes)
              + (outOffset < 0 ? " (outOffset must be >= 0)" : ""));
    }
    // One scan of the inputs (n d floats, small next to the n m outputs) names the culprit.
    for (int i = 0; i < (int) need; i++) {
      float v = rows[i];
      if (!Float.isFinite(v)) {
        int row = i / d;
        throw new IllegalArgumentException(
            "rows[" + i + "] (row " + row + ", row id "
                + (ids != null ? ids[row] : firstRowId + row) + ", column " + (i % d) + ") is "
                + v + ", expected finite inputs");
      }
    }
  }
}
