package org.lprff.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed seed corpus is what {@link SeedCorpus} writes (so it is valid input, read to a
 * result by the targets' regression runs), and every seed is small.
 */
class SeedCorpusTest {

  @TempDir Path work;

  @Test
  void committedSeedsAreCurrentAndSmall() throws IOException {
    String resources = System.getProperty("lprff.fuzz.writeSeeds.to", "");
    if (Boolean.getBoolean("lprff.fuzz.writeSeeds")) {
      SeedCorpus.write(Path.of(resources), work);
    }
    int seeds = 0;
    for (Map.Entry<String, Map<String, byte[]>> target : SeedCorpus.all(work).entrySet()) {
      for (Map.Entry<String, byte[]> seed : target.getValue().entrySet()) {
        String resource = target.getKey() + "/seed-" + seed.getKey();
        byte[] committed;
        try (InputStream in = SeedCorpusTest.class.getResourceAsStream(resource)) {
          assertTrue(in != null, resource + " is missing: regenerate the corpus (SeedCorpus)");
          committed = in.readAllBytes();
        }
        assertTrue(committed.length <= 8192, resource + " has " + committed.length + " bytes");
        if (!seed.getKey().endsWith(".gz")) { // gzip headers carry a time
          assertArrayEquals(seed.getValue(), committed, resource + " is stale: regenerate it");
        }
        seeds++;
      }
    }
    assertEquals(11, SeedCorpus.all(work).size(), "targets");
    assertTrue(seeds > 40, seeds + " seeds");
  }
}
