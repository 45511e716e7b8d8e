package org.lprff.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import org.lprff.arrow.model.FittedModel;

/** Model files from outside bytes ({@link FittedModel#load}); seeds: models {@code train} wrote. */
class ModelFileFuzzTest {

  @FuzzTest
  void read(byte[] input) throws Exception {
    Path file = Invariant.write("model.arrow", input);
    Invariant.holds(file, () -> {
      FittedModel model = FittedModel.load(file);
      // The model must be usable as read: its spec, standardization and weights agree.
      model.spec().features();
      model.weights().hashCode();
    });
  }
}
