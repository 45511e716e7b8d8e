package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.arrow.FeatureTestData.spec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

class FeatureSchemaTest {

  private static final ArrowType FLOAT32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

  @Test
  void featureColumnIsFixedSizeBinaryOfTheRowBytesOrAFloatListForB32() {
    for (int bits : FeatureTestData.BITS) {
      FeaturizerSpec spec = spec(bits, 4096);
      Schema schema = FeatureSchema.of(spec, LabelType.NONE, false).arrowSchema();
      assertEquals(1, schema.getFields().size());
      Field features = schema.getFields().get(0);
      assertEquals("features", features.getName());
      assertFalse(features.isNullable(), "features must be non-nullable");
      if (bits == 32) {
        assertEquals(new ArrowType.FixedSizeList(4096), features.getType());
        assertEquals(1, features.getChildren().size());
        assertEquals(FLOAT32, features.getChildren().get(0).getType());
        assertFalse(features.getChildren().get(0).isNullable());
      } else {
        // ceil(4096 b / 8) = 512 b
        assertEquals(new ArrowType.FixedSizeBinary(512 * bits), features.getType(), "bits " + bits);
      }
    }
    assertEquals(
        new ArrowType.FixedSizeBinary(5), // ceil(37 / 8)
        FeatureSchema.of(spec(1, 37), LabelType.NONE, false).arrowSchema().getFields().get(0).getType());
  }

  @Test
  void labelAndRowIdColumnsFollowInOrderWithTheirTypes() {
    Schema regression = FeatureSchema.of(spec(4), LabelType.REGRESSION, true).arrowSchema();
    assertEquals(List.of("features", "label", "row_id"), names(regression));
    assertEquals(FLOAT32, regression.getFields().get(1).getType());
    assertEquals(new ArrowType.Int(64, true), regression.getFields().get(2).getType());
    Schema classes = FeatureSchema.of(spec(4), LabelType.CLASSES, false).arrowSchema();
    assertEquals(List.of("features", "label"), names(classes));
    assertEquals(new ArrowType.Int(32, true), classes.getFields().get(1).getType());
    for (Field field : regression.getFields()) {
      assertFalse(field.isNullable(), field.getName());
    }
  }

  private static List<String> names(Schema schema) {
    List<String> names = new ArrayList<>();
    schema.getFields().forEach(f -> names.add(f.getName()));
    return names;
  }

  @Test
  void metadataIsVersionThenSpecThenExtra() {
    FeaturizerSpec spec = spec(8);
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("lprff.standardize.mean", "0.5,1.5");
    extra.put("source", "unit test");
    FeatureSchema schema = FeatureSchema.of(spec, LabelType.NONE, false, extra);
    Map<String, String> metadata = schema.arrowSchema().getCustomMetadata();
    assertEquals("2", metadata.get("lprff.format.version"));
    for (Map.Entry<String, String> e : spec.toMap().entrySet()) {
      assertEquals(e.getValue(), metadata.get(e.getKey()), e.getKey());
    }
    assertEquals("8", metadata.get("lprff.bits"));
    assertEquals("lsb0", metadata.get("lprff.bit_order"));
    assertEquals("0.5,1.5", metadata.get("lprff.standardize.mean"));
    assertEquals("unit test", metadata.get("source"));
    assertEquals(1 + spec.toMap().size() + 2, metadata.size());
    assertEquals(extra, schema.extraMetadata());
  }

  @Test
  void fromRestoresTheSameSchemaForEveryBitWidthAndLabelType() {
    for (int bits : FeatureTestData.BITS) {
      for (LabelType labels : LabelType.values()) {
        for (boolean rowIds : new boolean[] {false, true}) {
          FeatureSchema written =
              FeatureSchema.of(spec(bits), labels, rowIds, Map.of("lprff.standardize.std", "2.0"));
          FeatureSchema read = FeatureSchema.from(written.arrowSchema());
          assertEquals(written, read);
          assertEquals(spec(bits), read.spec());
          assertEquals(spec(bits), FeatureSchema.spec(written.arrowSchema()));
          assertEquals(labels, read.labelType());
          assertEquals(rowIds, read.hasRowIds());
          assertEquals(Map.of("lprff.standardize.std", "2.0"), read.extraMetadata());
        }
      }
    }
  }

  @Test
  void extraKeysMustNotLookLikeSpecKeys() {
    for (String key : new String[] {"lprff.bits", "lprff.mean", "lprff.scale.extra", "lprff.format.x"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> FeatureSchema.of(spec(4), LabelType.NONE, false, Map.of(key, "1")));
      assertTrue(e.getMessage().contains("'" + key + "'"), e.getMessage());
    }
    Map<String, String> nullValue = new LinkedHashMap<>();
    nullValue.put("note", null);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FeatureSchema.of(spec(4), LabelType.NONE, false, nullValue));
    assertTrue(e.getMessage().contains("'note'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> FeatureSchema.of(null, LabelType.NONE, false));
    assertThrows(IllegalArgumentException.class, () -> FeatureSchema.of(spec(4), null, false));
  }

  @Test
  void requireCompatibleNamesBothValues() {
    FeatureSchema file = FeatureSchema.of(spec(8), LabelType.NONE, false);
    file.requireCompatible(spec(8)); // equal: passes
    IllegalArgumentException bits = assertThrows(IllegalArgumentException.class,
        () -> file.requireCompatible(spec(4)));
    assertTrue(bits.getMessage().contains("has lprff.bits=8, expected 4"), bits.getMessage());
    // The scale keys follow the bits: named too.
    assertTrue(bits.getMessage().contains("lprff.scale.step="), bits.getMessage());

    IllegalArgumentException seed = assertThrows(IllegalArgumentException.class,
        () -> FeatureSchema.requireCompatible(file.arrowSchema(), spec(8).withSeed(7)));
    assertTrue(seed.getMessage().contains("schema has lprff.seed=42, expected 7"), seed.getMessage());

    FeaturizerSpec laplacian = new FeaturizerSpec(
        new KernelFunction.Laplacian(2.0), FeatureTestData.D, FeatureTestData.M, 8, "dense",
        FeatureTestData.SEED, Quantizer.STOCHASTIC);
    IllegalArgumentException kernel = assertThrows(IllegalArgumentException.class,
        () -> file.requireCompatible(laplacian));
    assertTrue(kernel.getMessage().contains("lprff.kernel=gaussian, expected laplacian"),
        kernel.getMessage());

    FeaturizerSpec matern = new FeaturizerSpec(
        new KernelFunction.Matern(1.5, 2.0), FeatureTestData.D, FeatureTestData.M, 8, "dense",
        FeatureTestData.SEED, Quantizer.STOCHASTIC);
    IllegalArgumentException keys = assertThrows(IllegalArgumentException.class,
        () -> file.requireCompatible(matern));
    assertTrue(keys.getMessage().contains("no lprff.nu, expected lprff.nu=1.5"), keys.getMessage());
    assertTrue(keys.getMessage().contains("lprff.sigma=2.0, expected no lprff.sigma"), keys.getMessage());
  }

  @Test
  void requireCompatibleWithARequiredSubset() {
    FeatureSchema file = FeatureSchema.of(spec(8), LabelType.NONE, false, Map.of("lprff.standardize.mean", "3"));
    file.requireCompatible(Map.of("lprff.bits", "8", "lprff.features", "37", "lprff.standardize.mean", "3"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> file.requireCompatible(Map.of("lprff.features", "4096")));
    assertTrue(e.getMessage().contains("lprff.features=37, expected 4096"), e.getMessage());
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> file.requireCompatible(Map.of("lprff.standardize.std", "1")));
    assertTrue(missing.getMessage().contains("no lprff.standardize.std, expected lprff.standardize.std=1"),
        missing.getMessage());
  }

  @Test
  void requireLabelTypeNamesBoth() {
    FeatureSchema file = FeatureSchema.of(spec(8), LabelType.CLASSES, false);
    file.requireLabelType(LabelType.CLASSES);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> file.requireLabelType(LabelType.REGRESSION));
    assertTrue(e.getMessage().contains("Int32 labels (CLASSES)"), e.getMessage());
    assertTrue(e.getMessage().contains("expected Float32 labels (REGRESSION)"), e.getMessage());
  }

  // ---- malformed schemas

  private static Schema withMetadata(Schema schema, Map<String, String> changes) {
    Map<String, String> metadata = new LinkedHashMap<>(schema.getCustomMetadata());
    changes.forEach((k, v) -> {
      if (v == null) {
        metadata.remove(k);
      } else {
        metadata.put(k, v);
      }
    });
    return new Schema(schema.getFields(), metadata);
  }

  private static String failure(Schema schema) {
    return assertThrows(IllegalArgumentException.class, () -> FeatureSchema.from(schema)).getMessage();
  }

  @Test
  void fromRefusesMissingOrOtherFormatVersions() {
    Schema good = FeatureSchema.of(spec(4), LabelType.NONE, false).arrowSchema();
    Map<String, String> remove = new LinkedHashMap<>();
    remove.put("lprff.format.version", null);
    assertTrue(failure(withMetadata(good, remove)).contains("no lprff.format.version"));
    assertTrue(failure(withMetadata(good, Map.of("lprff.format.version", "3")))
        .contains("has lprff.format.version=3, expected 1 or 2"));
    assertTrue(failure(new Schema(good.getFields())).contains("no lprff.format.version"));
  }

  /**
   * Format 2 marks the features column as an Arrow extension type: the canonical fixed-shape
   * tensor for b = 32, lprff.packed_codes (with its decoding parameters) for codes; a version-2
   * schema without the mark is refused, and version 1 (no marks) is still read.
   */
  @Test
  void theFeaturesColumnCarriesItsExtensionType() {
    FeaturizerSpec packed = spec(4);
    Field codes = FeatureSchema.of(packed, LabelType.NONE, false).arrowSchema()
        .findField("features");
    assertEquals("lprff.packed_codes", codes.getMetadata().get("ARROW:extension:name"));
    Map<String, String> m = packed.toMap();
    assertEquals("{\"bits\":4,\"features\":" + packed.features() + ",\"bit_order\":\"lsb0\","
        + "\"lo\":" + m.get("lprff.scale.lo") + ",\"step\":" + m.get("lprff.scale.step") + "}",
        codes.getMetadata().get("ARROW:extension:metadata"));
    Field tensor = FeatureSchema.of(spec(32), LabelType.NONE, false).arrowSchema()
        .findField("features");
    assertEquals("arrow.fixed_shape_tensor", tensor.getMetadata().get("ARROW:extension:name"));
    assertEquals("{\"shape\":[" + spec(32).features() + "]}",
        tensor.getMetadata().get("ARROW:extension:metadata"));

    Schema good = FeatureSchema.of(packed, LabelType.NONE, false).arrowSchema();
    Field bare = new Field("features",
        FieldType.notNullable(codes.getType()), codes.getChildren());
    Schema unmarked = new Schema(List.of(bare), good.getCustomMetadata());
    assertTrue(failure(unmarked).contains("with ARROW:extension:name=null, expected"
        + " lprff.packed_codes"));
    FeatureSchema v1 = FeatureSchema.from(
        withMetadata(unmarked, Map.of("lprff.format.version", "1")));
    assertEquals(packed, v1.spec());
  }

  @Test
  void fromRefusesInvalidSpecMetadata() {
    Schema good = FeatureSchema.of(spec(4), LabelType.NONE, false).arrowSchema();
    String message = failure(withMetadata(good, Map.of("lprff.bits", "x")));
    assertTrue(message.contains("lprff.bits is 'x'"), message);
    String inconsistent = failure(withMetadata(good, Map.of("lprff.scale.lo", "-1.0")));
    assertTrue(inconsistent.contains("lprff.scale.lo is -1.0"), inconsistent);
  }

  @Test
  void fromRefusesAFeatureColumnThatDoesNotMatchTheSpec() {
    Schema good = FeatureSchema.of(spec(4), LabelType.NONE, false).arrowSchema();
    Field wrong = new Field("features", FieldType.notNullable(new ArrowType.FixedSizeBinary(4)), null);
    String message = failure(new Schema(List.of(wrong), good.getCustomMetadata()));
    assertTrue(message.contains("FixedSizeBinary(4)"), message);
    assertTrue(message.contains("lprff.features=37 and lprff.bits=4 need FixedSizeBinary(19)"), message);

    Schema floats = FeatureSchema.of(spec(32), LabelType.NONE, false).arrowSchema();
    Field doubles = new Field("features", FieldType.notNullable(new ArrowType.FixedSizeList(37)),
        List.of(new Field("item", FieldType.notNullable(
            new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
    String message32 = failure(new Schema(List.of(doubles), floats.getCustomMetadata()));
    assertTrue(message32.contains("need FixedSizeList<FloatingPoint(SINGLE)>(37)"), message32);
  }

  @Test
  void fromRefusesUnknownMissingOrMistypedColumns() {
    Schema good = FeatureSchema.of(spec(4), LabelType.REGRESSION, true).arrowSchema();
    Map<String, String> metadata = good.getCustomMetadata();
    Field features = good.getFields().get(0);
    Field extra = new Field("weight", FieldType.notNullable(FLOAT32), null);
    assertTrue(failure(new Schema(List.of(features, extra), metadata)).contains("column 'weight'"));
    assertTrue(failure(new Schema(List.of(good.getFields().get(1)), metadata)).contains("no 'features' column"));
    Field doubleLabel = new Field("label", FieldType.notNullable(
        new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);
    assertTrue(failure(new Schema(List.of(features, doubleLabel), metadata))
        .contains("column label of type FloatingPoint(DOUBLE)"));
    Field intRowId = new Field("row_id", FieldType.notNullable(new ArrowType.Int(32, true)), null);
    assertTrue(failure(new Schema(List.of(features, intRowId), metadata)).contains("expected Int64"));
    assertTrue(failure(new Schema(List.of(features, features), metadata)).contains("two columns named 'features'"));
  }
}
