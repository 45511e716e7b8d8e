package org.lprff.cli.options;

import java.util.Locale;
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
      description = "Bandwidth of the gaussian and laplacian kernels; required for them (by"
          + " featurize unless --like).")
  public Double sigma;

  @Option(
      names = "--nu",
      paramLabel = "NU",
      description = "Smoothness of the matern kernel: 0.5, 1.5 or 2.5; required for matern.")
  public Double nu;

  @Option(
      names = "--length-scale",
      paramLabel = "L",
      description = "Length scale of the matern kernel; required for matern.")
  public Double lengthScale;

  /**
   * The kernel these options give, the default kernel if none is named.
   *
   * @throws UsageException for an unknown kernel, a missing parameter, one that does not apply
   *     to the kernel, or a value the kernel refuses
   */
  public KernelFunction build() {
    String kernelName = name == null ? DEFAULT_KERNEL : kernelName(name);
    try {
      return kernel(kernelName);
    } catch (IllegalArgumentException e) {
      throw e instanceof UsageException ? e : new UsageException(e.getMessage());
    }
  }

  private KernelFunction kernel(String kernelName) {
    return switch (kernelName) {
      case "gaussian", "laplacian" -> {
        if (sigma == null) {
          throw new UsageException(
              "--sigma is required for the " + kernelName + " kernel (or use --like FILE)");
        }
        rejectMatern(kernelName);
        yield kernelName.equals("gaussian")
            ? new KernelFunction.Gaussian(sigma)
            : new KernelFunction.Laplacian(sigma);
      }
      case "matern" -> {
        if (nu == null || lengthScale == null) {
          throw new UsageException(
              "the matern kernel needs --nu (0.5, 1.5 or 2.5) and --length-scale (or use --like"
                  + " FILE)");
        }
        if (sigma != null) {
          throw new UsageException(
              "--sigma does not apply to the matern kernel; it takes --nu and --length-scale");
        }
        yield new KernelFunction.Matern(nu, lengthScale);
      }
      default -> throw new AssertionError(kernelName);
    };
  }

  private void rejectMatern(String kernelName) {
    if (nu != null || lengthScale != null) {
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
