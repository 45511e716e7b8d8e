package org.lprff.bench.report;

import java.util.ArrayList;
import java.util.List;
import org.lprff.vector.layout.PackedLayout;

/**
 * What FeaturizerBenchmark's fused pass performs per row, stage by stage, counted from the code
 * (lprff-vector's {@code projection}, {@code featurize} and {@code simd.panama} packages): the
 * operations really performed, not a dense product's equivalent. An operation is one vector
 * lane's add, multiply, compare, convert, shift, xor or clamp, an FMA two (as flops count it);
 * loads and stores are bytes, not operations. A lane operation of any kind takes an issue slot
 * the FMA peak's flops could have taken (x86 cores issue at most as many vector operations per
 * cycle as their FMA pipes do flops), so the FMA peak bounds every stage.
 *
 * <p>Where a count depends on the instruction set it takes the smaller one (a rotate is one
 * operation: AVX-512's; AVX2 spends two shifts and an or), and the NaN and range checks of the
 * cosines (three operations a feature) are left out, as in {@link Suite#COSINE_FLOPS}: a count
 * too small can only make a stage look slower than it is, never above its limit.
 */
final class FeaturizerStages {

  private FeaturizerStages() {}

  /**
   * One Threefry-4x32-13 block ({@code VectorCounterRng.group}, one lane): 13 rounds of two
   * adds, two rotates and two xors (78), three key injections of four adds (12), the counter's
   * lane index (1).
   */
  static final double THREEFRY_OPS = 91;

  /**
   * One 8-bit draw (b <= 8, {@code lprff.rng} = threefry4x32-13:8: {@code
   * VectorCounterRng.drawBlock8}): a block gives 4 words of 4 bytes, and each byte a shift, a
   * mask, and the shift and or that make it the rounding's fixed-point draw.
   */
  static final double DRAW8_OPS = THREEFRY_OPS / 16 + 4;

  /**
   * One 32-bit draw of b = 16 ({@code VectorRounding}: whole words, 4 a block) and its uniform
   * double: an xor, a conversion, a multiply and an add.
   */
  static final double DRAW32_OPS = THREEFRY_OPS / 4 + 4;

  /**
   * The code of one feature of b <= 8 bits from its cosine ({@code VectorCosineCodes.quantize}):
   * the grid position (an FMA: 2), its conversion to int, the draw's add, the shift, the clamp
   * (2), and its place in the packed word (a shift, a compare or a narrowing: 1).
   */
  static final double CODE_OPS = 8;

  /**
   * The rounding of one b = 16 feature ({@code VectorRounding.codes16}): widened to double,
   * minus lo, divided by the step, plus the draw, clamped (2), converted to int and narrowed.
   */
  static final double ROUND16_OPS = 8;

  /** Featurizer.TARGET_BLOCK: the features of one block of the fused pass, about. */
  static final int TARGET_BLOCK = 512;

  /** Rows per projection call: Projection.preferredRows (128 for dense, else 32). */
  static int chunkRows(String projection) {
    return "dense".equals(projection) ? 128 : 32;
  }

  /**
   * The rows interleaved by the structured projections' transforms, at least: one register of
   * floats, and the vector bodies need 256 bits (8 floats). A wider machine has a larger
   * working set; the smaller one only keeps the stages' bandwidth ceilings high.
   */
  static final int MIN_GROUP = 8;

  /** How a kernel benchmark of the suite times a stage alone, if one does. */
  enum Kernel {
    /** Not timed alone by a benchmark of the suite. */
    NONE,
    /** DenseProjectionBenchmark.vector at the same d, scaled by flops. */
    MATRIX_PRODUCT,
    /** FwhtBenchmark.vector at the measured n nearest p, scaled by operations. */
    FWHT,
    /** CosineCodesBenchmark.fusedNearest at the same b, per feature. */
    COSINE_CODES,
    /** CosineCodesBenchmark.fusedStochastic minus fusedNearest at the same b, per feature. */
    DRAWS,
    /** CosineCodesBenchmark.float32, per feature. */
    COSINE_STORE,
    /** CosineBenchmark.vectorPolynomial at the measured n nearest m, per feature. */
    COSINE,
    /** QuantizeBenchmark.nearestVector at b = 16, per feature. */
    ROUNDING16,
    /** QuantizeBenchmark.stochasticVector minus nearestVector at b = 16, per feature. */
    DRAWS32
  }

  /**
   * One stage of one row.
   *
   * @param ops operations per row
   * @param bytes bytes it reads and writes per row
   * @param footprint the bytes it works within: its level's bandwidth bounds its bytes
   * @param kernel the benchmark that times it alone
   */
  record Stage(String name, double ops, double bytes, double footprint, Kernel kernel) {}

  /** The padded width of the structured projections: the next power of two >= max(d, 2). */
  static int padded(int d) {
    return d <= 2 ? 2 : Integer.highestOneBit(d - 1) << 1;
  }

  /** Features per block of the fused pass (Featurizer.blockSize): whole blocks of p near 512. */
  static int block(String projection, int d, int m) {
    int unit = "dense".equals(projection) ? 256 : Math.max(8, padded(d));
    long size = (long) Math.max(1, TARGET_BLOCK / unit) * unit;
    long mUp = ((long) m + unit - 1) / unit * unit;
    return (int) Math.min(size, mUp);
  }

  /** The stages of one row of (projection, d, m, bits), in the order the pass runs them. */
  static List<Stage> of(String projection, int d, int m, int bits) {
    List<Stage> stages = new ArrayList<>();
    int p = padded(d);
    double blocks = Math.ceil((double) m / p);
    double log = Integer.numberOfTrailingZeros(p);
    // The projections write the chunk's block of projections (chunk x block floats, t) that
    // the cosine pass reads: the working set of the per-feature stages.
    double scratch = 4.0 * chunkRows(projection) * block(projection, d, m);
    // Interleaved transforms: the padded rows, work and scratch, p floats a row.
    double group = 3.0 * 4 * p * MIN_GROUP;
    switch (projection) {
      // 2 d flops (d FMAs) per feature; W (m d floats) read once per chunk of 128 rows, the row
      // read, its m projections written.
      case "dense" -> stages.add(new Stage("matrix product, d FMAs a feature", 2.0 * d * m,
          4.0 * m * d / chunkRows(projection) + 4.0 * d + 4.0 * m, 4.0 * m * d + scratch,
          Kernel.MATRIX_PRODUCT));
      // V = S H G Pi H B per block: two unnormalized FWHTs of p log2 p adds, each reading and
      // writing the row's p floats; three diagonals (B, G after the permutation, S) of p
      // multiplies each.
      case "fastfood" -> {
        stages.add(new Stage("transforms, 2 FWHT of p = " + p + " a block", blocks * 2 * p * log,
            blocks * 2 * 8 * p, group, Kernel.FWHT));
        stages.add(new Stage("diagonals B, G Pi, S", blocks * 3 * p, blocks * 3 * 8 * p, group,
            Kernel.NONE));
      }
      // W = S H~ D3 H~ D2 H~ D1 per block: three normalized FWHTs (p log2 p adds and p
      // multiplies each), four diagonals (D1, D2, D3, S).
      case "orthogonal" -> {
        stages.add(new Stage("transforms, 3 FWHT of p = " + p + " a block",
            blocks * 3 * (p * log + p), blocks * 3 * 8 * p, group, Kernel.FWHT));
        stages.add(new Stage("diagonals D1, D2, D3, S", blocks * 4 * p, blocks * 4 * 8 * p,
            group, Kernel.NONE));
      }
      // circ(g) diag(s) per block on a p/2-point complex FFT (VectorInterleaved.circulant): the
      // forward and the inverse transform, (p/4) log2(p/2) butterflies each of 10 flops (a
      // complex multiply by the twiddle, 6, and a complex add and subtract, 4), and the
      // spectral step, 14 flops per complex position (two complex products and their sum); the
      // signs s, p multiplies.
      case "circulant" -> {
        stages.add(new Stage("transforms, FFT and inverse of p / 2 = " + p / 2 + " a block",
            blocks * (5.0 * p * (log - 1) + 7.0 * p), blocks * 2 * 8 * p, group, Kernel.NONE));
        stages.add(new Stage("diagonal s", blocks * p, blocks * 8 * p, group, Kernel.NONE));
      }
      default -> throw new IllegalArgumentException("projection " + projection + " unknown");
    }
    if (bits <= 8) {
      // CosineCodes' cosine: the phase add (1), k by an FMA and a subtract (3), the two-part
      // Cody-Waite reduction (two FMAs: 4), r^2 (1), Horner (3 FMAs for b <= 4, 4 above: 6 or
      // 8), the sign (a shift and an xor: 2); then the code (CODE_OPS). It reads t, the phase
      // and the draw, writes b bits.
      double cosine = bits <= 4 ? 17 : 19;
      stages.add(new Stage("cosine at b's precision, rounding, packing (one kernel)",
          m * (cosine + CODE_OPS), m * (12 + bits / 8.0), scratch, Kernel.COSINE_CODES));
      // The block's 8-bit draws first, into the thread's array (VectorCounterRng.drawBlock8).
      stages.add(new Stage("draws, 8 bits a feature (Threefry-4x32-13)", m * DRAW8_OPS,
          4.0 * m, 4.0 * block(projection, d, m), Kernel.DRAWS));
    } else if (bits == 16) {
      stages.add(new Stage("cosine", m * (double) Suite.COSINE_FLOPS, 12.0 * m, scratch,
          Kernel.COSINE));
      stages.add(new Stage("rounding, packing", m * ROUND16_OPS, 6.0 * m, scratch,
          Kernel.ROUNDING16));
      // One group of Threefry words at a time (GeneratorWords): no array of draws.
      stages.add(new Stage("draws, 32 bits a feature (Threefry-4x32-13)", m * DRAW32_OPS, 0,
          0, Kernel.DRAWS32));
    } else {
      // The cosines of a row's block into a float array, copied out as little-endian floats.
      stages.add(new Stage("cosine, float32 store", m * (double) Suite.COSINE_FLOPS,
          (8.0 + 4 + 8) * m, scratch, Kernel.COSINE_STORE));
    }
    return List.copyOf(stages);
  }

  /**
   * The work of one FeaturizerBenchmark op, {@code rows} rows: the stages' operations; bytes:
   * the rows read, the projection's parameters (dense: W; fastfood and orthogonal: four vectors
   * of p floats or ints a block; circulant: the signs and the spectrum's 8 coefficients per 4
   * positions, 12 bytes per padded feature) and the phases read once, the packed rows written;
   * footprint: those bytes, the chunk's scratch and the transforms' buffers.
   */
  static Suite.Work work(String projection, int d, int m, int bits, int rows) {
    double ops = 0;
    for (Stage s : of(projection, d, m, bits)) {
      ops += s.ops();
    }
    int p = padded(d);
    double blocks = Math.ceil((double) m / p);
    double parameters = switch (projection) {
      case "dense" -> 4.0 * m * d;
      case "circulant" -> 12.0 * blocks * p;
      default -> 16.0 * blocks * p;
    };
    double bytes = 4.0 * rows * d + parameters + 4.0 * m
        + (double) rows * PackedLayout.rowBytes(m, bits);
    double scratch = 4.0 * Math.min(rows, chunkRows(projection)) * block(projection, d, m);
    double group = "dense".equals(projection) ? 0 : 3.0 * 4 * p * MIN_GROUP;
    return new Suite.Work(rows * ops, bytes, bytes + scratch + group);
  }
}
