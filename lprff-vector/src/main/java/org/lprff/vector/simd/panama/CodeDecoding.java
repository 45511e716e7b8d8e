package org.lprff.vector.simd.panama;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * How the product kernels turn codes into feature values. Affine rows ({@link #AFFINE}) use the
 * codes themselves, converted to float: the map {@code fma(code, step, lo)} is factored out of the
 * sums. Codebook rows look their values up in the table of 2^b levels: with b <= 4 (at most 16
 * levels) the table is one register, or two when it has more levels than lanes (16 levels on 8
 * lanes), and the codes are the index vector of a {@code selectFrom}; with b = 8 (256 levels, 16
 * registers even on 16 lanes) the codes are stored to a scratch of one vector and looked up lane
 * by lane. Not the Vector API's gather ({@code fromArray(species, a, 0, indexMap, 0)}): in kernels
 * with four decodes per loop body it left a vector boxed per decode, and was no faster.
 *
 * <p>{@link PackedGroups} decodes in registers ({@link #decodeInRegisters}, b <= 4) inside its
 * loops: the kind is read into a local before the loop. {@link VectorProducts} (8-bit rows and the
 * tails of grouped rows) does not: the kind's branch and the table registers in its loops made the
 * affine 8-bit forward pass ~1.2x slower (C2 did not unswitch them), so its drivers decode a tile
 * of a codebook row at a time into a float scratch ({@link #decodeRow}) and run the float kernels
 * on it.
 *
 * <p>One instance per call of a product: the lookup's index array is scratch, so an instance is
 * confined to its thread ({@link #AFFINE} has none and is shared).
 */
final class CodeDecoding {

  private static final VectorSpecies<Integer> INT = PackedLanes.INT;
  private static final int L = PackedLanes.LANES;

  /** The codes as floats (exact: codes < 2^24). */
  static final int CODES = 0;

  /** {@code levels[code]} from one register of levels (2^b <= lanes). */
  static final int ONE_REGISTER = 1;

  /** {@code levels[code]} from two registers of levels (lanes < 2^b <= 2 lanes). */
  static final int TWO_REGISTERS = 2;

  /** {@code levels[code]} looked up lane by lane through a scratch (2^b > 2 lanes: b = 8). */
  static final int GATHER = 3;

  /** Affine rows: codes as floats. */
  static final CodeDecoding AFFINE = new CodeDecoding(CODES, new int[2 * L], null, null);

  /** One of {@link #CODES}, {@link #ONE_REGISTER}, {@link #TWO_REGISTERS}, {@link #GATHER}. */
  final int kind;

  /**
   * The raw float bits of levels[0, 2 LANES), zero-padded: the two table registers of the
   * register kinds, read as int vectors so that the int codes index them without a conversion.
   */
  final int[] table;

  /** The levels of codebook rows (the 8-bit lookup and the scalar tails), or null. */
  final float[] levels;

  /** The lookup's scratch of {@link #GATHER}, {@code LANES} ints, or null. */
  final int[] index;

  private CodeDecoding(int kind, int[] table, float[] levels, int[] index) {
    this.kind = kind;
    this.table = table;
    this.levels = levels;
    this.index = index;
  }

  /** The decoding of codebook rows of {@code bits}-bit codes, {@code levels.length == 2^bits}. */
  static CodeDecoding levels(float[] levels, int bits) {
    assert levels.length == 1 << bits : levels.length + " levels, " + bits + " bits";
    int count = levels.length;
    if (count > 2 * L) {
      return new CodeDecoding(GATHER, new int[2 * L], levels, new int[L]);
    }
    int[] table = new int[2 * L];
    for (int k = 0; k < count; k++) {
      table[k] = Float.floatToRawIntBits(levels[k]);
    }
    return new CodeDecoding(count <= L ? ONE_REGISTER : TWO_REGISTERS, table, levels, null);
  }

  /** The level of one code of codebook rows, for the scalar tails. */
  float value(int code) {
    return levels[code];
  }

  /** The first table register (lanes [0, LANES) of {@link #table}). */
  IntVector table0() {
    return IntVector.fromArray(INT, table, 0);
  }

  /** The second table register (lanes [LANES, 2 LANES) of {@link #table}). */
  IntVector table1() {
    return IntVector.fromArray(INT, table, L);
  }

  /**
   * {@code out[at + i - from] = levels[code_i]} for features [from, to) (vector-aligned) of the
   * codebook row at {@code row}: how {@link VectorProducts} feeds codebook rows to its float
   * kernels, one tile of a row at a time, so that its loops carry no decode kind. The lookups
   * reinterpret the selected int lanes as floats, so the values are the levels bit for bit.
   */
  void decodeRow(MemorySegment z, long row, int bits, int from, int to, float[] out, int at) {
    assert kind != CODES : "affine rows are not decoded";
    assert from % L == 0 && to % L == 0 : from + ", " + to;
    IntVector shifts = PackedLanes.shifts(bits);
    IntVector mask = PackedLanes.mask(bits);
    int o = at - from;
    if (kind == GATHER) {
      for (int i = from; i < to; i += L) {
        PackedLanes.codes(z, row, bits, i, shifts, mask).intoArray(index, 0);
        lookUp(index, levels, out, o + i);
      }
      return;
    }
    IntVector t0 = table0(), t1 = table1();
    for (int i = from; i < to; i += L) {
      IntVector codes = PackedLanes.codes(z, row, bits, i, shifts, mask);
      decodeInRegisters(codes, kind, t0, t1).intoArray(out, o + i);
    }
  }

  /** out[at + k] = levels[index[k]], k < LANES: arrays only, no vector crosses the call. */
  private static void lookUp(int[] index, float[] levels, float[] out, int at) {
    for (int k = 0; k < L; k++) {
      out[at + k] = levels[index[k]];
    }
  }

  /**
   * The values of {@code codes} (each in [0, 2^b), b <= 4): the codes as floats, or their levels
   * from the table registers t0, t1, bits reinterpreted as floats.
   */
  static FloatVector decodeInRegisters(IntVector codes, int kind, IntVector t0, IntVector t1) {
    assert kind != GATHER;
    return kind == CODES
        ? (FloatVector) codes.convert(VectorOperators.I2F, 0)
        : kind == ONE_REGISTER
            ? codes.selectFrom(t0).reinterpretAsFloats()
            : codes.selectFrom(t0, t1).reinterpretAsFloats();
  }
}
