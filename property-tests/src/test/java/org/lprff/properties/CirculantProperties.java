package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.transform.CirculantPlan;

/**
 * FFT circulant product = dense circulant product, for generated sizes and data
 * (DESIGN.md section 5, property 8 of the property-tests issue).
 */
class CirculantProperties {

  private static final double U = 0x1p-24;

  @Test
  void fftCirculantEqualsDenseCirculant() {
    // 200 generated (log2 n, seed) pairs, n = 1 .. 1024; fixed seed so a failure replays.
    qt().withFixedSeed(20261122L)
        .withExamples(200)
        .forAll(integers().between(0, 10), longs().all())
        .checkAssert(
            (log2n, seed) -> {
              int n = 1 << log2n;
              SplittableRandom random = new SplittableRandom(seed);
              float[] g = gaussian(random, n);
              float[] x = gaussian(random, n);
              float[] y = new float[n];
              new CirculantPlan(g).multiply(x, y);
              double[] exact = new double[n];
              double gNorm = 0;
              double xNorm = 0;
              for (int i = 0; i < n; i++) {
                gNorm += (double) g[i] * g[i];
                xNorm += (double) x[i] * x[i];
                for (int j = 0; j < n; j++) {
                  exact[i] += (double) g[Math.floorMod(i - j, n)] * x[j];
                }
              }
              // ||y - exact||_2 <= c * log2(n) * u * ||circ(g)||_2 * ||x||_2 with
              // ||circ(g)||_2 = max |G_k| <= sqrt(n) ||g||_2; c = 16(t + 1) as in CirculantTest.
              double bound = 16.0 * (log2n + 1) * U * Math.sqrt(n * gNorm) * Math.sqrt(xNorm);
              double err = 0;
              for (int i = 0; i < n; i++) {
                err += (y[i] - exact[i]) * (y[i] - exact[i]);
              }
              assertTrue(
                  Math.sqrt(err) <= bound,
                  "n=" + n + " seed=" + seed + ": error " + Math.sqrt(err) + " > " + bound);
            });
  }

  static float[] gaussian(SplittableRandom random, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      double u1 = 1.0 - random.nextDouble();
      v[i] = (float) (Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * random.nextDouble()));
    }
    return v;
  }
}
