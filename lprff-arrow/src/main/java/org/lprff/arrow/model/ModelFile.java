package org.lprff.arrow.model;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lprff.arrow.BatchChecksums;
import org.lprff.arrow.input.Standardization;
import org.lprff.arrow.io.AtomicWrite;
import org.lprff.arrow.ipc.IpcFileLayout;
import org.lprff.arrow.ipc.IpcWriter;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.loss.Task;

/**
 * A trained model, {@code .lprff}: one Arrow IPC file (readable with pyarrow's {@code
 * pa.ipc.open_file}) holding everything needed to predict from raw rows.
 *
 * <p><b>Schema metadata</b> (all strings): the featurizer spec ({@link FeaturizerSpec#toMap()},
 * the same keys as a feature file), the standardization statistics of the training feature file
 * ({@code lprff.standardize.*}, absent if it had none), and
 *
 * <ul>
 *   <li>{@code lprff.model.format_version} = "1";
 *   <li>{@code lprff.model.task}: {@code regression}, {@code binary} or {@code classification};
 *   <li>{@code lprff.model.classes}: k (1 for regression; binary models have one logit output);
 *   <li>{@code lprff.model.l2}: the L2 strength lambda used in training;
 *   <li>{@code lprff.model.outputs}: c, the rows of the table;
 *   <li>{@code lprff.train.*}: a training summary (free-form strings: epochs, stop reason, ...).
 * </ul>
 *
 * <p><b>Columns</b>, one row per output j (c rows, one record batch): {@code output} Int32 = j,
 * {@code weights} FixedSizeList&lt;Float32&gt;(m) = w_j, {@code bias} Float32 = b_j. The score of
 * output j for features z is {@code z . w_j + b_j}; regression predicts score 0, binary the
 * class {@code score > 0} (probability sigmoid(score)), k classes argmax (probabilities
 * softmax).
 *
 * <p>Written atomically (a temporary file in the same directory, forced, then renamed).
 */
final class ModelFile {

  public static final String FORMAT_VERSION = "1";
  public static final String KEY_FORMAT_VERSION = "lprff.model.format_version";
  public static final String KEY_TASK = "lprff.model.task";
  public static final String KEY_CLASSES = "lprff.model.classes";
  public static final String KEY_L2 = "lprff.model.l2";
  public static final String KEY_OUTPUTS = "lprff.model.outputs";
  public static final String TRAIN_PREFIX = "lprff.train.";
  public static final String OUTPUT = "output";
  public static final String WEIGHTS = "weights";
  public static final String BIAS = "bias";

  /** The training key ({@code lprff.train.loss}) naming a model's loss when not its task's. */
  static final String LOSS_KEY = "loss";

  private ModelFile() {}

  /** Writes {@code model} to {@code target} atomically. */
  static void write(Path target, FittedModel model) throws IOException {
    if (target == null || model == null) {
      throw new IllegalArgumentException("target and model must not be null");
    }
    LinearModel w = model.weights();
    int m = w.features();
    int c = w.outputs();
    Map<String, String> metadata = new TreeMap<>(model.spec().toMap());
    if (model.standardization() != null) {
      metadata.putAll(model.standardization().toMap());
    }
    metadata.put(KEY_FORMAT_VERSION, FORMAT_VERSION);
    metadata.put(KEY_TASK, model.task().kind().id);
    metadata.put(KEY_CLASSES, Integer.toString(model.classes()));
    metadata.put(KEY_L2, Double.toString(model.l2()));
    metadata.put(KEY_OUTPUTS, Integer.toString(c));
    model.training().forEach((k, v) -> metadata.put(TRAIN_PREFIX + k, v));
    if (model.task() == Task.BINARY_HINGE) {
      metadata.put(TRAIN_PREFIX + LOSS_KEY, "hinge"); // its class is the sign of the score
    }
    Schema schema = new Schema(fields(m), metadata);
    float[] wT = w.weightsT();
    float[] bias = w.bias();
    AtomicWrite.Temp temp = AtomicWrite.open(target);
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      IntVector output = (IntVector) root.getVector(OUTPUT);
      FixedSizeListVector weights = (FixedSizeListVector) root.getVector(WEIGHTS);
      Float4Vector biasVector = (Float4Vector) root.getVector(BIAS);
      Float4Vector values = (Float4Vector) weights.getDataVector();
      output.allocateNew(c);
      biasVector.allocateNew(c);
      weights.setInitialCapacity(c);
      weights.allocateNew();
      values.allocateNew(c * m);
      for (int j = 0; j < c; j++) {
        output.set(j, j);
        biasVector.set(j, bias[j]);
        weights.setNotNull(j);
        for (int i = 0; i < m; i++) {
          values.set(j * m + i, wT[j * m + i]);
        }
      }
      values.setValueCount(c * m);
      root.setRowCount(c);
      // The same framing as feature files: the batch carries its body's CRC32C.
      IpcWriter ipc = IpcWriter.file(root.getSchema(), temp.channel());
      try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
        ipc.start();
        ipc.write(batch);
        ipc.end();
      }
      temp.commit();
    } catch (IOException | RuntimeException | Error e) {
      temp.abort();
      throw e;
    }
  }

  private static List<Field> fields(int m) {
    Field item = new Field("item", FieldType.notNullable(
        new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null);
    return List.of(
        new Field(OUTPUT, FieldType.notNullable(new ArrowType.Int(32, true)), null),
        new Field(WEIGHTS, FieldType.notNullable(new ArrowType.FixedSizeList(m)), List.of(item)),
        new Field(BIAS, FieldType.notNullable(
            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null));
  }

  /**
   * Reads and validates a model file, its weights checked against the CRC32C stored with them.
   *
   * @throws IOException naming the file if it is unreadable, not an Arrow IPC file, truncated, or
   *     not a valid lprff model (the message says what is wrong)
   */
  static FittedModel read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + ": no such model file");
    }
    // A model's buffers take about its file's size; a corrupt record batch claiming more rows
    // than the file holds then fails in Arrow's allocator (OutOfMemoryException, reported as
    // corrupt below) instead of exhausting direct memory.
    long limit = 8 * Files.size(file) + (1 << 20);
    try (BufferAllocator allocator = new RootAllocator(limit);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      // The structure first, as feature files are read: Arrow's schema reader recurses into
      // nested fields and a crafted file of thousands of levels overflowed the stack (found by
      // ModelFileFuzzTest); IpcFileLayout walks them without recursion and bounds the depth.
      try {
        IpcFileLayout.check(file, channel, false);
      } catch (IOException e) {
        throw corrupt(file, e.getMessage(), e);
      }
      return read(file, allocator, channel);
    }
  }

  private static FittedModel read(Path file, BufferAllocator allocator, FileChannel channel)
      throws IOException {
    try (ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
      Schema schema;
      try {
        schema = reader.getVectorSchemaRoot().getSchema();
      } catch (RuntimeException | IOException e) {
        throw corrupt(file, "not an Arrow IPC file or truncated (" + e.getMessage() + ")", e);
      }
      Map<String, String> meta = schema.getCustomMetadata() == null
          ? Map.of() : schema.getCustomMetadata();
      String version = meta.get(KEY_FORMAT_VERSION);
      if (version == null) {
        throw corrupt(file, "an Arrow file without " + KEY_FORMAT_VERSION
            + " metadata: not an lprff model (a feature file?)", null);
      }
      if (!FORMAT_VERSION.equals(version)) {
        throw corrupt(file, KEY_FORMAT_VERSION + " is '" + version + "', expected '"
            + FORMAT_VERSION + "'", null);
      }
      FeaturizerSpec spec;
      Standardization standardization;
      int classes;
      int outputs;
      double l2;
      try {
        Map<String, String> specKeys = new TreeMap<>();
        meta.forEach((k, v) -> {
          if (!k.startsWith("lprff.standardize.") && !k.startsWith("lprff.model.")
              && !k.startsWith(TRAIN_PREFIX)) {
            specKeys.put(k, v);
          }
        });
        spec = FeaturizerSpec.fromMap(specKeys);
        standardization = meta.containsKey(Standardization.KEY_MEAN)
            ? Standardization.fromMap(meta) : null;
        classes = Integer.parseInt(require(file, meta, KEY_CLASSES));
        outputs = Integer.parseInt(require(file, meta, KEY_OUTPUTS));
        l2 = Double.parseDouble(require(file, meta, KEY_L2));
      } catch (IllegalArgumentException e) {
        throw corrupt(file, "invalid metadata: " + e.getMessage(), e);
      }
      String task = require(file, meta, KEY_TASK);
      int m = spec.modelFeatures();
      Field weightsField = schema.findField(WEIGHTS);
      if (!(weightsField.getType() instanceof ArrowType.FixedSizeList list)
          || list.getListSize() != m) {
        throw corrupt(file, "column " + WEIGHTS + " is " + weightsField.getType()
            + ", expected FixedSizeList<Float32>(" + m + ")", null);
      }
      // Every weight is stored in the file: more than its size holds is a corrupt count.
      if (outputs < 1 || 4L * outputs * m > Files.size(file)) {
        throw corrupt(file, KEY_OUTPUTS + " is " + outputs + " with " + m + " features: "
            + (outputs < 1 ? "expected >= 1" : "more weights than the file's "
            + Files.size(file) + " bytes hold"), null);
      }
      List<Integer> seen = new ArrayList<>();
      float[] wT = new float[outputs * m];
      float[] bias = new float[outputs];
      try {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          IntVector output = (IntVector) root.getVector(OUTPUT);
          FixedSizeListVector weights = (FixedSizeListVector) root.getVector(WEIGHTS);
          Float4Vector values = (Float4Vector) weights.getDataVector();
          Float4Vector b = (Float4Vector) root.getVector(BIAS);
          for (int r = 0; r < root.getRowCount(); r++) {
            int j = output.get(r);
            if (j < 0 || j >= outputs || seen.contains(j)) {
              throw corrupt(file, "row " + r + " has output " + j + ", expected a new index in [0, "
                  + outputs + ")", null);
            }
            seen.add(j);
            bias[j] = b.get(r);
            for (int i = 0; i < m; i++) {
              wT[j * m + i] = values.get(r * m + i);
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        if (e instanceof IOException io && io.getMessage() != null
            && io.getMessage().startsWith(file.toString())) {
          throw io;
        }
        throw corrupt(file, "unreadable weights, truncated or corrupt (" + e.getMessage() + ")", e);
      }
      if (seen.size() != outputs) {
        throw corrupt(file, "has weights for " + seen.size() + " outputs, expected " + outputs,
            null);
      }
      // The weights' bytes against the CRC32C written with them (models written before have none).
      try {
        BatchChecksums.verify(file, channel);
      } catch (BatchChecksums.DamagedBatchException e) {
        throw corrupt(file, "damaged after it was written: " + e.detail()
            + "; train it again or restore a copy", e);
      } catch (IOException e) {
        throw corrupt(file, "unreadable for its checksum (" + e.getMessage() + ")", e);
      }
      Map<String, String> training = new LinkedHashMap<>();
      meta.forEach((k, v) -> {
        if (k.startsWith(TRAIN_PREFIX)) {
          training.put(k.substring(TRAIN_PREFIX.length()), v);
        }
      });
      try {
        return new FittedModel(spec, standardization, task(task, classes, training), l2,
            LinearModel.of(m, outputs, wT, bias), training);
      } catch (IllegalArgumentException e) {
        throw corrupt(file, e.getMessage(), e);
      }
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(file.toString())) {
        throw e;
      }
      throw corrupt(file, "not an Arrow IPC file, or truncated (" + e.getMessage() + ")", e);
    } catch (RuntimeException e) {
      throw corrupt(file, "not a valid model file (" + e.getMessage() + ")", e);
    }
  }

  /** The task a file's name, classes and loss key say. */
  private static Task task(String name, int classes, Map<String, String> training) {
    return Task.of(Task.Kind.named(name), classes, "hinge".equals(training.get(LOSS_KEY)));
  }

  private static String require(Path file, Map<String, String> meta, String key)
      throws IOException {
    String v = meta.get(key);
    if (v == null) {
      throw corrupt(file, "metadata " + key + " is missing", null);
    }
    return v;
  }

  private static IOException corrupt(Path file, String what, Throwable cause) {
    return new IOException(file + ": " + what + " (lprff model file)", cause);
  }
}
