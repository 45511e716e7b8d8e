package org.lprff.arrow.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * The one place where Arrow buffers become {@link MemorySegment}s, so the kernels of
 * {@code lprff-vector} read Arrow memory in place, without copying.
 *
 * <p>A view is valid only while the buffer it came from is open; it does not hold a reference
 * count. Callers keep the owning vector (or {@code VectorSchemaRoot}) open for as long as they
 * use the segment, or tie the view to an arena they close when the buffer goes ({@link
 * #scoped}), so that a late access fails instead of reading freed memory.
 */
public final class ArrowSegments {

  private ArrowSegments() {}

  /** A segment over the whole capacity of {@code buf}, at its native address. */
  public static MemorySegment view(ArrowBuf buf) {
    Objects.requireNonNull(buf, "buf");
    long capacity = buf.capacity();
    if (capacity == 0) {
      return MemorySegment.NULL.reinterpret(0);
    }
    // Restricted method: the run-time flags include --enable-native-access=ALL-UNNAMED.
    return MemorySegment.ofAddress(buf.memoryAddress()).reinterpret(capacity);
  }

  /**
   * The value bytes of the first {@code vector.getValueCount()} rows of a fixed-size binary
   * column: row {@code r} starts at byte {@code r * vector.getByteWidth()} of the segment.
   */
  public static MemorySegment rows(FixedSizeBinaryVector vector) {
    Objects.requireNonNull(vector, "vector");
    long bytes = (long) vector.getValueCount() * vector.getByteWidth();
    return view(vector.getDataBuffer()).asSlice(0, bytes);
  }

  /**
   * The float32 values of the first {@code vector.getValueCount()} lists of a FixedSizeList of
   * Float32: list {@code r} is {@code 4 * vector.getListSize()} bytes starting at byte {@code r *
   * 4 * vector.getListSize()} (little-endian floats, as Arrow stores them).
   *
   * @throws IllegalArgumentException if the child vector is not a Float32 vector
   */
  public static MemorySegment rows(FixedSizeListVector vector) {
    Objects.requireNonNull(vector, "vector");
    if (!(vector.getDataVector() instanceof Float4Vector values)) {
      throw new IllegalArgumentException(
          "column " + vector.getName() + " has child type "
              + vector.getDataVector().getField().getType() + ", expected Float32");
    }
    long bytes = 4L * vector.getListSize() * vector.getValueCount();
    return view(values.getDataBuffer()).asSlice(0, bytes);
  }

  /**
   * The values of the first {@code vector.getValueCount()} rows of a fixed-width column (Int32,
   * Float32, Int64, ...): {@code getValueCount() * TYPE_WIDTH} bytes, little-endian.
   */
  public static MemorySegment values(BaseFixedWidthVector vector) {
    Objects.requireNonNull(vector, "vector");
    long bytes = (long) vector.getValueCount() * vector.getTypeWidth();
    return view(vector.getDataBuffer()).asSlice(0, bytes);
  }

  /**
   * The same memory as {@code view}, but alive only while {@code arena} is open: after {@code
   * arena.close()} an access throws {@link IllegalStateException} instead of reading memory Arrow
   * may have freed. No cleanup action is attached (the Arrow buffer keeps its own lifetime).
   */
  public static MemorySegment scoped(MemorySegment view, Arena arena) {
    Objects.requireNonNull(view, "view");
    Objects.requireNonNull(arena, "arena");
    // Restricted method, as in view(ArrowBuf).
    return view.reinterpret(arena, null);
  }
}
