package org.lprff.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

class KernelsTest {

  @Test
  void vectorPathIsActiveOnThisMachineUnlessForcedOtherwise() {
    String forced = System.getProperty(Kernels.PROPERTY);
    KernelImplementation expected =
        forced != null && !forced.isBlank()
            ? KernelImplementation.valueOf(forced.trim().toUpperCase(java.util.Locale.ROOT))
            : KernelImplementation.VECTOR;
    // The build passes --add-modules=jdk.incubator.vector to every test JVM, and every x86-64
    // or AArch64 machine has at least 128-bit vectors, so the auto choice must be VECTOR.
    assertTrue(FloatVector.SPECIES_PREFERRED.length() >= 4);
    assertEquals(expected, Kernels.active(), Kernels.describe());
  }

  @Test
  void forcedValuesAreHonoured() {
    assertEquals(KernelImplementation.SCALAR, Kernels.select("scalar"));
    assertEquals(KernelImplementation.VECTOR, Kernels.select(" Vector "));
    assertEquals(KernelImplementation.VECTOR, Kernels.select(null));
  }

  @Test
  void unknownValueIsRejectedByName() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> Kernels.select("avx9"));
    assertTrue(e.getMessage().contains("'avx9'"), e.getMessage());
  }
}
