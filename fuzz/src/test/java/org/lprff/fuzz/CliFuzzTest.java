package org.lprff.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lprff.cli.Main;
import picocli.CommandLine;

/**
 * The command line's option parsing from outside text: the input is the argument list, one
 * argument per line, run in-process through {@link Main#run} with its output captured.
 *
 * <p>Invariant: {@code Main.run} never throws; it returns 0, 1 (one line {@code lprff: ...} on
 * standard error) or 2 (a usage error starting {@code lprff: ...}).
 *
 * <p>Sandbox: placeholders ({@code @csv}, {@code @features}, {@code @model}, {@code @out}, ...)
 * become paths of small valid files and fresh outputs in a temporary directory; every other
 * argument has its slashes replaced, so a fuzzed path is relative to the working directory (the
 * module's target/fuzz-work, set in the pom) and can write nowhere else. The commands that run
 * long on shipped data whatever the options ({@code demo}, {@code compare}, {@code experiment})
 * are parsed, not run.
 */
class CliFuzzTest {

  private static final Path DIR;
  private static final Map<String, String> FILES;
  private static int outputs;

  static {
    try {
      DIR = Files.createTempDirectory("lprff-fuzz-cli-");
      Map<String, Map<String, byte[]>> seeds = SeedCorpus.all(DIR);
      FILES = Map.of(
          "@csv", put("in.csv", SeedCorpus.csv().get("labelled")),
          "@libsvm", put("in.libsvm", SeedCorpus.libsvm().get("plain")),
          "@idx", put("in-images-idx3-ubyte", SeedCorpus.idxImages().get("three")),
          "@idxlabels", put("in-labels-idx1-ubyte", SeedCorpus.idxLabels().get("three")),
          "@features", put("in.arrow",
              seeds.get("FeatureFileFuzzTestInputs/info").get("file-b4-regression")),
          "@stream", put("in-stream.arrow",
              seeds.get("FeatureFileFuzzTestInputs/info").get("stream-b1-classes-rowids")),
          "@model", put("in.lprff", seeds.get("ModelFileFuzzTestInputs/read").get("regression")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final Set<String> PARSE_ONLY = Set.of("demo", "compare", "experiment");

  private static String put(String name, byte[] bytes) throws IOException {
    return Files.write(DIR.resolve(name), bytes).toString();
  }

  /** The argument list of {@code input}: at most 40 lines, placeholders replaced. */
  static String[] arguments(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    List<String> args = new ArrayList<>();
    for (String line : text.split("\n", 41)) {
      if (args.size() == 40) {
        break;
      }
      String file = FILES.get(line);
      if (file != null) {
        args.add(file);
      } else if (line.equals("@out") || line.equals("@outcsv")) {
        args.add(DIR.resolve("out-" + (outputs++ % 8) + (line.equals("@out") ? ".arrow" : ".csv"))
            .toString());
      } else {
        args.add(line.replace('/', '_').replace('\\', '_'));
      }
    }
    return args.toArray(String[]::new);
  }

  @FuzzTest
  void args(byte[] input) {
    String[] args = arguments(input);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code;
    if (args.length > 0 && PARSE_ONLY.contains(args[0])) {
      CommandLine line = Main.commandLine();
      line.setOut(new PrintWriter(out, true));
      line.setErr(new PrintWriter(err, true));
      try {
        line.parseArgs(args);
      } catch (CommandLine.ParameterException e) {
        if (e.getMessage() == null || e.getMessage().isBlank()) {
          throw new AssertionError("usage error without a message: " + List.of(args), e);
        }
      } catch (RuntimeException e) {
        throw new AssertionError("parsing " + List.of(args) + " threw " + e, e);
      }
      return;
    }
    try {
      code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    } catch (Throwable t) {
      throw new AssertionError("lprff " + List.of(args) + " threw " + t, t);
    }
    String error = err.toString();
    switch (code) {
      case 0 -> {}
      case 1 -> {
        boolean debug = List.of(args).contains("--debug");
        if (!error.startsWith("lprff: ") || (!debug && error.strip().lines().count() != 1)) {
          throw new AssertionError("exit 1 without one line 'lprff: ...' for " + List.of(args)
              + ":\n" + error);
        }
      }
      case 2 -> {
        if (!error.startsWith("lprff: ")) {
          throw new AssertionError("usage error without 'lprff: ...' for " + List.of(args)
              + ":\n" + error);
        }
      }
      default -> throw new AssertionError("exit code " + code + " for " + List.of(args));
    }
  }
}
