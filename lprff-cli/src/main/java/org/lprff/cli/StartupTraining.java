package org.lprff.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.lprff.cli.workflow.ShippedData;

/**
 * The workload JDK 25's ahead-of-time cache is trained on. {@code ./lprff} creates {@code
 * lprff-cli/target/lprff.aot} once per build ({@code java -XX:AOTCacheOutput=lprff.aot -jar
 * lprff.jar --aot-training DIR}) and starts every later run with {@code -XX:AOTCache}: lprff's,
 * Arrow's and picocli's classes come loaded and linked from the cache, with the profiles of
 * their hot methods, instead of being read, verified and profiled anew.
 *
 * <p>The workload is what users run first, on rows of the shipped diamonds file: {@code
 * featurize} with every projection and at 1, 4, 8 and 32 bits (each projection and bit width has
 * its own kernels), {@code info}, {@code train} (closed form, conjugate gradients, SGD), {@code
 * evaluate} and {@code predict}. It is not a command (a command never calls another): {@link Main}
 * runs it for the hidden first argument {@code --aot-training}.
 */
final class StartupTraining {

  private StartupTraining() {}

  /** Runs the workload in {@code dir} (created if missing); returns 0, or the first failure's code. */
  static int run(Path dir) {
    try {
      Files.createDirectories(dir);
      Path csv = dir.resolve("diamonds.csv");
      try (InputStream in = ShippedData.diamonds()) {
        Files.copy(in, csv, StandardCopyOption.REPLACE_EXISTING);
      }
      List<String[]> lines = new ArrayList<>();
      String[][] specs = {
        {"circulant", "4"}, {"dense", "8"}, {"fastfood", "1"}, {"orthogonal", "32"},
        {"circulant", "2"}, {"dense", "4"}, {"fastfood", "8"}, {"orthogonal", "4"},
      };
      for (String[] spec : specs) {
        String name = spec[0] + "-" + spec[1];
        lines.add(featurize(csv, dir.resolve(name + ".arrow"), "0:6000", spec[0], spec[1]));
        lines.add(new String[] {"info", dir.resolve(name + ".arrow").toString()});
      }
      lines.add(featurize(csv, dir.resolve("heldout.arrow"), "6000:8000", "circulant", "4"));
      for (String solver : new String[] {"closed-form", "cg", "sgd"}) {
        lines.add(new String[] {"train", "--task", "regression", "--solver", solver,
            "--train", dir.resolve("circulant-4.arrow").toString(),
            "--heldout", dir.resolve("heldout.arrow").toString(),
            "-o", dir.resolve(solver + ".lprff").toString(), "-q"});
      }
      lines.add(new String[] {"evaluate", "-m", dir.resolve("cg.lprff").toString(),
          "--data", dir.resolve("heldout.arrow").toString()});
      lines.add(new String[] {"predict", "-m", dir.resolve("cg.lprff").toString(),
          "-i", csv.toString(), "--label-column", "last",
          "-o", dir.resolve("predictions.arrow").toString()});
      for (String[] line : lines) {
        StringWriter sink = new StringWriter();
        StringWriter errors = new StringWriter();
        int code = Main.run(new PrintWriter(sink), new PrintWriter(errors), line);
        if (code != 0) {
          System.err.println("lprff: start-up training step failed (" + String.join(" ", line)
              + "): " + errors.toString().strip());
          return code;
        }
      }
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String[] featurize(
      Path csv, Path out, String rows, String projection, String bits) {
    return new String[] {"featurize", "-i", csv.toString(), "--rows", rows, "--standardize",
        "--sigma", "2", "-m", "1024", "-b", bits, "--projection", projection,
        "-o", out.toString(), "-q"};
  }
}
