package org.lprff.arrow.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMentions;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.lprff.arrow.ArrowTestBase;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.fixtures.Diamonds;

/**
 * Every test writes with Arrow Java into a child allocator and ends with zero bytes outstanding.
 */
class ArrowRowSourceTest extends ArrowTestBase {

  @TempDir Path dir;

  private static final ArrowType FLOAT32 =
      new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  private static final ArrowType FLOAT64 =
      new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  private static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  private static Field floatList(String name, int size, ArrowType element) {
    return new Field(
        name,
        FieldType.nullable(new ArrowType.FixedSizeList(size)),
        List.of(field("item", element)));
  }

  /** Sets row {@code row} (global id {@code id}) of every vector of the root. */
  @FunctionalInterface
  interface RowWriter {
    void set(VectorSchemaRoot root, int row, int id);
  }

  private Path write(
      String name, boolean fileFormat, Schema schema, int[] batchSizes, RowWriter rows)
      throws IOException {
    Path path = dir.resolve(name);
    try (VectorSchemaRoot data = VectorSchemaRoot.create(schema, allocator);
        FileChannel channel =
            FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ArrowWriter writer =
            fileFormat
                ? new ArrowFileWriter(data, null, channel)
                : new ArrowStreamWriter(data, null, channel)) {
      writer.start();
      int id = 0;
      for (int size : batchSizes) {
        data.allocateNew();
        for (int r = 0; r < size; r++) {
          rows.set(data, r, id++);
        }
        data.setRowCount(size);
        writer.writeBatch();
      }
      writer.end();
    }
    return path;
  }

  private Drained read(Path path, LabelColumn label, int batch) throws IOException {
    try (ArrowRowSource source = ArrowRowSource.open(path, allocator, label, batch)) {
      Drained all = Drained.of(source);
      assertTrue(allocator.getAllocatedMemory() > 0, "the open source holds its record batch");
      return all;
    } finally {
      assertEquals(0, allocator.getAllocatedMemory(), "bytes outstanding after close");
    }
  }

  private InputFormatException failure(Path path, LabelColumn label) {
    InputFormatException e = assertThrows(InputFormatException.class, () -> read(path, label, 4));
    assertEquals(0, allocator.getAllocatedMemory(), "bytes outstanding after a failed read");
    return e;
  }

  private static double x(int id, int column) {
    return id * 0.1 + column - 1e-9; // not exact in float: checks the conversion is (float) double
  }

  private static final Schema DOUBLES_AND_LABEL =
      new Schema(
          List.of(
              field("x0", FLOAT64),
              field("x1", FLOAT64),
              field("label", new ArrowType.Int(32, true)),
              field("x2", FLOAT64)),
          Map.of(Standardization.KEY_MEAN, "1.5"));

  private static final RowWriter DOUBLES_AND_LABEL_ROWS =
      (data, row, id) -> {
        ((Float8Vector) data.getVector("x0")).setSafe(row, x(id, 0));
        ((Float8Vector) data.getVector("x1")).setSafe(row, x(id, 1));
        ((IntVector) data.getVector("label")).setSafe(row, id % 4);
        ((Float8Vector) data.getVector("x2")).setSafe(row, x(id, 2));
      };

  /** Record batches of 5, 0, 3 and 9 rows: 17 rows split unevenly. */
  private static final int[] UNEVEN = {5, 0, 3, 9};

  @Test
  void doubleColumnsWithAnIntLabelFileAndStream() throws IOException {
    int rows = 17;
    float[] expected = new float[rows * 3];
    float[] labels = new float[rows];
    for (int id = 0; id < rows; id++) {
      for (int c = 0; c < 3; c++) {
        expected[id * 3 + c] = (float) x(id, c);
      }
      labels[id] = id % 4;
    }
    for (boolean fileFormat : new boolean[] {true, false}) {
      Path path =
          write(
              "doubles" + fileFormat,
              fileFormat,
              DOUBLES_AND_LABEL,
              UNEVEN,
              DOUBLES_AND_LABEL_ROWS);
      try (ArrowRowSource source =
          ArrowRowSource.open(path, allocator, LabelColumn.named("label"), 4)) {
        assertEquals(fileFormat, source.isFileFormat());
        assertEquals(List.of("x0", "x1", "x2"), source.columnNames());
        assertEquals(LabelKind.PRESENT, source.label());
        assertEquals("1.5", source.schemaMetadata().get(Standardization.KEY_MEAN));
      }
      for (int batch : new int[] {1, 7, rows, 100}) {
        Drained all = read(path, LabelColumn.parse("#2"), batch);
        Drained.assertSameArray(expected, all.values());
        Drained.assertSameArray(labels, all.labels());
      }
      Drained unlabelled = read(path, LabelColumn.NONE, 5);
      assertEquals(4, unlabelled.columns());
      assertEquals(2f, unlabelled.values()[2 * 4 + 2], "row 2: its label column read as a feature");
    }
  }

  @Test
  void everyNumericTypeConvertsToTheNearestFloat() throws IOException {
    Schema schema =
        new Schema(
            List.of(
                field("i8", new ArrowType.Int(8, true)),
                field("i16", new ArrowType.Int(16, true)),
                field("i32", new ArrowType.Int(32, true)),
                field("i64", new ArrowType.Int(64, true)),
                field("f32", FLOAT32),
                field("f64", FLOAT64)));
    long big = (1L << 40) + 1; // not a float: rounds to 2^40
    Path path =
        write(
            "types.arrow",
            true,
            schema,
            new int[] {2},
            (data, row, id) -> {
              int sign = row == 0 ? 1 : -1;
              ((TinyIntVector) data.getVector("i8")).setSafe(row, (byte) (sign * 127));
              ((SmallIntVector) data.getVector("i16")).setSafe(row, (short) (sign * 32000));
              ((IntVector) data.getVector("i32")).setSafe(row, sign * 16777217);
              ((BigIntVector) data.getVector("i64")).setSafe(row, sign * big);
              ((Float4Vector) data.getVector("f32")).setSafe(row, sign * 0.1f);
              ((Float8Vector) data.getVector("f64")).setSafe(row, sign * 0.1);
            });
    Drained all = read(path, LabelColumn.NONE, 8);
    float[] row0 = {127, 32000, 16777216f, 1099511627776f, 0.1f, 0.1f};
    float[] expected = new float[12];
    for (int c = 0; c < 6; c++) {
      expected[c] = row0[c];
      expected[6 + c] = -row0[c];
    }
    Drained.assertSameArray(expected, all.values());
  }

  private static final int K = 4;

  private static final Schema LIST_AND_LABEL =
      new Schema(
          List.of(field("label", new ArrowType.Int(32, true)), floatList("features", K, FLOAT32)));

  private static final RowWriter LIST_AND_LABEL_ROWS =
      (data, row, id) -> {
        ((IntVector) data.getVector("label")).setSafe(row, 10 + id);
        FixedSizeListVector list = (FixedSizeListVector) data.getVector("features");
        list.setNotNull(row);
        Float4Vector elements = (Float4Vector) list.getDataVector();
        for (int j = 0; j < K; j++) {
          elements.setSafe(row * K + j, id + j / 8f);
        }
      };

  @Test
  void fixedSizeListOfFloatsFileAndStream() throws IOException {
    int rows = 17;
    float[] expected = new float[rows * K];
    float[] labels = new float[rows];
    for (int id = 0; id < rows; id++) {
      for (int j = 0; j < K; j++) {
        expected[id * K + j] = id + j / 8f;
      }
      labels[id] = 10 + id;
    }
    for (boolean fileFormat : new boolean[] {true, false}) {
      Path path =
          write("list" + fileFormat, fileFormat, LIST_AND_LABEL, UNEVEN, LIST_AND_LABEL_ROWS);
      try (ArrowRowSource source = ArrowRowSource.open(path, allocator, LabelColumn.FIRST, 3)) {
        assertEquals(K, source.columns());
        assertEquals(
            List.of("features[0]", "features[1]", "features[2]", "features[3]"),
            source.columnNames());
      }
      for (int batch : new int[] {1, 7, rows}) {
        Drained all = read(path, LabelColumn.named("label"), batch);
        Drained.assertSameArray(expected, all.values());
        Drained.assertSameArray(labels, all.labels());
      }
    }
  }

  @Test
  void anOwnedAllocatorIsClosedWithTheSource() throws IOException {
    Path path = write("own.arrow", true, DOUBLES_AND_LABEL, UNEVEN, DOUBLES_AND_LABEL_ROWS);
    Drained shared = read(path, LabelColumn.LAST, 6);
    try (ArrowRowSource source = ArrowRowSource.open(path, null, LabelColumn.LAST, 6)) {
      shared.assertSameRows(Drained.of(source));
    }
  }

  @Test
  void nullsNameColumnAndRow() throws IOException {
    Path path =
        write(
            "nulls.arrow",
            true,
            DOUBLES_AND_LABEL,
            UNEVEN,
            (data, row, id) -> {
              DOUBLES_AND_LABEL_ROWS.set(data, row, id);
              if (id == 6) {
                ((Float8Vector) data.getVector("x1")).setNull(row);
              }
            });
    assertMentions(
        failure(path, LabelColumn.LAST),
        path.toString(),
        "column 'x1' (index 1) at row 6",
        "null value");
    Path labelNull =
        write(
            "labelnull.arrows",
            false,
            DOUBLES_AND_LABEL,
            UNEVEN,
            (data, row, id) -> {
              DOUBLES_AND_LABEL_ROWS.set(data, row, id);
              if (id == 16) {
                ((IntVector) data.getVector("label")).setNull(row);
              }
            });
    assertMentions(
        failure(labelNull, LabelColumn.named("label")),
        "column 'label' (index 2) at row 16",
        "null value");
    Path listNull =
        write(
            "listnull.arrow",
            true,
            LIST_AND_LABEL,
            UNEVEN,
            (data, row, id) -> {
              LIST_AND_LABEL_ROWS.set(data, row, id);
              if (id == 9) {
                ((Float4Vector) ((FixedSizeListVector) data.getVector("features")).getDataVector())
                    .setNull(row * K + 2);
              }
            });
    assertMentions(
        failure(listNull, LabelColumn.FIRST),
        "column 'features' (index 1) element 2 at row 9",
        "null value");
    Path rowNull =
        write(
            "rownull.arrow",
            true,
            LIST_AND_LABEL,
            UNEVEN,
            (data, row, id) -> {
              LIST_AND_LABEL_ROWS.set(data, row, id);
              if (id == 3) {
                ((FixedSizeListVector) data.getVector("features")).setNull(row);
              }
            });
    assertMentions(
        failure(rowNull, LabelColumn.FIRST), "column 'features' (index 1) at row 3", "null value");
  }

  @Test
  void nonFiniteAndOverflowingValuesNameColumnAndRow() throws IOException {
    Path nan =
        write(
            "nan.arrow",
            true,
            DOUBLES_AND_LABEL,
            UNEVEN,
            (data, row, id) -> {
              DOUBLES_AND_LABEL_ROWS.set(data, row, id);
              if (id == 12) {
                ((Float8Vector) data.getVector("x2")).setSafe(row, Double.NaN);
              }
            });
    assertMentions(
        failure(nan, LabelColumn.named("label")),
        "column 'x2' (index 3) at row 12",
        "value NaN is not finite");
    Path huge =
        write(
            "huge.arrow",
            true,
            DOUBLES_AND_LABEL,
            UNEVEN,
            (data, row, id) -> {
              DOUBLES_AND_LABEL_ROWS.set(data, row, id);
              if (id == 0) {
                ((Float8Vector) data.getVector("x0")).setSafe(row, 1e300);
              }
            });
    assertMentions(
        failure(huge, LabelColumn.named("label")),
        "column 'x0' (index 0) at row 0",
        "value 1.0E300 overflows float");
    Path infinite =
        write(
            "inf.arrow",
            false,
            LIST_AND_LABEL,
            UNEVEN,
            (data, row, id) -> {
              LIST_AND_LABEL_ROWS.set(data, row, id);
              if (id == 16) {
                ((Float4Vector) ((FixedSizeListVector) data.getVector("features")).getDataVector())
                    .setSafe(row * K + 3, Float.NEGATIVE_INFINITY);
              }
            });
    assertMentions(
        failure(infinite, LabelColumn.FIRST),
        "column 'features' (index 1) element 3 at row 16",
        "value -Infinity is not finite");
  }

  @Test
  void unsupportedSchemas() throws IOException {
    RowWriter nothing = (data, row, id) -> {};
    Schema text = new Schema(List.of(field("x", FLOAT64), field("name", new ArrowType.Utf8())));
    Path textPath = write("text.arrow", true, text, new int[] {0}, nothing);
    assertMentions(
        failure(textPath, LabelColumn.NONE),
        "feature column 'name' (index 1) has type Utf8",
        "expected Float32, Float64");
    assertMentions(
        failure(textPath, LabelColumn.LAST), "label column 'name' (index 1) has type Utf8");
    Schema unsigned = new Schema(List.of(field("u", new ArrowType.Int(32, false))));
    assertMentions(
        failure(write("u.arrow", true, unsigned, new int[] {0}, nothing), LabelColumn.NONE),
        "column 'u' (index 0) has type Int(32, false)");
    Schema listAndMore =
        new Schema(
            List.of(floatList("features", 2, FLOAT32), field("a", FLOAT64), field("b", FLOAT64)));
    Path listAndMorePath = write("more.arrow", true, listAndMore, new int[] {0}, nothing);
    assertMentions(
        failure(listAndMorePath, LabelColumn.LAST),
        "'features') must be the only feature column",
        "[a]");
    Schema doubleList = new Schema(List.of(floatList("features", 2, FLOAT64)));
    assertMentions(
        failure(write("dl.arrow", true, doubleList, new int[] {0}, nothing), LabelColumn.NONE),
        "must be FixedSizeList<Float32>");
    assertMentions(
        failure(
            write(
                "onlylabel.arrow",
                true,
                new Schema(List.of(field("y", FLOAT64))),
                new int[] {0},
                nothing),
            LabelColumn.LAST),
        "no feature columns");
    assertMentions(
        failure(textPath, LabelColumn.named("price")), "no column named 'price'", "x, name");
  }

  @Test
  void emptyInputsAndOtherFiles() throws IOException {
    Path noRows =
        write("empty.arrow", true, DOUBLES_AND_LABEL, new int[] {0, 0}, DOUBLES_AND_LABEL_ROWS);
    assertMentions(failure(noRows, LabelColumn.LAST), "no data rows");
    Path noBatches =
        write("none.arrows", false, DOUBLES_AND_LABEL, new int[0], DOUBLES_AND_LABEL_ROWS);
    assertMentions(failure(noBatches, LabelColumn.LAST), "no data rows");
    Path csv = dir.resolve("data.arrow");
    Files.writeString(csv, "a,b\n1,2\n");
    assertMentions(
        failure(csv, LabelColumn.NONE), "neither an Arrow IPC file", "bytes 61 2c 62 0a");
    Path empty = Files.createFile(dir.resolve("zero.arrow"));
    assertMentions(failure(empty, LabelColumn.NONE), "an empty file");
  }

  @Test
  void closeTwiceIsHarmless() throws IOException {
    Path path = write("twice.arrow", true, DOUBLES_AND_LABEL, UNEVEN, DOUBLES_AND_LABEL_ROWS);
    ArrowRowSource source = ArrowRowSource.open(path, allocator, LabelColumn.LAST, 4);
    assertFalse(source.next() == null);
    source.close();
    source.close();
    assertEquals(0, allocator.getAllocatedMemory());
  }

  /** A whole data set through Arrow: diamonds written as Float64 columns, read back exactly. */
  @Test
  void diamondsThroughArrowMatchesTheCsv() throws IOException {
    Drained csv;
    List<String> names;
    try (CsvRowSource source = CsvRowSource.open(Diamonds.copyTo(dir), LabelColumn.LAST, 4096)) {
      names = source.header();
      csv = Drained.of(source);
    }
    List<Field> fields = new ArrayList<>();
    for (String name : names) {
      fields.add(field(name, name.equals("price") ? new ArrowType.Int(32, true) : FLOAT64));
    }
    int d = csv.columns();
    int[] batches = {20_000, 20_000, Diamonds.ROWS - 40_000};
    Path path =
        write(
            "diamonds.arrow",
            true,
            new Schema(fields),
            batches,
            new RowWriter() {
              @Override
              public void set(VectorSchemaRoot data, int row, int id) {
                List<FieldVector> vectors = data.getFieldVectors();
                for (int c = 0; c < d; c++) {
                  ((Float8Vector) vectors.get(c)).setSafe(row, csv.values()[id * d + c]);
                }
                ((IntVector) vectors.get(d)).setSafe(row, (int) csv.labels()[id]);
              }
            });
    Drained arrow = read(path, LabelColumn.named("price"), 4096);
    assertEquals(Diamonds.ROWS, arrow.rows());
    csv.assertSameRows(arrow);
  }
}
