package org.lprff.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.stream.InMemoryBatches;
import org.lprff.vector.stream.Partitions;
import org.lprff.vector.train.fullbatch.ClosedFormRidge;
import org.lprff.vector.train.fullbatch.KitchenSinks;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.model.StopReason;
import org.lprff.vector.train.model.TrainingResult;

/**
 * Issue 18: {@link KitchenSinks}, Rahimi and Recht's fit of {@code sum_i alpha_i cos(w_i.x + b_i)}
 * under {@code |alpha_i| <= C / m}, on lprff's features {@code z_i = sqrt(2/m) cos(w_i.x + b_i)}:
 * every weight within {@code C / sqrt(2 m)}, and the constrained optimum of each loss, held
 * against references computed in double by other algorithms on small generated problems (d = 2
 * inputs, random Fourier features of a unit Gaussian kernel as float32, C log-uniform in [0.01,
 * 100] so that the bound is active on some weights, none, or all; the intercept free).
 *
 * <ul>
 *   <li><b>Squared loss</b> ({@value #SQUARED_EXAMPLES} problems, m in 1..6, n in m + 4..40),
 *       on both of the solver's paths: the normal equations in memory (the default for m <= {@link
 *       ClosedFormRidge#PREFERRED_MAX_FEATURES}) and FISTA over streaming passes ({@code
 *       gramFeatures(0)}): the exact optimum by enumerating the 3^m active sets (each weight
 *       free, at +B or at -B; the free weights and the intercept by least squares; the lowest
 *       feasible objective). The
 *       solver's objective, recomputed in double, is within 1e-6 relative of it plus the float32
 *       resolution {@code sqrt(2 J*) eps}, eps = 4 u (1 + C + |b|) the rounding of a score (u =
 *       2^-24; |z_i| <= sqrt(2/m) and |w_i| <= C / sqrt(2m) bound a score by C + |b|). For FISTA,
 *       problems whose flattest direction float32 scores cannot resolve ({@code 3 eps^2 / (2
 *       lambda_min)} above 1e-6 J*, lambda_min the Hessian's smallest eigenvalue by Jacobi
 *       rotations) are skipped and counted: 5 of 100; the normal equations are solved in double
 *       and meet the bound on all 100. Measured: the largest gap 0.016 of its allowance on both.
 *   <li><b>Logistic loss</b> ({@value #LOGISTIC_EXAMPLES} problems, m in 1..4, n in 8..40): the
 *       KKT conditions (the projected gradient, in double, below 1e-3 of the gradient at zero) and
 *       the objective within 1e-6 (absolute: it is ~0.3-0.7) of a slow reference: projected
 *       gradient descent in double with the fixed step 1 / L, L = mean(|z_r|^2 + 1) / 4 (a
 *       Lipschitz constant of the gradient), run to a step below 1e-13 or 200,000 steps.
 *       Measured: the objectives 7.6e-9 apart at most.
 *   <li><b>Hinge loss</b> ({@value #HINGE_EXAMPLES} problems, m in 1..2, n in 6..14, labels
 *       20% flipped): the exact LP optimum P* by enumerating the vertices of the arrangement of
 *       the 2m box planes and the n margin planes {@code y_r (z_r w + b) = 1} in (w, b) (the
 *       objective is linear on each cell and no cell holds a line, so a vertex is optimal). The
 *       solver (gap tolerance 1e-5) is within 1e-5 P* + 8 eps sqrt(2 / 2) of it, the second term
 *       covering the narrowest smoothing the solver uses (its mu / 2 <= 2e-6 (1 + C + |b|)) and
 *       the scores' rounding; its certified dual bound is at most P* + that. Measured: the
 *       largest gap 0.42 of its allowance.
 * </ul>
 *
 * Every problem also checks that no weight exceeds C / sqrt(2 m). 1.5-2.5 s in all. Tried on
 * wrong implementations: with no projection all three fail at once (a weight beyond the bound);
 * with the bound mapped as C / m the first failure is at m = 1 (a weight beyond C / sqrt(2));
 * with C / m only for m >= 3 (a bound tighter than the class's) the squared loss fails on the
 * objective (0.2866 against the optimum 0.2520) and the logistic loss on the KKT conditions.
 */
class KitchenSinksProperties {

  static final int SQUARED_EXAMPLES = 100;
  static final int LOGISTIC_EXAMPLES = 40;
  static final int HINGE_EXAMPLES = 60;

  /** A generated problem: n rows of m float32 features, float targets and 0/1 classes, and C. */
  record Problem(int n, int m, float[] z, float[] targets, int[] classes, double c) {

    double bound() {
      return c / Math.sqrt(2.0 * m);
    }

    static Problem generate(long seed, int maxFeatures, int minRows, int maxRows, double flip) {
      SplittableRandom random = new SplittableRandom(seed);
      int m = 1 + random.nextInt(maxFeatures);
      int n = Math.max(minRows, m + 4) + random.nextInt(maxRows - Math.max(minRows, m + 4) + 1);
      double[][] w = new double[m][2];
      double[] phase = new double[m];
      for (int i = 0; i < m; i++) {
        w[i][0] = gaussian(random);
        w[i][1] = gaussian(random);
        phase[i] = 2 * Math.PI * random.nextDouble();
      }
      float[] z = new float[n * m];
      float[] t = new float[n];
      int[] classes = new int[n];
      for (int r = 0; r < n; r++) {
        double x0 = gaussian(random);
        double x1 = gaussian(random);
        for (int i = 0; i < m; i++) {
          z[r * m + i] = (float) (Math.sqrt(2.0 / m) * Math.cos(w[i][0] * x0 + w[i][1] * x1
              + phase[i]));
        }
        double f = Math.sin(2 * x0) + 0.5 * x1;
        t[r] = (float) (f + 0.1 * gaussian(random));
        classes[r] = (f > 0) != (random.nextDouble() < flip) ? 1 : 0;
      }
      // Both classes present: flip the first row's class if one is missing.
      int ones = 0;
      for (int k : classes) {
        ones += k;
      }
      if (ones == 0 || ones == n) {
        classes[0] = 1 - classes[0];
      }
      double c = Math.pow(10, -2 + 4 * random.nextDouble());
      return new Problem(n, m, z, t, classes, c);
    }

    double score(double[] v, int r) {
      double s = v[m];
      for (int i = 0; i < m; i++) {
        s += z[r * m + i] * v[i];
      }
      return s;
    }

    double squared(double[] v) {
      double sum = 0;
      for (int r = 0; r < n; r++) {
        double e = score(v, r) - targets[r];
        sum += e * e;
      }
      return sum / (2.0 * n);
    }

    double logistic(double[] v, double[] gradient) {
      double sum = 0;
      if (gradient != null) {
        java.util.Arrays.fill(gradient, 0);
      }
      for (int r = 0; r < n; r++) {
        double s = score(v, r);
        int t = classes[r];
        sum += Math.max(s, 0) - t * s + Math.log1p(Math.exp(-Math.abs(s)));
        if (gradient != null) {
          double d = (1 / (1 + Math.exp(-s)) - t) / n;
          for (int i = 0; i < m; i++) {
            gradient[i] += d * z[r * m + i];
          }
          gradient[m] += d;
        }
      }
      return sum / n;
    }

    double hinge(double[] v) {
      double sum = 0;
      for (int r = 0; r < n; r++) {
        sum += Math.max(0, 1 - (2 * classes[r] - 1) * score(v, r));
      }
      return sum / n;
    }

    double[] squaredGradient(double[] v) {
      double[] g = new double[m + 1];
      for (int r = 0; r < n; r++) {
        double e = (score(v, r) - targets[r]) / n;
        for (int i = 0; i < m; i++) {
          g[i] += e * z[r * m + i];
        }
        g[m] += e;
      }
      return g;
    }
  }

  static double gaussian(SplittableRandom random) {
    double u = random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log1p(-u)) * Math.cos(2 * Math.PI * v);
  }

  /** The last hinge solve's certificate: its mean hinge loss and dual bound. */
  static KitchenSinks.Solution lastSolution;

  /** The solver's model on the problem, as (w, b) in double (the squared loss on its Gram). */
  static double[] solve(Problem p, Task task) {
    return solve(p, task, ClosedFormRidge.PREFERRED_MAX_FEATURES);
  }

  /**
   * The solver's model on the problem, as (w, b) in double; the squared loss on the normal
   * equations when m <= {@code gramFeatures}, else by FISTA over passes (0: always).
   */
  static double[] solve(Problem p, Task task, int gramFeatures) {
    FeatureRows rows = FeatureRows.float32(p.z(), 0, p.n(), p.m());
    InMemoryBatches source = task == Task.REGRESSION ? InMemoryBatches.of(rows, p.targets())
        : InMemoryBatches.of(rows, p.classes());
    KitchenSinks.Solution solution = KitchenSinks.builder(task, p.m()).alphaBound(p.c())
        .tolerance(1e-7).gapTolerance(1e-5).maxIterations(50_000).executor(null)
        .gramFeatures(gramFeatures).build()
        .solve(Partitions.of(source.ordered()), LinearModel.zeros(p.m(), 1));
    lastSolution = solution;
    TrainingResult result = solution.result();
    assertTrue(result.stopReason() == StopReason.CONVERGED, result.message());
    lastMessage = result.message();
    LinearModel model = result.model();
    double[] v = new double[p.m() + 1];
    for (int i = 0; i < p.m(); i++) {
      v[i] = model.weight(i, 0);
      assertTrue(Math.abs(v[i]) <= p.bound(), "weight " + i + " is " + v[i] + ", beyond C / sqrt(2 m) = "
          + p.bound() + " (C " + p.c() + ", m " + p.m() + ")");
    }
    v[p.m()] = model.bias(0);
    return v;
  }

  /** The last solve's stopping message, for failure messages. */
  static String lastMessage;

  static double worstSquared;
  static int skippedSquared;
  static double worstStreamed;
  static int skippedStreamed;
  static double worstLogistic;
  static double worstHinge;

  /** The squared loss on the normal equations in memory (m <= 2048, the default). */
  @Test
  void squaredLossReachesTheEnumeratedOptimum() {
    squaredLoss(ClosedFormRidge.PREFERRED_MAX_FEATURES);
    Report.line("squared (normal equations): skipped (ill-conditioned) " + skippedSquared);
    Report.line("squared (normal equations): largest gap to the enumerated optimum, in units of"
        + " its allowance " + worstSquared);
  }

  /** The squared loss by FISTA over streaming passes (gramFeatures 0). */
  @Test
  void squaredLossByFistaReachesTheEnumeratedOptimum() {
    double worst = worstSquared;
    int skipped = skippedSquared;
    worstSquared = 0;
    skippedSquared = 0;
    squaredLoss(0);
    worstStreamed = worstSquared;
    skippedStreamed = skippedSquared;
    worstSquared = worst;
    skippedSquared = skipped;
    Report.line("squared (FISTA): skipped (ill-conditioned) " + skippedStreamed);
    Report.line("squared (FISTA): largest gap to the enumerated optimum, in units of its"
        + " allowance " + worstStreamed);
  }

  private static void squaredLoss(int gramFeatures) {
    qt().withFixedSeed(18L)
        .withExamples(SQUARED_EXAMPLES)
        .forAll(longs().all())
        .checkAssert(seed -> {
          Problem p = Problem.generate(seed, 6, 0, 40, 0);
          double best = exactBoundedLeastSquares(p);
          double[] v = solve(p, Task.REGRESSION, gramFeatures);
          double got = p.squared(v);
          double eps = scoreRounding(p, v);
          double flat = 3 * eps * eps / (2 * smallestEigenvalue(p));
          if (gramFeatures == 0 && flat > 1e-6 * best) {
            skippedSquared++; // float32 scores cannot resolve the flattest direction
            return;
          }
          double resolution = resolution(p, v, best);
          worstSquared = Math.max(worstSquared, (got - best) / (1e-6 * best + resolution));
          assertTrue(got - best <= 1e-6 * best + resolution, "J " + got + " vs the optimum "
              + best + ", float32 resolution " + resolution
              + " (m " + p.m() + ", n " + p.n() + ", C " + p.c() + "): " + lastMessage);
          assertTrue(gramFeatures == 0 ? lastMessage.contains("gradient mapping")
              || lastMessage.contains("rounding") : lastMessage.contains("Newton"),
              "the path of gramFeatures " + gramFeatures + ": " + lastMessage);
        });
  }

  @Test
  void logisticLossMeetsKktAndTheSlowReference() {
    qt().withFixedSeed(19L)
        .withExamples(LOGISTIC_EXAMPLES)
        .forAll(longs().all())
        .checkAssert(seed -> {
          Problem p = Problem.generate(seed, 4, 8, 40, 0.15);
          double[] v = solve(p, Task.BINARY);
          int m = p.m();
          double[] g = new double[m + 1];
          double got = p.logistic(v, g);
          double[] g0 = new double[m + 1];
          p.logistic(new double[m + 1], g0);
          double violation = projectedGradient(v, g, m, floatBelow(p.bound()));
          double scale = maxAbs(g0);
          assertTrue(violation <= 1e-3 * scale, "projected gradient " + violation + ", gradient"
              + " at zero " + scale + " (m " + m + ", n " + p.n() + ", C " + p.c() + "): "
              + lastMessage);
          double reference = p.logistic(slowLogistic(p), null);
          worstLogistic = Math.max(worstLogistic, Math.abs(got - reference));
          assertEquals(reference, got, 1e-6, "m " + m + ", n " + p.n() + ", C " + p.c());
        });
    Report.line("logistic: largest |J - J_ref| " + worstLogistic);
  }

  @Test
  void hingeLossReachesTheLpOptimum() {
    qt().withFixedSeed(20L)
        .withExamples(HINGE_EXAMPLES)
        .forAll(longs().all())
        .checkAssert(seed -> {
          Problem p = Problem.generate(seed, 2, 6, 14, 0.2);
          double best = exactHinge(p);
          double[] v = solve(p, Task.BINARY_HINGE);
          double got = p.hinge(v);
          double resolution = 8 * resolution(p, v, 0.5);
          worstHinge = Math.max(worstHinge, (got - best) / (1e-5 * best + resolution));
          assertTrue(got >= best - resolution, "hinge " + got + " below the LP optimum " + best);
          assertTrue(lastSolution.dualBound() <= best + resolution, "the dual bound "
              + lastSolution.dualBound() + " is above the LP optimum " + best);
          assertTrue(got - best <= 1e-5 * best + resolution, "hinge " + got + " vs the LP"
              + " optimum " + best + ", float32 resolution " + resolution + " (m " + p.m()
              + ", n " + p.n() + ", C " + p.c() + "): " + lastMessage);
        });
    Report.line("hinge: largest gap to the LP optimum, in units of its allowance " + worstHinge);
  }

  /**
   * What float32 scores leave unresolved in a mean loss of slope at most sqrt(2 J) (squared:
   * the rms residual; hinge: 1, J = 1/2): scores are float32 sums of m + 1 terms at most C + |b|
   * in size (|z_i| <= sqrt(2/m) and |w_i| <= C / sqrt(2m)), rounded within 4 u (1 + C + |b|), u =
   * 2^-24, so the solver cannot see objective differences below sqrt(2 J) times that.
   */
  static double resolution(Problem p, double[] v, double loss) {
    return Math.sqrt(2 * loss) * scoreRounding(p, v);
  }

  /** The rounding of a float32 score: 4 u (1 + C + |b|), u = 2^-24. */
  static double scoreRounding(Problem p, double[] v) {
    return 4 * 0x1p-24 * (1 + p.c() + Math.abs(v[p.m()]));
  }

  /**
   * The smallest eigenvalue of the squared loss's Hessian [Z 1]^T [Z 1] / n, by cyclic Jacobi
   * rotations: along its eigenvector a gradient error eps leaves an objective excess of about
   * eps^2 / (2 lambda).
   */
  static double smallestEigenvalue(Problem p) {
    int m = p.m();
    int k = m + 1;
    double[][] h = new double[k][k];
    for (int r = 0; r < p.n(); r++) {
      for (int i = 0; i < k; i++) {
        double zi = i == m ? 1 : p.z()[r * m + i];
        for (int j = 0; j < k; j++) {
          h[i][j] += zi * (j == m ? 1 : p.z()[r * m + j]) / p.n();
        }
      }
    }
    for (int sweep = 0; sweep < 100; sweep++) {
      double off = 0;
      for (int i = 0; i < k; i++) {
        for (int j = i + 1; j < k; j++) {
          off += h[i][j] * h[i][j];
        }
      }
      if (off < 1e-30) {
        break;
      }
      for (int a = 0; a < k; a++) {
        for (int b = a + 1; b < k; b++) {
          if (h[a][b] == 0) {
            continue;
          }
          double theta = (h[b][b] - h[a][a]) / (2 * h[a][b]);
          double t = Math.signum(theta) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
          if (theta == 0) {
            t = 1;
          }
          double c = 1 / Math.sqrt(t * t + 1);
          double s = t * c;
          for (int j = 0; j < k; j++) { // rotate columns a, b
            double x = h[j][a];
            double y = h[j][b];
            h[j][a] = c * x - s * y;
            h[j][b] = s * x + c * y;
          }
          for (int j = 0; j < k; j++) { // rotate rows a, b
            double x = h[a][j];
            double y = h[b][j];
            h[a][j] = c * x - s * y;
            h[b][j] = s * x + c * y;
          }
        }
      }
    }
    double min = Double.POSITIVE_INFINITY;
    for (int i = 0; i < k; i++) {
      min = Math.min(min, h[i][i]);
    }
    return min;
  }

  /**
   * The KKT violation: the largest |g| of a free weight or the intercept, and at a bound the
   * part of g that points outward (a weight at +B may only fall: g > 0 violates).
   */
  static double projectedGradient(double[] v, double[] g, int m, float floatBound) {
    double worst = Math.abs(g[m]);
    for (int i = 0; i < m; i++) {
      double part = v[i] >= floatBound ? Math.max(g[i], 0)
          : v[i] <= -floatBound ? Math.max(-g[i], 0) : Math.abs(g[i]);
      worst = Math.max(worst, part);
    }
    return worst;
  }

  /** The largest float at most v: the solver clamps its float32 weights there. */
  static float floatBelow(double v) {
    float f = (float) v;
    return f > v ? Math.nextDown(f) : f;
  }

  static double maxAbs(double[] a) {
    double max = 0;
    for (double x : a) {
      max = Math.max(max, Math.abs(x));
    }
    return max;
  }

  /** The lowest objective over the 3^m active sets whose least-squares point is feasible. */
  static double exactBoundedLeastSquares(Problem p) {
    int m = p.m();
    int n = p.n();
    double b = p.bound();
    double best = Double.POSITIVE_INFINITY;
    int sets = (int) Math.pow(3, m);
    for (int code = 0; code < sets; code++) {
      int[] state = new int[m]; // 0 free, 1 at +B, 2 at -B
      int free = 0;
      for (int i = 0, k = code; i < m; i++, k /= 3) {
        state[i] = k % 3;
        free += state[i] == 0 ? 1 : 0;
      }
      int[] columns = new int[free + 1];
      for (int i = 0, j = 0; i < m; i++) {
        if (state[i] == 0) {
          columns[j++] = i;
        }
      }
      columns[free] = m; // the intercept
      double[] residual = new double[n];
      for (int r = 0; r < n; r++) {
        double s = p.targets()[r];
        for (int i = 0; i < m; i++) {
          s -= state[i] == 1 ? b * p.z()[r * m + i] : state[i] == 2 ? -b * p.z()[r * m + i] : 0;
        }
        residual[r] = s;
      }
      int k = free + 1;
      double[][] a = new double[k][k + 1];
      for (int r = 0; r < n; r++) {
        for (int i = 0; i < k; i++) {
          double zi = columns[i] == m ? 1 : p.z()[r * m + columns[i]];
          for (int j = 0; j < k; j++) {
            a[i][j] += zi * (columns[j] == m ? 1 : p.z()[r * m + columns[j]]);
          }
          a[i][k] += zi * residual[r];
        }
      }
      double[] x = solveLinear(a);
      if (x == null) {
        continue;
      }
      double[] v = new double[m + 1];
      boolean feasible = true;
      for (int i = 0; i < m; i++) {
        v[i] = state[i] == 1 ? b : state[i] == 2 ? -b : 0;
      }
      for (int j = 0; j < k; j++) {
        v[columns[j]] = x[j];
        if (columns[j] < m && Math.abs(x[j]) > b) {
          feasible = false;
        }
      }
      if (feasible) {
        best = Math.min(best, p.squared(v));
      }
    }
    return best;
  }

  /** Projected gradient descent in double at the fixed step 1 / L. */
  static double[] slowLogistic(Problem p) {
    int m = p.m();
    double lipschitz = 0;
    for (int r = 0; r < p.n(); r++) {
      double norm = 1;
      for (int i = 0; i < m; i++) {
        norm += (double) p.z()[r * m + i] * p.z()[r * m + i];
      }
      lipschitz += norm / p.n();
    }
    lipschitz /= 4;
    double[] v = new double[m + 1];
    double[] g = new double[m + 1];
    for (int step = 0; step < 200_000; step++) {
      p.logistic(v, g);
      double moved = 0;
      for (int i = 0; i <= m; i++) {
        double next = v[i] - g[i] / lipschitz;
        if (i < m) {
          next = Math.clamp(next, -p.bound(), p.bound());
        }
        moved = Math.max(moved, Math.abs(next - v[i]));
        v[i] = next;
      }
      if (moved < 1e-13) {
        break;
      }
    }
    return v;
  }

  /**
   * The hinge's LP optimum: the lowest objective over the feasible vertices of the arrangement of
   * the planes w_i = +-B and y_r (z_r w + b) = 1 in the m + 1 unknowns (w, b).
   */
  static double exactHinge(Problem p) {
    int m = p.m();
    int k = m + 1;
    int planes = 2 * m + p.n();
    double[][] normal = new double[planes][k];
    double[] offset = new double[planes];
    for (int i = 0; i < m; i++) {
      normal[2 * i][i] = 1;
      offset[2 * i] = p.bound();
      normal[2 * i + 1][i] = 1;
      offset[2 * i + 1] = -p.bound();
    }
    for (int r = 0; r < p.n(); r++) {
      double y = 2 * p.classes()[r] - 1;
      for (int i = 0; i < m; i++) {
        normal[2 * m + r][i] = y * p.z()[r * m + i];
      }
      normal[2 * m + r][m] = y;
      offset[2 * m + r] = 1;
    }
    double best = Double.POSITIVE_INFINITY;
    int[] pick = new int[k];
    for (int i = 0; i < k; i++) {
      pick[i] = i;
    }
    while (true) {
      double[][] a = new double[k][k + 1];
      for (int i = 0; i < k; i++) {
        System.arraycopy(normal[pick[i]], 0, a[i], 0, k);
        a[i][k] = offset[pick[i]];
      }
      double[] v = solveLinear(a);
      if (v != null) {
        boolean feasible = true;
        for (int i = 0; i < m; i++) {
          if (Math.abs(v[i]) > p.bound() * (1 + 1e-12)) {
            feasible = false;
          }
          v[i] = Math.clamp(v[i], -p.bound(), p.bound());
        }
        if (feasible) {
          best = Math.min(best, p.hinge(v));
        }
      }
      // The next k-subset of the planes, in lexicographic order.
      int i = k - 1;
      while (i >= 0 && pick[i] == planes - k + i) {
        i--;
      }
      if (i < 0) {
        return best;
      }
      pick[i]++;
      for (int j = i + 1; j < k; j++) {
        pick[j] = pick[j - 1] + 1;
      }
    }
  }

  /**
   * Solves the k x k system of the augmented matrix a (k x (k + 1)) by Gaussian elimination with
   * partial pivoting; null when a pivot is below 1e-10 of the matrix's largest entry (singular).
   */
  static double[] solveLinear(double[][] a) {
    int k = a.length;
    double scale = 0;
    for (double[] row : a) {
      for (int j = 0; j < k; j++) {
        scale = Math.max(scale, Math.abs(row[j]));
      }
    }
    for (int col = 0; col < k; col++) {
      int pivot = col;
      for (int r = col + 1; r < k; r++) {
        if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
          pivot = r;
        }
      }
      if (!(Math.abs(a[pivot][col]) > 1e-10 * scale)) {
        return null;
      }
      double[] t = a[col];
      a[col] = a[pivot];
      a[pivot] = t;
      for (int r = col + 1; r < k; r++) {
        double f = a[r][col] / a[col][col];
        for (int j = col; j <= k; j++) {
          a[r][j] -= f * a[col][j];
        }
      }
    }
    double[] x = new double[k];
    for (int r = k - 1; r >= 0; r--) {
      double s = a[r][k];
      for (int j = r + 1; j < k; j++) {
        s -= a[r][j] * x[j];
      }
      x[r] = s / a[r][r];
    }
    return x;
  }
}
