/**
 * LP-RFF features as Apache Arrow: the feature and model files (IPC file and stream framings),
 * the training source that hands a feature file's bytes to the training core without copying
 * them, and the readers of outside rows (CSV, LIBSVM, IDX, Arrow). {@code org.lprff.arrow.memory}
 * (Arrow buffers as memory segments) is internal.
 */
module org.lprff.arrow {
  requires transitive org.lprff.vector;
  requires transitive org.apache.arrow.memory.core;
  requires transitive org.apache.arrow.vector;
  requires org.apache.arrow.format;

  exports org.lprff.arrow;
  exports org.lprff.arrow.input;
  exports org.lprff.arrow.model;
}
