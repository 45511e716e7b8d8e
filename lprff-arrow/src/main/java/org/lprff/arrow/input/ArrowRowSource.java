package org.lprff.arrow.input;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lprff.arrow.ipc.IpcFileLayout;
import org.lprff.arrow.memory.ArrowSegments;
import org.lprff.vector.layout.LittleEndian;

/**
 * Rows of an Arrow IPC file or stream, streamed in batches of floats.
 *
 * <ul>
 *   <li><b>Format</b>: the IPC file format (it starts with the magic {@code ARROW1}; Feather v2 is
 *       the same) or the IPC stream format (it starts with the continuation marker {@code
 *       0xFFFFFFFF}), told apart by content. Compressed IPC buffers and dictionary-encoded columns
 *       are not supported.
 *   <li><b>Columns</b>: either every feature column is a number (Float32, Float64, signed Int8 ..
 *       Int64; each value is converted to the nearest float), or there is exactly one feature
 *       column, a FixedSizeList&lt;Float32&gt; whose k elements are the row (columns named {@code
 *       name[0] .. name[k-1]}). The label column is chosen by {@link LabelColumn} among the
 *       schema's fields, as for CSV, and must be a number.
 *   <li><b>Errors</b> ({@link InputFormatException}) name the column (name and schema index) and
 *       the 0-based row: nulls, NaN and infinities, Float64 values beyond float, other types.
 *   <li><b>Memory</b>: the reader holds one of the file's record batches at a time (its size is the
 *       writer's choice) and one batch of {@link #maxBatchRows()} floats; record batches are joined
 *       or split so that every batch but the last is full.
 *   <li><b>Allocation</b>: buffers come from a child of the allocator given at open (or of a root
 *       allocator owned by the source); {@link #close()} releases them all and closes the child, so
 *       the parent's outstanding bytes return to what they were.
 * </ul>
 */
public final class ArrowRowSource extends AbstractRowSource {

  private static final byte[] FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

  /** The numeric column types read as floats. */
  private enum Kind {
    INT8,
    INT16,
    INT32,
    INT64,
    FLOAT32,
    FLOAT64;

    static Kind of(ArrowType type) {
      if (type instanceof ArrowType.Int i && i.getIsSigned()) {
        return switch (i.getBitWidth()) {
          case 8 -> INT8;
          case 16 -> INT16;
          case 32 -> INT32;
          case 64 -> INT64;
          default -> null;
        };
      }
      if (type instanceof ArrowType.FloatingPoint f) {
        return switch (f.getPrecision()) {
          case SINGLE -> FLOAT32;
          case DOUBLE -> FLOAT64;
          case HALF -> null;
        };
      }
      return null;
    }
  }

  private static final String SUPPORTED =
      "expected Float32, Float64, Int8, Int16, Int32 or Int64, or a single"
          + " FixedSizeList<Float32> feature column";

  private final String source;
  private final RootAllocator ownedRoot;
  private final BufferAllocator allocator;
  private final ArrowReader reader;
  private final VectorSchemaRoot root;
  private final Schema schema;
  private final boolean fileFormat;
  private final int labelField;
  private final Kind labelKind;

  /** Schema indices of the numeric feature columns; empty in list mode. */
  private final int[] featureFields;

  private final Kind[] featureKinds;

  /** Schema index of the FixedSizeList column, or -1. */
  private final int listField;

  private final int columns;
  private final List<String> columnNames;

  /** Position in the loaded record batch, its row count and the id of its first row. */
  private int position;

  private int count;
  private long recordBatchFirstRow;
  private boolean closed;

  private ArrowRowSource(Path path, BufferAllocator parent, LabelColumn label, int maxBatchRows)
      throws IOException {
    if (path == null || label == null) {
      throw new IllegalArgumentException("path and label must not be null");
    }
    this.source = path.toString();
    this.fileFormat = detectFileFormat(path, source);
    this.ownedRoot = parent == null ? new RootAllocator() : null;
    BufferAllocator base = parent != null ? parent : ownedRoot;
    BufferAllocator child = null;
    ArrowReader opened = null;
    try {
      child = base.newChildAllocator("ArrowRowSource " + source, 0, Long.MAX_VALUE);
      FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
      try {
        // Arrow's readers leak a body whose metadata is bad, or fail naming no file: the
        // structure is checked first, from the metadata alone.
        IpcFileLayout.check(path, channel, !fileFormat);
        opened =
            fileFormat
                ? new ArrowFileReader(channel, child)
                : new ArrowStreamReader(channel, child);
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      this.allocator = child;
      this.reader = opened;
      try {
        this.root = opened.getVectorSchemaRoot();
      } catch (RuntimeException | OutOfMemoryError e) {
        // A corrupt schema message: Arrow's flatbuffer IndexOutOfBounds, or an array for a
        // message length the file claims (never allocated: the request itself failed).
        throw new IOException(source + ": the Arrow schema is truncated or corrupt (" + e + ")", e);
      }
      this.schema = root.getSchema();
      List<Field> fields = schema.getFields();
      List<String> names = fields.stream().map(Field::getName).toList();
      this.labelField = label.resolve(names, source);
      this.labelKind =
          labelField >= 0 ? requireNumber(fields.get(labelField), labelField, "label") : null;

      List<Integer> featureIndices = new ArrayList<>();
      int list = -1;
      for (int i = 0; i < fields.size(); i++) {
        if (i == labelField) {
          continue;
        }
        featureIndices.add(i);
        if (fields.get(i).getType() instanceof ArrowType.FixedSizeList) {
          list = i;
        }
      }
      if (featureIndices.isEmpty()) {
        throw new InputFormatException(source + ": no feature columns besides the label");
      }
      if (list >= 0) {
        if (featureIndices.size() > 1) {
          List<String> others = new ArrayList<>();
          for (int i : featureIndices) {
            if (i != list) {
              others.add(names.get(i));
            }
          }
          throw new InputFormatException(
              source
                  + ": a FixedSizeList feature column ('"
                  + names.get(list)
                  + "') must be the only feature column besides the label; also found "
                  + others);
        }
        this.listField = list;
        this.columns = requireFloatList(fields.get(list), list);
        this.featureFields = new int[0];
        this.featureKinds = new Kind[0];
        String listName = names.get(list);
        this.columnNames =
            new AbstractList<>() {
              @Override
              public String get(int index) {
                if (index < 0 || index >= columns) {
                  throw new IndexOutOfBoundsException(index);
                }
                return listName + "[" + index + "]";
              }

              @Override
              public int size() {
                return columns;
              }
            };
      } else {
        this.listField = -1;
        this.columns = featureIndices.size();
        this.featureFields = featureIndices.stream().mapToInt(Integer::intValue).toArray();
        this.featureKinds = new Kind[columns];
        List<String> featureNames = new ArrayList<>(columns);
        for (int c = 0; c < columns; c++) {
          int f = featureFields[c];
          featureKinds[c] = requireNumber(fields.get(f), f, "feature");
          featureNames.add(names.get(f));
        }
        this.columnNames = Collections.unmodifiableList(featureNames);
      }
      shape(columns, maxBatchRows, labelField >= 0, source);
      if (!loadNonEmptyBatch()) {
        throw new InputFormatException(source + ": no data rows");
      }
    } catch (IOException | RuntimeException e) {
      closeAll(opened, child, ownedRoot, e);
      throw e;
    }
  }

  /**
   * An Arrow IPC file or stream source.
   *
   * @param allocator the parent of the source's child allocator, or null for a root allocator owned
   *     (and closed) by the source
   */
  public static ArrowRowSource open(
      Path path, BufferAllocator allocator, LabelColumn label, int maxBatchRows)
      throws IOException {
    return new ArrowRowSource(path, allocator, label, maxBatchRows);
  }

  /** Whether the input is the IPC file format (else the stream format). */
  public boolean isFileFormat() {
    return fileFormat;
  }

  /** The input's schema. */
  public Schema schema() {
    return schema;
  }

  /** The schema's custom metadata (e.g. standardization statistics), possibly empty. */
  public Map<String, String> schemaMetadata() {
    Map<String, String> metadata = schema.getCustomMetadata();
    return metadata == null ? Map.of() : Collections.unmodifiableMap(metadata);
  }

  @Override
  public List<String> columnNames() {
    return columnNames;
  }

  @Override
  protected int read(int maxRows) throws IOException {
    int n = 0;
    while (n < maxRows) {
      if (position == count) {
        recordBatchFirstRow += count;
        if (!loadNonEmptyBatch()) {
          break;
        }
      }
      int k = Math.min(maxRows - n, count - position);
      copyRows(position, k, n);
      position += k;
      n += k;
    }
    return n;
  }

  /** Loads record batches until one has rows; false at the end of the input. */
  private boolean loadNonEmptyBatch() throws IOException {
    while (loadNextBatch()) {
      if (root.getRowCount() > 0) {
        position = 0;
        count = root.getRowCount();
        return true;
      }
    }
    position = 0;
    count = 0;
    return false;
  }

  /**
   * The reader's next record batch; Arrow's failures on a corrupt body (IllegalArgumentException
   * "capacity < 0", IOException, OutOfMemoryException past the allocator's limit) name no file.
   */
  private boolean loadNextBatch() throws IOException {
    try {
      return reader.loadNextBatch();
    } catch (IOException | RuntimeException e) {
      throw new IOException(source + ": record batch after row " + recordBatchFirstRow
          + " is truncated or corrupt (" + e + ")", e);
    }
  }

  /** Copies rows [from, from + k) of the loaded record batch to batch rows [at, at + k). */
  private void copyRows(int from, int k, int at) {
    List<FieldVector> vectors = root.getFieldVectors();
    if (listField >= 0) {
      copyList((FixedSizeListVector) vectors.get(listField), from, k, at);
    } else {
      for (int c = 0; c < columns; c++) {
        int f = featureFields[c];
        copyColumn(vectors.get(f), f, featureKinds[c], from, k, values, at * columns + c, columns);
      }
    }
    if (labelField >= 0) {
      copyColumn(vectors.get(labelField), labelField, labelKind, from, k, labels, at, 1);
    }
  }

  /** Column {@code field}'s rows [from, from + k) to {@code out[start + r * stride]}. */
  private void copyColumn(
      FieldVector vector,
      int field,
      Kind kind,
      int from,
      int k,
      float[] out,
      int start,
      int stride) {
    requireNoNulls(vector, field, from, k, -1);
    ArrowBuf data = vector.getDataBuffer();
    int o = start;
    switch (kind) {
      case INT8 -> {
        for (int i = from; i < from + k; i++, o += stride) {
          out[o] = data.getByte(i);
        }
      }
      case INT16 -> {
        for (int i = from; i < from + k; i++, o += stride) {
          out[o] = data.getShort(2L * i);
        }
      }
      case INT32 -> {
        for (int i = from; i < from + k; i++, o += stride) {
          out[o] = data.getInt(4L * i);
        }
      }
      case INT64 -> {
        for (int i = from; i < from + k; i++, o += stride) {
          out[o] = data.getLong(8L * i);
        }
      }
      case FLOAT32 -> {
        for (int i = from; i < from + k; i++, o += stride) {
          float v = data.getFloat(4L * i);
          if (!Float.isFinite(v)) {
            throw valueError(field, -1, i, "value " + v + " is not finite");
          }
          out[o] = v;
        }
      }
      case FLOAT64 -> {
        for (int i = from; i < from + k; i++, o += stride) {
          double v = data.getDouble(8L * i);
          float f = (float) v;
          if (!Float.isFinite(f)) {
            throw valueError(
                field,
                -1,
                i,
                "value " + v + (Double.isFinite(v) ? " overflows float" : " is not finite"));
          }
          out[o] = f;
        }
      }
    }
  }

  private void copyList(FixedSizeListVector list, int from, int k, int at) {
    requireNoNulls(list, listField, from, k, -1);
    FieldVector elements = list.getDataVector();
    long first = (long) from * columns;
    long count = (long) k * columns;
    if (elements.getNullCount() > 0) {
      for (long e = first; e < first + count; e++) {
        if (elements.isNull((int) e)) {
          throw valueError(
              listField,
              (int) (e % columns),
              (int) (e / columns),
              "null value (nulls are not allowed)");
        }
      }
    }
    MemorySegment data = ArrowSegments.view(elements.getDataBuffer());
    MemorySegment.copy(data, LittleEndian.FLOAT, first * Float.BYTES, values, at * columns, (int) count);
    for (int i = 0; i < count; i++) {
      float v = values[at * columns + i];
      if (!Float.isFinite(v)) {
        throw valueError(
            listField, i % columns, from + i / columns, "value " + v + " is not finite");
      }
    }
  }

  private void requireNoNulls(FieldVector vector, int field, int from, int k, int element) {
    if (vector.getNullCount() > 0) {
      for (int i = from; i < from + k; i++) {
        if (vector.isNull(i)) {
          throw valueError(field, element, i, "null value (nulls are not allowed)");
        }
      }
    }
  }

  /** "column 'x' (index 2) [element 5] at row 17: what", row as a 0-based source row id. */
  private InputFormatException valueError(int field, int element, int rowInBatch, String what) {
    String column =
        "column '" + schema.getFields().get(field).getName() + "' (index " + field + ")";
    if (element >= 0) {
      column += " element " + element;
    }
    long row = recordBatchFirstRow + rowInBatch;
    return new InputFormatException(source + ": " + column + " at row " + row + ": " + what);
  }

  private Kind requireNumber(Field field, int index, String role) {
    Kind kind = Kind.of(field.getType());
    if (kind == null || field.getDictionary() != null) {
      throw new InputFormatException(
          source
              + ": "
              + role
              + " column '"
              + field.getName()
              + "' (index "
              + index
              + ") has type "
              + describe(field)
              + "; "
              + SUPPORTED);
    }
    return kind;
  }

  private int requireFloatList(Field field, int index) {
    int size = ((ArrowType.FixedSizeList) field.getType()).getListSize();
    List<Field> children = field.getChildren();
    boolean floats =
        children.size() == 1
            && children.get(0).getType() instanceof ArrowType.FloatingPoint f
            && f.getPrecision() == FloatingPointPrecision.SINGLE
            && children.get(0).getDictionary() == null;
    if (!floats || field.getDictionary() != null) {
      throw new InputFormatException(
          source
              + ": feature column '"
              + field.getName()
              + "' (index "
              + index
              + ") has type "
              + describe(field)
              + "; a list feature column must be FixedSizeList<Float32>");
    }
    if (size < 1) {
      throw new InputFormatException(
          source
              + ": feature column '"
              + field.getName()
              + "' (index "
              + index
              + ") is a FixedSizeList of "
              + size
              + " elements; expected at least 1");
    }
    return size;
  }

  private static String describe(Field field) {
    String type = field.getType().toString();
    if (!field.getChildren().isEmpty()) {
      type += "<" + field.getChildren().get(0).getType() + ">";
    }
    return field.getDictionary() != null ? "dictionary-encoded " + type : type;
  }

  private static boolean detectFileFormat(Path path, String source) throws IOException {
    byte[] head = InputFiles.head(path, 8);
    if (head.length >= FILE_MAGIC.length
        && java.util.Arrays.equals(head, 0, FILE_MAGIC.length, FILE_MAGIC, 0, FILE_MAGIC.length)) {
      return true;
    }
    if (head.length >= 8 && head[0] == -1 && head[1] == -1 && head[2] == -1 && head[3] == -1) {
      return false;
    }
    throw new InputFormatException(
        source
            + " is neither an Arrow IPC file (magic ARROW1) nor an IPC stream (continuation"
            + " marker 0xFFFFFFFF); found "
            + hex(head));
  }

  private static String hex(byte[] bytes) {
    if (bytes.length == 0) {
      return "an empty file";
    }
    StringBuilder s = new StringBuilder("bytes");
    for (byte b : bytes) {
      s.append(String.format(" %02x", b & 0xff));
    }
    return s.toString();
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    closeAll(reader, allocator, ownedRoot, null);
  }

  /**
   * Closes the reader (its vectors and channel), then the child allocator, then an owned root, each
   * even when an earlier one fails; the first failure is thrown or added to {@code primary}.
   */
  private static void closeAll(
      ArrowReader reader, BufferAllocator child, RootAllocator root, Throwable primary)
      throws IOException {
    Throwable first = primary;
    AutoCloseable[] resources = {reader, child, root};
    for (AutoCloseable resource : resources) {
      if (resource == null) {
        continue;
      }
      try {
        resource.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (primary == null && first != null) {
      if (first instanceof IOException io) {
        throw io;
      }
      if (first instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(first);
    }
  }
}
