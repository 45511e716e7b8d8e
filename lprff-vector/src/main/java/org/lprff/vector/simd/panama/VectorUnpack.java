package org.lprff.vector.simd.panama;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.simd.spi.UnpackBody;

/** Unpacking {@code LANES} codes per step through {@link PackedLanes}. */
public final class VectorUnpack implements UnpackBody {

  private static final int LANES = PackedLanes.LANES;

  @Override
  public void unpackCodes(
      MemorySegment src, long byteOffset, int bits, int count, int[] out, int off) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    int bound = PackedLanes.INT.loopBound(count);
    int i = 0;
    for (; i < bound; i += LANES) {
      PackedLanes.codes(src, byteOffset, bits, i, shifts, mask).intoArray(out, off + i);
    }
    for (; i < count; i++) {
      out[off + i] = PackedLayout.code(src, byteOffset, bits, i);
    }
  }

  @Override
  public void unpack(
      MemorySegment src,
      long byteOffset,
      int bits,
      int count,
      float lo,
      float step,
      float[] out,
      int off) {
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    FloatVector loV = FloatVector.broadcast(PackedLanes.FLOAT, lo);
    FloatVector stepV = FloatVector.broadcast(PackedLanes.FLOAT, step);
    int bound = PackedLanes.FLOAT.loopBound(count);
    int i = 0;
    // Independent steps (no carried dependency), so one per iteration keeps the ports busy.
    for (; i < bound; i += LANES) {
      PackedLanes.dequantize(src, byteOffset, bits, i, shifts, mask, loV, stepV)
          .intoArray(out, off + i);
    }
    for (; i < count; i++) {
      out[off + i] = PackedLayout.value(src, byteOffset, bits, i, lo, step);
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(VectorShape.FLOAT);
  }
}
