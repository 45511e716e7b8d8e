package org.lprff.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.function.BiFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWriter;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;

/**
 * Spark ML persistence of the fitted models, so that they save and load like any Spark ML model
 * (alone or inside a saved {@code PipelineModel}): Spark's metadata (class, uid, params) in
 * {@code path/metadata}, and the model itself as the project's {@code .lprff} file in {@code
 * path/data/model.lprff}, on any file system Hadoop reaches.
 */
final class ModelPersistence {

  private static final String DATA = "data/model.lprff";

  private ModelPersistence() {}

  /** Writes a model: its params as Spark's metadata, its weights as a {@code .lprff} file. */
  static final class Writer extends MLWriter {
    private final Params model;
    private final LpRffModelData data;

    Writer(Params model, LpRffModelData data) {
      this.model = model;
      this.data = data;
    }

    @Override
    public void saveImpl(String path) {
      DefaultParamsWriter.saveMetadata(model, path, sparkSession());
      java.nio.file.Path local = null;
      try {
        local = Files.createTempFile("lprff-model", ".lprff");
        data.export(local);
        Path target = new Path(path, DATA);
        Configuration conf = sparkSession().sparkContext().hadoopConfiguration();
        target.getFileSystem(conf).copyFromLocalFile(false, true, new Path(local.toUri()),
            target);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot save the model to " + path + ": "
            + e.getMessage(), e);
      } finally {
        if (local != null) {
          local.toFile().delete();
        }
      }
    }
  }

  /** Reads what {@link Writer} wrote into a model of {@code type}, made by {@code create}. */
  static final class Reader<M extends Params> extends MLReader<M> {
    private final Class<M> type;
    private final BiFunction<String, LpRffModelData, M> create;

    Reader(Class<M> type, BiFunction<String, LpRffModelData, M> create) {
      this.type = type;
      this.create = create;
    }

    @Override
    public M load(String path) {
      DefaultParamsReader.Metadata metadata =
          DefaultParamsReader.loadMetadata(path, sparkSession(), type.getName());
      java.nio.file.Path local = null;
      try {
        local = Files.createTempFile("lprff-model", ".lprff");
        Path source = new Path(path, DATA);
        FileSystem fs = source.getFileSystem(sparkSession().sparkContext().hadoopConfiguration());
        fs.copyToLocalFile(false, source, new Path(local.toUri()), true);
        M model = create.apply(metadata.uid(), LpRffModelData.read(local));
        metadata.getAndSetParams(model, scala.Option.empty());
        return model;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot load the model from " + path + ": "
            + e.getMessage(), e);
      } finally {
        if (local != null) {
          local.toFile().delete();
        }
      }
    }
  }
}
