package org.lprff.bench.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.lprff.report.Json;

/**
 * scikit-learn's RBFSampler ({@code transform} in float32), timed by a Python script shipped in
 * this jar ({@code sklearn_rbf_timing.py}) with {@code python3} or {@code $LPRFF_PYTHON}.
 */
public final class SklearnReference {

  /** How to get the reference, for the report when it could not be measured. */
  public static final String HOW_TO_GET =
      "python3 -m venv ~/.venvs/lprff && ~/.venvs/lprff/bin/pip install numpy scikit-learn"
          + " (threadpoolctl comes with it), then run with LPRFF_PYTHON=~/.venvs/lprff/bin/python"
          + " or --python ~/.venvs/lprff/bin/python";

  /** One timed shape: the median seconds of one transform of {@code rows} rows. */
  public record Timing(int d, int m, int rows, int threads, double medianSeconds, String phase) {
    public double featuresPerSecond() {
      return (double) rows * m / medianSeconds;
    }
  }

  /**
   * The reference of one run: {@code available} false with the reason in {@code message}, or
   * the timings (before and after the featurizer benchmarks) and the library versions.
   */
  public record Result(boolean available, String message, List<Timing> timings,
      Map<String, Object> versions) {
    public static Result unavailable(String message) {
      return new Result(false, message, List.of(), Map.of());
    }

    /** Not attempted: the run had no featurizer benchmark to compare (not a missing Python). */
    public static Result notRun() {
      return unavailable(NOT_RUN);
    }

    /** Whether the reference was not attempted ({@link #notRun}). */
    public boolean wasNotRun() {
      return !available && NOT_RUN.equals(message);
    }
  }

  private static final String NOT_RUN = "no featurizer benchmark in this run";

  /**
   * numpy's sgemm: {@code flopsPerSecond} of an n x n float32 product on {@code threads} threads
   * (median of 7), the OpenBLAS kernel threadpoolctl names ({@code kernel}), or why not measured.
   */
  public record Sgemm(boolean available, String message, int n, int threads,
      double flopsPerSecond, String kernel) {
    public static Sgemm unavailable(String message) {
      return new Sgemm(false, message, 0, 0, Double.NaN, "");
    }
  }

  /**
   * Variables that pin numpy's OpenBLAS to an older kernel (and cache size) on some CPUs; the
   * reference's Python runs without them ({@link #pythonProcess}).
   */
  public static final List<String> PINNED_BLAS = List.of("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE");

  private final String python;

  /** The interpreter: {@code $LPRFF_PYTHON}, else {@code python3} on the path. */
  public SklearnReference(String python) {
    this.python = python;
  }

  public static String defaultPython() {
    String fromEnv = System.getenv("LPRFF_PYTHON");
    return fromEnv == null || fromEnv.isBlank() ? "python3" : fromEnv;
  }

  public String python() {
    return python;
  }

  /**
   * Times every shape ({d, m, rows}) with each thread count; {@code phase} ("before" or
   * "after") labels the timings. Never throws for a missing interpreter or library: the result
   * says why it is unavailable.
   */
  public Result time(List<int[]> shapes, List<Integer> threads, String phase, int repeats) {
    StringBuilder config = new StringBuilder("{\"shapes\": [");
    for (int i = 0; i < shapes.size(); i++) {
      int[] s = shapes.get(i);
      config.append(i == 0 ? "" : ", ").append('[').append(s[0]).append(", ").append(s[1])
          .append(", ").append(s[2]).append(']');
    }
    config.append("], \"threads\": ").append(threads).append(", \"repeats\": ").append(repeats)
        .append(", \"warmups\": 2}");
    Script out = Script.run(python, "sklearn_rbf_timing.py", List.of(config.toString()),
        Duration.ofMinutes(30));
    if (out.doc() == null) {
      return Result.unavailable(out.error());
    }
    Map<?, ?> doc = out.doc();
    List<Timing> timings = new ArrayList<>();
    for (Object o : (List<?>) doc.get("timings")) {
      Map<?, ?> t = (Map<?, ?>) o;
      timings.add(new Timing(
          num(t, "d"), num(t, "m"), num(t, "rows"), num(t, "threads"),
          ((Number) t.get("median_s")).doubleValue(), phase));
    }
    Map<String, Object> versions = new LinkedHashMap<>();
    for (String key : List.of("python", "python_version", "sklearn", "numpy", "blas")) {
      versions.put(key, doc.get(key));
    }
    return new Result(true, "", timings, versions);
  }

  /**
   * numpy's sgemm at n x n on all threads, in the reference's environment ({@link
   * #pythonProcess}: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset). Never throws: the result says
   * why it is unavailable.
   */
  public Sgemm sgemm(int n) {
    Script out = Script.run(python, "numpy_sgemm_timing.py",
        List.of("{\"n\": " + n + ", \"repeats\": 7, \"warmups\": 2}"), Duration.ofMinutes(10));
    if (out.doc() == null) {
      return Sgemm.unavailable(out.error());
    }
    Map<?, ?> map = out.doc();
    StringBuilder kernel = new StringBuilder();
    for (Object o : (List<?>) map.get("blas")) {
      Map<?, ?> lib = (Map<?, ?>) o;
      kernel.append(kernel.isEmpty() ? "" : ", ").append(lib.get("internal_api")).append(' ')
          .append(lib.get("version")).append(' ').append(lib.get("architecture"));
    }
    return new Sgemm(true, "", num(map, "n"), num(map, "threads"),
        ((Number) map.get("flops_per_s")).doubleValue(), kernel.toString());
  }

  /**
   * The Python process of a reference: the parent's environment without {@link #PINNED_BLAS},
   * so that numpy's OpenBLAS picks the kernel of this CPU itself. Only the reference's process
   * loses them; this JVM, the tests and the lprff processes keep whatever the machine sets.
   */
  static ProcessBuilder pythonProcess(List<String> command) {
    ProcessBuilder builder = new ProcessBuilder(command);
    scrub(builder.environment());
    return builder;
  }

  /** Removes {@link #PINNED_BLAS} from a child's environment (the map of a ProcessBuilder). */
  static void scrub(Map<String, String> environment) {
    PINNED_BLAS.forEach(environment::remove);
  }

  /**
   * What a script shipped in this jar printed: its JSON object when it says {@code "available":
   * true}, else null and why not (no interpreter, no scikit-learn, a crash), for the report.
   */
  record Script(Map<?, ?> doc, String error) {

    static Script failed(String error) {
      return new Script(null, error);
    }

    /** Runs {@code resource} with {@code python} and these arguments; never throws for them. */
    static Script run(String python, String resource, List<String> args, Duration timeout) {
      Path script;
      try {
        script = Files.createTempFile("lprff-sklearn", ".py");
        try (InputStream in = SklearnReference.class.getResourceAsStream(resource)) {
          if (in == null) {
            throw new IllegalStateException(resource + " missing from the jar");
          }
          Files.write(script, in.readAllBytes());
        }
      } catch (IOException e) {
        return failed("could not write " + resource + ": " + e.getMessage());
      }
      List<String> command = new ArrayList<>(List.of(python, script.toString()));
      command.addAll(args);
      try {
        Process process;
        try {
          process = pythonProcess(command).redirectError(ProcessBuilder.Redirect.PIPE).start();
        } catch (IOException e) {
          return failed("no Python interpreter '" + python + "' (" + e.getMessage() + ")");
        }
        process.getOutputStream().close();
        // Drain stderr on its own thread so a chatty warning cannot block the script.
        StringBuilder err = new StringBuilder();
        Thread drain = Thread.ofVirtual().start(() -> {
          try {
            err.append(new String(process.getErrorStream().readAllBytes(),
                StandardCharsets.UTF_8));
          } catch (IOException ignored) {
            // the exit code says enough
          }
        });
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly();
          return failed(python + " " + resource + " did not finish within "
              + Report.human(timeout));
        }
        drain.join();
        Object parsed;
        try {
          parsed = out.isBlank() ? null : Json.parse(out.strip());
        } catch (IllegalArgumentException e) {
          parsed = null;
        }
        if (!(parsed instanceof Map<?, ?> doc)) {
          String tail = err.toString().strip();
          return failed(python + " exited " + process.exitValue() + " without a result"
              + (tail.isEmpty() ? "" : ": " + lastLine(tail)));
        }
        if (!Boolean.TRUE.equals(doc.get("available"))) {
          return failed(python + " cannot run scikit-learn (" + doc.get("error") + ")");
        }
        return new Script(doc, "");
      } catch (IOException e) {
        return failed(python + " failed: " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return failed("interrupted while running " + resource);
      } finally {
        try {
          Files.deleteIfExists(script);
        } catch (IOException ignored) {
          // a temporary file
        }
      }
    }
  }

  /** Two results of one run (before and after) as one: timings of both, the first's versions. */
  public static Result combine(Result before, Result after) {
    if (!before.available()) {
      return before;
    }
    if (!after.available()) {
      return new Result(true, "after the featurizer: " + after.message(), before.timings(),
          before.versions());
    }
    List<Timing> all = new ArrayList<>(before.timings());
    all.addAll(after.timings());
    return new Result(true, "", all, before.versions());
  }

  private static int num(Map<?, ?> m, String key) {
    return ((Number) m.get(key)).intValue();
  }

  private static String lastLine(String s) {
    int nl = s.lastIndexOf('\n');
    return nl < 0 ? s : s.substring(nl + 1);
  }
}
