package org.lprff.vector.train;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.stream.FeatureRows;
import org.lprff.vector.train.model.LinearModel;

/** Synthetic problems and double-precision references for the training tests. */
public final class TrainData {

  private TrainData() {}

  /** n x d standard normal inputs. */
  public static float[] gaussian(int n, int d, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] x = new float[n * d];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) random.nextGaussian();
    }
    return x;
  }

  /** A smooth nonlinear target of the first inputs plus N(0, noise^2). */
  public static float[] smoothTargets(float[] x, int n, int d, double noise, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] t = new float[n];
    for (int r = 0; r < n; r++) {
      double x0 = x[r * d];
      double x1 = x[r * d + 1 % d];
      t[r] = (float) (Math.sin(1.5 * x0) + 0.5 * x1 * x1 - 0.3 * x0 * x1 + 1.0
          + noise * random.nextGaussian());
    }
    return t;
  }

  /** A Gaussian-kernel spec with a dense projection and stochastic rounding. */
  public static FeaturizerSpec spec(int d, int m, int bits, double sigma, long seed) {
    return new FeaturizerSpec(
        new KernelFunction.Gaussian(sigma), d, m, bits, "dense", seed, Quantizer.STOCHASTIC);
  }

  /**
   * The draw-0 features of n rows (ids 0..n-1) in native memory (the products run slowly on
   * int/float vector loads from byte[] heap segments).
   */
  public static FeatureRows featurize(FeaturizerSpec spec, float[] x, int n) {
    Featurizer f = Featurizer.of(spec);
    MemorySegment out = Arena.ofAuto().allocate(Math.max(1L, (long) n * f.rowBytes()), 64);
    f.featurize(x, n, 0, out, 0, 0);
    return spec.isFloat()
        ? FeatureRows.float32(out, 0, n, spec.features())
        : FeatureRows.of(new PackedRows(out, 0, n, spec.features(), spec.scale()));
  }

  /** All rows decoded to double, n x m row-major. */
  public static double[] decode(FeatureRows z) {
    int n = z.rows();
    int m = z.features();
    double[] out = new double[n * m];
    float[] row = new float[m];
    for (int r = 0; r < n; r++) {
      z.decode(r, row, 0);
      for (int i = 0; i < m; i++) {
        out[r * m + i] = row[i];
      }
    }
    return out;
  }

  /** Scores of a model on decoded rows, in double: n x c. */
  public static double[] scores(double[] z, int n, int m, LinearModel model) {
    int c = model.outputs();
    double[] y = new double[n * c];
    for (int r = 0; r < n; r++) {
      for (int j = 0; j < c; j++) {
        double s = model.bias(j);
        for (int i = 0; i < m; i++) {
          s += z[r * m + i] * model.weight(i, j);
        }
        y[r * c + j] = s;
      }
    }
    return y;
  }

  /** J = (1/2n) sum (y - t)^2 + (lambda/2) ||W||^2, all in double. */
  public static double ridgeObjective(
      double[] z, int n, int m, float[] t, LinearModel model, double lambda) {
    double[] y = scores(z, n, m, model);
    double sum = 0;
    for (int r = 0; r < n; r++) {
      double e = y[r] - t[r];
      sum += e * e;
    }
    return sum / (2.0 * n) + lambda / 2 * model.squaredNorm();
  }

  /**
   * {@code run} on the calling thread alone (executor null) and with 3 helper threads: the two
   * results, for tests that the bits do not depend on the thread count.
   */
  public static <T> List<T> oneAndFourThreads(Function<Executor, T> run) {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      return List.of(run.apply(null), run.apply(pool));
    } finally {
      pool.shutdownNow();
    }
  }
}
