package org.lprff.vector.simd.panama;

import static org.lprff.vector.simd.spi.CosineCodes.A0;
import static org.lprff.vector.simd.spi.CosineCodes.A1;
import static org.lprff.vector.simd.spi.CosineCodes.A2;
import static org.lprff.vector.simd.spi.CosineCodes.A3;
import static org.lprff.vector.simd.spi.CosineCodes.B0;
import static org.lprff.vector.simd.spi.CosineCodes.B1;
import static org.lprff.vector.simd.spi.CosineCodes.B2;
import static org.lprff.vector.simd.spi.CosineCodes.B3;
import static org.lprff.vector.simd.spi.CosineCodes.B4;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.simd.scalar.ScalarCosineCodes;
import org.lprff.vector.simd.scalar.ScalarRounding;
import org.lprff.vector.simd.spi.CosineCodes;
import org.lprff.vector.simd.spi.CosineCodesBody;

/**
 * Vector body of {@link CosineCodes}: cosine, rounding and packing of a whole register of
 * features in one pass, on the preferred species (8 or 16 lanes), with no float array between
 * the steps. Per register: the argument (a load and an add), the reduced cosine (two FMAs of
 * reduction, a multiply, three or four Horner FMAs, a sign), the grid position (one FMA and a
 * convert), the draw (a load of its fixed-point draw), the code (an add, a shift, a clamp), and
 * the packed store. The block's draws come first, 8 bits a feature ({@link
 * VectorCounterRng#drawBlock8}) or 16 ({@link VectorCounterRng#drawBlock16}), into a per-thread
 * array, so that the rounding loop holds no call.
 *
 * <p>Lane for lane the float operations are {@link CosineCodes}'s, so the bytes equal the scalar
 * body's. Columns before the first multiple of the lane count and the last partial register take
 * the scalar body. The other quantizers (shared threshold, Lloyd-Max, Sigma-Delta) go through
 * small array batches instead (see {@link #quantizeShared}); their last partial register takes
 * {@link CosineCodes}'s definition.
 */
public final class VectorCosineCodes implements CosineCodesBody {

  private static final VectorSpecies<Float> FLOATS = VectorShape.FLOAT;
  private static final VectorSpecies<Integer> INTS =
      FLOATS.length() == 16 ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
  private static final int LANES = FLOATS.length();

  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  private static final IntVector SHIFT_2 = IntVector.zero(INTS).addIndex(2);
  private static final IntVector SHIFT_4 = IntVector.zero(INTS).addIndex(4);
  private static final IntVector NEAREST = IntVector.broadcast(INTS, CosineCodes.NEAREST_DRAW);

  private static final ScalarCosineCodes SCALAR = new ScalarCosineCodes();
  private static final VectorCounterRng RNG = new VectorCounterRng();
  private static final ScalarRounding PACKING = new ScalarRounding();

  /**
   * Columns per pass of the other quantizers (a multiple of 16): small scratch arrays, since
   * allocating and clearing two arrays of a 512-column block cost more than the codes (measured).
   */
  private static final int BATCH = 64;

  @Override
  public boolean quantize(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int drawBits,
      long seed, long row, int firstColumn, int draw, MemorySegment out, long byteOffset) {
    assert bits >= 1 && bits <= CosineCodes.MAX_BITS && firstColumn % 8 == 0 && count >= 0;
    // Whole registers start on a multiple of LANES, where a register's draws are one run of words.
    int head = Math.min(count, (-firstColumn) & (LANES - 1));
    int bound = head + (count - head) / LANES * LANES;
    boolean sawNaN = SCALAR.quantize(
        t, tOff, a, aOff, head, bits, drawBits, seed, row, firstColumn, draw, out, byteOffset);

    // The block's draws first (fastfood, d = 90, 4-bit, one thread: 24.3 ms per 1000 rows at
    // m = 8192 with the generator called inside the loop, 20.0 so, 15.8 without draws; byte
    // draws, half the Threefry blocks: 18.6, float32 18.6).
    boolean stochastic = drawBits != CosineCodes.NO_DRAWS;
    int[] draws = !stochastic || bound == head ? null
        : drawBits == CosineCodes.BYTE_DRAWS
            ? RNG.drawBlock8(seed, row, firstColumn + head, draw, bound - head)
            : RNG.drawBlock16(seed, row, firstColumn + head, draw, bound - head);
    float scale = CosineCodes.gridScale(bits);
    float offset = scale + 0.5f;
    int maxCode = (1 << bits) - 1;
    FloatVector nanProbe = FloatVector.zero(FLOATS);
    long o = byteOffset + (long) head / 8 * bits;
    for (int i = head; i < bound; i += LANES, o += LANES / 8 * bits) {
      FloatVector x = FloatVector.fromArray(FLOATS, t, tOff + i)
          .add(FloatVector.fromArray(FLOATS, a, aOff + i));
      FloatVector c = cosine(x, bits);
      nanProbe = nanProbe.add(c);
      IntVector grid = (IntVector) c.fma(scale, offset).convertShape(VectorOperators.F2I, INTS, 0);
      IntVector h = stochastic ? IntVector.fromArray(INTS, draws, i - head) : NEAREST;
      IntVector codes = grid.add(h).lanewise(VectorOperators.ASHR, 16).max(0).min(maxCode);
      store(codes, bits, out, o);
    }
    sawNaN |= Float.isNaN(nanProbe.reduceLanes(VectorOperators.ADD));
    sawNaN |= SCALAR.quantize(t, tOff + bound, a, aOff + bound, count - bound, bits, drawBits,
        seed, row, firstColumn + bound, draw, out, o);
    return sawNaN;
  }

  /** {@link CosineCodes#cosine} lane by lane. */
  static FloatVector cosine(FloatVector x, int bits) {
    FloatVector shifted = x.fma(CosineCodes.ONE_OVER_PI, CosineCodes.ROUNDING_MAGIC);
    FloatVector k = shifted.sub(CosineCodes.ROUNDING_MAGIC);
    FloatVector r = k.lanewise(VectorOperators.FMA, -CosineCodes.PI1, x);
    r = k.lanewise(VectorOperators.FMA, -CosineCodes.PI2, r);
    FloatVector z = r.mul(r);
    FloatVector p = bits <= 4
        ? z.fma(A3, A2).lanewise(VectorOperators.FMA, z, A1).lanewise(VectorOperators.FMA, z, A0)
        : z.fma(B4, B3).lanewise(VectorOperators.FMA, z, B2).lanewise(VectorOperators.FMA, z, B1)
            .lanewise(VectorOperators.FMA, z, B0);
    IntVector sign = shifted.reinterpretAsInts().lanewise(VectorOperators.LSHL, 31);
    FloatVector c = p.reinterpretAsInts().lanewise(VectorOperators.XOR, sign).reinterpretAsFloats();
    // |x| beyond the limit, or NaN: the double cosine (a never-taken branch for feature maps).
    VectorMask<Float> outside =
        x.abs().compare(VectorOperators.LE, CosineCodes.POLYNOMIAL_LIMIT).not();
    if (outside.anyTrue()) {
      float[] lanes = x.toArray();
      for (int j = 0; j < lanes.length; j++) {
        lanes[j] = CosineCodes.cosine(lanes[j], bits);
      }
      c = c.blend(FloatVector.fromArray(FLOATS, lanes, 0), outside);
    }
    return c;
  }

  /** LANES codes of b bits: exactly LANES b / 8 bytes at o, lane i at bits [i b, (i + 1) b). */
  private static void store(IntVector codes, int bits, MemorySegment out, long o) {
    switch (bits) {
      case 1 -> {
        long mask = codes.compare(VectorOperators.NE, 0).toLong();
        if (LANES == 16) {
          out.set(LittleEndian.SHORT, o, (short) mask);
        } else {
          out.set(ValueLayout.JAVA_BYTE, o, (byte) mask);
        }
      }
      case 2 -> {
        int word = codes.lanewise(VectorOperators.LSHL, SHIFT_2)
            .reduceLanes(VectorOperators.OR);
        if (LANES == 16) {
          out.set(LittleEndian.INT, o, word);
        } else {
          out.set(LittleEndian.SHORT, o, (short) word);
        }
      }
      case 4 -> {
        if (LANES == 16) {
          // Lane pairs as longs (c0 | c1 << 32): folding c1 down next to c0 makes byte k, and the
          // narrowing keeps each long's low byte.
          LongVector pairs = codes.reinterpretAsLongs();
          pairs.or(pairs.lanewise(VectorOperators.LSHR, 28))
              .convertShape(VectorOperators.L2B, ByteVector.SPECIES_64, 0)
              .reinterpretAsBytes()
              .intoMemorySegment(out, o, LE);
        } else {
          out.set(LittleEndian.INT, o, codes.lanewise(VectorOperators.LSHL, SHIFT_4)
              .reduceLanes(VectorOperators.OR));
        }
      }
      case 8 -> codes.convertShape(VectorOperators.I2B,
              LANES == 16 ? ByteVector.SPECIES_128 : ByteVector.SPECIES_64, 0)
          .reinterpretAsBytes().intoMemorySegment(out, o, LE);
      default -> throw new AssertionError(bits);
    }
  }

  @Override
  public String shape() {
    return VectorShape.describe(FLOATS) + "; draws " + VectorShape.describe(VectorCounterRng.BLOCKS);
  }

  /**
   * The other quantizers run in three passes over {@link #BATCH} columns at a time, each pass its
   * own method over arrays: the cosines ({@link #cosines}), the codes, the packing ({@link
   * #pack}). Fused into one loop, as {@link #quantize} is, the gathers grow the method past C2's
   * inlining budget, and {@link #store} left out of line boxes its vector on every register (96
   * bytes a register, seen with JMH's gc profiler, and 2x the time).
   */
  @Override
  public boolean quantizeShared(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int[] draws, int drawOff,
      MemorySegment out, long byteOffset) {
    assert bits >= 1 && bits <= CosineCodes.MAX_BITS && count >= 0;
    assert count == 0 || drawOff + (long) count * ((1 << bits) - 1) <= draws.length;
    float[] c = new float[Math.min(BATCH, count)];
    int[] codes = new int[c.length];
    boolean sawNaN = false;
    for (int done = 0; done < count; done += BATCH) {
      int n = Math.min(BATCH, count - done);
      sawNaN |= cosines(t, tOff + done, a, aOff + done, n, bits, c);
      sharedCodes(c, n, bits, draws, drawOff + done * ((1 << bits) - 1), codes);
      pack(codes, n, bits, out, byteOffset + (long) done / 8 * bits);
    }
    return sawNaN;
  }

  /** {@link CosineCodes#sharedCode} of c[0 .. count), column i's draws at drawOff + i (2^b - 1). */
  private static void sharedCodes(
      float[] c, int count, int bits, int[] draws, int drawOff, int[] codes) {
    int intervals = (1 << bits) - 1;
    float scale = CosineCodes.gridScale(bits);
    float offset = scale + 0.5f;
    int maxCode = (1 << bits) - 1;
    // Lane l's draws start l (2^b - 1) after the register's first column's.
    IntVector lane = IntVector.zero(INTS).addIndex(intervals);
    int[] index = new int[LANES];
    int bound = count / LANES * LANES;
    for (int i = 0; i < bound; i += LANES) {
      IntVector grid = (IntVector) FloatVector.fromArray(FLOATS, c, i).fma(scale, offset)
          .convertShape(VectorOperators.F2I, INTS, 0);
      lane.add(grid.lanewise(VectorOperators.ASHR, 16).max(0).min(intervals - 1))
          .intoArray(index, 0);
      IntVector h = IntVector.fromArray(INTS, draws, drawOff + i * intervals, index, 0);
      grid.add(h).lanewise(VectorOperators.ASHR, 16).max(0).min(maxCode).intoArray(codes, i);
    }
    for (int i = bound; i < count; i++) {
      codes[i] = CosineCodes.sharedCode(c[i], draws, drawOff + i * intervals, bits);
    }
  }

  @Override
  public boolean quantizeThresholds(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, float[] thresholds,
      MemorySegment out, long byteOffset) {
    assert bits >= 1 && bits <= CosineCodes.MAX_BITS && count >= 0;
    assert thresholds.length >= (1 << bits) - 1;
    float[] c = new float[Math.min(BATCH, count)];
    int[] codes = new int[c.length];
    boolean sawNaN = false;
    for (int done = 0; done < count; done += BATCH) {
      int n = Math.min(BATCH, count - done);
      sawNaN |= cosines(t, tOff + done, a, aOff + done, n, bits, c);
      thresholdCodes(c, n, bits, thresholds, codes);
      pack(codes, n, bits, out, byteOffset + (long) done / 8 * bits);
    }
    return sawNaN;
  }

  /**
   * {@link CosineCodes#thresholdCode} of c[0 .. count). For b <= 4 each threshold is a broadcast
   * compare (1, 3 or 15). For b = 8, as the thresholds ascend: 15 broadcast compares with every
   * 16th threshold find the group of 16 the count lies in, [code, code + 16), then a branch-free
   * binary search per lane: before the step of width w the count lies in [code, code + 2w), and
   * the threshold gathered at code + w - 1 halves that. (A plain binary search, one broadcast and
   * seven gathers, took 1.8x as long: the gathers' latency is the chain.)
   */
  private static void thresholdCodes(
      float[] c, int count, int bits, float[] thresholds, int[] codes) {
    int[] index = new int[LANES];
    int bound = count / LANES * LANES;
    for (int i = 0; i < bound; i += LANES) {
      FloatVector cv = FloatVector.fromArray(FLOATS, c, i);
      IntVector code = IntVector.zero(INTS);
      if (bits <= 4) {
        for (int k = 0; k < (1 << bits) - 1; k++) {
          code = code.add(1, cv.compare(VectorOperators.GT, thresholds[k]).cast(INTS));
        }
      } else {
        // The first four steps by broadcasts: the group of 16 thresholds the cosine falls in.
        for (int k = 15; k < 255; k += 16) {
          code = code.add(16, cv.compare(VectorOperators.GT, thresholds[k]).cast(INTS));
        }
        for (int half = 8; half > 0; half >>= 1) {
          code.intoArray(index, 0);
          FloatVector probe = FloatVector.fromArray(FLOATS, thresholds, half - 1, index, 0);
          code = code.add(half, cv.compare(VectorOperators.GT, probe).cast(INTS));
        }
      }
      code.intoArray(codes, i);
    }
    for (int i = bound; i < count; i++) {
      codes[i] = CosineCodes.thresholdCode(c[i], thresholds, bits);
    }
  }

  /**
   * Sequential along a block, so the lanes run LANES blocks side by side, a group of LANES blocks
   * at a time: the group's cosines first (contiguous, into a scratch), then one step per column
   * of a block, lane l reading the cosine of its block by a gather of stride {@code block}, and
   * the codes of step i stored contiguously at i LANES; a transposition puts them back in column
   * order, and the packing is by register. Blocks left over (fewer than LANES) take {@link
   * CosineCodes#sigmaDelta}. A block of 256 makes a group of 4096 columns, more than the
   * featurizer's blocks of 512: such rows take the definition throughout.
   */
  @Override
  public boolean quantizeSigmaDelta(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, int order, int block,
      MemorySegment out, long byteOffset) {
    assert bits >= order && order >= 1 && order <= CosineCodes.MAX_ORDER;
    assert block >= 1 && count >= 0 && count % block == 0;
    // One group of LANES blocks at a time (the rest, fewer blocks, by the definition).
    int group = LANES * block;
    float[] c = new float[Math.min(group, count)];
    int[] codes = new int[c.length];
    int[] columns = new int[count >= group ? group : 0];
    int[] lanes = new int[LANES];
    IntVector.zero(INTS).addIndex(block).intoArray(lanes, 0);
    boolean sawNaN = false;
    for (int done = 0; done < count; done += group) {
      int n = Math.min(group, count - done);
      sawNaN |= cosines(t, tOff + done, a, aOff + done, n, bits, c);
      if (n == group) {
        sigmaDeltaGroup(c, bits, order, block, lanes, columns, codes);
      } else {
        CosineCodes.sigmaDelta(c, 0, n, bits, order, block, codes, 0);
      }
      pack(codes, n, bits, out, byteOffset + (long) done / 8 * bits);
    }
    return sawNaN;
  }

  /** c[i] = cosine(t[tOff + i] + a[aOff + i], b) for i < count; true if one is NaN. */
  private static boolean cosines(
      float[] t, int tOff, float[] a, int aOff, int count, int bits, float[] c) {
    int bound = count / LANES * LANES;
    FloatVector nanProbe = FloatVector.zero(FLOATS);
    for (int i = 0; i < bound; i += LANES) {
      FloatVector x = FloatVector.fromArray(FLOATS, t, tOff + i)
          .add(FloatVector.fromArray(FLOATS, a, aOff + i));
      FloatVector cv = cosine(x, bits);
      nanProbe = nanProbe.add(cv);
      cv.intoArray(c, i);
    }
    boolean sawNaN = Float.isNaN(nanProbe.reduceLanes(VectorOperators.ADD));
    for (int i = bound; i < count; i++) {
      c[i] = CosineCodes.cosine(t[tOff + i] + a[aOff + i], bits);
      sawNaN |= Float.isNaN(c[i]);
    }
    return sawNaN;
  }

  /**
   * {@link CosineCodes#sigmaDelta} of the LANES blocks c[0 .. LANES block): lane l steps through
   * block l (its cosines gathered at lanes[l] = l block), the codes of step i go to columns[i
   * LANES ..], then transposed into codes.
   */
  private static void sigmaDeltaGroup(
      float[] c, int bits, int order, int block, int[] lanes, int[] columns, int[] codes) {
    float step = CosineCodes.sigmaDeltaStep(bits, order);
    float inverse = ((1 << bits) - (1 << order) + 1) * 0.5f;
    float center = ((1 << bits) - 1) * 0.5f;
    int maxCode = (1 << bits) - 1;
    FloatVector centers = FloatVector.broadcast(FLOATS, center);
    FloatVector steps = FloatVector.broadcast(FLOATS, step);
    FloatVector u1 = FloatVector.zero(FLOATS);
    FloatVector u2 = u1;
    FloatVector u3 = u1;
    for (int i = 0; i < block; i++) {
      FloatVector y = FloatVector.fromArray(FLOATS, c, i, lanes, 0);
      FloatVector rho = switch (order) {
        case 1 -> y.add(u1);
        case 2 -> y.sub(u2).add(u1.add(u1));
        default -> y.add(u3).add(u1.sub(u2).mul(3f));
      };
      // (int) of a non-negative float truncates, as F2I does.
      IntVector code = ((IntVector) rho.fma(inverse, center).max(0f).add(0.5f)
          .convertShape(VectorOperators.F2I, INTS, 0)).min(maxCode);
      code.intoArray(columns, i * LANES);
      u3 = u2;
      u2 = u1;
      // code - C is a half-integer, never 0, so -(code - C) is exactly C - code.
      u1 = centers.sub((FloatVector) code.convertShape(VectorOperators.I2F, FLOATS, 0))
          .fma(steps, rho);
    }
    for (int l = 0; l < LANES; l++) {
      for (int i = 0; i < block; i++) {
        codes[l * block + i] = columns[i * LANES + l];
      }
    }
  }

  /** Packs codes[0 .. count) at byteOffset: whole registers by {@link #store}, then the rest. */
  private static void pack(int[] codes, int count, int bits, MemorySegment out, long byteOffset) {
    int bound = count / LANES * LANES;
    long o = byteOffset;
    for (int i = 0; i < bound; i += LANES, o += LANES / 8 * bits) {
      store(IntVector.fromArray(INTS, codes, i), bits, out, o);
    }
    PACKING.packCodes(codes, bound, count - bound, bits, out, o);
  }
}
