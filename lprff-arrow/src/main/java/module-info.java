/**
 * LP-RFF features as Apache Arrow: the feature and model files (IPC file and stream framings),
 * the training source that hands a feature file's bytes to the training core without copying
 * them, and the readers of outside rows (CSV, LIBSVM, IDX, Arrow). The exported packages are the
 * API, and no exported signature names a type of an unexported package ({@code javac
 * -Xlint:exports} is clean). Internal: {@code org.lprff.arrow.ipc} (the IPC framing: the
 * metadata-only reader of a file's layout, the writer of checksummed record batches, the body
 * checksum), {@code org.lprff.arrow.io} (outputs that appear whole or not at all) and {@code
 * org.lprff.arrow.memory} (Arrow buffers as memory segments).
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
