package org.lprff.vector.featurize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lprff.fixtures.Messages.assertMessage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lprff.vector.codec.QuantizationScale;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.projection.Projections;

class FeaturizerSpecTest {

  private static final List<KernelFunction> KERNELS =
      List.of(
          new KernelFunction.Gaussian(1.5),
          new KernelFunction.Laplacian(0.25),
          new KernelFunction.Matern(0.5, 2.0),
          new KernelFunction.Matern(1.5, 0.3),
          new KernelFunction.Matern(2.5, 7.0));

  private static final int[] BITS = {1, 2, 4, 8, 16, 32};

  private static FeaturizerSpec gaussian(int bits) {
    return new FeaturizerSpec(
        new KernelFunction.Gaussian(2.0), 9, 100, bits, "dense", 42L, Quantizer.STOCHASTIC);
  }

  @Test
  void mapRoundTripsEveryKernelBitWidthQuantizerAndProjection() {
    int checked = 0;
    for (KernelFunction kernel : KERNELS) {
      for (int bits : BITS) {
        for (Quantizer q : new Quantizer[] {Quantizer.STOCHASTIC, Quantizer.NEAREST}) {
          for (String projection : Projections.NAMES) {
            if (!FeaturizerSpec.supports(projection, kernel)) {
              continue;
            }
            FeaturizerSpec spec =
                new FeaturizerSpec(kernel, 13, 777, bits, projection, -1234567890123L, q);
            Map<String, String> map = spec.toMap();
            assertEquals(spec, FeaturizerSpec.fromMap(map), map.toString());
            checked++;
          }
        }
      }
    }
    assertTrue(checked >= KERNELS.size() * BITS.length * 2);
  }

  @Test
  void mapHasTheArrowMetadataKeys() {
    Map<String, String> map =
        new FeaturizerSpec(
                new KernelFunction.Gaussian(3.0), 9, 1000, 4, "dense", 7L, Quantizer.NEAREST)
            .toMap();
    assertEquals(
        List.of(
            "lprff.kernel", "lprff.sigma", "lprff.input_dim", "lprff.features", "lprff.bits",
            "lprff.projection", "lprff.seed", "lprff.quantizer", "lprff.scale.lo",
            "lprff.scale.step", "lprff.bit_order"),
        List.copyOf(map.keySet()));
    assertEquals("gaussian", map.get("lprff.kernel"));
    assertEquals("3.0", map.get("lprff.sigma"));
    assertEquals("9", map.get("lprff.input_dim"));
    assertEquals("1000", map.get("lprff.features"));
    assertEquals("4", map.get("lprff.bits"));
    assertEquals("dense", map.get("lprff.projection"));
    assertEquals("7", map.get("lprff.seed"));
    assertEquals("nearest", map.get("lprff.quantizer"));
    assertEquals("lsb0", map.get("lprff.bit_order"));
    QuantizationScale scale = QuantizationScale.forFeatures(1000, 4);
    assertEquals(scale.lo(), Float.parseFloat(map.get("lprff.scale.lo")));
    assertEquals(scale.step(), Float.parseFloat(map.get("lprff.scale.step")));

    Map<String, String> matern =
        new FeaturizerSpec(
                new KernelFunction.Matern(1.5, 2.0), 9, 10, 32, "dense", 7L, Quantizer.STOCHASTIC)
            .toMap();
    assertEquals("matern", matern.get("lprff.kernel"));
    assertEquals("1.5", matern.get("lprff.nu"));
    assertEquals("2.0", matern.get("lprff.length_scale"));
    assertFalse(matern.containsKey("lprff.scale.lo"), "b = 32 has no scale");
  }

  @Test
  void rowBytes() {
    assertEquals(13, gaussian(1).rowBytes()); // ceil(100 / 8)
    assertEquals(25, gaussian(2).rowBytes());
    assertEquals(50, gaussian(4).rowBytes());
    assertEquals(100, gaussian(8).rowBytes());
    assertEquals(200, gaussian(16).rowBytes());
    assertEquals(400, gaussian(32).rowBytes());
  }

  @Test
  void fromMapIgnoresFileKeysAndChecksDerivedOnes() {
    FeaturizerSpec spec = gaussian(8);
    Map<String, String> map = new HashMap<>(spec.toMap());
    map.put("lprff.format.version", "1");
    map.put("pandas", "{}");
    assertEquals(spec, FeaturizerSpec.fromMap(map));

    Map<String, String> badLo = new HashMap<>(spec.toMap());
    badLo.put("lprff.scale.lo", "-0.5");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FeaturizerSpec.fromMap(badLo));
    assertTrue(e.getMessage().contains("lprff.scale.lo is -0.5"), e.getMessage());

    Map<String, String> badOrder = new HashMap<>(spec.toMap());
    badOrder.put("lprff.bit_order", "msb0");
    e = assertThrows(IllegalArgumentException.class, () -> FeaturizerSpec.fromMap(badOrder));
    assertTrue(e.getMessage().contains("msb0"), e.getMessage());

    Map<String, String> floatWithScale = new HashMap<>(gaussian(32).toMap());
    floatWithScale.put("lprff.scale.step", "0.1");
    e = assertThrows(IllegalArgumentException.class, () -> FeaturizerSpec.fromMap(floatWithScale));
    assertTrue(e.getMessage().contains("lprff.scale.step"), e.getMessage());

    Map<String, String> typo = new HashMap<>(spec.toMap());
    typo.put("lprff.sigmaa", "1.0");
    e = assertThrows(IllegalArgumentException.class, () -> FeaturizerSpec.fromMap(typo));
    assertTrue(e.getMessage().contains("sigmaa"), e.getMessage());

    Map<String, String> noSeed = new HashMap<>(spec.toMap());
    noSeed.remove("lprff.seed");
    e = assertThrows(IllegalArgumentException.class, () -> FeaturizerSpec.fromMap(noSeed));
    assertTrue(e.getMessage().contains("lprff.seed"), e.getMessage());

    Map<String, String> badBits = new HashMap<>(spec.toMap());
    badBits.put("lprff.bits", "eight");
    e = assertThrows(IllegalArgumentException.class, () -> FeaturizerSpec.fromMap(badBits));
    assertTrue(e.getMessage().contains("'eight'"), e.getMessage());

    Map<String, String> noKernel = new HashMap<>(spec.toMap());
    noKernel.remove("lprff.kernel");
    e = assertThrows(IllegalArgumentException.class, () -> FeaturizerSpec.fromMap(noKernel));
    assertTrue(e.getMessage().contains("lprff.kernel"), e.getMessage());
  }

  @Test
  void validationNamesTheValues() {
    KernelFunction g = new KernelFunction.Gaussian(1.0);
    assertMessage("bits is 3; expected 1, 2, 4, 8, 16 or 32 (float32)", // the one check's wording
        () -> new FeaturizerSpec(g, 9, 10, 3, "dense", 1, Quantizer.NEAREST));
    assertMessage("bits is 0", () -> new FeaturizerSpec(g, 9, 10, 0, "dense", 1, Quantizer.NEAREST));
    assertMessage("inputDim is 0", () -> new FeaturizerSpec(g, 0, 10, 8, "dense", 1, Quantizer.NEAREST));
    assertMessage("features is -1", () -> new FeaturizerSpec(g, 9, -1, 8, "dense", 1, Quantizer.NEAREST));
    assertMessage("projection is 'sparse'",
        () -> new FeaturizerSpec(g, 9, 10, 8, "sparse", 1, Quantizer.NEAREST));
    assertMessage("projection is null",
        () -> new FeaturizerSpec(g, 9, 10, 8, null, 1, Quantizer.NEAREST));
    assertMessage("kernel is null",
        () -> new FeaturizerSpec(null, 9, 10, 8, "dense", 1, Quantizer.NEAREST));
    assertMessage("quantizer is null", () -> new FeaturizerSpec(g, 9, 10, 8, "dense", 1, null));
    assertMessage("quantizer is 'round'", () -> Quantizer.parse("round"));
    assertMessage("sigma is -1.0", () -> new KernelFunction.Gaussian(-1.0));
    assertMessage("features at 32 bits need",
        () -> new FeaturizerSpec(g, 1, Integer.MAX_VALUE, 32, "dense", 1, Quantizer.NEAREST));
  }

  @Test
  void structuredProjectionsRejectNonGaussianKernels() {
    // Runs for every structured name the factory knows (none while only dense is registered):
    // the check itself is exercised through supports().
    assertFalse(FeaturizerSpec.supports("circulant", new KernelFunction.Laplacian(1.0)));
    assertTrue(FeaturizerSpec.supports("circulant", new KernelFunction.Gaussian(1.0)));
    assertTrue(FeaturizerSpec.supports("dense", new KernelFunction.Matern(1.5, 1.0)));
    for (String name : Projections.NAMES) {
      if (name.equals("dense")) {
        continue;
      }
      for (KernelFunction kernel : KERNELS) {
        if (kernel.supportsStructuredProjections()) {
          continue;
        }
        IllegalArgumentException e =
            assertThrows(
                IllegalArgumentException.class,
                () -> new FeaturizerSpec(kernel, 9, 64, 8, name, 1, Quantizer.STOCHASTIC));
        assertTrue(e.getMessage().contains(name), e.getMessage());
        assertTrue(e.getMessage().contains(kernel.name()), e.getMessage());
        assertTrue(e.getMessage().contains("gaussian"), e.getMessage());
      }
    }
  }

  @Test
  void everyQuantizerRoundTripsThroughItsMetadata() {
    List<Quantizer> quantizers = List.of(Quantizer.STOCHASTIC, Quantizer.NEAREST,
        Quantizer.SHARED_THRESHOLD, Quantizer.LLOYD_MAX, Quantizer.sigmaDelta(1, 4),
        Quantizer.sigmaDelta(2, 8));
    for (Quantizer q : quantizers) {
      for (int bits : new int[] {2, 4, 8, 32}) {
        FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1.5), 3, 64, bits,
            "circulant", 7, q);
        Map<String, String> map = spec.toMap();
        assertEquals(spec, FeaturizerSpec.fromMap(map), q + " at " + bits + " bits");
        assertEquals(q.key(), map.get(FeaturizerSpec.KEY_QUANTIZER));
        boolean codebook = q == Quantizer.LLOYD_MAX && bits != 32;
        assertEquals(codebook, map.containsKey(Quantizer.KEY_CODEBOOK));
        assertEquals(!codebook && bits != 32, map.containsKey(FeaturizerSpec.KEY_SCALE_LO));
        assertEquals(q instanceof Quantizer.SigmaDelta,
            map.containsKey(Quantizer.KEY_CONDENSATION));
        assertEquals(q instanceof Quantizer.SigmaDelta sd ? 64 / sd.block() : 64,
            spec.modelFeatures());
      }
    }
  }

  @Test
  void aFileWhoseDecodingDisagreesWithItsSpecIsRefused() {
    FeaturizerSpec lm = new FeaturizerSpec(new KernelFunction.Gaussian(1), 2, 16, 1, "dense", 1,
        Quantizer.LLOYD_MAX);
    Map<String, String> map = new HashMap<>(lm.toMap());
    map.put(Quantizer.KEY_CODEBOOK, "-0.3,0.3");
    assertMessage(() -> FeaturizerSpec.fromMap(map), "lprff.codebook is -0.3,0.3", "give");
    Map<String, String> withScale = new HashMap<>(lm.toMap());
    withScale.put(FeaturizerSpec.KEY_SCALE_LO, "-0.25");
    assertMessage(() -> FeaturizerSpec.fromMap(withScale), "lprff.scale.lo", "absent");
    FeaturizerSpec sd = lm.withQuantizer(Quantizer.sigmaDelta(1, 4));
    Map<String, String> condensation = new HashMap<>(sd.toMap());
    condensation.put(Quantizer.KEY_CONDENSATION, "2,2,2,2");
    assertMessage(() -> FeaturizerSpec.fromMap(condensation), "lprff.condensation is 2,2,2,2");
    assertMessage(() -> lm.withBits(16), "lloyd-max", "bits is 16");
    assertMessage(() -> sd.withQuantizer(Quantizer.sigmaDelta(1, 3)), "features is 16", "block 3");
    assertEquals(sd, sd.scoringSpec());
    assertEquals(32, lm.withQuantizer(Quantizer.STOCHASTIC).scoringSpec().bits());
  }
}
