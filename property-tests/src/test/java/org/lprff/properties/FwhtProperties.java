package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.simd.panama.VectorFwht;
import org.lprff.vector.simd.scalar.ScalarFwht;
import org.lprff.vector.simd.spi.FwhtBody;
import org.lprff.vector.transform.Fwht;

/**
 * FWHT structure (issue item 8): H(Hx) = n x, H / sqrt(n) preserves norms and inner products, the
 * interleaved layout gives every vector its contiguous bits, and the scalar and vector bodies agree
 * bit for bit. Transform sizes are powers of two by definition; the free sizes (interleaved
 * widths) are generated with {@link Sizes}.
 */
class FwhtProperties {

  private static final double U = 0x1p-24;

  @Test
  void transformTwiceIsNTimesTheInputExactlyOnSignInputs() {
    // +-1 inputs keep every partial sum an integer below 2^24, so float arithmetic is exact.
    qt().withFixedSeed(1L)
        .withExamples(150)
        .forAll(integers().between(1, 14), longs().all())
        .checkAssert(
            (log2n, seed) -> {
              int n = 1 << log2n;
              float[] x = signs(new SplittableRandom(seed), n);
              float[] y = x.clone();
              Fwht.transform(y);
              Fwht.transform(y);
              float[] expected = new float[n];
              for (int i = 0; i < n; i++) {
                expected[i] = n * x[i];
              }
              assertArrayEquals(expected, y, "n=" + n + " seed=" + seed);
            });
  }

  @Test
  void normalizedTransformPreservesInnerProducts() {
    qt().withFixedSeed(2L)
        .withExamples(150)
        .forAll(integers().between(1, 14), longs().all())
        .checkAssert(
            (log2n, seed) -> {
              int n = 1 << log2n;
              SplittableRandom random = new SplittableRandom(seed);
              float[] x = uniform(random, n);
              float[] y = uniform(random, n);
              double before = dot(x, y);
              double xNorm = Math.sqrt(dot(x, x));
              double yNorm = Math.sqrt(dot(y, y));
              Fwht.transformNormalized(x);
              Fwht.transformNormalized(y);
              // Each transformed vector is within sqrt(n)(L + 2.01)u ||v|| of the exact one
              // (FwhtTest's norm bound), so the inner product moves by at most twice that
              // times the norms, plus the rounding of the two double dot products.
              double perVector = Math.sqrt(n) * (log2n + 2.01) * U;
              double bound = (2 * perVector + perVector * perVector) * xNorm * yNorm + 1e-12;
              double after = dot(x, y);
              assertTrue(
                  Math.abs(after - before) <= bound,
                  "n=" + n + ": <Hx,Hy>/n = " + after + ", <x,y> = " + before + ", bound " + bound);
            });
  }

  @Test
  void normalizedTransformPreservesNorms() {
    qt().withFixedSeed(4L)
        .withExamples(150)
        .forAll(integers().between(1, 14), longs().all())
        .checkAssert(
            (log2n, seed) -> {
              int n = 1 << log2n;
              float[] x = uniform(new SplittableRandom(seed), n);
              double before = Math.sqrt(dot(x, x));
              Fwht.transformNormalized(x);
              double after = Math.sqrt(dot(x, x));
              // ||Hx/sqrt(n) - exact|| <= sqrt(n)(L + 2.01)u ||x|| (FwhtTest's bound), and the
              // exact transform is orthogonal.
              double bound = Math.sqrt(n) * (log2n + 2.01) * U * before + 1e-12;
              assertTrue(
                  Math.abs(after - before) <= bound,
                  "n=" + n + ": ||Hx||/sqrt(n) = " + after + ", ||x|| = " + before);
            });
  }

  @Test
  void interleavedTransformsGiveEachVectorItsContiguousBitsForAnyWidth() {
    // Widths are free: 1, primes, lane counts +- 1, powers of two +- 1 and uniform ones.
    FwhtBody[] bodies = {new ScalarFwht(), new VectorFwht()};
    qt().withFixedSeed(5L)
        .withExamples(200)
        .forAll(integers().between(1, 10), Sizes.between(1, 67), integers().between(0, 3),
            longs().all())
        .checkAssert(
            (log2n, width, offset, seed) -> {
              int n = 1 << log2n;
              SplittableRandom random = new SplittableRandom(seed);
              float[] x = uniform(random, offset + n * width);
              boolean normalized = random.nextBoolean();
              float[] expected = x.clone();
              for (int c = 0; c < width; c++) {
                float[] v = new float[n];
                for (int i = 0; i < n; i++) {
                  v[i] = x[offset + i * width + c];
                }
                if (normalized) {
                  new ScalarFwht().transformNormalized(v, 0, n);
                } else {
                  new ScalarFwht().transform(v, 0, n);
                }
                for (int i = 0; i < n; i++) {
                  expected[offset + i * width + c] = v[i];
                }
              }
              for (FwhtBody body : bodies) {
                float[] y = x.clone();
                body.transformInterleaved(y, offset, n, width, normalized);
                assertArrayEquals(expected, y, body.getClass().getSimpleName() + " n=" + n
                    + " width=" + width + " normalized=" + normalized);
              }
            });
  }

  @Test
  void forcedScalarAndVectorBodiesGiveIdenticalBits() {
    FwhtBody scalar = new ScalarFwht();
    FwhtBody vector = new VectorFwht();
    qt().withFixedSeed(3L)
        .withExamples(200)
        .forAll(integers().between(1, 16), longs().all())
        .checkAssert(
            (log2n, seed) -> {
              int n = 1 << log2n;
              float[] a = uniform(new SplittableRandom(seed), n);
              float[] b = a.clone();
              scalar.transformNormalized(a, 0, n);
              vector.transformNormalized(b, 0, n);
              assertArrayEquals(a, b, "n=" + n);
            });
  }

  static float[] signs(SplittableRandom random, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = random.nextBoolean() ? 1f : -1f;
    }
    return v;
  }

  static float[] uniform(SplittableRandom random, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) (2 * random.nextDouble() - 1);
    }
    return v;
  }

  static double dot(float[] x, float[] y) {
    double s = 0;
    for (int i = 0; i < x.length; i++) {
      s += (double) x[i] * y[i];
    }
    return s;
  }
}
