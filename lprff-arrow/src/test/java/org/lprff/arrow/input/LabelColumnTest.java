package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LabelColumnTest {

  private static final List<String> HEADER = List.of("carat", "3", "last", "#x", "price");

  @Test
  void parseKeywordsIndicesAndNames() {
    assertEquals(LabelColumn.NONE, LabelColumn.parse("none"));
    assertEquals(LabelColumn.FIRST, LabelColumn.parse("first"));
    assertEquals(LabelColumn.LAST, LabelColumn.parse("last"));
    assertEquals(LabelColumn.index(3), LabelColumn.parse("3"));
    assertEquals(LabelColumn.index(3), LabelColumn.parse("#3"));
    assertEquals(LabelColumn.index(7), LabelColumn.parse("007"));
    assertEquals(LabelColumn.named("price"), LabelColumn.parse("price"));
    assertEquals(LabelColumn.named("3"), LabelColumn.parse("name:3"));
    assertEquals(LabelColumn.named("last"), LabelColumn.parse("name:last"));
    assertEquals(LabelColumn.named("Last"), LabelColumn.parse("Last")); // keywords are lower case
    assertEquals(LabelColumn.named("-1"), LabelColumn.parse("-1"));
    assertEquals(LabelColumn.named("name:x"), LabelColumn.parse("name:name:x"));
  }

  @Test
  void textFormRoundTrips() {
    List<LabelColumn> all =
        List.of(
            LabelColumn.NONE,
            LabelColumn.FIRST,
            LabelColumn.LAST,
            LabelColumn.index(0),
            LabelColumn.index(12),
            LabelColumn.named("price"),
            LabelColumn.named("3"),
            LabelColumn.named("#3"),
            LabelColumn.named("none"),
            LabelColumn.named("name:y"),
            LabelColumn.named("a b, c"));
    for (LabelColumn label : all) {
      assertEquals(label, LabelColumn.parse(label.toString()), label.toString());
    }
  }

  @Test
  void parseErrorsSayWhatIsExpected() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> LabelColumn.parse(""))
            .getMessage()
            .contains("expected none, first, last"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> LabelColumn.parse("name:"))
            .getMessage()
            .contains("no name after the colon"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> LabelColumn.parse("99999999999"))
            .getMessage()
            .contains("'99999999999' is too large"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> LabelColumn.parse("#x"))
            .getMessage()
            .contains("use name:#x"));
    assertThrows(IllegalArgumentException.class, () -> LabelColumn.index(-1));
  }

  @Test
  void resolveAgainstAHeader() {
    assertEquals(-1, LabelColumn.NONE.resolve(HEADER, "f"));
    assertEquals(0, LabelColumn.FIRST.resolve(HEADER, "f"));
    assertEquals(4, LabelColumn.LAST.resolve(HEADER, "f"));
    assertEquals(3, LabelColumn.parse("3").resolve(HEADER, "f"));
    assertEquals(1, LabelColumn.parse("name:3").resolve(HEADER, "f"));
    assertEquals(2, LabelColumn.parse("name:last").resolve(HEADER, "f"));
    assertEquals(3, LabelColumn.parse("name:#x").resolve(HEADER, "f"));
    InputFormatException unknown =
        assertThrows(
            InputFormatException.class, () -> LabelColumn.named("Price").resolve(HEADER, "f.csv"));
    assertTrue(
        unknown.getMessage().contains("f.csv: no column named 'Price'"), unknown.getMessage());
    assertTrue(unknown.getMessage().contains("carat, 3, last, #x, price"), unknown.getMessage());
    InputFormatException range =
        assertThrows(
            InputFormatException.class, () -> LabelColumn.index(5).resolve(HEADER, "f.csv"));
    assertTrue(range.getMessage().contains("index 5 is out of range"), range.getMessage());
    assertThrows(InputFormatException.class, () -> LabelColumn.LAST.resolve(List.of(), "f"));
  }
}
