package org.lprff.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import org.lprff.arrow.ModelFile;

/** Model files from outside bytes ({@link ModelFile#read}); seeds: models {@code train} wrote. */
class ModelFileFuzzTest {

  @FuzzTest
  void read(byte[] input) throws Exception {
    Path file = Invariant.write("model.arrow", input);
    Invariant.holds(file, () -> {
      ModelFile.Model model = ModelFile.read(file);
      // The model must be usable as read: its spec, standardization and weights agree.
      model.spec().features();
      model.weights().hashCode();
    });
  }
}
