package org.lprff.cli;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.lprff.arrow.FeatureSchema;
import org.lprff.vector.codec.PackedFeatures;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * Every row of a feature file (IPC file or stream), read with Arrow's plain readers, not the
 * library's: the packed bytes of each row (b = 32: the float32 values, little-endian), the labels
 * and the row ids.
 *
 * @param schema the validated schema
 * @param features one array of row bytes per row
 * @param labels the labels as doubles (Float32 or Int32), or null
 * @param intLabels true if the label column is Int32
 * @param rowIds the row ids, or null
 * @param recordBatches record batches read
 */
record FeatureRows(
    FeatureSchema schema,
    byte[][] features,
    double[] labels,
    boolean intLabels,
    long[] rowIds,
    int recordBatches) {

  static FeatureRows read(Path path) throws IOException {
    byte[] head;
    try (InputStream in = Files.newInputStream(path)) {
      head = in.readNBytes(6);
    }
    boolean file = new String(head, java.nio.charset.StandardCharsets.US_ASCII).equals("ARROW1");
    try (BufferAllocator allocator = new RootAllocator();
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        ArrowReader reader = file
            ? new ArrowFileReader(channel, allocator)
            : new ArrowStreamReader(channel, allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      FeatureSchema schema = FeatureSchema.from(root.getSchema());
      List<byte[]> features = new ArrayList<>();
      List<Double> labels = new ArrayList<>();
      List<Long> rowIds = new ArrayList<>();
      boolean intLabels = false;
      int batches = 0;
      while (reader.loadNextBatch()) {
        batches++;
        FieldVector featureVector = root.getVector(FeatureSchema.FEATURES);
        FieldVector label = root.getVector(FeatureSchema.LABEL);
        FieldVector rowId = root.getVector(FeatureSchema.ROW_ID);
        for (int r = 0; r < root.getRowCount(); r++) {
          if (featureVector instanceof FixedSizeBinaryVector binary) {
            features.add(binary.get(r));
          } else {
            FixedSizeListVector list = (FixedSizeListVector) featureVector;
            Float4Vector values = (Float4Vector) list.getDataVector();
            int m = list.getListSize();
            ByteBuffer bytes = ByteBuffer.allocate(4 * m).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < m; i++) {
              bytes.putFloat(values.get(r * m + i));
            }
            features.add(bytes.array());
          }
          if (label instanceof Float4Vector f) {
            labels.add((double) f.get(r));
          } else if (label instanceof IntVector i) {
            labels.add((double) i.get(r));
            intLabels = true;
          }
          if (rowId instanceof BigIntVector ids) {
            rowIds.add(ids.get(r));
          }
        }
      }
      return new FeatureRows(
          schema,
          features.toArray(byte[][]::new),
          hasField(root, FeatureSchema.LABEL) ? labels.stream().mapToDouble(Double::doubleValue).toArray() : null,
          intLabels,
          hasField(root, FeatureSchema.ROW_ID)
              ? rowIds.stream().mapToLong(Long::longValue).toArray()
              : null,
          batches);
    }
  }

  private static boolean hasField(VectorSchemaRoot root, String name) {
    return root.getSchema().getFields().stream().anyMatch(f -> f.getName().equals(name));
  }

  int rows() {
    return features.length;
  }

  /**
   * Every row as the library decodes it, {@code org.lprff.vector.stream.FeatureRows.of(spec, ...)
   * .decode}: float32, the grid's or the codebook's values, Sigma-Delta's condensed ones ({@code
   * spec.modelFeatures()} a row); with {@code condensed} false, Sigma-Delta's m values before the
   * condensation (for the other quantizers the same values).
   */
  float[][] decoded(boolean condensed) {
    org.lprff.vector.stream.FeatureRows all = org.lprff.vector.stream.FeatureRows.of(
        schema.spec(), MemorySegment.ofArray(concatenated()), 0, rows());
    if (!condensed && all instanceof org.lprff.vector.stream.FeatureRows.Condensed c) {
      all = c.codes();
    }
    float[][] values = new float[rows()][all.features()];
    for (int r = 0; r < rows(); r++) {
      all.decode(r, values[r], 0);
    }
    return values;
  }

  /**
   * For a spec whose codes decode on a grid, unmodified (no condensation): row r unpacked by the
   * codec's own {@code PackedFeatures.unpack} (or read as float32) equals {@code expected}, so
   * the decoding a reader is checked against is the codec's too.
   */
  void assertGridRowIs(int r, float[] expected) {
    FeaturizerSpec spec = schema.spec();
    if (!spec.quantizer().affine() || spec.condensation().isPresent()) {
      return;
    }
    float[] unpacked = new float[spec.features()];
    if (spec.isFloat()) {
      ByteBuffer.wrap(features[r]).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(unpacked);
    } else {
      PackedFeatures.unpack(features[r], 0, spec.scale(), spec.features(), unpacked, 0);
    }
    org.junit.jupiter.api.Assertions.assertArrayEquals(unpacked, expected, "row " + r);
  }

  /** All rows' bytes, concatenated (what {@code Featurizer.featurize(rows, n, 0)} returns). */
  byte[] concatenated() {
    int rowBytes = schema.rowBytes();
    byte[] all = new byte[features.length * rowBytes];
    for (int r = 0; r < features.length; r++) {
      System.arraycopy(features[r], 0, all, r * rowBytes, rowBytes);
    }
    return all;
  }
}
