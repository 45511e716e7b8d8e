package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The parser must give exactly Float.parseFloat's (correctly rounded) float for every text of its
 * grammar: compared bit for bit on hand-picked edges, on texts around the fast path's limits and on
 * 200,000 random decimal texts.
 */
class DecimalParserTest {

  private static float parse(String text) throws DecimalParser.BadNumber {
    byte[] bytes = ("xx" + text + "yy").getBytes(StandardCharsets.US_ASCII);
    return DecimalParser.parse(bytes, 2, bytes.length - 2); // an inner range, as in a line
  }

  private static void assertSameAsJdk(String text) throws DecimalParser.BadNumber {
    float expected = Float.parseFloat(text);
    float actual = parse(text);
    assertEquals(
        Float.floatToIntBits(expected),
        Float.floatToIntBits(actual),
        "'" + text + "': parseFloat " + expected + ", parser " + actual);
  }

  @Test
  void handPickedTextsMatchParseFloat() throws Exception {
    String[] texts = {
      "0",
      "-0",
      "+0",
      "0.0",
      "-0.0",
      "00012",
      "1",
      "-1",
      "+1",
      "1.",
      ".5",
      "-.5",
      "0.23",
      "61.5",
      "3.95",
      "2.43",
      "326",
      "18823",
      "0.1",
      "0.2",
      "0.3",
      "1e10",
      "1E-10",
      "1.5e+3",
      "1.e5",
      "16777216",
      "16777217",
      "16777218",
      "1677721.7",
      "0.0000000001",
      "1e11",
      "1e-11",
      "3.4028235e38",
      "3.4028235677973366e38",
      "1.4e-45",
      "7e-46",
      "1e-50",
      "1.17549435e-38",
      "123456789012345678901234567890",
      "0.000000000000000000000000000001234567890123456789",
      "9999999999999999999",
      "33554431",
      "33554433",
      "0.1000000000000000055511151231257827",
      "8.589973e9",
      "1.00000017881393432617187499",
      "1.000000178813934326171875",
    };
    for (String text : texts) {
      assertSameAsJdk(text);
    }
  }

  /** The fast path ends at significand 2^24 and |exponent| 10: both sides of each edge. */
  @Test
  void fastPathEdgesMatchParseFloat() throws Exception {
    long[] significands = {1, 9, 16777215, 16777216, 16777217, 33554431, 99999999};
    for (long m : significands) {
      for (int e = -12; e <= 12; e++) {
        assertSameAsJdk(m + "e" + e);
        assertSameAsJdk("-" + m + "E" + e);
      }
    }
  }

  @Test
  void randomDecimalTextsMatchParseFloat() throws Exception {
    SplittableRandom random = new SplittableRandom(20240601L);
    for (int i = 0; i < 200_000; i++) {
      StringBuilder s = new StringBuilder();
      if (random.nextInt(4) == 0) {
        s.append(random.nextBoolean() ? '-' : '+');
      }
      int digits = 1 + random.nextInt(random.nextBoolean() ? 8 : 25);
      int point = random.nextInt(digits + 1);
      for (int k = 0; k < digits; k++) {
        if (k == point) {
          s.append('.');
        }
        s.append((char) ('0' + random.nextInt(10)));
      }
      if (random.nextInt(3) == 0) {
        s.append(random.nextBoolean() ? 'e' : 'E').append(random.nextInt(-50, 40));
      }
      String text = s.toString();
      if (Float.isInfinite(Float.parseFloat(text))) {
        continue; // overflow is an error here, checked below
      }
      assertSameAsJdk(text);
    }
  }

  /** Float.toString is the shortest text naming a float: it must parse back to that float. */
  @Test
  void floatToStringRoundTrips() throws Exception {
    SplittableRandom random = new SplittableRandom(7L);
    for (int i = 0; i < 100_000; i++) {
      float f = Float.intBitsToFloat(random.nextInt());
      if (Float.isFinite(f)) {
        assertEquals(
            Float.floatToIntBits(f), Float.floatToIntBits(parse(Float.toString(f))), "" + f);
      }
    }
  }

  @Test
  void badTextsAreRejectedWithTheirProblem() {
    String[] syntax = {
      "abc", "1.2.3", "1e", "1e+", "--1", "+-1", ".", "-", "0x10", "1f", "1d", "1,5", " 1", "1 ",
      "e5", "1e5.5", "1_000",
    };
    for (String text : syntax) {
      DecimalParser.BadNumber e =
          assertThrows(DecimalParser.BadNumber.class, () -> parse(text), text);
      assertEquals(DecimalParser.Problem.SYNTAX, e.problem, text);
    }
    for (String text : new String[] {"NaN", "nan", "-nan", "inf", "-Infinity", "+INF"}) {
      DecimalParser.BadNumber e =
          assertThrows(DecimalParser.BadNumber.class, () -> parse(text), text);
      assertEquals(DecimalParser.Problem.NON_FINITE, e.problem, text);
    }
    for (String text : new String[] {"1e39", "-3.5e38", "1e99999999999"}) {
      DecimalParser.BadNumber e =
          assertThrows(DecimalParser.BadNumber.class, () -> parse(text), text);
      assertEquals(DecimalParser.Problem.OVERFLOW, e.problem, text);
    }
    DecimalParser.BadNumber empty = assertThrows(DecimalParser.BadNumber.class, () -> parse(""));
    assertEquals(DecimalParser.Problem.EMPTY, empty.problem);
  }

  @Test
  void hugeNegativeExponentsUnderflowToSignedZero() throws Exception {
    assertEquals(Float.floatToIntBits(0f), Float.floatToIntBits(parse("1e-99999999999")));
    assertEquals(Float.floatToIntBits(-0f), Float.floatToIntBits(parse("-1e-99999999999")));
  }
}
