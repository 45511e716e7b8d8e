package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.StochasticRounding;
import org.lprff.vector.products.PackedProducts;
import org.lprff.vector.simd.panama.VectorRounding;
import org.lprff.vector.simd.scalar.ScalarRounding;
import org.lprff.vector.simd.spi.RoundingBody;
import org.quicktheories.core.Gen;

/**
 * The packed layout: unpack(pack(c)) = c, quantization bytes independent of how a row is split
 * into calls and of the implementation, and packed products equal to dequantized products.
 */
class PackingProperties {

  private static final int[] BITS = {1, 2, 4, 8, 16};

  /** A packer under test: codes (the array, its length is the count) to bytes at an offset. */
  interface Packer {
    void pack(int[] codes, int bits, byte[] out, int byteOffset);
  }

  private static Gen<Integer> bits() {
    return integers().between(0, BITS.length - 1).map(i -> BITS[i]);
  }

  /** Sizes weighted towards the interesting ones: 1, primes, lane counts +- 1, 2^k +- 1, up to 5000. */
  private static Gen<Integer> counts() {
    return Sizes.between(0, 5000);
  }

  private static void roundTrip(Packer packer) {
    qt().withFixedSeed(11L)
        .withExamples(400)
        .forAll(bits(), counts(), integers().between(0, 9), longs().all())
        .checkAssert(
            (bits, count, byteOffset, seed) -> {
              SplittableRandom random = new SplittableRandom(seed);
              int[] codes = new int[count];
              for (int i = 0; i < count; i++) {
                codes[i] = random.nextInt(1 << bits);
              }
              byte[] packed = new byte[byteOffset + (int) PackedFeatures.rowBytes(count, bits)];
              packer.pack(codes, bits, packed, byteOffset);
              int[] back = new int[count];
              PackedFeatures.unpackCodes(packed, byteOffset, bits, count, back, 0);
              assertArrayEquals(codes, back, "bits=" + bits + " count=" + count);
            });
  }

  @Test
  void unpackOfPackIsTheIdentity() {
    roundTrip((codes, bits, out, off) -> PackedFeatures.packCodes(codes, 0, codes.length, bits, out, off));
  }

  @Test
  void roundTripCatchesAOneBitShift() {
    // Power: a packer that writes every code one bit too high must be caught.
    Packer shifted =
        (codes, bits, out, off) -> {
          byte[] tmp = new byte[out.length + 1];
          PackedFeatures.packCodes(codes, 0, codes.length, bits, tmp, off);
          for (int i = out.length - 1; i >= off; i--) {
            int lowBitFromBelow = i > off ? (tmp[i - 1] & 0xFF) >>> 7 : 0;
            out[i] = (byte) (((tmp[i] & 0xFF) << 1) | lowBitFromBelow);
          }
        };
    assertThrows(AssertionError.class, () -> roundTrip(shifted));
  }

  @Test
  void quantizedBytesDoNotDependOnSplitOrImplementation() {
    RoundingBody scalar = new ScalarRounding();
    RoundingBody vector = new VectorRounding();
    qt().withFixedSeed(12L)
        .withExamples(300)
        .forAll(bits(), Sizes.between(1, 3000), integers().between(1, 64), longs().all())
        .checkAssert(
            (bits, m, chunkGroups, seed) -> {
              QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
              float[] values = cosineLike(new SplittableRandom(seed), m);
              long row = seed >>> 1;
              byte[] whole = new byte[scale.rowBytes(m)];
              StochasticRounding.quantizeStochastic(values, 0, m, scale, seed, row, 0, 3, whole, 0);
              // The same row in chunks of 8 * chunkGroups features (the last one cut).
              byte[] chunked = new byte[whole.length];
              int chunk = 8 * chunkGroups;
              for (int first = 0; first < m; first += chunk) {
                int count = Math.min(chunk, m - first);
                StochasticRounding.quantizeStochastic(
                    values, first, count, scale, seed, row, first, 3, chunked, 0);
              }
              assertArrayEquals(whole, chunked, "m=" + m + " chunk=" + chunk);
              BiConsumer<RoundingBody, byte[]> run =
                  (kernel, out) ->
                      kernel.quantizeStochastic(
                          values, 0, m, bits, scale.lo(), scale.step(), seed, row, 0, 3,
                          MemorySegment.ofArray(out), 0);
              byte[] bySc = new byte[whole.length];
              byte[] byVec = new byte[whole.length];
              run.accept(scalar, bySc);
              run.accept(vector, byVec);
              assertArrayEquals(bySc, byVec, "scalar vs vector, m=" + m + " bits=" + bits);
              assertArrayEquals(whole, byVec, "facade vs vector, m=" + m + " bits=" + bits);
            });
  }

  @Test
  void packedForwardEqualsDequantizedProduct() {
    qt().withFixedSeed(13L)
        .withExamples(200)
        .forAll(bits(), integers().between(0, 20), Sizes.between(1, 700), longs().all())
        .checkAssert(
            (bits, n, m, seed) -> {
              SplittableRandom random = new SplittableRandom(seed);
              int c = 1 + random.nextInt(12);
              QuantizationScale scale = QuantizationScale.forFeatures(m, bits);
              int rowBytes = scale.rowBytes(m);
              int[][] codes = new int[n][m];
              byte[] z = new byte[n * rowBytes];
              for (int r = 0; r < n; r++) {
                for (int i = 0; i < m; i++) {
                  codes[r][i] = random.nextInt(1 << bits);
                }
                PackedFeatures.packCodes(codes[r], 0, m, bits, z, r * rowBytes);
              }
              float[] wT = new float[c * m];
              for (int k = 0; k < wT.length; k++) {
                wT[k] = (float) random.nextGaussian();
              }
              float[] y = new float[n * c];
              PackedProducts.forward(PackedRows.of(z, 0, n, m, scale), wT, c, y);
              // Float summation of m terms in any order (and with the affine dequantization
              // factored out) is within gamma_{m+4} * (step sum code|w| + |lo| sum |w|) of the
              // exact product (Higham, Accuracy and Stability, 2nd ed., section 3.1).
              double u = 0x1p-24;
              double gamma = (m + 4) * u / (1 - (m + 4) * u);
              for (int r = 0; r < n; r++) {
                for (int j = 0; j < c; j++) {
                  double exact = 0;
                  double magnitude = 0;
                  for (int i = 0; i < m; i++) {
                    double zi = Math.fma((float) codes[r][i], scale.step(), scale.lo());
                    double w = wT[j * m + i];
                    exact += zi * w;
                    magnitude +=
                        (scale.step() * (double) codes[r][i] + Math.abs(scale.lo())) * Math.abs(w);
                  }
                  double err = Math.abs(y[r * c + j] - exact);
                  assertTrue(
                      err <= gamma * magnitude + 1e-30,
                      "bits=" + bits + " m=" + m + " r=" + r + " j=" + j + ": error " + err
                          + " > " + gamma * magnitude);
                }
              }
            });
  }

  static float[] cosineLike(SplittableRandom random, int m) {
    float s = (float) Math.sqrt(2.0 / m);
    float[] v = new float[m];
    for (int i = 0; i < m; i++) {
      v[i] = (float) (s * Math.cos(2 * Math.PI * random.nextDouble()));
    }
    return v;
  }
}
