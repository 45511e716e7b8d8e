package org.lprff.vector.layout;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The value layouts of every segment this project reads or writes: little-endian (Arrow's and the
 * feature format's byte order, whatever the platform's) and unaligned (rows of packed codes and
 * Arrow buffers start at any byte).
 */
public final class LittleEndian {

  public static final ValueLayout.OfShort SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  public static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  public static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  public static final ValueLayout.OfFloat FLOAT =
      ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  public static final ValueLayout.OfDouble DOUBLE =
      ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** Whether float arrays can be copied to and from little-endian segments as they are. */
  public static final boolean NATIVE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private LittleEndian() {}
}
