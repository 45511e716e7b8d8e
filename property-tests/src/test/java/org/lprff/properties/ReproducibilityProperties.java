package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.StochasticRounding;
import org.lprff.vector.featurize.CosineFeatures;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.DenseProjection;
import org.lprff.vector.projection.Projections;
import org.lprff.vector.simd.panama.VectorCosine;
import org.lprff.vector.simd.panama.VectorCosineCodes;
import org.lprff.vector.simd.panama.VectorCounterRng;
import org.lprff.vector.simd.panama.VectorDenseProjection;
import org.lprff.vector.simd.panama.VectorRounding;
import org.lprff.vector.simd.panama.VectorUnpack;
import org.lprff.vector.simd.scalar.ScalarCosine;
import org.lprff.vector.simd.scalar.ScalarCosineCodes;
import org.lprff.vector.simd.scalar.ScalarCounterRng;
import org.lprff.vector.simd.scalar.ScalarDenseProjection;
import org.lprff.vector.simd.scalar.ScalarRounding;
import org.lprff.vector.simd.scalar.ScalarUnpack;
import org.lprff.vector.simd.spi.CosineBody;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;
import org.lprff.vector.simd.spi.CounterRngBody;
import org.lprff.vector.simd.spi.DenseProjectionBody;
import org.lprff.vector.simd.spi.RoundingBody;
import org.lprff.vector.simd.spi.UnpackBody;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Issue item 8, reproducibility: identical bytes for any batch split and thread count (every
 * quantizer of {@link Quantizer}, in valid combinations: {@link #valid}), and for the
 * forced scalar or vector implementation of every kernel whose bodies the project defines to agree
 * bit for bit (rounding and packing, unpacking, the counter generator, the FWHT in
 * FwhtProperties). Sizes are generated with {@link Sizes} (1, primes, lane counts +- 1, powers of
 * two +- 1, and uniform ones).
 *
 * <p>The featurizer as a whole is not bit-identical between the scalar and the vector bodies, by
 * design (Featurizer and CosineFeatures say so): the projection sums in another order and the
 * cosine polynomial differs from Math.cos by an ulp or so, and a feature that moves by Δz changes
 * its stochastic rounding with probability at most |Δz| / r + 2^-14 (its draw u must fall between
 * the two thresholds; 2^-14 covers the 2^-16 grid of u and the float sum t + u on both sides). So
 * {@link #scalarAndVectorFeaturizerPipelinesDifferOnlyAsTheirFeaturesDo} asserts: with the same
 * features the two rounding bodies write identical bytes; across the full scalar and vector
 * pipelines each code moves by at most 1, and the number of moved codes stays below the Bernstein
 * (Chernoff) upper limit of a sum of independent Bernoulli(p_i) with those p_i, false-failure
 * probability 1e-6 / {@value #PIPELINE_EXAMPLES} per example.
 */
class ReproducibilityProperties {

  private static ExecutorService two;
  private static ExecutorService three;

  @BeforeAll
  static void pools() {
    two = Executors.newFixedThreadPool(2);
    three = Executors.newFixedThreadPool(3);
  }

  @AfterAll
  static void shutdown() {
    two.shutdownNow();
    three.shutdownNow();
  }

  static final int[] BITS = {1, 2, 4, 8, 16, 32};
  static final int PIPELINE_EXAMPLES = 60;

  record Spec(int kernel, String projection, int d, int m, int bits, Quantizer quantizer, long seed) {
    FeaturizerSpec spec() {
      KernelFunction k = switch (kernel) {
        case 0 -> new KernelFunction.Gaussian(1.5);
        case 1 -> new KernelFunction.Laplacian(2);
        default -> new KernelFunction.Matern(2.5, 1.2);
      };
      String p = kernel == 0 ? projection : "dense";
      return new FeaturizerSpec(k, d, m, bits, p, seed, quantizer);
    }
  }

  /** Sigma-Delta blocks: the edges 1, 3, 8, 16, 64 and the largest, or uniform ones. */
  static final java.util.List<Integer> BLOCKS = java.util.List.of(1, 3, 8, 16, 64, Quantizer.MAX_BLOCK);

  /**
   * A family (stochastic, nearest, shared-threshold, lloyd-max, sigma-delta) with Sigma-Delta's
   * order in 1..3 and block; {@link #valid} fits it to the bits and m.
   */
  static Gen<Quantizer> quantizers() {
    return integers().between(0, 4).zip(integers().between(1, CosineCodes.MAX_ORDER),
        Generate.pick(BLOCKS).mix(integers().between(1, 64), 50),
        (family, order, block) -> switch (family) {
          case 0 -> Quantizer.STOCHASTIC;
          case 1 -> Quantizer.NEAREST;
          case 2 -> Quantizer.SHARED_THRESHOLD;
          case 3 -> Quantizer.LLOYD_MAX;
          default -> Quantizer.sigmaDelta(order, block);
        });
  }

  /**
   * The generated values made a valid spec: the new quantizers code 1, 2, 4 or 8 bits (or 32), so
   * 16 becomes 8 for them; Sigma-Delta's order is at most b (below 32 bits) and m is rounded to a
   * multiple of its block (at least one block).
   */
  static Spec valid(int kernel, String projection, int d, int m, int bits, Quantizer q, long seed) {
    boolean anyBits = q.equals(Quantizer.STOCHASTIC) || q.equals(Quantizer.NEAREST);
    int b = bits == 16 && !anyBits ? 8 : bits;
    if (q instanceof Quantizer.SigmaDelta sd) {
      int order = b == 32 ? sd.order() : Math.min(sd.order(), b);
      int block = sd.block();
      q = Quantizer.sigmaDelta(order, block);
      m = block * Math.max(1, Math.round((float) m / block));
    }
    return new Spec(kernel, projection, d, m, b, q, seed);
  }

  static Gen<Spec> specs(int maxD, int maxM) {
    return integers().between(0, 2)
        .zip(Generate.pick(Projections.NAMES), Sizes.between(1, maxD), Sizes.between(1, maxM),
            (k, p, d, m) -> new Object[] {k, p, d, m})
        .zip(Generate.pick(Arrays.stream(BITS).boxed().toList()), quantizers(), longs().all(),
            (o, b, q, seed) ->
                valid((Integer) o[0], (String) o[1], (Integer) o[2], (Integer) o[3], b, q, seed));
  }

  @Test
  void featurizerBytesDoNotDependOnBatchSplitOrThreadCount() {
    java.util.Map<String, Integer> seen = new java.util.TreeMap<>();
    qt().withFixedSeed(801L)
        .withExamples(80)
        .forAll(specs(40, 1100), Sizes.between(0, 700), longs().between(0, 1L << 40),
            integers().between(0, 1000))
        .checkAssert(
            (s, n, firstRowId, draw) -> {
              FeaturizerSpec spec = s.spec();
              seen.merge(spec.quantizer().key() + " b=" + spec.bits(), 1, Integer::sum);
              Featurizer f = Featurizer.of(spec);
              int d = spec.inputDim();
              SplittableRandom random = new SplittableRandom(s.seed() ^ n);
              float[] rows = new float[n * d];
              for (int k = 0; k < rows.length; k++) {
                rows[k] = (float) random.nextGaussian();
              }
              int rb = f.rowBytes();
              byte[] whole = new byte[n * rb];
              f.featurize(rows, n, firstRowId, whole, 0, draw);
              String what = s + " n = " + n;
              // Random batches (1 .. 97 rows, one of them possibly the rest), at an odd offset.
              byte[] split = new byte[3 + n * rb];
              for (int r0 = 0; r0 < n; ) {
                int count = Math.min(n - r0, random.nextInt(8) == 0 ? n : 1 + random.nextInt(97));
                float[] part = Arrays.copyOfRange(rows, r0 * d, (r0 + count) * d);
                f.featurize(part, count, firstRowId + r0, MemorySegment.ofArray(split),
                    3 + (long) r0 * rb, draw);
                r0 += count;
              }
              assertArrayEquals(whole, Arrays.copyOfRange(split, 3, split.length), what + " split");
              for (var executor : new java.util.concurrent.Executor[] {
                  Runnable::run, two, three, ForkJoinPool.commonPool()}) {
                byte[] parallel = new byte[n * rb];
                f.featurize(rows, n, firstRowId, parallel, 0, draw, executor);
                assertArrayEquals(whole, parallel, what + " on " + executor);
              }
            });
    Report.line("batch split and threads, cases per quantizer and bits: " + seen);
  }

  @Test
  void roundingAndPackingBodiesWriteIdenticalBytes() {
    RoundingBody scalar = new ScalarRounding();
    RoundingBody vector = new VectorRounding();
    qt().withFixedSeed(802L)
        .withExamples(300)
        .forAll(Generate.pick(Arrays.stream(new int[] {1, 2, 4, 8, 16}).boxed().toList()),
            Sizes.between(0, 5000), integers().between(0, 1 << 17), longs().all())
        .checkAssert(
            (bits, count, columnGroup, seed) -> {
              SplittableRandom random = new SplittableRandom(seed);
              QuantizationScale scale = QuantizationScale.forFeatures(Math.max(1, count), bits);
              int off = random.nextInt(4);
              float[] values = new float[off + count];
              int[] codes = new int[off + count];
              for (int i = 0; i < values.length; i++) {
                values[i] = (float) (scale.lo() + (scale.hi() - scale.lo()) * random.nextDouble());
                codes[i] = random.nextInt(1 << bits);
              }
              int firstColumn = 8 * columnGroup;
              int pad = 1 + random.nextInt(7);
              int bytes = (int) PackedFeatures.rowBytes(count, bits);
              String what = "bits " + bits + " count " + count + " firstColumn " + firstColumn;
              for (int body = 0; body < 3; body++) {
                byte[] a = new byte[pad + bytes + 1];
                byte[] b = new byte[pad + bytes + 1];
                Arrays.fill(a, (byte) 0x5A);
                Arrays.fill(b, (byte) 0x5A);
                MemorySegment sa = MemorySegment.ofArray(a);
                MemorySegment sb = MemorySegment.ofArray(b);
                switch (body) {
                  case 0 -> {
                    scalar.quantizeStochastic(values, off, count, bits, scale.lo(), scale.step(),
                        seed, seed >>> 3, firstColumn, 5, sa, pad);
                    vector.quantizeStochastic(values, off, count, bits, scale.lo(), scale.step(),
                        seed, seed >>> 3, firstColumn, 5, sb, pad);
                  }
                  case 1 -> {
                    scalar.quantizeNearest(values, off, count, bits, scale.lo(), scale.step(), sa, pad);
                    vector.quantizeNearest(values, off, count, bits, scale.lo(), scale.step(), sb, pad);
                  }
                  default -> {
                    scalar.packCodes(codes, off, count, bits, sa, pad);
                    vector.packCodes(codes, off, count, bits, sb, pad);
                  }
                }
                assertArrayEquals(a, b, what + " body " + body);
                assertTrue(a[pad - 1] == 0x5A && a[a.length - 1] == 0x5A, what + ": wrote outside");
              }
            });
  }

  @Test
  void unpackBodiesReadIdenticalCodesAndValues() {
    UnpackBody scalar = new ScalarUnpack();
    UnpackBody vector = new VectorUnpack();
    qt().withFixedSeed(803L)
        .withExamples(300)
        .forAll(Generate.pick(Arrays.stream(new int[] {1, 2, 4, 8, 16}).boxed().toList()),
            Sizes.between(0, 5000), integers().between(0, 9), longs().all())
        .checkAssert(
            (bits, count, byteOffset, seed) -> {
              SplittableRandom random = new SplittableRandom(seed);
              byte[] packed = new byte[byteOffset + (int) PackedFeatures.rowBytes(count, bits)];
              random.nextBytes(packed);
              QuantizationScale scale = QuantizationScale.forFeatures(Math.max(1, count), bits);
              MemorySegment src = MemorySegment.ofArray(packed);
              int[] cs = new int[count + 2];
              int[] cv = new int[count + 2];
              scalar.unpackCodes(src, byteOffset, bits, count, cs, 1);
              vector.unpackCodes(src, byteOffset, bits, count, cv, 1);
              assertArrayEquals(cs, cv, "codes, bits " + bits + " count " + count);
              float[] vs = new float[count + 2];
              float[] vv = new float[count + 2];
              scalar.unpack(src, byteOffset, bits, count, scale.lo(), scale.step(), vs, 1);
              vector.unpack(src, byteOffset, bits, count, scale.lo(), scale.step(), vv, 1);
              assertArrayEquals(vs, vv, 0f, "values, bits " + bits + " count " + count);
              for (int i = 0; i < count; i++) {
                assertTrue(vs[1 + i] == scale.value(cs[1 + i]), "value of code " + cs[1 + i]);
              }
            });
  }

  @Test
  void counterGeneratorBodiesDrawIdenticalBits() {
    CounterRngBody scalar = new ScalarCounterRng();
    CounterRngBody vector = new VectorCounterRng();
    qt().withFixedSeed(804L)
        .withExamples(300)
        .forAll(Sizes.between(0, 3000), integers().between(0, (1 << 30) - 4000), longs().all(),
            longs().all())
        .checkAssert(
            (count, firstColumn, seed, row) -> {
              int draw = (int) (seed >>> 40);
              int[] a = new int[count];
              int[] b = new int[count];
              scalar.fillBits(seed, row, firstColumn, draw, a, 0, count);
              vector.fillBits(seed, row, firstColumn, draw, b, 0, count);
              assertArrayEquals(a, b, "fillBits count " + count + " first " + firstColumn);
              scalar.fillBits16(seed, row, firstColumn, draw, a, 0, count);
              vector.fillBits16(seed, row, firstColumn, draw, b, 0, count);
              assertArrayEquals(a, b, "fillBits16 count " + count + " first " + firstColumn);
              float[] x = new float[count];
              float[] y = new float[count];
              scalar.fillUniform(seed, row, firstColumn, draw, x, 0, count);
              vector.fillUniform(seed, row, firstColumn, draw, y, 0, count);
              assertArrayEquals(x, y, 0f, "fillUniform count " + count + " first " + firstColumn);
            });
  }

  @Test
  void scalarAndVectorFeaturizerPipelinesDifferOnlyAsTheirFeaturesDo() {
    double delta = 1e-6 / PIPELINE_EXAMPLES;
    long[] moved = new long[2];
    qt().withFixedSeed(805L)
        .withExamples(PIPELINE_EXAMPLES)
        .forAll(
            Generate.pick(Arrays.stream(new int[] {1, 2, 4, 8, 16}).boxed().toList()),
            Sizes.between(1, 40), Sizes.between(1, 1100), longs().all())
        .checkAssert(
            (bits, d, m, seed) -> {
              FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1.5), d, m,
                  bits, "dense", seed, Quantizer.STOCHASTIC);
              Featurizer f = Featurizer.of(spec);
              DenseProjection projection = (DenseProjection) f.projection();
              float[] packed = projection.packedWeights();
              int panel = projection.panel();
              float[] phases = f.phases();
              float s = f.featureScale();
              QuantizationScale scale = spec.scale();
              int n = 4;
              SplittableRandom random = new SplittableRandom(seed);
              float[] rows = new float[n * d];
              for (int k = 0; k < rows.length; k++) {
                rows[k] = (float) random.nextGaussian();
              }
              byte[] expected = f.featurize(rows, n, 0);
              int rb = spec.rowBytes();
              double mean = 0;
              int count = 0;
              String what = "bits " + bits + " d " + d + " m " + m;
              boolean fused = bits <= 8; // the featurizer's cosine-to-codes kernel
              for (int r = 0; r < n; r++) {
                float[][] t = new float[2][m];
                float[][] z = new float[2][m];
                byte[][] out = new byte[3][rb];
                for (int body = 0; body < 2; body++) {
                  DenseProjectionBody p =
                      body == 0 ? new ScalarDenseProjection() : new VectorDenseProjection();
                  p.project(packed, panel, d, rows, r * d, 1, 0, m, t[body], 0);
                  CosineBody c = body == 0 ? new ScalarCosine() : new VectorCosine();
                  c.map(t[body], 0, phases, 0, s, z[body], 0, m);
                  if (fused) {
                    CosineCodesBody q =
                        body == 0 ? new ScalarCosineCodes() : new VectorCosineCodes();
                    q.quantize(t[body], 0, phases, 0, m, bits, Quantizer.STOCHASTIC.drawBits(),
                        seed, r, 0, 0, MemorySegment.ofArray(out[body]), 0);
                  } else {
                    RoundingBody q = body == 0 ? new ScalarRounding() : new VectorRounding();
                    q.quantizeStochastic(z[body], 0, m, bits, scale.lo(), scale.step(), seed, r,
                        0, 0, MemorySegment.ofArray(out[body]), 0);
                  }
                }
                // The facade bodies (vector here) are the featurizer: same bytes.
                if (fused) {
                  float[] facadeT = new float[m];
                  projection.project(rows, r * d, 1, 0, m, facadeT, 0);
                  CosineFeatures.quantize(facadeT, 0, phases, 0, m, bits, Quantizer.STOCHASTIC,
                      seed, r, 0, 0, MemorySegment.ofArray(out[2]), 0);
                } else {
                  StochasticRounding.quantizeStochastic(
                      facadeFeatures(projection, phases, s, rows, r, d, m), 0, m, scale, seed, r,
                      0, 0, out[2], 0);
                }
                assertArrayEquals(Arrays.copyOfRange(expected, r * rb, (r + 1) * rb), out[2],
                    what + ": facade pipeline vs Featurizer, row " + r);
                // Same inputs, either rounding body: same bytes.
                byte[] again = new byte[rb];
                if (fused) {
                  new ScalarCosineCodes().quantize(t[1], 0, phases, 0, m, bits,
                      Quantizer.STOCHASTIC.drawBits(), seed, r, 0,
                      0, MemorySegment.ofArray(again), 0);
                } else {
                  new ScalarRounding().quantizeStochastic(z[1], 0, m, bits, scale.lo(),
                      scale.step(), seed, r, 0, 0, MemorySegment.ofArray(again), 0);
                }
                assertArrayEquals(out[1], again, what + ": rounding bodies on equal inputs");
                int[] cs = new int[m];
                int[] cv = new int[m];
                PackedFeatures.unpackCodes(out[0], 0, bits, m, cs, 0);
                PackedFeatures.unpackCodes(out[1], 0, bits, m, cv, 0);
                for (int i = 0; i < m; i++) {
                  assertTrue(Math.abs(cs[i] - cv[i]) <= 1, what + ": code moved by more than 1");
                  count += cs[i] != cv[i] ? 1 : 0;
                  // How far apart the two bodies' values are, in steps: the features (the
                  // unfused path), or s |dt| + the fl of the sum (the fused one: |d cos| <=
                  // |dt|, and both bodies evaluate one cosine definition).
                  double apart = fused
                      ? (s * (Math.abs((double) t[0][i] - t[1][i])
                          + Math.ulp(Math.abs(t[0][i]) + phases[i])))
                      : Math.abs((double) z[0][i] - z[1][i]);
                  double p = apart / scale.step() * 1.001 + 0x1p-14;
                  mean += Math.min(1, p);
                }
              }
              double limit = mean + Bounds.bernsteinSum(mean, 1, delta);
              Report.line(what + ": " + count + " codes moved, expected at most " + mean
                  + ", limit " + limit);
              assertTrue(count <= limit, what + ": " + count + " codes moved > " + limit);
              moved[0] += count;
              moved[1] += (long) n * m;
            });
    Report.line("scalar vs vector pipeline: " + moved[0] + " of " + moved[1] + " codes moved");
  }

  /** z of row r through the facade kernels (the ones the featurizer uses). */
  static float[] facadeFeatures(
      DenseProjection projection, float[] phases, float s, float[] rows, int r, int d, int m) {
    float[] t = new float[m];
    projection.project(rows, r * d, 1, 0, m, t, 0);
    float[] z = new float[m];
    CosineFeatures.map(t, 0, phases, 0, s, z, 0, m);
    return z;
  }
}
