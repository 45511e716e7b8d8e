package org.lprff.vector.stream;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import org.lprff.vector.codec.CodebookRows;
import org.lprff.vector.codec.Condensation;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.codec.PackedRows;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.layout.PackedLayout;
import org.lprff.vector.layout.LittleEndian;
import org.lprff.vector.products.BlockProducts;
import org.lprff.vector.products.FloatProducts;
import org.lprff.vector.products.PackedProducts;

/**
 * The features of a batch of n rows, in place, in one of the two layouts of DESIGN.md section 3:
 * {@link Packed} b-bit codes ({@link PackedRows}) or {@link Float32} little-endian float32 rows (b
 * = 32). Both run the same product kernels, {@link PackedProducts} and {@link FloatProducts}; the
 * bytes are not copied and stay the caller's.
 */
public sealed interface FeatureRows
    permits FeatureRows.Packed, FeatureRows.Float32, FeatureRows.Coded, FeatureRows.Condensed {

  /**
   * n rows of {@code spec}'s features in {@code segment} from {@code byteOffset} on, read as the
   * spec's quantizer decodes them: float32 (b = 32), codes on a grid ({@link Packed}), codes of a
   * codebook ({@link Coded}: Lloyd-Max); for Sigma-Delta, codes or float32, condensed block by
   * block ({@link Condensed}: the rows then have {@link FeaturizerSpec#modelFeatures()} features).
   */
  static FeatureRows of(FeaturizerSpec spec, MemorySegment segment, long byteOffset, int rows) {
    if (spec == null) {
      throw new IllegalArgumentException("spec is null");
    }
    int m = spec.features();
    FeatureRows values = spec.isFloat() ? float32(segment, byteOffset, rows, m)
        : spec.quantizer().affine()
            ? new Packed(new PackedRows(segment, byteOffset, rows, m, spec.scale()))
            : new Coded(new CodebookRows(segment, byteOffset, rows, m, spec.bits(), spec.levels()));
    return spec.condensation().<FeatureRows>map(c -> new Condensed(values, c)).orElse(values);
  }

  /** Packed rows. */
  static FeatureRows of(PackedRows rows) {
    return new Packed(rows);
  }

  /** n float32 rows of m features in {@code segment} from {@code byteOffset} on. */
  static FeatureRows float32(MemorySegment segment, long byteOffset, int rows, int features) {
    return new Float32(segment, byteOffset, rows, features);
  }

  /**
   * n float32 rows of m features in a heap array from {@code x[off]} on (row r at {@code x[off +
   * r*m]}). The array's bytes are read as little-endian, which needs a little-endian platform.
   */
  static FeatureRows float32(float[] x, int off, int rows, int features) {
    if (x == null) {
      throw new IllegalArgumentException("x is null");
    }
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new UnsupportedOperationException(
          "float[] rows need a little-endian platform, this one is " + ByteOrder.nativeOrder());
    }
    if (off < 0) {
      throw new IllegalArgumentException("off is " + off + ", expected >= 0");
    }
    return new Float32(MemorySegment.ofArray(x), 4L * off, rows, features);
  }

  /** Rows n. */
  int rows();

  /** Features per row m. */
  int features();

  /** Bits per feature: 1, 2, 4, 8, 16, or 32 for float32. */
  int bits();

  /** Bytes per row: ceil(m b / 8), or 4 m for float32. */
  long rowBytes();

  MemorySegment segment();

  /** Where row 0 starts in {@link #segment()}. */
  long byteOffset();

  /** {@code y[r*c + j] = sum_i z[r][i] wT[j*m + i]} (overwrites; no bias). */
  void forward(float[] wT, int c, float[] y);

  /** {@code gT[j*m + i] += sum_r z[r][i] d[r*c + j]} (adds). */
  void accumulateTransposed(float[] d, int c, float[] gT);

  /**
   * The fused block products of a pass over rows of this layout at weights {@code wT} (c
   * outputs), or null where there are none (codebook and condensed rows: use {@link #forward} and
   * {@link #accumulateTransposed}). They read any rows of the same layout, not only these.
   */
  default BlockProducts blocks(float[] wT, int c) {
    return null;
  }

  /** Writes the m feature values of row r (decoded for packed rows) to {@code out[off..off+m)}. */
  void decode(int row, float[] out, int off);

  /** The same layout (bits, scale, m) over {@code rows} rows at {@code segment[byteOffset..]}. */
  FeatureRows at(MemorySegment segment, long byteOffset, int rows);

  /** Rows [from, from + count) of this batch, in place. */
  default FeatureRows slice(int from, int count) {
    if (from < 0 || count < 0 || from > rows() - count) {
      throw new IllegalArgumentException(
          "rows [" + from + ", " + ((long) from + count) + ") are outside [0, " + rows() + ")");
    }
    return at(segment(), byteOffset() + from * rowBytes(), count);
  }

  /** Packed b-bit rows, b in {1, 2, 4, 8, 16}. */
  record Packed(PackedRows packed) implements FeatureRows {
    public Packed {
      if (packed == null) {
        throw new IllegalArgumentException("packed is null");
      }
    }

    public QuantizationScale scale() {
      return packed.scale();
    }

    @Override
    public int rows() {
      return packed.rows();
    }

    @Override
    public int features() {
      return packed.features();
    }

    @Override
    public int bits() {
      return packed.scale().bits();
    }

    @Override
    public long rowBytes() {
      return packed.rowBytes();
    }

    @Override
    public MemorySegment segment() {
      return packed.segment();
    }

    @Override
    public long byteOffset() {
      return packed.byteOffset();
    }

    @Override
    public void forward(float[] wT, int c, float[] y) {
      PackedProducts.forward(packed, wT, c, y);
    }

    @Override
    public void accumulateTransposed(float[] d, int c, float[] gT) {
      PackedProducts.accumulateTransposed(packed, d, c, gT);
    }

    @Override
    public BlockProducts blocks(float[] wT, int c) {
      return BlockProducts.packed(features(), packed.scale(), wT, c);
    }

    @Override
    public void decode(int row, float[] out, int off) {
      checkRow(row, rows());
      PackedFeatures.unpack(
          packed.segment(), packed.byteOffset() + row * rowBytes(), packed.scale(), features(),
          out, off);
    }

    @Override
    public FeatureRows at(MemorySegment segment, long byteOffset, int rows) {
      return new Packed(new PackedRows(segment, byteOffset, rows, features(), packed.scale()));
    }
  }

  /** Little-endian float32 rows: row r at {@code byteOffset + 4 m r}. */
  record Float32(MemorySegment segment, long byteOffset, int rows, int features)
      implements FeatureRows {
    public Float32 {
      if (segment == null) {
        throw new IllegalArgumentException("segment is null");
      }
      if (rows < 0) {
        throw new IllegalArgumentException("rows is " + rows + ", expected >= 0");
      }
      if (features < 0) {
        throw new IllegalArgumentException("features is " + features + ", expected >= 0");
      }
      long bytes = 4L * features * rows; // < 2^33 * 2^31: no overflow
      if (byteOffset < 0 || byteOffset > segment.byteSize() - bytes) {
        throw new IllegalArgumentException(
            "segment has " + segment.byteSize() + " bytes, byteOffset " + byteOffset + " + "
                + rows + " rows x " + 4L * features + " bytes (" + features
                + " float32 features) does not fit");
      }
    }

    @Override
    public int bits() {
      return 32;
    }

    @Override
    public long rowBytes() {
      return 4L * features;
    }

    @Override
    public void forward(float[] wT, int c, float[] y) {
      FloatProducts.forward(segment, byteOffset, rows, features, wT, c, y);
    }

    @Override
    public void accumulateTransposed(float[] d, int c, float[] gT) {
      FloatProducts.accumulateTransposed(segment, byteOffset, rows, features, d, c, gT);
    }

    @Override
    public BlockProducts blocks(float[] wT, int c) {
      return BlockProducts.float32(features, wT, c);
    }

    @Override
    public void decode(int row, float[] out, int off) {
      checkRow(row, rows);
      if (out == null) {
        throw new IllegalArgumentException("out is null");
      }
      if (off < 0 || off > out.length - features) {
        throw new IllegalArgumentException(
            "out has length " + out.length + ", off " + off + " + count " + features
                + " exceeds it");
      }
      MemorySegment.copy(segment, LittleEndian.FLOAT, byteOffset + row * rowBytes(), out, off, features);
    }

    @Override
    public FeatureRows at(MemorySegment segment, long byteOffset, int rows) {
      return new Float32(segment, byteOffset, rows, features);
    }
  }

  /**
   * Packed b-bit rows whose codes index a table of 2^b values ({@link CodebookRows}: Lloyd-Max),
   * decoded in the product kernels' registers.
   */
  record Coded(CodebookRows coded) implements FeatureRows {
    public Coded {
      if (coded == null) {
        throw new IllegalArgumentException("coded is null");
      }
    }

    @Override
    public int rows() {
      return coded.rows();
    }

    @Override
    public int features() {
      return coded.features();
    }

    @Override
    public int bits() {
      return coded.bits();
    }

    @Override
    public long rowBytes() {
      return coded.rowBytes();
    }

    @Override
    public MemorySegment segment() {
      return coded.segment();
    }

    @Override
    public long byteOffset() {
      return coded.byteOffset();
    }

    @Override
    public void forward(float[] wT, int c, float[] y) {
      PackedProducts.forwardLevels(coded, wT, c, y);
    }

    @Override
    public void accumulateTransposed(float[] d, int c, float[] gT) {
      PackedProducts.accumulateTransposedLevels(coded, d, c, gT);
    }

    @Override
    public void decode(int row, float[] out, int off) {
      checkRow(row, rows());
      int m = features();
      if (out == null || off < 0 || off > out.length - m) {
        throw new IllegalArgumentException("out cannot hold " + m + " values from offset " + off);
      }
      float[] levels = coded.levels();
      long at = byteOffset() + row * rowBytes();
      for (int i = 0; i < m; i++) {
        out[off + i] = levels[PackedLayout.code(segment(), at, bits(), i)];
      }
    }

    @Override
    public FeatureRows at(MemorySegment segment, long byteOffset, int rows) {
      return new Coded(
          new CodebookRows(segment, byteOffset, rows, features(), bits(), coded.levels()));
    }
  }

  /**
   * Sigma-Delta rows: the codes of m features read as m / λ condensed features ({@link
   * Condensation}). The products expand the weights to m and condense the gradient, so the codes
   * are read in place by {@code codes}' kernels.
   */
  record Condensed(FeatureRows codes, Condensation condensation) implements FeatureRows {
    public Condensed {
      if (codes == null || condensation == null) {
        throw new IllegalArgumentException((codes == null ? "codes" : "condensation") + " is null");
      }
      condensation.condensedFeatures(codes.features());
    }

    @Override
    public int rows() {
      return codes.rows();
    }

    @Override
    public int features() {
      return codes.features() / condensation.block();
    }

    @Override
    public int bits() {
      return codes.bits();
    }

    @Override
    public long rowBytes() {
      return codes.rowBytes();
    }

    @Override
    public MemorySegment segment() {
      return codes.segment();
    }

    @Override
    public long byteOffset() {
      return codes.byteOffset();
    }

    @Override
    public void forward(float[] wT, int c, float[] y) {
      codes.forward(condensation.expand(wT, c, codes.features()), c, y);
    }

    @Override
    public void accumulateTransposed(float[] d, int c, float[] gT) {
      float[] full = new float[c * codes.features()];
      codes.accumulateTransposed(d, c, full);
      condensation.addCondensed(full, c, codes.features(), gT);
    }

    @Override
    public void decode(int row, float[] out, int off) {
      float[] full = new float[codes.features()];
      codes.decode(row, full, 0);
      condensation.condense(full, 0, codes.features(), out, off);
    }

    @Override
    public FeatureRows at(MemorySegment segment, long byteOffset, int rows) {
      return new Condensed(codes.at(segment, byteOffset, rows), condensation);
    }
  }

  private static void checkRow(int row, int rows) {
    if (row < 0 || row >= rows) {
      throw new IllegalArgumentException("row is " + row + ", expected in [0, " + rows + ")");
    }
  }
}
