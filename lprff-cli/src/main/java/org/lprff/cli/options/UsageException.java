package org.lprff.cli.options;

/**
 * A bad combination or value of options found after parsing; the command turns it into picocli's
 * usage error (exit code 2).
 */
public final class UsageException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }
}
