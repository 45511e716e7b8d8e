package org.lprff.arrow;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FixedSizeBinaryVector;

/**
 * The one place where Arrow buffers become {@link MemorySegment}s, so the kernels of
 * {@code lprff-vector} read Arrow memory in place, without copying.
 *
 * <p>A view is valid only while the buffer it came from is open; it does not hold a reference
 * count. Callers keep the owning vector (or {@code VectorSchemaRoot}) open for as long as they
 * use the segment.
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
}
