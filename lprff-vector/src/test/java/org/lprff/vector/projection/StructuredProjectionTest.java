package org.lprff.vector.projection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.lprff.vector.random.RandomParameters;
import org.lprff.vector.testing.Distributions;

/**
 * The three structured projections (circulant, Fastfood, orthogonal) against an independent
 * O(p^3) construction in double from the single-value {@link RandomParameters} draws, block-wise
 * consistency, the distributional claims of each construction and the Gaussian-kernel
 * approximation.
 *
 * <p>Tolerance for float vs double: each block is a product of at most three (scaled) orthogonal
 * or circulant factors computed by L = log2 p butterfly stages each. Norm-wise a stage errs by at
 * most a few u (8 u per stage is Higham's FFT constant, used in CirculantTest; an FWHT butterfly
 * adds one rounding per stage), the diagonal products and the float rounding of the parameters
 * add one u each, and errors are amplified by at most ||W_k||_2 <= ||W_k||_F. So every entry of
 * W_k x errs by at most TOL = 8 (L + 2) u ||W_k||_F ||x||_2, u = 2^-24 (three FWHTs contribute
 * 3 L u, within 8 (L + 2) u). Observed: below 10% of TOL.
 */
class StructuredProjectionTest {

  private static final double U = 0x1p-24;

  private static final String[] NAMES = {"circulant", "fastfood", "orthogonal"};

  private static Projection create(String name, long seed, double sigma, int d, int m) {
    return switch (name) {
      case "circulant" -> new CirculantProjection(seed, sigma, d, m);
      case "fastfood" -> new FastfoodProjection(seed, sigma, d, m);
      case "orthogonal" -> new OrthogonalProjection(seed, sigma, d, m);
      default -> throw new AssertionError(name);
    };
  }

  private static int padded(int d) {
    int p = 2;
    while (p < d) {
      p *= 2;
    }
    return p;
  }

  private static double hadamard(int i, int j) {
    return (Integer.bitCount(i & j) & 1) == 0 ? 1 : -1;
  }

  private static double[][] multiply(double[][] a, double[][] b) {
    int n = a.length;
    double[][] c = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < n; k++) {
        for (int j = 0; j < n; j++) {
          c[i][j] += a[i][k] * b[k][j];
        }
      }
    }
    return c;
  }

  private static double[][] hadamardTimesDiagonal(int p, double scale, double[] diagonal) {
    double[][] h = new double[p][p];
    for (int i = 0; i < p; i++) {
      for (int j = 0; j < p; j++) {
        h[i][j] = scale * hadamard(i, j) * diagonal[j];
      }
    }
    return h;
  }

  /** Block k (p x p, in double) straight from the definitions in the class comments. */
  private static double[][] referenceBlock(String name, long seed, double sigma, int p, int k) {
    double[][] w = new double[p][p];
    switch (name) {
      case "circulant" -> {
        for (int i = 0; i < p; i++) {
          for (int j = 0; j < p; j++) {
            w[i][j] = RandomParameters.normal(seed, 0, k * p + Math.floorMod(i - j, p))
                * RandomParameters.rademacher(seed, 3, k * p + j) / sigma;
          }
        }
      }
      case "fastfood" -> {
        double[] b = new double[p];
        double[] g = new double[p];
        double frobenius = 0;
        for (int i = 0; i < p; i++) {
          b[i] = RandomParameters.rademacher(seed, 3, k * p + i);
          g[i] = RandomParameters.normal(seed, 0, k * p + i);
          frobenius += g[i] * g[i];
        }
        int blockStream = 4 + k * (p + 1);
        int[] pi = RandomParameters.permutation(seed, blockStream, p);
        double[][] hb = hadamardTimesDiagonal(p, 1, b);
        double[][] gPiHb = new double[p][];
        for (int i = 0; i < p; i++) {
          gPiHb[i] = hb[pi[i]].clone();
          for (int j = 0; j < p; j++) {
            gPiHb[i][j] *= g[i];
          }
        }
        double[] ones = new double[p];
        Arrays.fill(ones, 1);
        double[][] v = multiply(hadamardTimesDiagonal(p, 1, ones), gPiHb);
        for (int i = 0; i < p; i++) {
          double chiSquared = 0;
          for (int j = 0; j < p; j++) {
            double z = RandomParameters.normal(seed, blockStream + 1 + i, j);
            chiSquared += z * z;
          }
          double s = Math.sqrt(chiSquared) / Math.sqrt(frobenius) / (sigma * Math.sqrt(p));
          for (int j = 0; j < p; j++) {
            w[i][j] = s * v[i][j];
          }
        }
      }
      case "orthogonal" -> {
        double norm = 1 / Math.sqrt(p);
        double[] d1 = new double[p];
        double[] d2 = new double[p];
        double[] d3 = new double[p];
        for (int i = 0; i < p; i++) {
          d1[i] = RandomParameters.rademacher(seed, 3, k * p + i);
          d2[i] = RandomParameters.rademacher(seed, 4, k * p + i);
          d3[i] = RandomParameters.rademacher(seed, 5, k * p + i);
        }
        w = multiply(hadamardTimesDiagonal(p, norm, d3),
            multiply(hadamardTimesDiagonal(p, norm, d2), hadamardTimesDiagonal(p, norm, d1)));
        // Row i scaled by c_i / sigma, c_i^2 the sum of p squared normals of stream 6 + k p + i.
        for (int i = 0; i < p; i++) {
          double chiSquared = 0;
          for (int j = 0; j < p; j++) {
            double z = RandomParameters.normal(seed, 6 + k * p + i, j);
            chiSquared += z * z;
          }
          double s = Math.sqrt(chiSquared) / sigma;
          for (int j = 0; j < p; j++) {
            w[i][j] *= s;
          }
        }
      }
      default -> throw new AssertionError(name);
    }
    return w;
  }

  /** W (m x d) read off by projecting the rows of the d x d identity. */
  private static double[][] explicitMatrix(Projection projection) {
    int d = projection.inputDim();
    int m = projection.features();
    float[] identity = new float[d * d];
    for (int j = 0; j < d; j++) {
      identity[j * d + j] = 1;
    }
    float[] out = new float[d * m];
    projection.project(identity, 0, d, 0, m, out, 0);
    double[][] w = new double[m][d];
    for (int f = 0; f < m; f++) {
      for (int j = 0; j < d; j++) {
        w[f][j] = out[j * m + f];
      }
    }
    return w;
  }

  private static float[] randomRows(SplittableRandom random, int count) {
    float[] x = new float[count];
    for (int i = 0; i < count; i++) {
      x[i] = (float) (2 * random.nextDouble() - 1);
    }
    return x;
  }

  // ---- (a) against the definition in double, and the explicit matrix

  @Test
  void matchesDefinitionInDoubleAndExplicitMatrix() {
    SplittableRandom random = new SplittableRandom(11);
    for (String name : NAMES) {
      for (int d : new int[] {1, 2, 3, 9, 16, 33}) {
        for (int m : new int[] {1, 5, 40, 100}) {
          for (double sigma : new double[] {0.7, 2.5}) {
            long seed = random.nextLong();
            Projection projection = create(name, seed, sigma, d, m);
            int p = padded(d);
            assertEquals(p, projection.preferredBlock());
            float[] x = randomRows(random, d);
            float[] y = new float[m];
            projection.project(x, 0, 1, 0, m, y, 0);
            double[][] explicit = explicitMatrix(projection);
            double xNorm = 0;
            for (float v : x) {
              xNorm += (double) v * v;
            }
            xNorm = Math.sqrt(xNorm);
            for (int k = 0; k * p < m; k++) {
              double[][] block = referenceBlock(name, seed, sigma, p, k);
              double frobenius = 0;
              for (double[] row : block) {
                for (double v : row) {
                  frobenius += v * v;
                }
              }
              double scale = 8 * (Integer.numberOfTrailingZeros(p) + 2) * U * Math.sqrt(frobenius);
              for (int i = 0; i < p && k * p + i < m; i++) {
                int f = k * p + i;
                double reference = 0;
                double fromExplicit = 0;
                for (int j = 0; j < d; j++) {
                  reference += block[i][j] * x[j];
                  fromExplicit += explicit[f][j] * x[j];
                  // Entry (f, j) is the projection of e_j: ||x|| = 1.
                  assertEquals(block[i][j], explicit[f][j], scale,
                      name + " W[" + f + "][" + j + "] d=" + d + " m=" + m);
                }
                String where = name + " feature " + f + " d=" + d + " m=" + m + " sigma=" + sigma;
                assertEquals(reference, y[f], scale * xNorm, where);
                // Both sides carry rounding error: twice the bound.
                assertEquals(fromExplicit, y[f], 2 * scale * xNorm, where);
              }
            }
          }
        }
      }
    }
  }

  // ---- (b) determinism and seed sensitivity

  @Test
  void deterministicAndSeedSensitive() {
    SplittableRandom random = new SplittableRandom(12);
    float[] x = randomRows(random, 3 * 9);
    for (String name : NAMES) {
      float[] a = new float[3 * 50];
      float[] b = new float[3 * 50];
      float[] c = new float[3 * 50];
      create(name, 42, 1.3, 9, 50).project(x, 0, 3, 0, 50, a, 0);
      create(name, 42, 1.3, 9, 50).project(x, 0, 3, 0, 50, b, 0);
      create(name, 43, 1.3, 9, 50).project(x, 0, 3, 0, 50, c, 0);
      assertArrayEquals(a, b, name);
      int equal = 0;
      for (int i = 0; i < a.length; i++) {
        equal += a[i] == c[i] ? 1 : 0;
      }
      // A different seed redraws every parameter: coinciding float outputs would be a bug.
      assertEquals(0, equal, name + ": outputs shared between seeds 42 and 43");
      // The first features do not depend on m (parameters are indexed block by block).
      float[] longer = new float[3 * 200];
      create(name, 42, 1.3, 9, 200).project(x, 0, 3, 0, 50, longer, 0);
      assertArrayEquals(a, Arrays.copyOf(longer, a.length), name + " prefix");
      assertEquals(name, create(name, 1, 1, 1, 1).name());
    }
  }

  // ---- (c) block-wise calls equal one full call bit for bit

  @Test
  void blockwiseCallsEqualFullCall() {
    SplittableRandom random = new SplittableRandom(13);
    int n = 5;
    for (String name : NAMES) {
      for (int d : new int[] {9, 20}) {
        int m = 100; // not a multiple of p = 16 or 32
        Projection projection = create(name, 7, 0.9, d, m);
        int rowOffset = 3;
        float[] rows = new float[rowOffset + n * d + 2];
        float[] x = randomRows(random, n * d);
        System.arraycopy(x, 0, rows, rowOffset, x.length);
        float[] full = new float[n * m];
        projection.project(rows, rowOffset, n, 0, m, full, 0);
        int[][] ranges = {{0, 0}, {0, 1}, {15, 2}, {16, 16}, {5, 37}, {33, 67}, {99, 1},
            {100, 0}, {64, 36}, {1, 98}};
        for (int[] range : ranges) {
          int first = range[0];
          int count = range[1];
          int outOffset = 4;
          float[] part = new float[outOffset + n * count + 3];
          Arrays.fill(part, Float.NaN);
          projection.project(rows, rowOffset, n, first, count, part, outOffset);
          for (int r = 0; r < n; r++) {
            for (int k = 0; k < count; k++) {
              assertEquals(
                  Float.floatToRawIntBits(full[r * m + first + k]),
                  Float.floatToRawIntBits(part[outOffset + r * count + k]),
                  name + " d=" + d + " row " + r + " feature " + (first + k));
            }
          }
          // Nothing written outside the requested window.
          for (int i = 0; i < outOffset; i++) {
            assertTrue(Float.isNaN(part[i]));
          }
          for (int i = outOffset + n * count; i < part.length; i++) {
            assertTrue(Float.isNaN(part[i]));
          }
        }
        // Chunks of 7 features, as a featurizer might drive it.
        float[] chunked = new float[n * m];
        float[] chunk = new float[n * 7];
        for (int first = 0; first < m; first += 7) {
          int count = Math.min(7, m - first);
          projection.project(rows, rowOffset, n, first, count, chunk, 0);
          for (int r = 0; r < n; r++) {
            System.arraycopy(chunk, r * count, chunked, r * m + first, count);
          }
        }
        assertArrayEquals(full, chunked, name + " chunks of 7");
        // Row by row equals the batch.
        float[] single = new float[m];
        for (int r = 0; r < n; r++) {
          projection.project(x, r * d, 1, 0, m, single, 0);
          assertArrayEquals(Arrays.copyOfRange(full, r * m, (r + 1) * m), single, name);
        }
      }
    }
  }

  /**
   * Whole groups of {@link StructuredProjection#GROUP} rows go through the interleaved path (p <=
   * 4096: d = 9, 90, 600), the rest in chunks of 8192 / p rows: p = 1024 (d = 600) gives chunks of
   * 8 and p = 8192 (d = 5000) chunks of 1, so 19 rows cross group and chunk boundaries; each row
   * must come out bit for bit as when projected alone (always the row path).
   */
  @Test
  void rowChunksEqualRowByRow() {
    SplittableRandom random = new SplittableRandom(15);
    int n = 19;
    for (String name : NAMES) {
      for (int d : new int[] {9, 90, 600, 5000}) {
        int m = d <= 600 ? Math.max(d + 7, 300) : 40; // few features at p = 8192: Fastfood draws p normals each
        Projection projection = create(name, 8, 3.0, d, m);
        float[] x = randomRows(random, n * d);
        int first = 3;
        int count = m - 5;
        float[] batch = new float[n * count];
        projection.project(x, 0, n, first, count, batch, 0);
        float[] single = new float[count];
        for (int r = 0; r < n; r++) {
          projection.project(x, r * d, 1, first, count, single, 0);
          assertArrayEquals(single, Arrays.copyOfRange(batch, r * count, (r + 1) * count),
              name + " d=" + d + " row " + r);
        }
      }
    }
  }

  /** One instance shared by 4 threads, 50 calls each: every result equals the serial one. */
  @Test
  void concurrentCallsEqualSerial() throws Exception {
    SplittableRandom random = new SplittableRandom(16);
    float[] x = randomRows(random, 6 * 40);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      for (String name : NAMES) {
        Projection projection = create(name, 9, 1.1, 40, 300);
        float[] serial = new float[6 * 300];
        projection.project(x, 0, 6, 0, 300, serial, 0);
        List<Future<float[]>> results = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          results.add(pool.submit(() -> {
            float[] mine = new float[6 * 300];
            for (int i = 0; i < 50; i++) {
              projection.project(x, 0, 6, 0, 300, mine, 0);
            }
            return mine;
          }));
        }
        for (Future<float[]> result : results) {
          assertArrayEquals(serial, result.get(), name);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- (d) distributional claims

  /**
   * Circulant: within one row of a block the entries g_{(i-j) mod p} s_j / sigma are iid
   * N(0, sigma^-2) and blocks are independent, so row 0 of each of 1024 blocks gives N = 16384 iid
   * samples of sigma W_ij ~ N(0, 1). DKW at alpha = 1e-6: eps = sqrt(ln(2e6) / 32768) = 0.021,
   * false-failure probability <= 1e-6. Power: the same samples scaled by 1.25 (a wrong sigma)
   * must fail.
   */
  @Test
  void circulantEntriesAreGaussian() {
    int p = 16;
    int blocks = 1024;
    double sigma = 1.7;
    double[][] w = explicitMatrix(new CirculantProjection(2024, sigma, p, p * blocks));
    double[] samples = new double[p * blocks];
    double[] scaled = new double[samples.length];
    for (int k = 0; k < blocks; k++) {
      for (int j = 0; j < p; j++) {
        samples[k * p + j] = sigma * w[k * p][j];
        scaled[k * p + j] = 1.25 * samples[k * p + j];
      }
    }
    double bound = Distributions.dkwBound(samples.length, 1e-6);
    double ks = Distributions.ksDistance(samples, Distributions::normalCdf);
    assertTrue(ks < bound, "KS " + ks + " >= " + bound);
    double wrong = Distributions.ksDistance(scaled, Distributions::normalCdf);
    assertTrue(wrong > bound, "power: KS " + wrong + " <= " + bound);
  }

  /** Chi-squared CDF for even dof 2h: 1 - e^{-x/2} sum_{k<h} (x/2)^k / k!. */
  static double chiSquaredCdfEven(int dof, double x) {
    if (x <= 0) {
      return 0;
    }
    double half = x / 2;
    double term = 1;
    double sum = 1;
    for (int k = 1; k < dof / 2; k++) {
      term *= half / k;
      sum += term;
    }
    return 1 - Math.exp(-half) * sum;
  }

  @Test
  void evenChiSquaredCdfMatchesIntegratedDensity() {
    // Simpson's rule on the density x^{h-1} e^{-x/2} / (2^h (h-1)!), 20000 panels: error < 1e-9.
    for (int dof : new int[] {2, 4, 16}) {
      int h = dof / 2;
      double norm = Math.pow(2, h);
      for (int i = 1; i < h; i++) {
        norm *= i;
      }
      final double c = norm;
      Function<Double, Double> density = t -> Math.pow(t, h - 1) * Math.exp(-t / 2) / c;
      for (double x : new double[] {0.5, 3, dof, 2.5 * dof}) {
        int panels = 20000;
        double step = x / panels;
        double integral = density.apply(0.0) + density.apply(x);
        for (int i = 1; i < panels; i++) {
          integral += (i % 2 == 1 ? 4 : 2) * density.apply(i * step);
        }
        integral *= step / 3;
        assertEquals(integral, chiSquaredCdfEven(dof, x), 1e-9, "dof " + dof + " x " + x);
      }
    }
    assertEquals(1 - Math.exp(-1.5), chiSquaredCdfEven(2, 3), 1e-15);
  }

  /**
   * Fastfood and orthogonal: sigma^2 ||v_i||^2 = c_i^2 exactly (for Fastfood ||G||_F cancels; the
   * orthogonal block's H~ D products are orthogonal), iid chi-squared(p) over all rows (each c_i
   * from its own stream). N = 16384 rows (p = 16, 1024 blocks), d = p so the explicit matrix holds
   * whole rows. DKW at alpha = 1e-6: eps = 0.021, false-failure probability <= 1e-6 per kind.
   * Float rounding changes the norms by ~1e-6 relative, far below eps. Power: constant squared
   * norms p (the fixed norm of a construction without chi scaling, as in published SORF) fail, and
   * norms scaled by 1.2 (a wrong sigma) fail.
   */
  @Test
  void rowNormsAreChi() {
    int p = 16;
    int m = 16 * 1024;
    double sigma = 0.6;
    for (StructuredProjection projection :
        new StructuredProjection[] {
          new FastfoodProjection(99, sigma, p, m), new OrthogonalProjection(99, sigma, p, m)
        }) {
      double[][] w = explicitMatrix(projection);
      double[] squared = new double[m];
      double[] scaled = new double[m];
      for (int f = 0; f < m; f++) {
        double s = 0;
        for (double v : w[f]) {
          s += v * v;
        }
        squared[f] = sigma * sigma * s;
        scaled[f] = 1.2 * squared[f];
      }
      double bound = Distributions.dkwBound(m, 1e-6);
      double ks = Distributions.ksDistance(squared, x -> chiSquaredCdfEven(p, x));
      assertTrue(ks < bound, projection.name() + ": KS " + ks + " >= " + bound);
      double wrong = Distributions.ksDistance(scaled, x -> chiSquaredCdfEven(p, x));
      assertTrue(wrong > bound, projection.name() + " power: KS " + wrong + " <= " + bound);
    }
    double[] constant = new double[m];
    Arrays.fill(constant, p);
    assertTrue(
        Distributions.ksDistance(constant, x -> chiSquaredCdfEven(p, x))
            > Distributions.dkwBound(m, 1e-6));
  }

  /**
   * Orthogonal: W_k W_k^T = diag(c_i^2) / sigma^2 for every block (the last one cut), p in {2,
   * 16, 128}, with c_i the chi norm drawn from row i's own stream (recomputed here in double).
   * W_k = S Q / sigma with Q orthogonal, so ||W_k||_2 = max c_i / sigma =: s. Column j of the
   * computed W_k is W_k e_j up to an error of norm e = 8 (L + 2) u s (class tolerance), so the
   * error matrix E has ||E||_2 <= ||E||_F <= sqrt(p) e and every Gram entry errs by at most 2 s
   * ||E||_2 + ||E||_2^2.
   */
  @Test
  void orthogonalBlocksHaveOrthogonalRows() {
    for (int p : new int[] {2, 16, 128}) {
      double sigma = 1.9;
      int m = 3 * p + p / 2; // last block cut
      OrthogonalProjection projection = new OrthogonalProjection(5, sigma, p, m);
      double[][] w = explicitMatrix(projection);
      double[] norm = new double[m];
      double[] z = new double[p];
      double spectral = 0;
      for (int f = 0; f < m; f++) {
        norm[f] =
            projection.chiNorm(5, OrthogonalProjection.STREAM_FIRST_NORM + f, z) / sigma;
        spectral = Math.max(spectral, norm[f]);
      }
      double error =
          Math.sqrt(p) * 8 * (Integer.numberOfTrailingZeros(p) + 2) * U * spectral;
      double tolerance = 2 * spectral * error + error * error;
      for (int f = 0; f < m; f++) {
        int blockStart = f / p * p;
        for (int g = blockStart; g < Math.min(m, blockStart + p); g++) {
          double dot = 0;
          for (int j = 0; j < p; j++) {
            dot += w[f][j] * w[g][j];
          }
          double expected = f == g ? norm[f] * norm[f] : 0;
          assertEquals(expected, dot, tolerance, "p=" + p + " rows " + f + ", " + g);
        }
      }
    }
  }

  // ---- (e) kernel approximation

  /**
   * d = 9 (p = 16), m = 2^16: K = 4096 independent blocks; the block means of cos(w_i . delta) lie
   * in [-1, 1], so Hoeffding gives P(|mean - E| >= t) <= 2 exp(-K t^2 / 2), t = sqrt(2 ln(2/alpha)
   * / K) = 0.084 at alpha = 1e-6 per check (9 checks per projection kind: false-failure <= 3e-5
   * in all). E = exp(-r^2/2) exactly for the circulant (Gaussian rows); orthogonal and Fastfood rows have
   * chi norms but directions that are not exactly uniform, a bias well inside t. Power: dropping the 1/sigma (sigma = 2.5) or the sqrt(p) factor moves the
   * mean by more than t.
   */
  @Test
  void approximatesGaussianKernel() {
    int d = 9;
    int m = 1 << 16;
    int blocks = m / 16;
    double sigma = 2.5;
    double t = Math.sqrt(2 * Math.log(2 / 1e-6) / blocks);
    SplittableRandom random = new SplittableRandom(14);
    for (String name : NAMES) {
      Projection projection = create(name, 31, sigma, d, m);
      for (double r : new double[] {0.5, 1, 2}) {
        for (int pair = 0; pair < 3; pair++) {
          // delta = x - y with ||delta|| = sigma r; W is linear so W x - W y = W delta.
          float[] delta = new float[d];
          double norm = 0;
          double[] z = new double[d];
          for (int j = 0; j < d; j++) {
            z[j] = random.nextGaussian();
            norm += z[j] * z[j];
          }
          double exactSquared = 0;
          for (int j = 0; j < d; j++) {
            delta[j] = (float) (z[j] / Math.sqrt(norm) * sigma * r);
            exactSquared += (double) delta[j] * delta[j];
          }
          double expected = Math.exp(-exactSquared / (2 * sigma * sigma));
          float[] features = new float[m];
          projection.project(delta, 0, 1, 0, m, features, 0);
          double mean = 0;
          double unscaledSigma = 0;
          double noSqrtP = 0;
          for (float v : features) {
            mean += Math.cos(v);
            unscaledSigma += Math.cos(v * sigma); // as if the 1/sigma were forgotten
            noSqrtP += Math.cos(v / 4); // as if the sqrt(p) = 4 factor were forgotten
          }
          mean /= m;
          unscaledSigma /= m;
          noSqrtP /= m;
          String where = name + " r=" + r + " pair " + pair;
          assertEquals(expected, mean, t, where);
          assertTrue(Math.abs(unscaledSigma - expected) > t, where + " power sigma");
          assertTrue(Math.abs(noSqrtP - expected) > t, where + " power sqrt(p)");
        }
      }
    }
  }

  // ---- (f) error paths

  @Test
  void rejectsBadParameters() {
    for (String name : NAMES) {
      for (double sigma : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> create(name, 1, sigma, 4, 4));
        assertTrue(e.getMessage().contains("sigma is " + sigma), e.getMessage());
      }
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> create(name, 1, 1, 0, 4));
      assertTrue(e.getMessage().contains("d is 0"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> create(name, 1, 1, 4, 0));
      assertTrue(e.getMessage().contains("m is 0"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> create(name, 1, 1, 4, -3));
      assertTrue(e.getMessage().contains("m is -3"), e.getMessage());
    }
  }

  @Test
  void rejectsBadProjectArguments() {
    for (String name : NAMES) {
      Projection projection = create(name, 1, 1, 5, 20);
      float[] rows = new float[10];
      float[] out = new float[40];
      projection.project(rows, 0, 2, 0, 20, out, 0); // fits exactly
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, 1, 2, 0, 20, out, 0));
      assertTrue(e.getMessage().contains("rows has length 10"), e.getMessage());
      assertTrue(e.getMessage().contains("offset 1"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, 0, 3, 0, 1, out, 0));
      assertTrue(e.getMessage().contains("3 rows of d = 5"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, 0, 2, 0, 20, out, 1));
      assertTrue(e.getMessage().contains("out has length 40"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, 0, 1, 15, 6, out, 0));
      assertTrue(e.getMessage().contains("[15, 15 + 6)"), e.getMessage());
      assertTrue(e.getMessage().contains("m = 20"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, 0, 1, -1, 2, out, 0));
      assertTrue(e.getMessage().contains("[-1, -1 + 2)"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, 0, 1, 0, -2, out, 0));
      assertTrue(e.getMessage().contains("0 + -2"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, 0, -1, 0, 2, out, 0));
      assertTrue(e.getMessage().contains("n is -1"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(null, 0, 1, 0, 2, out, 0));
      assertTrue(e.getMessage().contains("rows is null"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, 0, 1, 0, 2, null, 0));
      assertTrue(e.getMessage().contains("out is null"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> projection.project(rows, -1, 1, 0, 2, out, 0));
      assertTrue(e.getMessage().contains("offset -1"), e.getMessage());
      assertFalse(projection.toString().isEmpty());
    }
  }
}
