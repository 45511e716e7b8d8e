package org.lprff.cli.options;

import java.util.Locale;
import java.util.function.DoubleSupplier;
import org.lprff.arrow.model.Bandwidth;
import org.lprff.vector.kernel.KernelFunction;
import picocli.CommandLine.Option;

/**
 * The kernel options, {@code --kernel} and its parameters: a mixin of {@code featurize} (through
 * {@link SpecOptions}) and {@code compare}. Every field is null unless given, so that with {@code
 * --like} an option given explicitly can be checked against the file's kernel.
 */
public final class KernelOptions {

  static final String DEFAULT_KERNEL = "gaussian";

  @Option(
      names = "--kernel",
      paramLabel = "NAME",
      description = "gaussian, laplacian or matern (default " + DEFAULT_KERNEL + ").")
  public String name;

  @Option(
      names = "--sigma",
      paramLabel = "S",
      description = "Bandwidth of the gaussian and laplacian kernels: a number, median (the"
          + " median distance between seeded pairs of rows, after standardization) or, for fit,"
          + " auto (chosen on validation rows; fit's default). Required by featurize unless"
          + " --like.")
  public String sigma;

  @Option(
      names = "--nu",
      paramLabel = "NU",
      description = "Smoothness of the matern kernel: 0.5, 1.5 or 2.5; required for matern.")
  public Double nu;

  @Option(
      names = "--length-scale",
      paramLabel = "L",
      description = "Length scale of the matern kernel: a number, median or (fit) auto, as"
          + " --sigma; required for matern by featurize.")
  public String lengthScale;

  /**
   * How the options set the kernel's length scale ({@code --sigma} or {@code --length-scale}):
   * {@link Bandwidth#GIVEN} for a number, {@link Bandwidth#MEDIAN} for "median", {@link
   * Bandwidth#SEARCH} for "auto", {@code absent} when neither is given.
   *
   * @throws UsageException for a value that is none of these
   */
  public Bandwidth bandwidth(Bandwidth absent) {
    String given = sigma != null ? sigma : lengthScale;
    if (given == null) {
      return absent;
    }
    return switch (given.toLowerCase(Locale.ROOT)) {
      case "median" -> Bandwidth.MEDIAN;
      case "auto" -> Bandwidth.SEARCH;
      default -> {
        number(sigma != null ? "--sigma" : "--length-scale", given);
        yield Bandwidth.GIVEN;
      }
    };
  }

  /** --sigma as a number, or null if not given or not a number. */
  public Double sigmaNumber() {
    return numberOrNull(sigma);
  }

  /** --length-scale as a number, or null if not given or not a number. */
  public Double lengthScaleNumber() {
    return numberOrNull(lengthScale);
  }

  /**
   * The kernel these options give with the length scale {@code scale} in place of a "median" or
   * "auto" one (or of none), the default kernel if none is named.
   */
  public KernelFunction build(double scale) {
    return build(name == null ? DEFAULT_KERNEL : kernelName(name), () -> scale);
  }

  /**
   * The named kernel at the length scale {@code scale} gives, after refusing the options that do
   * not apply to it (the scale is read last, so those refusals come first).
   */
  private KernelFunction build(String kernelName, DoubleSupplier scale) {
    if (kernelName.equals("matern") && sigma != null) {
      throw new UsageException(
          "--sigma does not apply to the matern kernel; it takes --nu and --length-scale");
    }
    if (!kernelName.equals("matern")) {
      rejectMatern(kernelName, lengthScale);
    }
    try {
      return switch (kernelName) {
        case "gaussian" -> new KernelFunction.Gaussian(scale.getAsDouble());
        case "laplacian" -> new KernelFunction.Laplacian(scale.getAsDouble());
        case "matern" -> {
          if (nu == null) {
            throw new UsageException("the matern kernel needs --nu (0.5, 1.5 or 2.5)");
          }
          yield new KernelFunction.Matern(nu, scale.getAsDouble());
        }
        default -> throw new AssertionError(kernelName);
      };
    } catch (IllegalArgumentException e) {
      throw e instanceof UsageException ? e : new UsageException(e.getMessage());
    }
  }

  private static Double numberOrNull(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static double number(String option, String text) {
    Double value = numberOrNull(text);
    if (value == null || !(value > 0) || value.isInfinite()) {
      throw new UsageException(option + " is '" + text + "', expected a number > 0, median or"
          + " auto");
    }
    return value;
  }

  /**
   * The kernel these options give, the default kernel if none is named.
   *
   * @throws UsageException for an unknown kernel, a missing parameter, one that does not apply
   *     to the kernel, or a value the kernel refuses
   */
  public KernelFunction build() {
    String kernelName = name == null ? DEFAULT_KERNEL : kernelName(name);
    if (kernelName.equals("matern")) {
      if (nu == null || lengthScale == null) {
        throw new UsageException(
            "the matern kernel needs --nu (0.5, 1.5 or 2.5) and --length-scale (or use --like"
                + " FILE)");
      }
      return build(kernelName, () -> given("--length-scale", lengthScale));
    }
    if (sigma == null) {
      throw new UsageException(
          "--sigma is required for the " + kernelName + " kernel (or use --like FILE)");
    }
    return build(kernelName, () -> given("--sigma", sigma));
  }

  /** The number --sigma or --length-scale gives (with {@link Bandwidth#GIVEN}), else null. */
  public Double scaleNumber() {
    return sigma != null ? sigmaNumber() : lengthScaleNumber();
  }

  /** A numeric length scale; "median" and "auto" are settled by the command before build(). */
  private static double given(String option, String text) {
    String t = text.toLowerCase(Locale.ROOT);
    if (t.equals("median") || t.equals("auto")) {
      throw new UsageException(option + " " + text + " is not available here; give a number");
    }
    return number(option, text);
  }

  private void rejectMatern(String kernelName, String scale) {
    if (nu != null || scale != null) {
      throw new UsageException(
          (nu != null ? "--nu" : "--length-scale") + " applies only to the matern kernel, not "
              + kernelName);
    }
  }

  static String kernelName(String text) {
    String name = text.toLowerCase(Locale.ROOT);
    if (!name.equals("gaussian") && !name.equals("laplacian") && !name.equals("matern")) {
      throw new UsageException(
          "--kernel is '" + text + "', expected gaussian, laplacian or matern");
    }
    return name;
  }
}
