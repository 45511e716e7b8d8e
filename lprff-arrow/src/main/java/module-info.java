/**
 * LP-RFF features as Apache Arrow: the feature and model files (IPC file and stream framings),
 * the zero-copy mini-batch sources that hand Arrow buffers to the training core, and the readers
 * of outside rows (CSV, LIBSVM, IDX, Arrow).
 */
module org.lprff.arrow {
  requires transitive org.lprff.vector;
  requires transitive org.apache.arrow.memory.core;
  requires transitive org.apache.arrow.vector;
  requires org.apache.arrow.format;

  exports org.lprff.arrow;
  exports org.lprff.arrow.input;
}
