package org.lprff.vector.kernel;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.lprff.vector.random.RandomParameters;

/**
 * A shift-invariant kernel k(x, y) = k(x - y): its exact value, and the random draws of a random
 * Fourier feature map {@code z_i(x) = sqrt(2/m) cos(w_i . x + a_i)} with {@code w_i} from its
 * spectral density (so {@code E[cos(w . (x - y))] = k(x, y)}) and {@code a_i} uniform.
 *
 * <p>Frequencies and phases are pure functions of the seed ({@link RandomParameters}): W uses
 * stream {@link RandomParameters#STREAM_FREQUENCIES} at index {@code i * d + j}, the phases stream
 * {@link RandomParameters#STREAM_PHASES} at index i, the Matérn chi-squared scale stream {@link
 * RandomParameters#STREAM_CHI_SQUARED} at index i. Values are computed in double and rounded once
 * to float. Implementations are immutable records, thread-safe.
 *
 * <p>Parameters round-trip through a {@code Map<String, String>} ({@link #toMap}, {@link
 * #fromMap}): {@code kernel=gaussian|laplacian} with {@code sigma}, or {@code kernel=matern} with
 * {@code nu} (0.5, 1.5 or 2.5) and {@code length_scale}; numbers are written by {@link
 * Double#toString}, which parses back to the same double.
 */
public sealed interface KernelFunction
    permits KernelFunction.Gaussian, KernelFunction.Laplacian, KernelFunction.Matern {

  /** The name stored under the {@code kernel} key. */
  String name();

  /** The parameters, {@code kernel} first; {@link #fromMap} restores an equal kernel. */
  Map<String, String> toMap();

  /** True only if the spectral density is an isotropic Gaussian (needed by circulant, Fastfood, ...). */
  boolean supportsStructuredProjections();

  /**
   * The length scale: sigma of the gaussian and laplacian kernels, {@code length_scale} of the
   * matern kernel. Distances enter every kernel divided by it; it is what a bandwidth search
   * chooses.
   */
  double lengthScale();

  /** This kernel with another length scale (its other parameters kept). */
  KernelFunction withLengthScale(double newLengthScale);

  /**
   * k as a function of the difference vector, x[xOff .. xOff + d) - y[yOff .. yOff + d), computed
   * in double. NaN inputs give NaN (values are not scanned).
   */
  double value(float[] x, int xOff, float[] y, int yOff, int d);

  /** k(x, y) for vectors of equal length >= 1. */
  default double value(float[] x, float[] y) {
    if (x == null || y == null) {
      throw new IllegalArgumentException((x == null ? "x" : "y") + " is null");
    }
    if (x.length != y.length) {
      throw new IllegalArgumentException(
          "x has length " + x.length + " and y has length " + y.length + ", expected equal lengths");
    }
    return value(x, 0, y, 0, x.length);
  }

  /**
   * Writes the m x d frequency matrix W row-major into w[0 .. m*d): row i is w_i.
   *
   * @throws IllegalArgumentException if d < 1, m < 1, m*d exceeds the int range, or w is null or
   *     shorter than m*d
   */
  void sampleFrequencies(long seed, int d, int m, float[] w);

  /**
   * Writes m phases, uniform in [0, 2 pi), into a[0 .. m): {@code (float) (2 pi u)} with u =
   * {@link RandomParameters#uniformOpen} at stream {@link RandomParameters#STREAM_PHASES}, index
   * i, the same for every kernel. ({@code (float) 2 pi} exceeds 2 pi; a phase rounding up to it
   * becomes the float just below.)
   */
  default void samplePhases(long seed, int m, float[] a) {
    checkCount("m", m);
    checkArray("a", a, m);
    double[] u = new double[m];
    RandomParameters.fillUniformOpen(seed, RandomParameters.STREAM_PHASES, 0, u, 0, m);
    for (int i = 0; i < m; i++) {
      a[i] = RandomParameters.phaseFromUniform(u[i]);
    }
  }

  /** Restores a kernel from {@link #toMap}'s form; unknown keys are rejected (typos). */
  static KernelFunction fromMap(Map<String, String> parameters) {
    if (parameters == null) {
      throw new IllegalArgumentException("parameters is null");
    }
    String kernel = parameters.get("kernel");
    if (kernel == null) {
      throw new IllegalArgumentException(
          "parameters " + parameters + " have no 'kernel' key; expected gaussian, laplacian or matern");
    }
    return switch (kernel) {
      case "gaussian" -> {
        checkKeys(parameters, Set.of("kernel", "sigma"));
        yield new Gaussian(number(parameters, "sigma"));
      }
      case "laplacian" -> {
        checkKeys(parameters, Set.of("kernel", "sigma"));
        yield new Laplacian(number(parameters, "sigma"));
      }
      case "matern" -> {
        checkKeys(parameters, Set.of("kernel", "nu", "length_scale"));
        yield new Matern(number(parameters, "nu"), number(parameters, "length_scale"));
      }
      default -> throw new IllegalArgumentException(
          "kernel is '" + kernel + "', supported kernels are gaussian, laplacian, matern");
    };
  }

  /** Gaussian (RBF) kernel exp(-||x-y||^2 / (2 sigma^2)); w ~ N(0, sigma^-2 I). */
  record Gaussian(double sigma) implements KernelFunction {
    public Gaussian {
      checkScale("sigma", sigma);
    }

    @Override
    public double lengthScale() {
      return sigma;
    }

    @Override
    public Gaussian withLengthScale(double newLengthScale) {
      return new Gaussian(newLengthScale);
    }

    @Override
    public String name() {
      return "gaussian";
    }

    @Override
    public Map<String, String> toMap() {
      return map("kernel", name(), "sigma", Double.toString(sigma));
    }

    @Override
    public boolean supportsStructuredProjections() {
      return true;
    }

    @Override
    public double value(float[] x, int xOff, float[] y, int yOff, int d) {
      checkPair(x, xOff, y, yOff, d);
      double squared = 0;
      for (int j = 0; j < d; j++) {
        double diff = (double) x[xOff + j] - y[yOff + j];
        squared += diff * diff;
      }
      return Math.exp(-squared / (2 * sigma * sigma));
    }

    @Override
    public void sampleFrequencies(long seed, int d, int m, float[] w) {
      int n = checkFrequencies(d, m, w);
      double[] z = new double[n];
      RandomParameters.fillNormalDouble(seed, RandomParameters.STREAM_FREQUENCIES, 0, z, 0, n);
      divide(z, sigma, w);
    }
  }

  /** Laplacian kernel exp(-||x-y||_1 / sigma); each w_j ~ Cauchy(0, 1/sigma) independently. */
  record Laplacian(double sigma) implements KernelFunction {
    public Laplacian {
      checkScale("sigma", sigma);
    }

    @Override
    public double lengthScale() {
      return sigma;
    }

    @Override
    public Laplacian withLengthScale(double newLengthScale) {
      return new Laplacian(newLengthScale);
    }

    @Override
    public String name() {
      return "laplacian";
    }

    @Override
    public Map<String, String> toMap() {
      return map("kernel", name(), "sigma", Double.toString(sigma));
    }

    @Override
    public boolean supportsStructuredProjections() {
      return false;
    }

    @Override
    public double value(float[] x, int xOff, float[] y, int yOff, int d) {
      checkPair(x, xOff, y, yOff, d);
      double l1 = 0;
      for (int j = 0; j < d; j++) {
        l1 += Math.abs((double) x[xOff + j] - y[yOff + j]);
      }
      return Math.exp(-l1 / sigma);
    }

    @Override
    public void sampleFrequencies(long seed, int d, int m, float[] w) {
      int n = checkFrequencies(d, m, w);
      double[] c = new double[n];
      RandomParameters.fillCauchyDouble(seed, RandomParameters.STREAM_FREQUENCIES, 0, c, 0, n);
      divide(c, sigma, w);
    }
  }

  /**
   * Matérn kernel with smoothness nu in {1/2, 3/2, 5/2} and length scale l, r = ||x-y||_2: nu =
   * 1/2: exp(-r/l); 3/2: (1 + sqrt3 r/l) exp(-sqrt3 r/l); 5/2: (1 + sqrt5 r/l + 5r^2/(3l^2))
   * exp(-sqrt5 r/l). Its spectral density is the multivariate Student t with 2 nu degrees of
   * freedom and scale 1/l: w_i = g sqrt(2 nu / c_i) / l, g ~ N(0, I_d), c_i ~ chi-squared(2 nu),
   * one c_i per feature shared by its d coordinates.
   */
  record Matern(double nu, double lengthScale) implements KernelFunction {
    public Matern {
      if (nu != 0.5 && nu != 1.5 && nu != 2.5) {
        throw new IllegalArgumentException(
            "Matern nu is " + nu + ", supported values are 0.5, 1.5, 2.5");
      }
      checkScale("length_scale", lengthScale);
    }

    @Override
    public Matern withLengthScale(double newLengthScale) {
      return new Matern(nu, newLengthScale);
    }

    @Override
    public String name() {
      return "matern";
    }

    @Override
    public Map<String, String> toMap() {
      return map(
          "kernel", name(), "nu", Double.toString(nu), "length_scale", Double.toString(lengthScale));
    }

    @Override
    public boolean supportsStructuredProjections() {
      return false;
    }

    @Override
    public double value(float[] x, int xOff, float[] y, int yOff, int d) {
      checkPair(x, xOff, y, yOff, d);
      double squared = 0;
      for (int j = 0; j < d; j++) {
        double diff = (double) x[xOff + j] - y[yOff + j];
        squared += diff * diff;
      }
      double r = Math.sqrt(squared) / lengthScale;
      if (nu == 0.5) {
        return Math.exp(-r);
      }
      if (nu == 1.5) {
        double t = Math.sqrt(3) * r;
        return (1 + t) * Math.exp(-t);
      }
      double t = Math.sqrt(5) * r;
      return (1 + t + t * t / 3) * Math.exp(-t);
    }

    @Override
    public void sampleFrequencies(long seed, int d, int m, float[] w) {
      int n = checkFrequencies(d, m, w);
      int dof = (int) (2 * nu);
      double[] g = new double[n];
      double[] c = new double[m];
      RandomParameters.fillNormalDouble(seed, RandomParameters.STREAM_FREQUENCIES, 0, g, 0, n);
      RandomParameters.fillChiSquaredDouble(
          seed, RandomParameters.STREAM_CHI_SQUARED, 0, dof, c, 0, m);
      for (int i = 0; i < m; i++) {
        double scale = Math.sqrt(2 * nu / c[i]) / lengthScale;
        for (int j = 0; j < d; j++) {
          w[i * d + j] = (float) (g[i * d + j] * scale);
        }
      }
    }
  }

  // ---- shared helpers (interface members are public; these are not part of the documented API
  // beyond what their names say).

  /** w[k] = draws[k] / sigma, rounded once to float: the scaled frequencies of a unit draw. */
  private static void divide(double[] draws, double sigma, float[] w) {
    for (int k = 0; k < draws.length; k++) {
      w[k] = (float) (draws[k] / sigma);
    }
  }

  private static void checkScale(String name, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " is " + value + ", expected finite and > 0");
    }
  }

  private static void checkCount(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " is " + value + ", expected >= 1");
    }
  }

  private static void checkArray(String name, float[] array, long needed) {
    if (array == null) {
      throw new IllegalArgumentException(name + " is null");
    }
    if (array.length < needed) {
      throw new IllegalArgumentException(
          name + " has length " + array.length + ", expected at least " + needed);
    }
  }

  private static int checkFrequencies(int d, int m, float[] w) {
    checkCount("d", d);
    checkCount("m", m);
    long n = (long) m * d;
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "m " + m + " x d " + d + " = " + n + " exceeds " + Integer.MAX_VALUE);
    }
    checkArray("w", w, n);
    return (int) n;
  }

  private static void checkPair(float[] x, int xOff, float[] y, int yOff, int d) {
    checkCount("d", d);
    if (x == null || y == null) {
      throw new IllegalArgumentException((x == null ? "x" : "y") + " is null");
    }
    if (xOff < 0 || xOff + (long) d > x.length) {
      throw new IllegalArgumentException(
          "x has length " + x.length + ", cannot hold " + d + " values from offset " + xOff);
    }
    if (yOff < 0 || yOff + (long) d > y.length) {
      throw new IllegalArgumentException(
          "y has length " + y.length + ", cannot hold " + d + " values from offset " + yOff);
    }
  }

  private static Map<String, String> map(String... keysAndValues) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int k = 0; k < keysAndValues.length; k += 2) {
      map.put(keysAndValues[k], keysAndValues[k + 1]);
    }
    return Collections.unmodifiableMap(map);
  }

  private static void checkKeys(Map<String, String> parameters, Set<String> expected) {
    for (String key : parameters.keySet()) {
      if (!expected.contains(key)) {
        throw new IllegalArgumentException(
            "unexpected key '" + key + "' for kernel " + parameters.get("kernel")
                + ", expected the keys " + new TreeSet<>(expected));
      }
    }
  }

  private static double number(Map<String, String> parameters, String key) {
    String text = parameters.get(key);
    if (text == null) {
      throw new IllegalArgumentException(
          "kernel " + parameters.get("kernel") + " needs the key '" + key + "', got " + parameters);
    }
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " is '" + text + "', not a number", e);
    }
  }
}
