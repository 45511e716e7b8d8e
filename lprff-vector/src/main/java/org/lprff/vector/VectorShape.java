package org.lprff.vector;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The species every Vector API body uses. Kept apart from {@link Kernels} so that the
 * incubator classes are only loaded once the module is known to be present.
 */
final class VectorShape {

  /** Preferred float species of this platform: 256 bits (8 lanes) on AVX2. */
  static final VectorSpecies<Float> FLOAT = FloatVector.SPECIES_PREFERRED;

  private VectorShape() {}

  static int floatLanes() {
    return FLOAT.length();
  }

  static String describe() {
    return "FloatVector " + FLOAT.vectorBitSize() + "-bit, " + FLOAT.length() + " lanes";
  }
}
