package org.lprff.bench.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.lprff.report.Json;

/**
 * scikit-learn's RBFSampler ({@code transform} in float32), timed by a Python script shipped in
 * this jar ({@code sklearn_rbf_timing.py}) with {@code python3} or {@code $LPRFF_PYTHON}; and
 * numpy's sgemm on all threads ({@code numpy_sgemm_timing.py}, {@link #sgemm}), the peak a tuned
 * BLAS shows on this machine.
 */
public final class SklearnReference {

  /** How to get the reference, for the report when it could not be measured. */
  public static final String HOW_TO_GET =
      "python3 -m venv ~/.venvs/lprff && ~/.venvs/lprff/bin/pip install numpy scikit-learn, "
          + "then run with LPRFF_PYTHON=~/.venvs/lprff/bin/python";

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
  }

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

  /** OpenBLAS's overrides, unset for the sgemm process only: it picks its kernel from the CPU. */
  static final List<String> OPENBLAS_OVERRIDES = List.of("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE");

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
    Object doc = run("sklearn_rbf_timing.py", config.toString(), false);
    if (doc instanceof String message) {
      return Result.unavailable(message);
    }
    Map<?, ?> map = (Map<?, ?>) doc;
    if (!Boolean.TRUE.equals(map.get("available"))) {
      return Result.unavailable(python + " cannot run scikit-learn (" + map.get("error") + ")");
    }
    List<Timing> timings = new ArrayList<>();
    for (Object o : (List<?>) map.get("timings")) {
      Map<?, ?> t = (Map<?, ?>) o;
      timings.add(new Timing(
          num(t, "d"), num(t, "m"), num(t, "rows"), num(t, "threads"),
          ((Number) t.get("median_s")).doubleValue(), phase));
    }
    Map<String, Object> versions = new java.util.LinkedHashMap<>();
    for (String key : List.of("python", "python_version", "sklearn", "numpy", "blas")) {
      versions.put(key, map.get(key));
    }
    return new Result(true, "", timings, versions);
  }

  /**
   * numpy's sgemm at n x n on all threads, OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for that
   * process. Never throws: the result says why it is unavailable.
   */
  public Sgemm sgemm(int n) {
    Object doc = run("numpy_sgemm_timing.py",
        "{\"n\": " + n + ", \"repeats\": 7, \"warmups\": 2}", true);
    if (doc instanceof String message) {
      return Sgemm.unavailable(message);
    }
    Map<?, ?> map = (Map<?, ?>) doc;
    if (!Boolean.TRUE.equals(map.get("available"))) {
      return Sgemm.unavailable(python + " cannot run numpy (" + map.get("error") + ")");
    }
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
   * Runs the script {@code resource} of this jar with {@code config}: its JSON document (a Map),
   * or a String saying why there is none.
   */
  private Object run(String resource, String config, boolean plainOpenBlas) {
    Path script;
    try {
      script = Files.createTempFile("lprff-reference", ".py");
      try (InputStream in = SklearnReference.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(resource + " missing from the jar");
        }
        Files.write(script, in.readAllBytes());
      }
    } catch (IOException e) {
      return "could not write the timing script: " + e.getMessage();
    }
    try {
      Process process;
      try {
        ProcessBuilder builder = new ProcessBuilder(python, script.toString(), config)
            .redirectError(ProcessBuilder.Redirect.PIPE);
        if (plainOpenBlas) {
          builder.environment().keySet().removeAll(OPENBLAS_OVERRIDES);
        }
        process = builder.start();
      } catch (IOException e) {
        return "no Python interpreter '" + python + "' (" + e.getMessage() + ")";
      }
      process.getOutputStream().close();
      // Drain stderr on its own thread so a chatty warning cannot block the script.
      StringBuilder err = new StringBuilder();
      Thread drain = Thread.ofVirtual().start(() -> {
        try {
          err.append(new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException ignored) {
          // the exit code says enough
        }
      });
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        return python + " did not finish within 30 minutes";
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
        return python + " exited " + process.exitValue() + " without a result"
            + (tail.isEmpty() ? "" : ": " + lastLine(tail));
      }
      return doc;
    } catch (IOException e) {
      return python + " failed: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while timing " + resource;
    } finally {
      try {
        Files.deleteIfExists(script);
      } catch (IOException ignored) {
        // a temporary file
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
