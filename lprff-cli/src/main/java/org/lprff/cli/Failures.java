package org.lprff.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import org.lprff.cli.options.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/** How failures reach the user: one line {@code lprff: <message>} on standard error. */
final class Failures {

  /** Exit code of a failed command. */
  public static final int EXIT_FAILURE = 1;

  /** Exit code of a usage error (picocli's). */
  public static final int EXIT_USAGE = CommandLine.ExitCode.USAGE;

  private Failures() {}

  /** The one-line text of a failure: the library's messages already name files and values. */
  static String message(Throwable failure) {
    Throwable t = failure instanceof UncheckedIOException u && u.getCause() != null
        ? u.getCause()
        : failure;
    String text = switch (t) {
      case NoSuchFileException e -> "no such file: " + e.getFile();
      case AccessDeniedException e -> "permission denied: " + e.getFile();
      case NotDirectoryException e -> "not a directory: " + e.getFile();
      case FileSystemException e when e.getReason() != null ->
          e.getFile() + ": " + e.getReason();
      case OutOfMemoryError e ->
          "out of memory (" + e.getMessage() + "); try a smaller --batch-size or a larger -Xmx";
      default -> t.getMessage() == null || t.getMessage().isBlank()
          ? t.getClass().getSimpleName()
          : t.getMessage();
    };
    // One line: a message with line breaks (rare, from Arrow) is joined.
    return text.strip().replaceAll("\\s*\\R\\s*", "; ");
  }

  /** A command's work, which may find a bad option value ({@link UsageException}). */
  interface Work {
    int run() throws IOException;
  }

  /** Runs {@code work}; a {@link UsageException} becomes picocli's usage error (exit code 2). */
  static int usageErrors(CommandSpec command, Work work) throws IOException {
    try {
      return work.run();
    } catch (UsageException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
  }

  /** True if {@code --debug} was given on any command of the parse. */
  static boolean debug(ParseResult result) {
    for (ParseResult r = result; r != null; r = r.subcommand()) {
      if (r.hasMatchedOption("--debug")) {
        return true;
      }
    }
    return false;
  }

  /** A failure of a command's work: exit code 1. */
  static final class ExecutionHandler implements IExecutionExceptionHandler {
    @Override
    public int handleExecutionException(
        Exception failure, CommandLine commandLine, ParseResult parseResult) {
      PrintWriter err = commandLine.getErr();
      err.println("lprff: " + message(failure));
      if (debug(parseResult)) {
        failure.printStackTrace(err);
      }
      err.flush();
      return EXIT_FAILURE;
    }
  }

  /**
   * A usage error: the message, the command's synopsis and where to find help; exit code 2. (The
   * full option list of {@code featurize} is long; {@code --help} shows it.)
   */
  static final class UsageHandler implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException failure, String[] args) {
      CommandLine commandLine = failure.getCommandLine();
      PrintWriter err = commandLine.getErr();
      err.println("lprff: " + message(failure));
      if (failure instanceof UnmatchedArgumentException unmatched) {
        UnmatchedArgumentException.printSuggestions(unmatched, err);
      }
      String name = commandLine.getCommandSpec().qualifiedName();
      String heading = "Usage: ";
      err.print(heading + commandLine.getHelp().synopsis(heading.length()));
      err.println("Try '" + name + " --help' for more information.");
      if (failure.getCause() != null && debug(commandLine.getParseResult())) {
        failure.printStackTrace(err);
      }
      err.flush();
      return EXIT_USAGE;
    }
  }
}
