package org.lprff.spark;

import java.nio.file.Path;
import org.lprff.vector.train.loss.Task;
import org.apache.spark.ml.classification.ProbabilisticClassificationModel;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * A fitted {@link LpRffClassifier}: rawPrediction, probability and prediction columns like any
 * Spark ML probabilistic classifier (two classes: rawPrediction (-z, z) of the logit z, as Spark's
 * LogisticRegression; k classes: the k scores, probabilities by softmax), and the project's {@code
 * .lprff} model file ({@link #export}, {@link #load}).
 */
public final class LpRffClassificationModel
    extends ProbabilisticClassificationModel<byte[], LpRffClassificationModel>
    implements LpRffModel {

  private static final long serialVersionUID = 1L;

  private final String uid;
  private final LpRffModelData data;

  LpRffClassificationModel(String uid, LpRffModelData data) {
    // Spark's shared params (featuresCol, ...) take their parent's uid as the superclass is
    // built, so it is set first (a flexible constructor body, JDK 25).
    this.uid = uid;
    super();
    this.data = data;
  }

  /** The model of a {@code .lprff} file written by {@link #export} or {@code lprff train}. */
  public static LpRffClassificationModel fromModelFile(String path) {
    LpRffModelData data = LpRffModelData.read(Path.of(path));
    if (data.task() == Task.Kind.REGRESSION) {
      throw new IllegalArgumentException(path + " holds a regression model; load it with"
          + " LpRffRegressionModel");
    }
    return new LpRffClassificationModel(org.apache.spark.ml.util.Identifiable.randomUID(
        "lpRffClassifier"), data);
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public LpRffModelData lprffData() {
    return data;
  }

  @Override
  public int numClasses() {
    return data.classes();
  }

  @Override
  public int numFeatures() {
    return data.spec().features();
  }

  @Override
  public DataType featuresDataType() {
    return DataTypes.BinaryType;
  }

  @Override
  public Vector predictRaw(byte[] features) {
    float[] s = data.scores(features);
    if (s.length == 1) {
      return Vectors.dense(-s[0], s[0]);
    }
    double[] raw = new double[s.length];
    for (int j = 0; j < s.length; j++) {
      raw[j] = s[j];
    }
    return Vectors.dense(raw);
  }

  @Override
  public Vector raw2probabilityInPlace(Vector rawPrediction) {
    double[] v = ((DenseVector) rawPrediction).values();
    if (v.length == 2) {
      double p1 = 1 / (1 + Math.exp(-v[1]));
      v[0] = 1 - p1;
      v[1] = p1;
      return rawPrediction;
    }
    double max = Double.NEGATIVE_INFINITY;
    for (double x : v) {
      max = Math.max(max, x);
    }
    double sum = 0;
    for (int j = 0; j < v.length; j++) {
      v[j] = Math.exp(v[j] - max);
      sum += v[j];
    }
    for (int j = 0; j < v.length; j++) {
      v[j] /= sum;
    }
    return rawPrediction;
  }

  /**
   * Spark's summary hook, declared by two of the superclasses with Scala-covariant return types
   * that Java cannot tell apart without a raw override.
   */
  @Override
  @SuppressWarnings({"rawtypes", "unchecked"})
  public scala.Tuple3 findSummaryModel() {
    return super.findSummaryModel();
  }

  public static MLReader<LpRffClassificationModel> read() {
    return new ModelPersistence.Reader<>(LpRffClassificationModel.class,
        LpRffClassificationModel::new);
  }

  /** A model saved by {@code save(path)}; {@link #fromModelFile} reads a {@code .lprff} file. */
  public static LpRffClassificationModel load(String path) {
    return read().load(path);
  }

  @Override
  public LpRffClassificationModel copy(ParamMap extra) {
    return copyValues(new LpRffClassificationModel(uid, data), extra).setParent(parent());
  }
}
