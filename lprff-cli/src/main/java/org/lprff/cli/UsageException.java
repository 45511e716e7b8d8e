package org.lprff.cli;

/**
 * A bad combination or value of options found after parsing; the command turns it into picocli's
 * usage error (exit code 2).
 */
final class UsageException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
