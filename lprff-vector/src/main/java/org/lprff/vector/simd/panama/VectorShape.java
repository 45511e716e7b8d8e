package org.lprff.vector.simd.panama;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The species the Vector API bodies use. Only the vectorization provider's vector branch reaches
 * this class, so the incubator classes load only once the module is known to be present.
 */
public final class VectorShape {

  /** Preferred float species of this platform: 256 bits (8 lanes) on AVX2, 512 on AVX-512. */
  public static final VectorSpecies<Float> FLOAT = FloatVector.SPECIES_PREFERRED;

  private VectorShape() {}

  /** Lanes of the preferred float species: 8 with 256-bit vectors, 16 with 512-bit ones. */
  public static int floatLanes() {
    return FLOAT.length();
  }

  /** Bits of the platform's preferred vectors. */
  public static int preferredBits() {
    return FLOAT.vectorBitSize();
  }

  /** E.g. {@code FloatVector 256-bit, 8 lanes}. */
  static String describe(VectorSpecies<?> species) {
    String type = species.elementType().getSimpleName();
    return Character.toUpperCase(type.charAt(0)) + type.substring(1) + "Vector "
        + species.vectorBitSize() + "-bit, " + species.length() + " lanes";
  }
}
