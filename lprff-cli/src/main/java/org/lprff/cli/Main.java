package org.lprff.cli;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.lprff.cli.output.StandardStreams;
import picocli.CommandLine;

/**
 * The {@code lprff} command line: {@code lprff featurize ...}, {@code lprff info FILE}.
 *
 * <p>Exit codes: 0 on success, 1 for a failure (one line {@code lprff: <message>} on standard
 * error; the stack trace too with {@code --debug}), 2 for a usage error (unknown or missing
 * options, bad option values).
 */
public final class Main {

  private Main() {}

  /**
   * Runs the command line and exits the JVM with its exit code. (The hidden first argument {@code
   * --aot-training DIR} runs {@link StartupTraining}, the workload of the start-up cache.)
   */
  public static void main(String[] args) {
    if (args.length == 2 && args[0].equals("--aot-training")) {
      System.exit(StartupTraining.run(java.nio.file.Path.of(args[1])));
    }
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    int code = run(out, err, args);
    out.flush();
    err.flush();
    System.exit(code);
  }

  /**
   * Runs the command line with the given output streams (tests capture them) and returns the exit
   * code; never exits the JVM.
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine commandLine = commandLine();
    commandLine.setOut(out);
    commandLine.setErr(err);
    return commandLine.execute(args);
  }

  /**
   * As {@link #run(PrintWriter, PrintWriter, String...)}, with {@code in} and {@code binaryOut}
   * as the standard input and output that {@code -} names (tests pipe through them).
   */
  public static int run(InputStream in, OutputStream binaryOut, PrintWriter out, PrintWriter err,
      String... args) {
    try {
      return StandardStreams.with(new StandardStreams(in, binaryOut), () -> run(out, err, args));
    } catch (Exception e) {
      throw new IllegalStateException(e); // run itself reports every failure as an exit code
    }
  }

  /** A configured command line, its output on the process's standard streams until replaced. */
  public static CommandLine commandLine() {
    CommandLine commandLine = new CommandLine(new LprffCommand());
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    commandLine.setUsageHelpAutoWidth(true);
    // A command's header is its one line in lprff --help's command list; its own --help starts
    // with the usage and keeps the full description.
    List<String> sections = new ArrayList<>(commandLine.getHelpSectionKeys());
    sections.removeAll(List.of(CommandLine.Model.UsageMessageSpec.SECTION_KEY_HEADER_HEADING,
        CommandLine.Model.UsageMessageSpec.SECTION_KEY_HEADER));
    commandLine.setHelpSectionKeys(sections);
    commandLine.setExecutionExceptionHandler(new Failures.ExecutionHandler());
    commandLine.setParameterExceptionHandler(new Failures.UsageHandler());
    return commandLine;
  }
}
