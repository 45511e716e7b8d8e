package org.lprff.vector.projection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.lprff.vector.kernel.KernelFunction;

class ProjectionsTest {

  private static final KernelFunction GAUSSIAN = new KernelFunction.Gaussian(2.0);

  @Test
  void everyNameCreatesThatProjectionFromTheSeedAlone() {
    float[] x = {0.5f, -1f, 2f, 0f, 3f, -0.25f, 1f, 1.5f, -2f};
    for (String name : Projections.NAMES) {
      Projection p = Projections.create(name, GAUSSIAN, 9, 40, 7L);
      assertEquals(name, p.name());
      assertEquals(9, p.inputDim());
      assertEquals(40, p.features());
      float[] a = new float[40];
      float[] b = new float[40];
      p.project(x, 0, 1, 0, 40, a, 0);
      Projections.create(name, GAUSSIAN, 9, 40, 7L).project(x, 0, 1, 0, 40, b, 0);
      assertArrayEquals(a, b, name + ": same seed, same projection");
    }
  }

  @Test
  void structuredProjectionsAreForTheGaussianKernelOnly() {
    KernelFunction laplacian = new KernelFunction.Laplacian(1.0);
    assertEquals("dense", Projections.create("dense", laplacian, 3, 8, 1L).name());
    for (String name : new String[] {"circulant", "fastfood", "orthogonal"}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> Projections.create(name, laplacian, 3, 8, 1L));
      assertTrue(e.getMessage().contains("'" + name + "'"), e.getMessage());
      assertTrue(e.getMessage().contains(laplacian.name()), e.getMessage());
    }
  }

  @Test
  void unknownNameIsRejectedByName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Projections.create("gaussian", GAUSSIAN, 3, 8, 1L));
    assertTrue(e.getMessage().contains("'gaussian'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Projections.create(null, GAUSSIAN, 3, 8, 1L));
    assertThrows(IllegalArgumentException.class, () -> Projections.create("dense", null, 3, 8, 1L));
  }
}
