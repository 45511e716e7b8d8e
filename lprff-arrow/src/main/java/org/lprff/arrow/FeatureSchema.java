package org.lprff.arrow;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.FeaturizerSpec;

/**
 * The Arrow schema of a feature file (DESIGN.md section 3), built from or validated against a
 * {@link FeaturizerSpec}. Immutable.
 *
 * <p>Columns, in this order: {@value #FEATURES}, FixedSizeBinary(ceil(m b / 8)) for b < 32 or
 * FixedSizeList&lt;Float32&gt;(m) for b = 32; then an optional {@value #LABEL} (Float32 for
 * {@link LabelType#REGRESSION}, Int32 for {@link LabelType#CLASSES}); then an optional {@value
 * #ROW_ID} (Int64). All are non-nullable.
 *
 * <p>Schema metadata, all strings: {@value #KEY_FORMAT_VERSION} = {@value #FORMAT_VERSION}, the
 * spec's {@link FeaturizerSpec#toMap()}, then the caller's extra metadata (for example
 * standardization statistics). Extra keys must not collide with the spec's: a key starting with
 * {@code lprff.} needs a namespace of its own ({@code lprff.standardize.mean}, not {@code
 * lprff.mean}), because single-level {@code lprff.} keys are kernel parameters; the namespaces
 * {@code lprff.scale.} and {@code lprff.format.} are the spec's.
 *
 * <p>Readers validate a schema with {@link #from(Schema)} and then refuse metadata that does not
 * match what they are asked to do with {@link #requireCompatible(FeaturizerSpec)} and {@link
 * #requireLabelType(LabelType)}, whose messages name both values ("schema has lprff.bits=8,
 * expected 4").
 */
public final class FeatureSchema {

  /** The name of the packed feature column. */
  public static final String FEATURES = "features";

  /** The name of the optional label column. */
  public static final String LABEL = "label";

  /** The name of the optional row id column. */
  public static final String ROW_ID = "row_id";

  /** The name of the Float32 child of the b = 32 FixedSizeList column (Arrow's convention). */
  public static final String LIST_ITEM = "item";

  /** The metadata key of the file layout version. */
  public static final String KEY_FORMAT_VERSION = FeaturizerSpec.KEY_FORMAT_VERSION;

  /**
   * The layout version this library writes: 2 marks the features column as an Arrow extension
   * type ({@link #TENSOR_EXTENSION} for b = 32, {@link #PACKED_EXTENSION} for codes). Version 1
   * (the same columns without the marks) is read too.
   */
  public static final String FORMAT_VERSION = "2";

  /** The layout versions this library reads. */
  public static final Set<String> READABLE_VERSIONS = Set.of("1", "2");

  /** Arrow's field metadata key of an extension type's name. */
  public static final String EXTENSION_NAME = "ARROW:extension:name";

  /** Arrow's field metadata key of an extension type's serialized parameters. */
  public static final String EXTENSION_METADATA = "ARROW:extension:metadata";

  /**
   * The canonical extension of the b = 32 features: a tensor of shape [m] per row, which pyarrow
   * hands out as a zero-copy numpy array ({@code to_numpy_ndarray()}).
   */
  public static final String TENSOR_EXTENSION = "arrow.fixed_shape_tensor";

  /**
   * This project's extension of packed codes: its JSON parameters say how to decode a row
   * (bits, features, bit_order, lo, step); readers that do not know it see the FixedSizeBinary.
   */
  public static final String PACKED_EXTENSION = "lprff.packed_codes";

  private static final Set<String> SPEC_NAMESPACES = Set.of("scale", "format", "quantizer");

  private final FeaturizerSpec spec;
  private final LabelType labelType;
  private final boolean rowIds;
  private final Map<String, String> extraMetadata;
  private final Map<String, String> metadata;
  private final Schema schema;
  /** How messages name where this schema came from: "schema", "file /tmp/x.arrow". */
  private final String source;

  private FeatureSchema(
      FeaturizerSpec spec,
      LabelType labelType,
      boolean rowIds,
      Map<String, String> extraMetadata,
      Schema schema,
      String source) {
    this.spec = spec;
    this.labelType = labelType;
    this.rowIds = rowIds;
    this.extraMetadata = extraMetadata;
    this.metadata = metadataOf(spec, extraMetadata);
    this.schema = schema != null ? schema : arrowSchema(spec, labelType, rowIds, metadata);
    this.source = source;
  }

  /** {@link #of(FeaturizerSpec, LabelType, boolean, Map)} without extra metadata. */
  public static FeatureSchema of(FeaturizerSpec spec, LabelType labelType, boolean rowIds) {
    return of(spec, labelType, rowIds, Map.of());
  }

  /**
   * The schema of a file of {@code spec}'s features.
   *
   * @param spec the featurizer spec; its metadata is written under {@code lprff.*}
   * @param labelType whether there is a label column and its type
   * @param rowIds whether there is a {@value #ROW_ID} column
   * @param extraMetadata further metadata strings stored with the schema
   * @throws IllegalArgumentException if an argument is null or an extra key is null, has a null
   *     value, or collides with the spec's keys (naming the key)
   */
  public static FeatureSchema of(
      FeaturizerSpec spec, LabelType labelType, boolean rowIds, Map<String, String> extraMetadata) {
    if (spec == null) {
      throw new IllegalArgumentException("spec is null");
    }
    if (labelType == null) {
      throw new IllegalArgumentException("labelType is null; expected NONE, REGRESSION or CLASSES");
    }
    if (extraMetadata == null) {
      throw new IllegalArgumentException("extraMetadata is null; pass Map.of() for none");
    }
    Map<String, String> extra = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : extraMetadata.entrySet()) {
      String key = e.getKey();
      if (key == null) {
        throw new IllegalArgumentException("extra metadata has a null key");
      }
      if (e.getValue() == null) {
        throw new IllegalArgumentException("extra metadata key '" + key + "' has a null value");
      }
      if (isSpecKey(key)) {
        throw new IllegalArgumentException(
            "extra metadata key '" + key + "' is reserved for the featurizer spec; lprff.* keys"
                + " outside the spec need a namespace of their own, e.g. lprff.standardize.mean");
      }
      extra.put(key, e.getValue());
    }
    return new FeatureSchema(
        spec, labelType, rowIds, Collections.unmodifiableMap(extra), null, "schema");
  }

  /**
   * Validates an Arrow schema as a feature file's: the format version, the spec metadata, and the
   * columns' names and types against the spec.
   *
   * @throws IllegalArgumentException naming the key, value or column that is missing, unknown,
   *     malformed or inconsistent
   */
  public static FeatureSchema from(Schema schema) {
    return from(schema, "schema");
  }

  /** {@link #from(Schema)} with messages naming {@code source} ("file /tmp/x.arrow"). */
  static FeatureSchema from(Schema schema, String source) {
    if (schema == null) {
      throw new IllegalArgumentException("schema is null");
    }
    Map<String, String> all = schema.getCustomMetadata() == null ? Map.of() : schema.getCustomMetadata();
    String version = all.get(KEY_FORMAT_VERSION);
    if (version == null) {
      throw new IllegalArgumentException(
          source + " has no " + KEY_FORMAT_VERSION + " metadata, expected " + KEY_FORMAT_VERSION
              + "=" + FORMAT_VERSION + " (is it an lprff feature file?)");
    }
    if (!READABLE_VERSIONS.contains(version)) {
      throw new IllegalArgumentException(source + " has " + KEY_FORMAT_VERSION + "=" + version
          + ", expected 1 or " + FORMAT_VERSION + " (written by a newer lprff?)");
    }
    Map<String, String> specMap = new LinkedHashMap<>();
    Map<String, String> extra = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      (isSpecKey(e.getKey()) ? specMap : extra).put(e.getKey(), e.getValue());
    }
    FeaturizerSpec spec;
    try {
      spec = FeaturizerSpec.fromMap(specMap);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + " has invalid lprff metadata: " + e.getMessage(), e);
    }
    List<Field> fields = schema.getFields();
    Field features = null;
    Field label = null;
    Field rowId = null;
    for (Field field : fields) {
      switch (field.getName()) {
        case FEATURES -> features = unique(features, field, source);
        case LABEL -> label = unique(label, field, source);
        case ROW_ID -> rowId = unique(rowId, field, source);
        default -> throw new IllegalArgumentException(
            source + " has a column '" + field.getName() + "', expected only " + FEATURES + ", "
                + LABEL + " and " + ROW_ID);
      }
    }
    if (features == null) {
      throw new IllegalArgumentException(source + " has no '" + FEATURES + "' column");
    }
    checkFeatureType(features, spec, source);
    if (!version.equals("1")) {
      String expected = spec.isFloat() ? TENSOR_EXTENSION : PACKED_EXTENSION;
      String name = features.getMetadata().get(EXTENSION_NAME);
      if (!expected.equals(name)) {
        throw new IllegalArgumentException(source + " has column '" + FEATURES + "' with "
            + EXTENSION_NAME + "=" + name + ", expected " + expected);
      }
    }
    LabelType labelType = label == null ? LabelType.NONE : labelTypeOf(label, source);
    if (rowId != null && !rowId.getType().equals(new ArrowType.Int(64, true))) {
      throw new IllegalArgumentException(
          source + " has column " + ROW_ID + " of type " + rowId.getType() + ", expected Int64");
    }
    return new FeatureSchema(
        spec, labelType, rowId != null, Collections.unmodifiableMap(extra), schema, source);
  }

  /** The spec stored in a feature file's schema; {@link #from(Schema)} validates the rest too. */
  public static FeaturizerSpec spec(Schema schema) {
    return from(schema).spec();
  }

  /** {@code from(schema).requireCompatible(expected)}. */
  public static void requireCompatible(Schema schema, FeaturizerSpec expected) {
    from(schema).requireCompatible(expected);
  }

  /** This schema with messages naming {@code newSource}. */
  FeatureSchema describedAs(String newSource) {
    return new FeatureSchema(spec, labelType, rowIds, extraMetadata, schema, newSource);
  }

  // ---- accessors

  /** The featurizer spec. */
  public FeaturizerSpec spec() {
    return spec;
  }

  public LabelType labelType() {
    return labelType;
  }

  /** True if there is a {@value #ROW_ID} column. */
  public boolean hasRowIds() {
    return rowIds;
  }

  /** Bytes of one feature row: ceil(m b / 8) for b < 32, 4 m for b = 32. */
  public int rowBytes() {
    return spec.rowBytes();
  }

  /** The metadata that is not the spec's or the format version's; unmodifiable. */
  public Map<String, String> extraMetadata() {
    return extraMetadata;
  }

  /** All metadata strings: the format version, the spec's, then the extra; unmodifiable. */
  public Map<String, String> metadata() {
    return metadata;
  }

  /** The Arrow schema, with {@link #metadata()} as its custom metadata. */
  public Schema arrowSchema() {
    return schema;
  }

  // ---- compatibility

  /**
   * Refuses a schema whose spec differs from {@code expected}: every key of {@code
   * expected.toMap()} must be present with the same value (compared in the canonical form both
   * specs write) and no other spec key may be present.
   *
   * @throws IllegalArgumentException naming every differing key with both values, e.g. "schema
   *     has lprff.bits=8, expected 4"
   */
  public void requireCompatible(FeaturizerSpec expected) {
    if (expected == null) {
      throw new IllegalArgumentException("expected spec is null");
    }
    Map<String, String> want = expected.toMap();
    Map<String, String> have = spec.toMap();
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> e : want.entrySet()) {
      String actual = have.get(e.getKey());
      if (actual == null) {
        problems.add("no " + e.getKey() + ", expected " + e.getKey() + "=" + e.getValue());
      } else if (!actual.equals(e.getValue())) {
        problems.add(e.getKey() + "=" + actual + ", expected " + e.getValue());
      }
    }
    for (Map.Entry<String, String> e : have.entrySet()) {
      if (!want.containsKey(e.getKey())) {
        problems.add(e.getKey() + "=" + e.getValue() + ", expected no " + e.getKey());
      }
    }
    fail(problems);
  }

  /**
   * Refuses a schema whose metadata lacks one of {@code required}'s keys or has another value
   * for it. Spec values are compared in the canonical form {@link FeaturizerSpec#toMap()} writes
   * ({@code lprff.sigma=1.0}, not {@code 1}).
   *
   * @throws IllegalArgumentException naming every differing key with both values
   */
  public void requireCompatible(Map<String, String> required) {
    if (required == null) {
      throw new IllegalArgumentException("required metadata is null");
    }
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> e : required.entrySet()) {
      String actual = metadata.get(e.getKey());
      if (actual == null) {
        problems.add("no " + e.getKey() + ", expected " + e.getKey() + "=" + e.getValue());
      } else if (!actual.equals(e.getValue())) {
        problems.add(e.getKey() + "=" + actual + ", expected " + e.getValue());
      }
    }
    fail(problems);
  }

  /**
   * Refuses a schema whose label column is not {@code expected}.
   *
   * @throws IllegalArgumentException naming both, e.g. "schema has Int32 labels (CLASSES),
   *     expected Float32 labels (REGRESSION)"
   */
  public void requireLabelType(LabelType expected) {
    if (expected == null) {
      throw new IllegalArgumentException("expected label type is null");
    }
    if (expected != labelType) {
      throw new IllegalArgumentException(
          source + " has " + labelType.describe() + ", expected " + expected.describe());
    }
  }

  private void fail(List<String> problems) {
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(source + " has " + String.join("; has ", problems));
    }
  }

  // ---- helpers

  /**
   * True for the keys that belong to a spec (and so to {@link FeaturizerSpec#fromMap}): the
   * single-level {@code lprff.x} keys (spec and kernel parameters) and the {@code lprff.scale.},
   * {@code lprff.quantizer.} and {@code lprff.format.} namespaces.
   */
  static boolean isSpecKey(String key) {
    if (!key.startsWith(FeaturizerSpec.PREFIX)) {
      return false;
    }
    String rest = key.substring(FeaturizerSpec.PREFIX.length());
    int dot = rest.indexOf('.');
    return dot < 0 || SPEC_NAMESPACES.contains(rest.substring(0, dot));
  }

  private static Map<String, String> metadataOf(FeaturizerSpec spec, Map<String, String> extra) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put(KEY_FORMAT_VERSION, FORMAT_VERSION);
    map.putAll(spec.toMap());
    map.putAll(extra);
    return Collections.unmodifiableMap(map);
  }

  private static Schema arrowSchema(
      FeaturizerSpec spec, LabelType labelType, boolean rowIds, Map<String, String> metadata) {
    List<Field> fields = new ArrayList<>();
    fields.add(featureField(spec));
    switch (labelType) {
      case REGRESSION -> fields.add(
          new Field(LABEL, FieldType.notNullable(float32()), null));
      case CLASSES -> fields.add(
          new Field(LABEL, FieldType.notNullable(new ArrowType.Int(32, true)), null));
      case NONE -> {}
    }
    if (rowIds) {
      fields.add(new Field(ROW_ID, FieldType.notNullable(new ArrowType.Int(64, true)), null));
    }
    return new Schema(fields, metadata);
  }

  private static Field featureField(FeaturizerSpec spec) {
    Map<String, String> extension = new LinkedHashMap<>();
    if (spec.isFloat()) {
      extension.put(EXTENSION_NAME, TENSOR_EXTENSION);
      extension.put(EXTENSION_METADATA, "{\"shape\":[" + spec.features() + "]}");
      Field item = new Field(LIST_ITEM, FieldType.notNullable(float32()), null);
      return new Field(FEATURES,
          new FieldType(false, new ArrowType.FixedSizeList(spec.features()), null, extension),
          List.of(item));
    }
    Map<String, String> m = spec.toMap();
    extension.put(EXTENSION_NAME, PACKED_EXTENSION);
    // What a generic reader needs to decode: the grid, or Lloyd-Max's codebook; Sigma-Delta's
    // condensation beside.
    String decoding = spec.quantizer().affine()
        ? "\"lo\":" + m.get(FeaturizerSpec.KEY_SCALE_LO) + ",\"step\":"
            + m.get(FeaturizerSpec.KEY_SCALE_STEP)
        : "\"codebook\":[" + m.get(Quantizer.KEY_CODEBOOK) + "]";
    String condensation = m.containsKey(Quantizer.KEY_CONDENSATION)
        ? ",\"condensation\":[" + m.get(Quantizer.KEY_CONDENSATION) + "]" : "";
    extension.put(EXTENSION_METADATA, "{\"bits\":" + spec.bits() + ",\"features\":"
        + spec.features() + ",\"bit_order\":\"" + FeaturizerSpec.BIT_ORDER + "\"," + decoding
        + condensation + "}");
    return new Field(FEATURES,
        new FieldType(false, new ArrowType.FixedSizeBinary(spec.rowBytes()), null, extension),
        null);
  }

  private static ArrowType float32() {
    return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  }

  private static Field unique(Field seen, Field field, String source) {
    if (seen != null) {
      throw new IllegalArgumentException(
          source + " has two columns named '" + field.getName() + "'");
    }
    return field;
  }

  private static void checkFeatureType(Field features, FeaturizerSpec spec, String source) {
    ArrowType expected = featureField(spec).getType();
    ArrowType actual = features.getType();
    boolean ok = actual.equals(expected);
    if (ok && spec.isFloat()) {
      List<Field> children = features.getChildren();
      ok = children.size() == 1 && children.get(0).getType().equals(float32());
    }
    if (!ok) {
      throw new IllegalArgumentException(
          source + " has column " + FEATURES + " of type " + describe(features) + ", but "
              + FeaturizerSpec.KEY_FEATURES + "=" + spec.features() + " and "
              + FeaturizerSpec.KEY_BITS + "=" + spec.bits() + " need " + describe(featureField(spec)));
    }
  }

  private static String describe(Field field) {
    ArrowType type = field.getType();
    if (type instanceof ArrowType.FixedSizeBinary b) {
      return "FixedSizeBinary(" + b.getByteWidth() + ")";
    }
    if (type instanceof ArrowType.FixedSizeList l) {
      String child = field.getChildren().isEmpty() ? "?" : field.getChildren().get(0).getType().toString();
      return "FixedSizeList<" + child + ">(" + l.getListSize() + ")";
    }
    return type.toString();
  }

  private static LabelType labelTypeOf(Field label, String source) {
    ArrowType type = label.getType();
    if (type.equals(float32())) {
      return LabelType.REGRESSION;
    }
    if (type.equals(new ArrowType.Int(32, true))) {
      return LabelType.CLASSES;
    }
    throw new IllegalArgumentException(
        source + " has column " + LABEL + " of type " + type
            + ", expected Float32 (regression) or Int32 (classes)");
  }

  // ---- value semantics (the source description is not part of the value)

  @Override
  public boolean equals(Object o) {
    return o instanceof FeatureSchema other
        && spec.equals(other.spec)
        && labelType == other.labelType
        && rowIds == other.rowIds
        && extraMetadata.equals(other.extraMetadata);
  }

  @Override
  public int hashCode() {
    return Objects.hash(spec, labelType, rowIds, extraMetadata);
  }

  @Override
  public String toString() {
    return "FeatureSchema[" + spec + ", labels " + labelType + ", rowIds " + rowIds
        + (extraMetadata.isEmpty() ? "" : ", extra " + extraMetadata) + "]";
  }
}
