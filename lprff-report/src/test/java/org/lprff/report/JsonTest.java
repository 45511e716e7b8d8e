package org.lprff.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  /** Every kind of value, in an order no hash map keeps. */
  private static Map<String, Object> sample() {
    Map<String, Object> o = Json.object();
    o.put("z", "text");
    o.put("i", 3);
    o.put("l", 1L << 40);
    o.put("small", 1e-5);
    o.put("two", 2.0);
    o.put("f", 5.394879E-6f);
    o.put("minusZero", -0.0);
    o.put("yes", true);
    o.put("none", null);
    o.put("flat", Arrays.asList(1, "x", null, 2.5));
    o.put("nested", List.of(List.of(1, 2), Map.of("a", 1), List.of()));
    o.put("emptyObject", new LinkedHashMap<>());
    o.put("emptyArray", new ArrayList<>());
    return o;
  }

  // ------------------------------------------------------------ one line (the command line's)

  @Test
  void writeEscapesStrings() {
    assertEquals("{\"a\\\"b\":[\"x\\\\y\\n\",1,2.5,true,null,\"\\u0001\"]}",
        Json.write(Map.of("a\"b", Arrays.asList("x\\y\n", 1, 2.5, true, null, "\u0001"))));
    assertEquals("\"\\r\\t\\u001f\u007f é 😀\"", Json.write("\r\t\u001f\u007f é 😀"));
  }

  @Test
  void writeKeepsInsertionOrderAndJavasNumberForms() {
    assertEquals("{\"z\":\"text\",\"i\":3,\"l\":1099511627776,\"small\":1.0E-5,\"two\":2.0,"
        + "\"f\":5.394879E-6,\"minusZero\":-0.0,\"yes\":true,\"none\":null,"
        + "\"flat\":[1,\"x\",null,2.5],\"nested\":[[1,2],{\"a\":1},[]],\"emptyObject\":{},"
        + "\"emptyArray\":[]}", Json.write(sample()));
  }

  @Test
  void writeTakesAnyIterableAndKeysThroughValueOf() {
    assertEquals("[\"b\",\"a\"]", Json.write(new LinkedHashSet<>(List.of("b", "a"))));
    Map<Object, Object> keys = new LinkedHashMap<>();
    keys.put(1, "one");
    keys.put(null, "none");
    assertEquals("{\"1\":\"one\",\"null\":\"none\"}", Json.write(keys));
  }

  @Test
  void writeRefusesNonFiniteNumbersAndValuesWithoutJsonForm() {
    assertEquals("JSON has no form for NaN",
        assertThrows(IllegalArgumentException.class, () -> Json.write(Double.NaN)).getMessage());
    assertEquals("JSON has no form for -Infinity", assertThrows(IllegalArgumentException.class,
        () -> Json.write(List.of(Float.NEGATIVE_INFINITY))).getMessage());
    assertEquals("no JSON form for java.lang.Object", assertThrows(
        IllegalArgumentException.class, () -> Json.write(Map.of("a", new Object()))).getMessage());
    assertEquals("no JSON form for java.math.BigDecimal", assertThrows(
        IllegalArgumentException.class, () -> Json.write(java.math.BigDecimal.ONE)).getMessage());
    assertEquals("no JSON form for java.lang.Short", assertThrows(
        IllegalArgumentException.class, () -> Json.write((short) 3)).getMessage());
  }

  // ------------------------------------------------------------ indented (the report's file)

  @Test
  void writeIndentedLaysOutObjectsAndArrays() {
    assertEquals("""
        {
          "z": "text",
          "i": 3,
          "l": 1099511627776,
          "small": 1.0E-5,
          "two": 2.0,
          "f": 5.394879E-6,
          "minusZero": -0.0,
          "yes": true,
          "none": null,
          "flat": [1, "x", null, 2.5],
          "nested": [
            [1, 2],
            {
              "a": 1
            },
            []
          ],
          "emptyObject": {},
          "emptyArray": []
        }
        """, Json.writeIndented(sample()));
    assertEquals("[1, 2]\n", Json.writeIndented(List.of(1, 2)));
    assertEquals("\"x\"\n", Json.writeIndented("x"));
    assertEquals("{}\n", Json.writeIndented(Map.of()));
  }

  @Test
  void writeIndentedWritesNonFiniteNumbersAsNull() {
    Map<String, Object> o = Json.object();
    o.put("nan", Double.NaN);
    o.put("inf", Float.POSITIVE_INFINITY);
    o.put("list", Arrays.asList(Double.NEGATIVE_INFINITY, 1.5));
    assertEquals("{\n  \"nan\": null,\n  \"inf\": null,\n  \"list\": [null, 1.5]\n}\n",
        Json.writeIndented(o));
    assertThrows(IllegalArgumentException.class, () -> Json.writeIndented(List.of(new Object())));
  }

  // ------------------------------------------------------------ reading

  @Test
  void roundTrips() {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("a", List.of(1L, 2.5, "x\"y\n"));
    value.put("b", Map.of("c", true));
    value.put("nan", Double.NaN);
    Map<?, ?> back = (Map<?, ?>) Json.parse(Json.writeIndented(value));
    assertEquals(List.of(1L, 2.5, "x\"y\n"), back.get("a"));
    assertEquals(Map.of("c", true), back.get("b"));
    assertTrue(back.containsKey("nan"));
    assertNull(back.get("nan"));
    value.remove("nan");
    assertEquals(value, Json.parse(Json.write(value)));
    String awkward = "a\"b\\\n\r\t\u0001 é";
    assertEquals(List.of(awkward), Json.parse(Json.write(List.of(awkward))));
  }

  @Test
  void parseReadsNumbersAsLongOrDoubleAndPythonsNonFiniteWords() {
    Map<?, ?> doc = (Map<?, ?>) Json.parse("{\"a\": [1, -2.5e3, true, false, null, NaN, Infinity,"
        + " -Infinity, \"q\\u0041\\n\\\"\\b\\f\\/\"], \"b\": {}}");
    assertEquals(List.of("a", "b"), List.copyOf(doc.keySet()));
    List<?> a = (List<?>) doc.get("a");
    assertEquals(Arrays.asList(1L, -2500.0, true, false, null, Double.NaN,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, "qA\n\"\b\f/"), a);
    assertInstanceOf(Long.class, a.get(0));
    assertInstanceOf(Double.class, a.get(1));
    assertInstanceOf(LinkedHashMap.class, doc.get("b"));
  }

  @Test
  void parseNamesWhereTheTextIsNotJson() {
    String[][] cases = {{"", "unexpected end at offset 0"}, {"{", "expected '\"' at offset 1"},
        {"[1,", "unexpected end at offset 3"}, {"\"abc", "unterminated string at offset 4"},
        {"{\"a\" 1}", "expected ':' at offset 5"}, {"1 2", "trailing characters at offset 2"},
        {"x", "unexpected 'x' at offset 0"}};
    for (String[] c : cases) {
      assertEquals("JSON: " + c[1],
          assertThrows(IllegalArgumentException.class, () -> Json.parse(c[0])).getMessage(), c[0]);
    }
  }
}
