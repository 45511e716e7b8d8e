package org.lprff.vector.codec;

/**
 * A list of floats as metadata text: {@link Float#toString} of each, comma-separated, which parses
 * back to the same floats (Python's {@code float()} and JavaScript's {@code Number()} read each
 * item to the same value too).
 */
public final class FloatList {

  private FloatList() {}

  public static String format(float[] values) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      text.append(i == 0 ? "" : ",").append(values[i]);
    }
    return text.toString();
  }

  /**
   * The floats of {@code text}, which must hold exactly {@code count}.
   *
   * @throws IllegalArgumentException naming the key, the item and the count
   */
  public static float[] parse(String key, String text, int count) {
    String[] items = text.split(",", -1);
    if (items.length != count) {
      throw new IllegalArgumentException(
          key + " has " + items.length + " values, expected " + count + ": '" + text + "'");
    }
    float[] values = new float[count];
    for (int i = 0; i < count; i++) {
      try {
        values[i] = Float.parseFloat(items[i].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            key + " item " + i + " is '" + items[i] + "', not a number", e);
      }
    }
    return values;
  }
}
