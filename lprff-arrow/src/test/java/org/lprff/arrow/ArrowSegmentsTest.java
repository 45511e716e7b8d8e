package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ArrowSegmentsTest {

  private RootAllocator root;
  private BufferAllocator allocator;

  @BeforeEach
  void open() {
    root = new RootAllocator();
    allocator = root.newChildAllocator("test", 0, Long.MAX_VALUE);
  }

  @AfterEach
  void closeAndCheckForLeaks() {
    long outstanding = allocator.getAllocatedMemory();
    allocator.close();
    root.close();
    assertEquals(0, outstanding, "bytes still allocated after the test");
  }

  @Test
  void segmentAliasesTheBufferBothWays() {
    try (ArrowBuf buf = allocator.buffer(64)) {
      MemorySegment segment = ArrowSegments.view(buf);
      assertEquals(buf.capacity(), segment.byteSize());
      buf.setInt(8, 0x12345678);
      assertEquals(0x12345678, segment.get(ValueLayout.JAVA_INT_UNALIGNED, 8));
      segment.set(ValueLayout.JAVA_BYTE, 63, (byte) 0x5A);
      assertEquals((byte) 0x5A, buf.getByte(63));
    }
  }

  @Test
  void rowsOfAFixedSizeBinaryColumnAreContiguousInPlace() {
    try (FixedSizeBinaryVector column = new FixedSizeBinaryVector("features", allocator, 3)) {
      column.allocateNew(4);
      byte[][] rows = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}};
      for (int r = 0; r < rows.length; r++) {
        column.setSafe(r, rows[r]);
      }
      column.setValueCount(rows.length);
      MemorySegment view = ArrowSegments.rows(column);
      assertEquals(12, view.byteSize());
      assertArrayEquals(
          new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, view.toArray(ValueLayout.JAVA_BYTE));
      // A write through the view is visible to Arrow: no copy was made.
      view.set(ValueLayout.JAVA_BYTE, 4, (byte) 42);
      assertEquals(42, column.get(1)[1]);
    }
  }

  @Test
  void emptyBufferGivesEmptySegment() {
    try (ArrowBuf buf = allocator.buffer(0)) {
      assertEquals(0, ArrowSegments.view(buf).byteSize());
    }
  }
}
