package org.lprff.vector.simd.panama;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * How the product kernels ({@link VectorProducts}, {@link PackedGroups}) turn an int vector of
 * codes into feature values, in registers. Affine rows ({@link #AFFINE}) use the codes themselves,
 * converted to float: the map {@code fma(code, step, lo)} is factored out of the sums. Codebook
 * rows look their values up in the table of 2^b levels: with b <= 4 (at most 16 levels) the table
 * is one register, or two when it has more levels than lanes (16 levels on 8 lanes), and the codes
 * are the index vector of a {@code selectFrom}; with b = 8 (256 levels, 16 registers even on 16
 * lanes) the codes are stored to a scratch of one vector, replaced there lane by lane by their
 * levels' bits, and loaded back. Not the Vector API's gather ({@code fromArray(species, a, 0,
 * indexMap, 0)}): in the kernels with four decodes per loop body it left a vector boxed per
 * decode (80 bytes each, 5 MB per forward call at m = 4096, n = 250), and was no faster. Both
 * make 8-bit codebook products several times slower than the affine ones (see the report of
 * issue 17); b <= 4 costs the same as the affine decode.
 *
 * <p>A kernel reads the fields into locals before its loop and calls {@link #decode} on each
 * vector of codes: the kind is loop-invariant, so the branch is predicted (or unswitched by C2),
 * and {@code decode} is small enough to be inlined into the loop.
 *
 * <p>One instance per call of a product: the lookup's index array is scratch, so an instance is
 * confined to its thread ({@link #AFFINE} has none and is shared).
 */
final class CodeDecoding {

  private static final VectorSpecies<Float> F = PackedLanes.FLOAT;
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
   * The values of {@code codes} (each in [0, 2^b)): the codes as floats, or their levels. The
   * lookups reinterpret the selected int lanes as floats, so the values are the levels bit for bit.
   */
  static FloatVector decode(
      IntVector codes, int kind, IntVector t0, IntVector t1, float[] levels, int[] index) {
    if (kind != GATHER) {
      return decodeInRegisters(codes, kind, t0, t1);
    }
    // Codes, then their levels' bits, in place: one scratch, no allocation, no vector boxed.
    codes.intoArray(index, 0);
    lookUp(index, levels);
    return IntVector.fromArray(INT, index, 0).reinterpretAsFloats();
  }

  /**
   * index[k] = the bits of levels[index[k]]. Its own method, of arrays only, so that C2 may
   * leave it out of line without boxing anything and the kernels that inline {@link #decode}
   * stay small. (The affine 8-bit forward pass is still about 1.2x slower than before codebook
   * rows shared the kernels, with or without this loop: the decode's kind and table registers
   * are what it pays for; see the issue 17 note.)
   */
  private static void lookUp(int[] index, float[] levels) {
    for (int k = 0; k < L; k++) {
      index[k] = Float.floatToRawIntBits(levels[index[k]]);
    }
  }

  /** {@link #decode} for the kinds other than {@link #GATHER}: codes of at most 4 bits. */
  static FloatVector decodeInRegisters(IntVector codes, int kind, IntVector t0, IntVector t1) {
    assert kind != GATHER;
    return kind == CODES
        ? (FloatVector) codes.convert(VectorOperators.I2F, 0)
        : kind == ONE_REGISTER
            ? codes.selectFrom(t0).reinterpretAsFloats()
            : codes.selectFrom(t0, t1).reinterpretAsFloats();
  }
}
