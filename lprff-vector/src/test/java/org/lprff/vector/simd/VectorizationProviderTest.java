package org.lprff.vector.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

class VectorizationProviderTest {

  private static final List<String> BODIES = List.of(
      "dense projection", "fwht", "fft", "interleaved", "cosine", "counter rng", "rounding",
      "cosine codes", "unpack", "products", "gram", "cholesky");

  @Test
  void vectorBodiesAreActiveOnThisMachineUnlessForcedOtherwise() {
    String forced = System.getProperty(VectorizationProvider.PROPERTY);
    Implementation expected =
        forced != null && !forced.isBlank()
            ? Implementation.valueOf(forced.trim().toUpperCase(Locale.ROOT))
            : Implementation.VECTOR;
    // The build passes --add-modules=jdk.incubator.vector to every test JVM, and the machines
    // this project builds on (x86-64 with AVX2 or AVX-512) have vectors of 256 bits or more.
    assertTrue(FloatVector.SPECIES_PREFERRED.vectorBitSize() >= VectorizationProvider.MIN_VECTOR_BITS,
        FloatVector.SPECIES_PREFERRED.toString());
    VectorizationProvider provider = VectorizationProvider.get();
    assertEquals(expected, provider.implementation(), provider.describe());
  }

  @Test
  void forcedValuesAreHonoured() {
    assertEquals(Implementation.SCALAR, VectorizationProvider.choose("scalar"));
    assertEquals(Implementation.VECTOR, VectorizationProvider.choose(" Vector "));
    assertEquals(Implementation.VECTOR, VectorizationProvider.choose(null));
    assertEquals(Implementation.VECTOR, VectorizationProvider.choose(" "));
  }

  @Test
  void unknownValueIsRejectedByName() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> VectorizationProvider.choose("avx9"));
    assertTrue(e.getMessage().contains("'avx9'") && e.getMessage().contains(
        VectorizationProvider.PROPERTY), e.getMessage());
  }

  @Test
  void everyBodyOfAProviderRunsItsImplementation() {
    VectorizationProvider scalar = VectorizationProvider.scalar();
    assertEquals(BODIES, List.copyOf(scalar.bodies().keySet()));
    scalar.bodies().forEach((name, shape) -> assertEquals("scalar", shape, name));
    assertEquals("scalar (every body)", scalar.describe());

    VectorizationProvider vector = VectorizationProvider.vector();
    assertEquals(BODIES, List.copyOf(vector.bodies().keySet()));
    int lanes = FloatVector.SPECIES_PREFERRED.length();
    int bits = FloatVector.SPECIES_PREFERRED.vectorBitSize();
    String floats = "FloatVector " + bits + "-bit, " + lanes + " lanes";
    for (String name : List.of("dense projection", "fwht", "fft", "interleaved", "cosine",
        "unpack", "products")) {
      assertEquals(floats, vector.bodies().get(name), name);
    }
    // The counter generator is defined on groups of 8 int lanes: one group on 256-bit machines,
    // two side by side on 512-bit ones. The general rounding stays on 8 lanes.
    String blocks = bits >= 512 ? "IntVector 512-bit, 16 lanes" : "IntVector 256-bit, 8 lanes";
    assertEquals(blocks, vector.bodies().get("counter rng"));
    assertEquals("IntVector 256-bit, 8 lanes", vector.bodies().get("rounding"));
    assertEquals(floats + "; draws " + blocks, vector.bodies().get("cosine codes"));
    assertEquals("DoubleVector " + bits + "-bit, " + bits / 64 + " lanes",
        vector.bodies().get("gram"));
    assertEquals(vector.bodies().get("gram"), vector.bodies().get("cholesky"));
    String line = vector.describe();
    assertTrue(line.startsWith("vector: dense projection, fwht, fft, interleaved, cosine, unpack,"
        + " products (" + floats + ")"), line);
    assertTrue(line.contains("rounding (IntVector 256-bit, 8 lanes)"), line);
    assertTrue(line.contains("counter rng"), line);
  }
}
