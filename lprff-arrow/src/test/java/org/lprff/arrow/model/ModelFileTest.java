package org.lprff.arrow.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.BatchChecksums;
import org.lprff.arrow.input.Standardization;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.kernel.KernelFunction;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.train.model.LinearModel;
import org.lprff.vector.train.loss.Task;

class ModelFileTest {

  @TempDir Path dir;

  private static FittedModel model(int bits, int outputs, boolean standardized) {
    FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(2.0), 5, 37, bits,
        "dense", 42L, Quantizer.STOCHASTIC); // FeatureTestData.spec(bits)
    int m = spec.features();
    SplittableRandom r = new SplittableRandom(3);
    float[] wT = new float[m * outputs];
    float[] bias = new float[outputs];
    for (int i = 0; i < wT.length; i++) {
      wT[i] = (float) r.nextGaussian();
    }
    for (int j = 0; j < outputs; j++) {
      bias[j] = j - 0.5f;
    }
    Standardization s = standardized
        ? Standardization.of(List.of("a", "b", "c", "d", "e"), new double[] {1, 2, 3, 4, 5},
            new double[] {.5, 1, 2, 3, 4})
        : null;
    return new FittedModel(spec, s, outputs == 1 ? Task.REGRESSION : Task.multiclass(outputs),
        1e-6, LinearModel.of(m, outputs, wT, bias), Map.of("epochs", "7"));
  }

  @Test
  void roundTripIsExact() throws IOException {
    for (int outputs : new int[] {1, 3}) {
      FittedModel written = model(4, outputs, outputs == 3);
      Path file = dir.resolve("m" + outputs + ".lprff");
      ModelFile.write(file, written);
      FittedModel read = ModelFile.read(file);
      assertEquals(written.spec(), read.spec());
      assertEquals(written.standardization(), read.standardization());
      assertEquals(written.task(), read.task());
      assertEquals(written.classes(), read.classes());
      assertEquals(written.l2(), read.l2());
      assertArrayEquals(written.weights().weightsT(), read.weights().weightsT());
      assertArrayEquals(written.weights().bias(), read.weights().bias());
      assertEquals("7", read.training().get("epochs"));
      if (outputs == 1) {
        assertNull(read.standardization());
      }
      try (var s = Files.list(dir)) {
        assertTrue(s.noneMatch(p -> p.getFileName().toString().contains(".tmp")));
      }
    }
  }

  @Test
  void truncatedOrForeignFilesAreRefusedNamingTheFile() throws IOException {
    Path file = dir.resolve("m.lprff");
    ModelFile.write(file, model(8, 3, true));
    byte[] bytes = Files.readAllBytes(file);
    for (int cut : new int[] {0, 10, bytes.length / 2, bytes.length - 1}) {
      Path bad = dir.resolve("cut" + cut + ".lprff");
      Files.write(bad, Arrays.copyOf(bytes, cut));
      IOException e = assertThrows(IOException.class, () -> ModelFile.read(bad));
      assertTrue(e.getMessage().startsWith(bad.toString()) && e.getMessage().contains("model"),
          e.getMessage());
    }
    IOException e = assertThrows(IOException.class, () -> ModelFile.read(dir.resolve("none")));
    assertTrue(e.getMessage().contains("no such model file"), e.getMessage());
  }

  @Test
  void aFlippedWeightBitIsRefusedAndModelsWithoutChecksumsStillRead() throws IOException {
    FittedModel written = model(8, 3, true);
    Path file = dir.resolve("m.lprff");
    ModelFile.write(file, written);
    byte[] bytes = Files.readAllBytes(file);
    // A weight inside the body: the first float of the weights whose bits equal weightsT[5]'s.
    int bits = Float.floatToRawIntBits(written.weights().weightsT()[5]);
    int at = -1;
    for (int i = 0; i + 4 <= bytes.length && at < 0; i++) {
      if ((bytes[i] & 0xff | (bytes[i + 1] & 0xff) << 8 | (bytes[i + 2] & 0xff) << 16
          | (bytes[i + 3] & 0xff) << 24) == bits) {
        at = i;
      }
    }
    assertTrue(at > 0, "weight 5 is in the file");
    bytes[at] ^= 1; // a last-bit change of one weight: a valid float, only the checksum sees it
    Path damaged = dir.resolve("damaged.lprff");
    Files.write(damaged, bytes);
    IOException e = assertThrows(IOException.class, () -> ModelFile.read(damaged));
    assertTrue(e.getMessage().startsWith(damaged + ": damaged after it was written: record batch 0"),
        e.getMessage());
    assertTrue(e.getMessage().contains("fails its CRC32C check"), e.getMessage());

    // Written by Arrow's own writer, as models were before checksums: read as before.
    Path old = dir.resolve("old.lprff");
    try (BufferAllocator allocator = new RootAllocator();
        FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(in, allocator);
        FileChannel out = FileChannel.open(old, StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE);
        ArrowFileWriter writer = new ArrowFileWriter(reader.getVectorSchemaRoot(), null, out)) {
      writer.start();
      while (reader.loadNextBatch()) {
        writer.writeBatch();
      }
      writer.end();
    }
    assertEquals(0, BatchChecksums.verify(old).checked());
    assertArrayEquals(written.weights().weightsT(), ModelFile.read(old).weights().weightsT());
  }

  @Test
  void weightsMustMatchTheSpec() {
    FittedModel ok = model(8, 1, false);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new FittedModel(ok.spec(), null, Task.REGRESSION, 0,
            LinearModel.zeros(ok.spec().features() + 1, 1), null));
    assertTrue(e.getMessage().contains("m = " + ok.spec().features()), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> new FittedModel(ok.spec(), null, Task.multiclass(3), 0, ok.weights(), null));
    assertTrue(e.getMessage().contains("1 outputs") && e.getMessage().contains("has 3"),
        e.getMessage());
  }
}
