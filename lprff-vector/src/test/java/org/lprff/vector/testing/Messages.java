package org.lprff.vector.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.function.Executable;

/** The assertion every validation test makes: the call is refused with a message naming values. */
public final class Messages {

  private Messages() {}

  /** {@code call} throws an IllegalArgumentException whose message contains {@code expected}. */
  public static IllegalArgumentException assertMessage(String expected, Executable call) {
    return assertMessage(call, expected);
  }

  /** {@code call} throws an IllegalArgumentException whose message contains every part. */
  public static IllegalArgumentException assertMessage(Executable call, String... parts) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    for (String part : parts) {
      assertTrue(e.getMessage() != null && e.getMessage().contains(part),
          () -> "message '" + e.getMessage() + "' lacks '" + part + "'");
    }
    return e;
  }

  /** {@code call} throws an IllegalArgumentException whose message is exactly {@code expected}. */
  public static void assertExactMessage(String expected, Executable call) {
    assertEquals(expected, assertThrows(IllegalArgumentException.class, call).getMessage());
  }
}
