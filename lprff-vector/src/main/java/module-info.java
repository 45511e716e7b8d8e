/**
 * LP-RFF compute: kernels, projections, quantization, the fused featurizer, training and kernel
 * metrics, on {@code java.lang.foreign} segments, with no Arrow. The exported packages are the
 * API, and no exported signature names a type of an unexported package ({@code javac
 * -Xlint:exports} is clean). The compute bodies and their choice ({@code org.lprff.vector.simd}
 * with {@code VectorizationProvider}, and {@code .spi}, {@code .scalar}, {@code .panama}) are
 * internal, as Lucene's {@code org.apache.lucene.internal.vectorization} is: every use goes
 * through the facades of the exported layers. The kernel metrics return EJML's {@code
 * DMatrixRMaj}, so {@code ejml.core} is required transitively.
 */
module org.lprff.vector {
  requires jdk.incubator.vector;
  requires transitive ejml.core;
  requires ejml.ddense;

  exports org.lprff.vector.layout;
  exports org.lprff.vector.random;
  exports org.lprff.vector.transform;
  exports org.lprff.vector.kernel;
  exports org.lprff.vector.codec;
  exports org.lprff.vector.projection;
  exports org.lprff.vector.products;
  exports org.lprff.vector.featurize;
  exports org.lprff.vector.stream;
  exports org.lprff.vector.train.loss;
  exports org.lprff.vector.train.model;
  exports org.lprff.vector.train.fullbatch;
  exports org.lprff.vector.train.minibatch;
  exports org.lprff.vector.train;
  exports org.lprff.vector.metrics;
}
