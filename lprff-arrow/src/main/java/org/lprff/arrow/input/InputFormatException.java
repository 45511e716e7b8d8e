package org.lprff.arrow.input;

/**
 * Input data that does not follow its format: a ragged row, a cell that is not a number, a
 * non-finite value, a truncated file, an unknown label column. The message names the source, the
 * place (line, row, column, token) and the offending text, so it can be shown to a user as is.
 */
public final class InputFormatException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  public InputFormatException(String message) {
    super(message);
  }

  public InputFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
