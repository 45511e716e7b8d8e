package org.lprff.vector.featurize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.codec.SharedThresholdQuantizer;
import org.lprff.vector.codec.StochasticRounding;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.DenseProjection;
import org.lprff.vector.projection.Projection;
import org.lprff.vector.projection.Projections;
import org.lprff.vector.simd.VectorizationProvider;
import org.lprff.vector.simd.spi.CosineCodesBody;
import org.lprff.vector.testing.ProviderTestBase;

class FeaturizerTest {

  private static final int[] BITS = {1, 2, 4, 8, 16, 32};

  private static final List<KernelFunction> KERNELS =
      List.of(
          new KernelFunction.Gaussian(2.0),
          new KernelFunction.Laplacian(3.0),
          new KernelFunction.Matern(1.5, 2.0));

  /** n x d standard normal rows, scaled by 1.5 so that projections reach well beyond 2 pi. */
  static float[] gaussianRows(int n, int d, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] rows = new float[n * d];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = (float) (1.5 * random.nextGaussian());
    }
    return rows;
  }

  private static FeaturizerSpec spec(
      KernelFunction kernel, String projection, int d, int m, int bits, Quantizer q, long seed) {
    return new FeaturizerSpec(kernel, d, m, bits, projection, seed, q);
  }

  /** Every supported (kernel, projection) pair. */
  private static List<Object[]> kernelsAndProjections() {
    List<Object[]> out = new ArrayList<>();
    for (KernelFunction kernel : KERNELS) {
      for (String name : Projections.NAMES) {
        if (FeaturizerSpec.supports(name, kernel)) {
          out.add(new Object[] {kernel, name});
        }
      }
    }
    return out;
  }

  // ---- block size

  @Test
  void blocksAreMultiplesOfEightAndOfThePreferredBlock() {
    assertEquals(512, Featurizer.blockSize(256, 1100));
    assertEquals(256, Featurizer.blockSize(256, 100)); // never beyond m rounded up to a unit
    assertEquals(104, Featurizer.blockSize(1, 100));
    assertEquals(1024, Featurizer.blockSize(1024, 5000));
    assertEquals(504, Featurizer.blockSize(6, 5000)); // lcm(6, 8) = 24; 21 * 24
    for (int preferred : new int[] {1, 3, 8, 16, 100, 256, 1024, 4096}) {
      for (int m : new int[] {1, 7, 8, 9, 255, 1000, 8192}) {
        int b = Featurizer.blockSize(preferred, m);
        assertEquals(0, b % 8, "preferred " + preferred + ", m " + m);
        assertEquals(0, b % preferred, "preferred " + preferred + ", m " + m);
      }
    }
  }

  // ---- determinism

  /**
   * Rows with explicit ids in any order (a shuffled partition's) get the bytes of one-row calls
   * at those ids; a short or negative id list and a NaN are refused, naming the index or the id.
   */
  @Test
  void explicitRowIdsInAnyOrderGiveEachIdsBytes() {
    int n = 300;
    int d = 5;
    float[] rows = gaussianRows(n, d, 3);
    long[] ids = new long[n];
    SplittableRandom random = new SplittableRandom(4);
    for (int r = 0; r < n; r++) {
      ids[r] = random.nextLong(1L << 40);
    }
    for (int bits : new int[] {1, 4, 32}) {
      Featurizer f = Featurizer.of(spec(KERNELS.get(0), "circulant", d, 70, bits,
          Quantizer.STOCHASTIC, 8));
      int rb = f.rowBytes();
      byte[] expected = new byte[n * rb];
      for (int r = 0; r < n; r++) {
        f.featurize(Arrays.copyOfRange(rows, r * d, (r + 1) * d), 1, ids[r], expected, r * rb);
      }
      byte[] got = new byte[n * rb];
      f.featurize(rows, n, ids, MemorySegment.ofArray(got), 0);
      assertArrayEquals(expected, got, "b = " + bits);
    }
    Featurizer f = Featurizer.of(spec(KERNELS.get(0), "dense", d, 16, 4, Quantizer.STOCHASTIC, 8));
    MemorySegment out = MemorySegment.ofArray(new byte[n * f.rowBytes()]);
    assertMessage("rowIds has 2 ids, expected n = 3",
        () -> f.featurize(rows, 3, new long[] {1, 2}, out, 0));
    assertMessage("rowIds[1] is -5, expected >= 0",
        () -> f.featurize(rows, 2, new long[] {1, -5}, out, 0));
    float[] bad = rows.clone();
    bad[d + 2] = Float.NaN;
    assertMessage("(row 1, row id 77, column 2) is NaN",
        () -> f.featurize(bad, 2, new long[] {9, 77}, out, 0));
  }

  @Test
  void bytesDoNotDependOnBatchSplitsOrThreads() throws Exception {
    int n = 250;
    int d = 9;
    int m = 1100; // three blocks of 512, 512, 76: a cut last block
    float[] rows = gaussianRows(n, d, 11);
    long firstRowId = 1_000_000_007L;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (Object[] kp : kernelsAndProjections()) {
        for (int bits : BITS) {
          for (Quantizer q : new Quantizer[] {Quantizer.STOCHASTIC, Quantizer.NEAREST}) {
            Featurizer f =
                Featurizer.of(spec((KernelFunction) kp[0], (String) kp[1], d, m, bits, q, 5));
            String what = kp[0] + " " + kp[1] + " b=" + bits + " " + q;
            int rb = f.rowBytes();
            byte[] whole = new byte[n * rb];
            f.featurize(rows, n, firstRowId, whole, 0, 3);
            for (int batch : new int[] {1, 7, 250}) {
              // Output at an odd offset, so nothing relies on alignment.
              byte[] split = new byte[n * rb + 5];
              for (int r0 = 0; r0 < n; r0 += batch) {
                int count = Math.min(batch, n - r0);
                float[] part = Arrays.copyOfRange(rows, r0 * d, (r0 + count) * d);
                f.featurize(
                    part, count, firstRowId + r0, MemorySegment.ofArray(split), 5 + (long) r0 * rb,
                    3);
              }
              assertArrayEquals(whole, Arrays.copyOfRange(split, 5, split.length),
                  what + " batch " + batch);
            }
            byte[] parallel = new byte[n * rb];
            f.featurize(rows, n, firstRowId, parallel, 0, 3, pool);
            assertArrayEquals(whole, parallel, what + " on 2 threads");
            byte[] common = new byte[n * rb];
            f.featurizeParallel(rows, n, firstRowId, common, 0, 3);
            assertArrayEquals(whole, common, what + " on the common pool");
          }
        }
      }
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void offHeapSegmentsAndEmptyBatches() {
    int n = 100;
    int d = 9;
    FeaturizerSpec spec =
        spec(new KernelFunction.Gaussian(2), "dense", d, 77, 2, Quantizer.STOCHASTIC, 8);
    Featurizer f = Featurizer.of(spec);
    float[] rows = gaussianRows(n, d, 15);
    byte[] heap = f.featurize(rows, n, 40);
    assertEquals(n * spec.rowBytes(), heap.length);
    try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
      MemorySegment sequential = arena.allocate(3 + heap.length);
      f.featurize(rows, n, 40, sequential, 3, 0);
      assertArrayEquals(heap, sequential.asSlice(3).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
      MemorySegment parallel = arena.allocate(heap.length);
      f.featurizeParallel(rows, n, 40, parallel, 0, 0);
      assertArrayEquals(heap, parallel.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }
    // n = 0 writes nothing, even with an empty output and no rows.
    byte[] sentinel = {42};
    f.featurize(new float[0], 0, 0, sentinel, 1);
    f.featurizeParallel(new float[0], 0, 0, sentinel, 1, 0);
    assertEquals(42, sentinel[0]);
    assertEquals(0, f.featurize(new float[0], 0, 0).length);
  }

  @Test
  void seedsAndDrawsChangeTheBytesWhereTheyShould() {
    int n = 20;
    int d = 5;
    int m = 300;
    float[] rows = gaussianRows(n, d, 12);
    for (Object[] kp : kernelsAndProjections()) {
      for (int bits : BITS) {
        for (Quantizer q : new Quantizer[] {Quantizer.STOCHASTIC, Quantizer.NEAREST}) {
          FeaturizerSpec s = spec((KernelFunction) kp[0], (String) kp[1], d, m, bits, q, 1);
          String what = s.toString();
          Featurizer f = Featurizer.of(s);
          byte[] draw0 = f.featurize(rows, n, 0);
          byte[] other = Featurizer.of(s.withSeed(2)).featurize(rows, n, 0);
          // Different W and phases: 6000 features agreeing would need a broken seed path.
          assertFalse(Arrays.equals(draw0, other), what + ": seeds 1 and 2 agree");
          byte[] draw1 = new byte[draw0.length];
          f.featurize(rows, n, 0, draw1, 0, 1);
          if (bits < 32 && q == Quantizer.STOCHASTIC) {
            // 6000 features; each rounds differently with probability ~1/2 (b = 1: the distance
            // to a level over the step), so equality has probability far below 2^-1000.
            assertFalse(Arrays.equals(draw0, draw1), what + ": draws 0 and 1 agree");
          } else {
            assertArrayEquals(draw0, draw1, what + ": draw must not matter");
          }
        }
      }
    }
  }

  // ---- the fused pass against the unfused composition of the public facades

  @Test
  void fusedPassEqualsProjectThenCosineThenQuantize() {
    int n = 40; // two row chunks, the second partial
    int d = 7;
    int m = 1100;
    float[] rows = gaussianRows(n, d, 13);
    long firstRowId = 77;
    int draw = 2;
    for (Object[] kp : kernelsAndProjections()) {
      KernelFunction kernel = (KernelFunction) kp[0];
      String name = (String) kp[1];
      long seed = 99;
      Projection projection = Projections.create(name, kernel, d, m, seed);
      float[] t = new float[n * m];
      projection.project(rows, 0, n, 0, m, t, 0);
      float[] a = new float[m];
      kernel.samplePhases(seed, m, a);
      float s = (float) Math.sqrt(2.0 / m);
      float[] z = new float[n * m];
      for (int r = 0; r < n; r++) {
        CosineFeatures.map(t, r * m, a, 0, s, z, r * m, m);
      }
      for (int bits : BITS) {
        byte[] byteDraws = null;
        for (Quantizer q : new Quantizer[] {Quantizer.STOCHASTIC, Quantizer.STOCHASTIC_HALF_WORDS,
            Quantizer.NEAREST}) {
          FeaturizerSpec sp = spec(kernel, name, d, m, bits, q, seed);
          Featurizer f = Featurizer.of(sp);
          assertArrayEquals(a, f.phases());
          assertEquals(s, f.featureScale());
          int rb = f.rowBytes();
          byte[] fused = new byte[n * rb];
          f.featurize(rows, n, firstRowId, fused, 0, draw);
          byte[] expected = new byte[n * rb];
          for (int r = 0; r < n; r++) {
            if (bits == 32) {
              ByteBuffer.wrap(expected, r * rb, rb).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer()
                  .put(z, r * m, m);
            } else if (bits <= 8) {
              // The cosine at b's precision, fused with the rounding (CosineFeatures.quantize).
              CosineFeatures.quantize(t, r * m, a, 0, m, bits, q, seed, firstRowId + r, 0, draw,
                  MemorySegment.ofArray(expected), (long) r * rb);
            } else if (q instanceof Quantizer.Stochastic) {
              StochasticRounding.quantizeStochastic(
                  z, r * m, m, sp.scale(), seed, firstRowId + r, 0, draw, expected, r * rb);
            } else {
              StochasticRounding.quantizeNearest(z, r * m, m, sp.scale(), 0, expected, r * rb);
            }
          }
          assertArrayEquals(expected, fused, kernel + " " + name + " b=" + bits + " " + q);
          // Byte and half-word draws are two streams: at b <= 8 their codes differ somewhere
          // (a draw decides a code with probability 1/2 or more on 1100 x 40 features).
          if (q == Quantizer.STOCHASTIC) {
            byteDraws = fused;
          } else if (q == Quantizer.STOCHASTIC_HALF_WORDS && bits <= 8) {
            assertFalse(Arrays.equals(byteDraws, fused), kernel + " " + name + " b=" + bits);
          }
          if (bits == 32) {
            // And the floats are the cosines, bit for bit.
            float[] back = floats(fused, n * m);
            for (int i = 0; i < n * m; i++) {
              assertEquals(Float.floatToIntBits(z[i]), Float.floatToIntBits(back[i]), "i " + i);
            }
          }
        }
      }
    }
  }

  /**
   * Lloyd-Max and Sigma-Delta rows hold the codes of their definitions ({@link
   * org.lprff.vector.simd.spi.CosineCodes#thresholdCode}, {@code sigmaDelta}) of the cosines
   * CosineCodes.cosine(w_i . x + a_i, b), for every projection, including one-row calls and blocks
   * that do not divide the pass's block.
   */
  @Test
  void codebookAndSigmaDeltaRowsHoldTheirDefinitionsCodes() {
    SplittableRandom random = new SplittableRandom(17);
    for (String projection : Projections.NAMES) {
      for (int bits : new int[] {1, 2, 4, 8}) {
        List<Quantizer> quantizers = new ArrayList<>(List.of(Quantizer.LLOYD_MAX));
        for (int order = 1; order <= Math.min(3, bits); order++) {
          quantizers.add(Quantizer.sigmaDelta(order, 1 + random.nextInt(12)));
        }
        for (Quantizer q : quantizers) {
          int block = q instanceof Quantizer.SigmaDelta sd ? sd.block() : 1;
          int m = block * (1 + random.nextInt(90));
          int d = 1 + random.nextInt(9);
          FeaturizerSpec spec = spec(new KernelFunction.Gaussian(1.5), projection, d, m, bits, q,
              random.nextLong());
          Featurizer f = Featurizer.of(spec);
          int n = 3;
          float[] rows = gaussianRows(n, d, random.nextLong());
          byte[] bytes = f.featurize(rows, n, 0);
          byte[] oneRow = f.featurize(Arrays.copyOfRange(rows, d, 2 * d), 1, 1);
          assertArrayEquals(Arrays.copyOfRange(bytes, f.rowBytes(), 2 * f.rowBytes()), oneRow);
          float[] phases = f.phases();
          float[] t = new float[m];
          float[] c = new float[m];
          int[] expected = new int[m];
          int[] actual = new int[m];
          float[] thresholds = Quantizer.LloydMax.cosineThresholds(bits);
          for (int r = 0; r < n; r++) {
            f.projection().project(rows, r * d, 1, 0, m, t, 0);
            for (int i = 0; i < m; i++) {
              c[i] = org.lprff.vector.simd.spi.CosineCodes.cosine(t[i] + phases[i], bits);
              expected[i] = org.lprff.vector.simd.spi.CosineCodes.thresholdCode(c[i], thresholds,
                  bits);
            }
            if (q instanceof Quantizer.SigmaDelta sd) {
              org.lprff.vector.simd.spi.CosineCodes.sigmaDelta(c, 0, m, bits, sd.order(),
                  sd.block(), expected, 0);
            }
            PackedFeatures.unpackCodes(bytes, r * f.rowBytes(), bits, m, actual, 0);
            assertArrayEquals(expected, actual, projection + " " + q + " bits " + bits + " m " + m
                + " row " + r);
          }
        }
      }
    }
  }

  /**
   * Shared threshold, Lloyd-Max and Sigma-Delta: the fused pass (this JVM's body, block by block
   * of the pass) writes what the scalar and the vector body each write for a whole row of
   * projections, so the featurized bytes do not depend on the provider. m = 1104 is three blocks
   * of the pass, the last cut, and a multiple of every Sigma-Delta block here.
   */
  @Test
  void otherQuantizersGiveEachBodysBytes() {
    int n = 40;
    int d = 7;
    int m = 1104;
    float[] rows = gaussianRows(n, d, 17);
    long seed = 31;
    Quantizer[] quantizers = {Quantizer.SHARED_THRESHOLD, Quantizer.LLOYD_MAX,
        Quantizer.sigmaDelta(1, 8), Quantizer.sigmaDelta(2, 3), Quantizer.sigmaDelta(3, 16)};
    for (Object[] kp : kernelsAndProjections()) {
      KernelFunction kernel = (KernelFunction) kp[0];
      String name = (String) kp[1];
      float[] t = new float[n * m];
      Projections.create(name, kernel, d, m, seed).project(rows, 0, n, 0, m, t, 0);
      float[] a = new float[m];
      kernel.samplePhases(seed, m, a);
      for (int bits : new int[] {1, 2, 4, 8}) {
        for (Quantizer q : quantizers) {
          if (q instanceof Quantizer.SigmaDelta sd && sd.order() > bits) {
            continue;
          }
          Featurizer f = Featurizer.of(spec(kernel, name, d, m, bits, q, seed));
          int rb = f.rowBytes();
          byte[] fused = new byte[n * rb];
          f.featurize(rows, n, 5, fused, 0, 1);
          int[] draws = SharedThresholdQuantizer.draws(seed, m, bits);
          float[] thresholds = Quantizer.LloydMax.cosineThresholds(bits);
          for (VectorizationProvider provider : new VectorizationProvider[] {
              ProviderTestBase.SCALAR, ProviderTestBase.VECTOR}) {
            CosineCodesBody body = provider.cosineCodes();
            byte[] expected = new byte[n * rb];
            MemorySegment out = MemorySegment.ofArray(expected);
            for (int r = 0; r < n; r++) {
              long at = (long) r * rb;
              switch (q) {
                case Quantizer.SharedThreshold s ->
                    body.quantizeShared(t, r * m, a, 0, m, bits, draws, 0, out, at);
                case Quantizer.LloydMax l ->
                    body.quantizeThresholds(t, r * m, a, 0, m, bits, thresholds, out, at);
                case Quantizer.SigmaDelta sd -> body.quantizeSigmaDelta(
                    t, r * m, a, 0, m, bits, sd.order(), sd.block(), out, at);
                default -> throw new AssertionError(q);
              }
            }
            assertArrayEquals(expected, fused, kernel + " " + name + " b=" + bits + " "
                + q.spelling() + " against the " + body.getClass().getSimpleName());
          }
        }
      }
    }
  }

  @Test
  void floatFeaturesAreTheDefinitionComputedInDouble() {
    // Independent definition: z_i = sqrt(2/m) cos(w_i . x + a_i) in double from the dense W.
    // Per-element tolerance, stated from the documented error of each step: the float dot product
    // errs by at most gamma_d sum_j |w_ij x_j| (DenseProjection), the float sum t + a by half an
    // ulp of it (at most ulp(|t| + |a|) here), and cos is 1-Lipschitz, so the argument errors
    // move the feature by s times their sum; the cosine step adds at most 1e-6 max(1, s)
    // (CosineFeatures), and s = (float) sqrt(2/m) is within 2^-24 s of the double scale.
    int n = 10;
    int d = 9;
    int m = 200;
    float[] rows = gaussianRows(n, d, 14);
    KernelFunction kernel = new KernelFunction.Gaussian(0.7);
    Featurizer f = Featurizer.of(spec(kernel, "dense", d, m, 32, Quantizer.NEAREST, 3));
    float[] w = ((DenseProjection) f.projection()).weights();
    float[] a = f.phases();
    float[] z = floats(f.featurize(rows, n, 0), n * m);
    double s = Math.sqrt(2.0 / m);
    double gamma = d * 0x1p-24 / (1 - d * 0x1p-24);
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < m; i++) {
        double dot = 0;
        double abs = 0;
        for (int j = 0; j < d; j++) {
          double p = (double) w[i * d + j] * rows[r * d + j];
          dot += p;
          abs += Math.abs(p);
        }
        double argumentError = gamma * abs + Math.ulp((float) (abs + a[i]));
        double tolerance = s * argumentError + 1e-6 + s * 0x1p-24;
        double error = Math.abs(z[r * m + i] - s * Math.cos(dot + a[i]));
        assertTrue(error <= tolerance,
            "row " + r + " feature " + i + ": error " + error + " > " + tolerance);
      }
    }
  }

  static float[] floats(byte[] bytes, int count) {
    float[] out = new float[count];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return out;
  }

  // ---- error paths

  @Test
  void errorsNameTheValues() {
    Featurizer f =
        Featurizer.of(
            spec(new KernelFunction.Gaussian(1), "dense", 9, 100, 4, Quantizer.STOCHASTIC, 1));
    float[] rows = gaussianRows(3, 9, 1);
    assertMessage("rows has 26 floats, expected n * d = 3 * 9 = 27",
        () -> f.featurize(Arrays.copyOf(rows, 26), 3, 0));
    assertMessage("rows is null", () -> f.featurize(null, 3, 0));
    assertMessage("n is -1", () -> f.featurize(rows, -1, 0));
    assertMessage("out has 100 bytes, needs outOffset + n * rowBytes = 0 + 3 * 50 = 150",
        () -> f.featurize(rows, 3, 0, new byte[100], 0));
    assertMessage("out has 150 bytes, needs outOffset + n * rowBytes = 1 + 3 * 50 = 151",
        () -> f.featurize(rows, 3, 0, new byte[150], 1));
    assertMessage("outOffset must be >= 0", () -> f.featurize(rows, 3, 0, new byte[150], -1));
    assertMessage("out is null", () -> f.featurize(rows, 3, 0, (byte[]) null, 0));
    assertMessage("read-only",
        () -> f.featurize(rows, 3, 0, MemorySegment.ofArray(new byte[150]).asReadOnly(), 0));
    assertMessage("firstRowId is -5", () -> f.featurize(rows, 3, -5));
    assertMessage("draw is -1", () -> f.featurize(rows, 3, 0, new byte[150], 0, -1));
    assertMessage("executor is null",
        () -> f.featurize(rows, 3, 0, new byte[150], 0, 0, null));
    assertMessage("spec is null", () -> Featurizer.of(null));

    float[] nan = rows.clone();
    nan[2 * 9 + 4] = Float.NaN;
    assertMessage("rows[22] (row 2, row id 102, column 4) is NaN",
        () -> f.featurize(nan, 3, 100));
    float[] inf = rows.clone();
    inf[5] = Float.NEGATIVE_INFINITY;
    assertMessage("rows[5] (row 0, row id 0, column 5) is -Infinity",
        () -> f.featurize(inf, 3, 0));
    // A NaN beyond n * d is not an input.
    f.featurize(nan, 2, 0);

    // Finite but huge inputs overflow the projection: named by row, row id and feature; the
    // parallel call rethrows the task's exception itself.
    float[] huge = gaussianRows(200, 9, 2);
    Arrays.fill(huge, 150 * 9, 151 * 9, 3e38f);
    assertMessage("row 150 (row id 150)", () -> f.featurize(huge, 200, 0));
    assertMessage("row 150 (row id 150)",
        () -> f.featurizeParallel(huge, 200, 0, new byte[200 * 50], 0, 0));
  }


  // ---- real data: kernel approximation on diamonds

  /**
   * k diamonds rows drawn without replacement (seed 2024), the 9 feature columns standardized over
   * them (price dropped).
   */
  static float[] diamondsSample(int k) {
    return Diamonds.split(Diamonds.sample(k, 2024), k, 0).trainX();
  }

  /** The rows of 2000 random pairs (i != j) of the k rows, laid out x_0, y_0, x_1, y_1, ... */
  static float[] pairRows(float[] rows, int k, int pairs, long seed) {
    int d = 9;
    SplittableRandom random = new SplittableRandom(seed);
    float[] out = new float[2 * pairs * d];
    for (int p = 0; p < pairs; p++) {
      int i = random.nextInt(k);
      int j = random.nextInt(k - 1);
      if (j >= i) {
        j++;
      }
      System.arraycopy(rows, i * d, out, 2 * p * d, d);
      System.arraycopy(rows, j * d, out, (2 * p + 1) * d, d);
    }
    return out;
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  static double dot(float[] z, int a, int b, int m) {
    double sum = 0;
    for (int i = 0; i < m; i++) {
      sum += (double) z[a * m + i] * z[b * m + i];
    }
    return sum;
  }

  /**
   * Mean over 2000 pairs and 3 seeds of |z(x) . z(y) - k(x, y)| at m = 256, 1024, 4096 (b = 32).
   *
   * <p>Bound: z(x) . z(y) = (1/m) sum_i Y_i with Y_i = 2 cos(w_i x + a_i) cos(w_i y + a_i) =
   * cos(w_i (x - y)) + cos(w_i (x + y) + 2 a_i), E[Y_i] = k(x, y). The two terms are uncorrelated
   * (the second has mean 0 given w_i), with variances <= 1 and exactly 1/2, so Var(Y_i) <= 3/2
   * and, for i.i.d. rows (dense), E|z . z' - k| <= sqrt(Var / m) <= sqrt(1.5 / m) = 1.22 /
   * sqrt(m). We assert the average is <= C / sqrt(m) with C = 1.5 (a 1.22x margin over the bound
   * on its expectation; observed near 0.5 / sqrt(m)), and err(4096) < err(256) / 2.5 (ideal
   * ratio 4). The pairs share the features, so one seed's average over pairs still carries that
   * seed's luck (one seed gave 0.030 and another 0.055 at m = 256 dense): averaging 3 seeds
   * steadies it. Seeds are fixed, so the test is deterministic; we claim no false-failure
   * probability for these shared-feature averages beyond the margins.
   */
  @Test
  void kernelApproximationErrorShrinksLikeOneOverSqrtMOnDiamonds() {
    int k = 500;
    int pairs = 2000;
    int d = 9;
    float[] sample = diamondsSample(k);
    float[] pr = pairRows(sample, k, pairs, 7);
    double[] l2 = new double[pairs];
    double[] l1 = new double[pairs];
    for (int p = 0; p < pairs; p++) {
      for (int j = 0; j < d; j++) {
        double diff = pr[2 * p * d + j] - pr[(2 * p + 1) * d + j];
        l2[p] += diff * diff;
        l1[p] += Math.abs(diff);
      }
      l2[p] = Math.sqrt(l2[p]);
    }
    // Scales at the median pairwise distance (L2 for Gaussian and Matern, L1 for Laplacian), so
    // that k spreads over (0, 1) instead of collapsing to 0 or 1.
    double sigma2 = median(l2);
    double sigma1 = median(l1);
    List<Object[]> cases = new ArrayList<>();
    for (String name : Projections.NAMES) {
      cases.add(new Object[] {new KernelFunction.Gaussian(sigma2), name});
    }
    cases.add(new Object[] {new KernelFunction.Laplacian(sigma1), "dense"});
    cases.add(new Object[] {new KernelFunction.Matern(1.5, sigma2), "dense"});
    double c = 1.5;
    StringBuilder report = new StringBuilder();
    for (Object[] kp : cases) {
      KernelFunction kernel = (KernelFunction) kp[0];
      String name = (String) kp[1];
      int[] ms = {256, 1024, 4096};
      long[] seeds = {31, 32, 33};
      double[] err = new double[ms.length];
      for (int mi = 0; mi < ms.length; mi++) {
        int m = ms[mi];
        double sum = 0;
        for (long seed : seeds) {
          Featurizer f = Featurizer.of(spec(kernel, name, d, m, 32, Quantizer.STOCHASTIC, seed));
          float[] z = floats(f.featurize(pr, 2 * pairs, 0), 2 * pairs * m);
          for (int p = 0; p < pairs; p++) {
            double exact = kernel.value(pr, 2 * p * d, pr, (2 * p + 1) * d, d);
            sum += Math.abs(dot(z, 2 * p, 2 * p + 1, m) - exact);
          }
        }
        err[mi] = sum / (pairs * seeds.length);
        report.append(String.format("%s %s m=%d err=%.5f (bound %.5f)%n", kernel.name(), name, m,
            err[mi], c / Math.sqrt(m)));
        assertTrue(err[mi] <= c / Math.sqrt(m), report.toString());
      }
      assertTrue(err[2] < err[0] / 2.5, report.toString());
    }
    System.out.print(report);
  }

  /**
   * Stochastic rounding keeps the kernel estimate unbiased: for each pair, Q(z(x)) . Q(z(y)) -
   * z(x) . z(y) = z . e' + e . z' + e . e' with rounding errors e, e' that are zero-mean and
   * independent of each other and of the other pairs (distinct row ids: every one of the 4000
   * pair rows has its own counter draws). Given the features, the 2000 differences are thus
   * independent, zero-mean, each with variance <= V = sum_i (z_i^2 v + z'_i^2 v + v^2) <= 4 v +
   * m v^2, where v = r^2 / 4 = 2 / (m (2^b - 1)^2) bounds Var(e_i) and z_i^2 <= 2/m. We assert
   * |mean| <= 5 sqrt(V / 2000): false-failure probability <= 1/25 by Chebyshev, about 6e-7 by the
   * normal approximation of the 2000-term mean (seed fixed). Round to nearest at b = 1 is biased
   * (sign(cos) products estimate a different kernel): its mean difference is asserted to exceed
   * the same bound 10 times over, showing the check can fail.
   */
  @Test
  void stochasticLowPrecisionEstimateIsUnbiasedOnDiamonds() {
    int k = 500;
    int pairs = 2000;
    int d = 9;
    int m = 1024;
    float[] sample = diamondsSample(k);
    float[] pr = pairRows(sample, k, pairs, 7);
    double[] l2 = new double[pairs];
    for (int p = 0; p < pairs; p++) {
      for (int j = 0; j < d; j++) {
        double diff = pr[2 * p * d + j] - pr[(2 * p + 1) * d + j];
        l2[p] += diff * diff;
      }
      l2[p] = Math.sqrt(l2[p]);
    }
    KernelFunction kernel = new KernelFunction.Gaussian(median(l2));
    FeaturizerSpec full = spec(kernel, "dense", d, m, 32, Quantizer.STOCHASTIC, 41);
    float[] z = floats(Featurizer.of(full).featurize(pr, 2 * pairs, 0), 2 * pairs * m);
    StringBuilder report = new StringBuilder();
    for (int bits : new int[] {1, 4, 8}) {
      double v = 2.0 / (m * Math.pow((1 << bits) - 1, 2));
      double bound = 5 * Math.sqrt((4 * v + m * v * v) / pairs);
      double stochastic = meanDifference(full.withBits(bits), pr, pairs, z, m);
      report.append(String.format("b=%d stochastic mean(QQ' - zz')=%.3g bound %.3g%n", bits,
          stochastic, bound));
      assertTrue(Math.abs(stochastic) <= bound, report.toString());
      if (bits == 1) {
        double nearest =
            meanDifference(
                full.withBits(bits).withQuantizer(Quantizer.NEAREST), pr, pairs, z, m);
        report.append(String.format("b=1 nearest mean(QQ' - zz')=%.3g%n", nearest));
        assertTrue(Math.abs(nearest) > 10 * bound, report.toString());
      }
    }
    System.out.print(report);
  }

  private static double meanDifference(
      FeaturizerSpec spec, float[] pr, int pairs, float[] z, int m) {
    Featurizer f = Featurizer.of(spec);
    byte[] packed = f.featurize(pr, 2 * pairs, 0);
    float[] q = new float[2 * pairs * m];
    for (int r = 0; r < 2 * pairs; r++) {
      PackedFeatures.unpack(packed, r * f.rowBytes(), spec.scale(), m, q, r * m);
    }
    double sum = 0;
    for (int p = 0; p < pairs; p++) {
      sum += dot(q, 2 * p, 2 * p + 1, m) - dot(z, 2 * p, 2 * p + 1, m);
    }
    return sum / pairs;
  }
}
