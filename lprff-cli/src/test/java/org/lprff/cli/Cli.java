package org.lprff.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the command line in-process with captured output. */
final class Cli {

  private Cli() {}

  /** Exit code and the text written to standard output and standard error. */
  record Result(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
  }

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(code, out.toString(), err.toString());
  }

  /** Exit code, standard output's bytes and standard error's text of a run with piped input. */
  record Piped(int exitCode, byte[] out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + ", " + out.length + " bytes out\n--- err:\n" + err;
    }
  }

  /** Runs with {@code in} as standard input, standard output captured as bytes. */
  static Piped piped(byte[] in, String... args) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    StringWriter text = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new java.io.ByteArrayInputStream(in), out, new PrintWriter(text, true),
        new PrintWriter(err, true), args);
    if (!text.toString().isEmpty()) {
      throw new AssertionError("text on standard output beside the bytes: " + text);
    }
    return new Piped(code, out.toByteArray(), err.toString());
  }

  /** Runs and requires exit code 0, returning the result. */
  static Result ok(String... args) {
    Result result = run(args);
    if (result.exitCode() != 0) {
      throw new AssertionError("expected success: " + String.join(" ", args) + "\n" + result);
    }
    return result;
  }
}
