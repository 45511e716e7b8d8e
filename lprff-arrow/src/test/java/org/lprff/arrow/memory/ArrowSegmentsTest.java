package org.lprff.arrow.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.lprff.arrow.ArrowTestBase;
import org.lprff.vector.layout.LittleEndian;

class ArrowSegmentsTest extends ArrowTestBase {


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

  @Test
  void floatListRowsAreTheChildValuesInPlace() {
    try (FixedSizeListVector list = FixedSizeListVector.empty("features", 3, allocator)) {
      list.addOrGetVector(FieldType.notNullable(
          new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
      list.setInitialCapacity(2);
      list.allocateNew();
      Float4Vector values = (Float4Vector) list.getDataVector();
      for (int i = 0; i < 6; i++) {
        values.set(i, i + 0.5f);
      }
      list.setValueCount(2);
      MemorySegment rows = ArrowSegments.rows(list);
      assertEquals(24, rows.byteSize());
      assertEquals(values.getDataBuffer().memoryAddress(), rows.address());
      assertEquals(4.5f, rows.get(LittleEndian.FLOAT, 16));
    }
    try (FixedSizeListVector ints = FixedSizeListVector.empty("features", 3, allocator)) {
      ints.addOrGetVector(FieldType.notNullable(new ArrowType.Int(32, true)));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArrowSegments.rows(ints));
      assertTrue(e.getMessage().contains("expected Float32"), e.getMessage());
    }
  }

  @Test
  void fixedWidthValuesCoverTheValueCount() {
    try (IntVector ints = new IntVector("label", allocator)) {
      ints.allocateNew(10);
      ints.set(3, 77);
      ints.setValueCount(5);
      MemorySegment values = ArrowSegments.values(ints);
      assertEquals(20, values.byteSize());
      assertEquals(77, values.get(LittleEndian.INT, 12));
    }
  }

  @Test
  void aScopedViewFailsAfterItsArenaCloses() {
    try (ArrowBuf buf = allocator.buffer(16)) {
      buf.setByte(2, 9);
      Arena arena = Arena.ofConfined();
      MemorySegment scoped = ArrowSegments.scoped(ArrowSegments.view(buf), arena);
      assertEquals(9, scoped.get(ValueLayout.JAVA_BYTE, 2));
      assertEquals(buf.memoryAddress(), scoped.address());
      arena.close();
      assertThrows(IllegalStateException.class, () -> scoped.get(ValueLayout.JAVA_BYTE, 2));
      assertEquals(9, buf.getByte(2), "the buffer itself is untouched");
    }
  }
}
